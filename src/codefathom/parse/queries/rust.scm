; Rust: functions, structs, enums, unions, traits, type aliases, impl blocks (named after their
; type), inline modules and macro_rules. Functions inside impl and trait blocks become methods.
(function_item
  name: (identifier) @name) @definition.function

; Trait methods without a default body.
(function_signature_item
  name: (identifier) @name) @definition.function

(struct_item
  name: (type_identifier) @name) @definition.struct

(enum_item
  name: (type_identifier) @name) @definition.enum

(union_item
  name: (type_identifier) @name) @definition.union

(trait_item
  name: (type_identifier) @name) @definition.trait

; Type aliases at module level; associated types (`type Output = u8;` in an impl) stay in their block.
(source_file
  (type_item
    name: (type_identifier) @name) @definition.type)

(mod_item
  body: (declaration_list
    (type_item
      name: (type_identifier) @name) @definition.type))

; `impl<T> Trait for a::Foo<T>` is named Foo, `impl Trait for &'a mut Foo` too; slices, arrays
; and tuples keep their written form (`[u8]`), through a reference too (`impl Trait for &'a [T]`).
(impl_item
  type: [
    (type_identifier) @name
    (primitive_type) @name
    (array_type) @name
    (tuple_type) @name
    (generic_type type: (type_identifier) @name)
    (scoped_type_identifier name: (type_identifier) @name)
    (generic_type type: (scoped_type_identifier name: (type_identifier) @name))
    (dynamic_type trait: (type_identifier) @name)
    (reference_type type: (type_identifier) @name)
    (reference_type type: (primitive_type) @name)
    (reference_type type: (array_type) @name)
    (reference_type type: (tuple_type) @name)
    (reference_type type: (generic_type type: (type_identifier) @name))
    (reference_type type: (scoped_type_identifier name: (type_identifier) @name))
    (pointer_type type: (type_identifier) @name)
  ]) @definition.impl

; `mod name { ... }` only: `mod name;` is a reference to another file.
(mod_item
  name: (identifier) @name
  body: (declaration_list)) @definition.module

(macro_definition
  name: (identifier) @name) @definition.function
