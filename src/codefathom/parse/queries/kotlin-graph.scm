; Kotlin graph facts: references, imports, type evidence and properties.
; Capture vocabulary: parse/facts.py. Classes, objects and functions come from kotlin.scm; receivers
; and types are rewritten into dotted expressions by parse/hooks/kotlin.py (`a?.b!!.c` -> `a.b.c`,
; `listOf<Foo>()` -> `listOf[Foo]()`, `(x as Foo).f` -> `Foo(x).f`, `List<Foo>` -> `List[Foo]`).
; Kotlin has no `new`: a call of a class's name is an instantiation, bound to the class. Single
; upper-case letters are type parameters by convention (`List<T>`), never the project's classes.

; Calls: `f()`, `f<T>()`, `f { }`, `x.f()`, `x?.f()`, `this.f()`, `super.f()`, `Foo.f()` (a companion
; object's or an object's member), `Foo()`, `a.b.Foo()`.
(call_expression . (identifier) @name) @reference.call
(call_expression . (navigation_expression . (_) @receiver . (identifier) @name .)) @reference.call
; Callable references: `::f`, `Foo::f`, `this::f` (not `Foo::class`, which names the class: a type below).
(callable_reference . (identifier) @name .) @reference.call
((navigation_expression . (_) @receiver . "::" . (identifier) @name .) @reference.call
  (#not-eq? @name "class"))

; Inheritance: `class A : Base(), Runner`, `object O : Runner`, `interface I : J`, `B by b`. An object
; expression's supertypes (`object : Runnable { }`) are only types: it is no class of the scope it is in.
(class_declaration
  (delegation_specifiers
    (delegation_specifier
      [(user_type . (identifier) @name .)
       (user_type . (identifier) @name . (type_arguments) .)
       (constructor_invocation (user_type . (identifier) @name .))
       (constructor_invocation (user_type . (identifier) @name . (type_arguments) .))
       (explicit_delegation (user_type . (identifier) @name .))]))) @reference.inherit
(object_declaration
  (delegation_specifiers
    (delegation_specifier
      [(user_type . (identifier) @name .)
       (user_type . (identifier) @name . (type_arguments) .)
       (constructor_invocation (user_type . (identifier) @name .))]))) @reference.inherit

; Annotations: `@Test`, `@Named("x")`, `@get:JvmName("x")`, `@field:Inject`.
(annotation (user_type . (identifier) @name .)) @reference.decorator
(annotation (constructor_invocation (user_type . (identifier) @name .))) @reference.decorator

; Every other written type: properties, parameters, results, receivers of extensions, type
; arguments, `is`, `as`, `catch`, supertypes, `Foo::class`. `Outer.Inner` is Inner reached through
; Outer (a package prefix `a.b.Foo` too): the hook reads the qualifier from the whole type.
(((user_type . (identifier) @name .) @reference.type)
  (#not-match? @name "^[A-Z]$"))
(((user_type . (identifier) @name . (type_arguments) .) @reference.type)
  (#not-match? @name "^[A-Z]$"))
(((user_type (identifier) . "." . (identifier) @name . (type_arguments)? .) @receiver @reference.type)
  (#match? @name "^[A-Z]"))

; Imports (`import a.b.C`, `import a.b.*`, `import a.b.C as D`, `import a.b.topLevelFunction`):
; parsed by parse/hooks/kotlin.py.
(import) @import

; Properties are members of their class (an object's, a companion object's), constants at the top
; level: `repo`, `this.repo`, `Config.DEFAULT`; a primary constructor's `val`/`var` parameters too.
; (A property in a function body is a local: parse/facts.py drops it.)
(property_declaration (variable_declaration . (identifier) @name)) @definition.field
(class_parameter ["val" "var"] . (identifier) @name) @definition.field
(enum_entry . (identifier) @name) @definition.field

; Type evidence. A property or local has the type it is declared with, else its initializer's.
(variable_declaration . (identifier) @variable . (_) @type) @hint.annotation
((property_declaration
  (variable_declaration . (identifier) @variable .)
  .
  [(call_expression) (navigation_expression) (identifier) (as_expression) (this_expression)
   (parenthesized_expression) (unary_expression) (index_expression)] @type) @hint.assign)
((property_declaration
  (variable_declaration . (identifier) @variable .)
  .
  [(string_literal) (number_literal) (float_literal) (character_literal) (multiline_string_literal)] @type)
  @hint.literal)
(class_parameter (identifier) @variable . (_) @type) @hint.annotation
(parameter . (identifier) @variable . (_) @type) @hint.parameter
(catch_block . (identifier) @variable . (_) @type) @hint.annotation
(for_statement (variable_declaration . (identifier) @variable .) . (_) @type) @hint.element
; A function's declared result, and an extension function's receiver: the type whose instances it
; is called on (`fun Order.total()` called as `order.total()`).
(function_declaration
  name: (identifier) @variable
  (function_value_parameters)
  .
  [(user_type) (nullable_type) (function_type) (parenthesized_type)] @type) @hint.returns
(function_declaration
  [(user_type) (nullable_type) (parenthesized_type)] @type
  .
  "."
  .
  name: (identifier) @variable) @hint.extension

; Every name a function binds: a local or parameter shadows a property or class of that name.
(property_declaration (variable_declaration . (identifier) @variable)) @binding
(property_declaration (multi_variable_declaration (variable_declaration . (identifier) @variable))) @binding
(parameter . (identifier) @variable) @binding
(catch_block . (identifier) @variable) @binding
(for_statement (variable_declaration . (identifier) @variable)) @binding
(for_statement (multi_variable_declaration (variable_declaration . (identifier) @variable))) @binding
(lambda_parameters (variable_declaration . (identifier) @variable)) @binding
(lambda_parameters (multi_variable_declaration (variable_declaration . (identifier) @variable))) @binding
; A class's or function's type parameters (`<K, Item>`) are names it binds, not classes.
(type_parameter . (identifier) @variable) @binding
