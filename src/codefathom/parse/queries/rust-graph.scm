; Rust graph facts: references, imports, type evidence and enum variants.
; Capture vocabulary: parse/facts.py. Items and impl blocks come from rust.scm; receivers and types
; are rewritten into dotted expressions by parse/hooks/rust.py (`a::b` -> `a.b`, `x?` -> `x.unwrap()`).
; Single upper-case letters are type parameters by convention (`Vec<T>`) and are left out.

; Calls: `foo()`, `a::b::foo()`, `Type::assoc()`, `x.method()`, with or without a turbofish.
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (scoped_identifier path: (_) @receiver name: (identifier) @name)) @reference.call
(call_expression function: (field_expression value: (_) @receiver field: (field_identifier) @name)) @reference.call
(call_expression function: (generic_function function: (identifier) @name)) @reference.call
(call_expression
  function: (generic_function function: (scoped_identifier path: (_) @receiver name: (identifier) @name))) @reference.call
(call_expression
  function: (generic_function
    function: (field_expression value: (_) @receiver field: (field_identifier) @name))) @reference.call

; Struct literals instantiate their type: `Foo { .. }`, `a::Foo { .. }`, `Shape::Square { .. }`.
((struct_expression name: (type_identifier) @name) @reference.call
  (#not-eq? @name "Self"))
(struct_expression name: (scoped_type_identifier path: (_) @receiver name: (type_identifier) @name)) @reference.call

; Functions named as values: passed (`and_then(convert_address)`, `VTable::new(clone, drop)`), set in a
; struct (`read: read_output::<T>`), returned or bound.
(arguments (identifier) @name) @reference.read
(arguments (scoped_identifier path: (_) @receiver name: (identifier) @name)) @reference.read
(arguments (generic_function function: (identifier) @name)) @reference.read
(field_initializer value: (identifier) @name) @reference.read
(field_initializer value: (generic_function function: (identifier) @name)) @reference.read
(let_declaration value: (identifier) @name) @reference.read
; A unit struct or a function as a value in an array, a tuple, a borrow or a return
; (`const FLAGS: &[&dyn Flag] = &[&Regexp, &File]`).
(reference_expression value: (identifier) @name) @reference.read
(array_expression (identifier) @name) @reference.read
(tuple_expression (identifier) @name) @reference.read
(return_expression (identifier) @name) @reference.read

; Calls written inside a macro's arguments (`assert_eq!(used(), 1)`, `ready!(poll(cx))`), which the
; grammar leaves as a token tree: a name followed by a parenthesised group; `x.f()` with its receiver.
(token_tree (identifier) @receiver . "." . (identifier) @name . (token_tree)) @reference.call
((token_tree (identifier) @name . (token_tree) @_args) @reference.call
  (#match? @_args "^\\("))

; Macro invocations: a `macro_rules!` of the project, or a builtin or external macro.
(macro_invocation macro: (identifier) @name) @reference.call
(macro_invocation macro: (scoped_identifier path: (_) @receiver name: (identifier) @name)) @reference.call
; A macro invoked inside another's token tree (`cfg_rt! { cfg_not_rt_multi_thread! { ... } }`), or in a
; `macro_rules!` body: the grammar leaves it as tokens, so it is read from `name ! (...)`.
(token_tree (identifier) @name . "!" . (token_tree)) @reference.call

; Names inside token trees (a macro's arguments, a `macro_rules!` body) where the tokens say what they
; are: one passed whole as an argument is a value (`extend!(self, par_iter, heap_extend)`: a function
; named as a value; a local of that name binds it first), a capitalised one a type, trait, unit struct
; or variant (`thread_local!(static CURRENT: LocalData = ...)`, `impl UnindexedRangeLen<$t> for ...`).
; Upper-case names are constants, which dead code does not list; single letters are type parameters.
(token_tree ["(" ","] . (identifier) @name . ["," ")"]) @reference.read
((token_tree (identifier) @name) @reference.type
  (#match? @name "^[A-Z][A-Z0-9_]*[a-z]"))

; `impl Trait for Type`: the type inherits the trait's default methods; a trait its supertraits';
; `#[derive(Clone)]` implements a trait outside the project (its methods are not the project's).
(impl_item trait: (type_identifier) @name) @reference.inherit
(impl_item trait: (scoped_type_identifier path: (_) @receiver name: (type_identifier) @name)) @reference.inherit
(impl_item trait: (generic_type type: (type_identifier) @name)) @reference.inherit
(impl_item
  trait: (generic_type type: (scoped_type_identifier path: (_) @receiver name: (type_identifier) @name))) @reference.inherit
((attribute_item
  (attribute (identifier) @_derive arguments: (token_tree (identifier) @name))) @reference.inherit
  (#eq? @_derive "derive"))
(trait_item bounds: (trait_bounds (type_identifier) @name)) @reference.inherit
(trait_item
  bounds: (trait_bounds (scoped_type_identifier path: (_) @receiver name: (type_identifier) @name))) @reference.inherit

; Attributes that may make an item an entry point or register it (`#[test]`, `#[tokio::main]`,
; `#[no_mangle]`, `#[pyfunction]`): dead code reads them (service/graph.py). Lints, docs, layout,
; conditions, derives and what goes with a test say nothing of how an item is used and are left out.
((attribute_item (attribute (identifier) @name)) @reference.decorator
  (#not-match? @name "^(derive|cfg|cfg_attr|allow|warn|deny|forbid|expect|doc|inline|must_use|deprecated|repr|non_exhaustive|cold|track_caller|automatically_derived|rustfmt|clippy|should_panic|ignore|macro_use|path)$"))
((attribute_item (attribute (scoped_identifier path: (_) @receiver name: (identifier) @name))) @reference.decorator
  (#not-match? @receiver "^(rustfmt|clippy)$"))

; Types written in signatures, fields, bindings, casts, bounds and type arguments (not the type an
; impl block is for: the block is that type's own code).
([
  (parameter type: (type_identifier) @name)
  (let_declaration type: (type_identifier) @name)
  (field_declaration type: (type_identifier) @name)
  (ordered_field_declaration_list type: (type_identifier) @name)
  (function_item return_type: (type_identifier) @name)
  (function_signature_item return_type: (type_identifier) @name)
  (closure_expression return_type: (type_identifier) @name)
  (reference_type type: (type_identifier) @name)
  (pointer_type type: (type_identifier) @name)
  (generic_type type: (type_identifier) @name)
  (type_arguments (type_identifier) @name)
  (type_binding type: (type_identifier) @name)
  (array_type element: (type_identifier) @name)
  (tuple_type (type_identifier) @name)
  (trait_bounds (type_identifier) @name)
  (dynamic_type trait: (type_identifier) @name)
  (abstract_type trait: (type_identifier) @name)
  (bounded_type (type_identifier) @name)
  (type_cast_expression type: (type_identifier) @name)
  (const_item type: (type_identifier) @name)
  (static_item type: (type_identifier) @name)
  (type_item type: (type_identifier) @name)
] @reference.type
  (#not-match? @name "^([A-Z]|_)$")
  (#not-eq? @name "Self"))
; An associated type of a type parameter or of `Self` (`I::Item`, `Self::Output`) names no definition.
((scoped_type_identifier path: (_) @receiver name: (type_identifier) @name) @reference.type
  (#not-match? @name "^[A-Z]$")
  (#not-match? @receiver "^([A-Z][A-Z0-9_]{0,2}|Self)$"))

; Imports: `use` trees, `mod foo;` (the file foo.rs or foo/mod.rs) and `extern crate`; parsed
; by parse/hooks/rust.py.
(use_declaration) @import
(mod_item !body) @import
(extern_crate_declaration) @import

; An impl block adds methods to its type: a scope, not a definition of the type's name.
(impl_item) @definition.block

; Enum variants are members of their enum: `Shape::Circle(..)`, `use Shape::*; Circle(..)`.
(enum_variant name: (identifier) @name) @definition.field

; Type evidence: a `let` with a type, a struct literal, or its value's expression (a call, a
; path, a reference); typed parameters and closure parameters; struct fields (`self.items`);
; declared results; what a `for` iterates over.
(let_declaration pattern: (identifier) @variable type: (_) @type) @hint.annotation
(let_declaration
  pattern: (identifier) @variable
  !type
  value: (struct_expression name: (_) @type)) @hint.annotation
(let_declaration pattern: (identifier) @variable !type value: (call_expression) @type) @hint.assign
(let_declaration
  pattern: (identifier) @variable
  !type
  value: [(identifier) (field_expression) (scoped_identifier) (reference_expression) (try_expression)
          (await_expression) (index_expression)] @type) @hint.alias
(parameter pattern: (identifier) @variable type: (_) @type) @hint.parameter
(field_declaration name: (field_identifier) @variable type: (_) @type) @hint.annotation
(function_item name: (identifier) @variable return_type: (_) @type) @hint.returns
(function_signature_item name: (identifier) @variable return_type: (_) @type) @hint.returns
(for_expression pattern: (identifier) @variable value: (_) @type) @hint.element

; Every name a function binds: a local shadows an item of the same name.
(let_declaration pattern: (_) @variable) @binding
(parameter pattern: (_) @variable) @binding
(closure_parameters (identifier) @variable) @binding
(for_expression pattern: (_) @variable) @binding
((tuple_struct_pattern (identifier) @variable) @binding
  (#match? @variable "^[a-z_]"))
((match_pattern (identifier) @variable) @binding
  (#match? @variable "^[a-z_]"))
(field_pattern pattern: (identifier) @variable) @binding
(captured_pattern . (identifier) @variable) @binding
(type_parameter name: (type_identifier) @variable) @binding
