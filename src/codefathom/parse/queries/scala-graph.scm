; Scala graph facts: references, imports, type evidence and fields.
; Capture vocabulary: parse/facts.py. Classes, objects, traits and defs come from scala.scm; receivers
; and types are rewritten into dotted expressions by parse/hooks/scala.py (`new Foo(x).f` -> `Foo(x).f`,
; `xs.map { o => o }.head` -> `xs.map().head`, `=> Foo` -> `Foo`). A class and its companion object
; share a qualified name, so `Foo.make()` finds the object's member and `Foo(x)` is an instantiation.
; Single upper-case letters are type parameters by convention (`List[T]`), never the project's classes.

; Calls: `f(x)`, `f[T](x)`, `x.f(y)`, `x.f[T](y)`, `this.f()`, `super.f()`, `Foo.make()`, `Foo(x)`.
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (generic_function function: (identifier) @name)) @reference.call
(call_expression
  function: (field_expression value: (_) @receiver field: (identifier) @name)) @reference.call
(call_expression
  function: (generic_function
    function: (field_expression value: (_) @receiver field: (identifier) @name))) @reference.call
; A member written without parentheses (`order.total`, `repo.size`) may be a parameterless `def`:
; a call, which binds to a field as well (Scala has one namespace for both).
(field_expression value: (_) @receiver field: (identifier) @name) @reference.call
; Infix calls of named methods: `a max b`, `xs contains x` (operators are no identifiers).
(infix_expression left: (_) @receiver operator: (identifier) @name) @reference.call
; `new Foo`, `new Foo(x)`, `new Foo[T](x)`, `new a.b.Foo(x)`: a call of the class.
(instance_expression . (type_identifier) @name) @reference.call
(instance_expression . (generic_type type: (type_identifier) @name)) @reference.call
(instance_expression . (stable_type_identifier (stable_identifier) @receiver . (type_identifier) @name .))
  @reference.call

; Inheritance: `extends A(x) with B with C[T]`, for classes, objects, traits and enums.
; (Only the first supertype is the `type:` field's: the others are children without a field.)
(extends_clause (type_identifier) @name) @reference.inherit
(extends_clause (generic_type type: (type_identifier) @name)) @reference.inherit
(extends_clause (stable_type_identifier (stable_identifier) @receiver . (type_identifier) @name .))
  @reference.inherit

; Annotations: `@Test`, `@deprecated("x")`, `@a.b.Marker`.
(annotation name: (type_identifier) @name) @reference.decorator
(annotation name: (stable_type_identifier (stable_identifier) @receiver . (type_identifier) @name .))
  @reference.decorator

; Every other written type: vals, parameters, results, type arguments, patterns (`case c: Foo`,
; `case Foo(a, b)`), `classOf[Foo]`. `a.b.Foo` is Foo reached through `a.b`.
(((type_identifier) @name @reference.type)
  (#not-match? @name "^[A-Z]$"))
((stable_type_identifier (stable_identifier) @receiver . (type_identifier) @name .) @reference.type)

; Imports (`import a.b.C`, `import a.b._`, `import a.b.*`, `import a.b.{C, D => E}`): parsed by
; parse/hooks/scala.py.
(import_declaration) @import

; Vals and vars are members of their class, object or trait (a local in a def: parse/facts.py drops
; it); a class's parameters are its fields too, seen by the class's methods (`repo.save()`).
(val_definition pattern: (identifier) @name) @definition.field
(var_definition pattern: (identifier) @name) @definition.field
(val_declaration name: (identifier) @name) @definition.field
(var_declaration name: (identifier) @name) @definition.field
(class_parameter name: (identifier) @name) @definition.field

; Type evidence. A val has the type it is declared with, else its initializer's.
(val_definition pattern: (identifier) @variable type: (_) @type) @hint.annotation
(var_definition pattern: (identifier) @variable type: (_) @type) @hint.annotation
(val_declaration name: (identifier) @variable type: (_) @type) @hint.annotation
(var_declaration name: (identifier) @variable type: (_) @type) @hint.annotation
((val_definition
  pattern: (identifier) @variable
  !type
  value: [(call_expression) (instance_expression) (field_expression) (identifier) (generic_function)
          (parenthesized_expression)] @type) @hint.assign)
((var_definition
  pattern: (identifier) @variable
  !type
  value: [(call_expression) (instance_expression) (field_expression) (identifier) (generic_function)
          (parenthesized_expression)] @type) @hint.assign)
((val_definition
  pattern: (identifier) @variable
  !type
  value: [(string) (integer_literal) (floating_point_literal) (boolean_literal) (character_literal)
          (interpolated_string_expression)] @type) @hint.literal)
(class_parameter name: (identifier) @variable type: (_) @type) @hint.annotation
(parameter name: (identifier) @variable type: (_) @type) @hint.parameter
(binding name: (identifier) @variable type: (_) @type) @hint.parameter
(typed_pattern pattern: (identifier) @variable type: (_) @type) @hint.annotation
(enumerator . (identifier) @variable . "<-" . (_) @type) @hint.element
; A def's declared result.
(function_definition name: (identifier) @variable return_type: (_) @type) @hint.returns
(function_declaration name: (identifier) @variable return_type: (_) @type) @hint.returns
; Extension methods: Scala 3's `extension (o: Order) def label = ...`, and the methods of an
; `implicit class RichOrder(o: Order)`, are found on the instances of the type they extend.
(extension_definition
  parameters: (parameters . (parameter type: (_) @type))
  (function_definition name: (identifier) @variable)) @hint.extension
(class_definition
  (modifiers "implicit")
  class_parameters: (class_parameters . (class_parameter type: (_) @type))
  body: (template_body (function_definition name: (identifier) @variable))) @hint.extension

; Every name a def binds: a local or parameter shadows a field or class of that name.
(val_definition pattern: (identifier) @variable) @binding
(var_definition pattern: (identifier) @variable) @binding
(val_definition pattern: (tuple_pattern (identifier) @variable)) @binding
(parameter name: (identifier) @variable) @binding
(binding name: (identifier) @variable) @binding
(lambda_expression parameters: (identifier) @variable) @binding
(enumerator . (identifier) @variable) @binding
(enumerator . (tuple_pattern (identifier) @variable)) @binding
(case_clause pattern: (identifier) @variable) @binding
(typed_pattern pattern: (identifier) @variable) @binding
(tuple_pattern (identifier) @variable) @binding
(case_class_pattern pattern: (identifier) @variable) @binding
; A class's or def's type parameters (`[K, Item]`) are names it binds, not classes.
(type_parameters name: (identifier) @variable) @binding
