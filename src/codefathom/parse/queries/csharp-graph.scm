; C# graph facts: references, imports, type evidence, fields and properties.
; Capture vocabulary: parse/facts.py. Types, methods and constructors come from csharp.scm; receivers
; and types are rewritten into dotted expressions by parse/hooks/csharp.py (`new Foo(x).Bar` ->
; `Foo(x).Bar`, `List<Foo>` -> `List[Foo]`, `a?.b` -> `a.b`, `global::A.B` -> `A.B`).
; C# writes every type name as an `identifier`, so types are captured where the grammar puts a type;
; single upper-case letters are type parameters by convention (`List<T>`) and are left out.

; Calls: `F()`, `F<T>()`, `x.F()`, `this.F()`, `base.F()`, `Foo.F()`, `x?.F()`.
(invocation_expression function: (identifier) @name) @reference.call
(invocation_expression function: (generic_name . (identifier) @name)) @reference.call
(invocation_expression
  function: (member_access_expression
    expression: _ @receiver
    name: [(identifier) @name (generic_name . (identifier) @name)])) @reference.call
(invocation_expression
  function: (conditional_access_expression
    condition: (_) @receiver
    (member_binding_expression name: [(identifier) @name (generic_name . (identifier) @name)]))) @reference.call

; `new Foo()`, `new Foo<T>()`, `new A.B.Foo()`, `new Outer.Inner()`: an instantiation of the class.
(object_creation_expression
  type: [
    (identifier) @name
    (generic_name . (identifier) @name)
    (alias_qualified_name name: (identifier) @name)
    (qualified_name qualifier: (_) @receiver name: [(identifier) @name (generic_name . (identifier) @name)])
  ]) @reference.call

; `Foo x = new();`, `List<Foo> xs = new();`: the declared type is the one instantiated.
(variable_declaration
  type: [
    (identifier) @name
    (generic_name . (identifier) @name)
    (qualified_name qualifier: (_) @receiver name: [(identifier) @name (generic_name . (identifier) @name)])
  ]
  (variable_declarator (implicit_object_creation_expression))) @reference.call

; Inheritance and interface implementation: `class A : Base<T>, IRunner`, `record R(int X) : Base(X)`.
(base_list
  [
    (identifier) @name
    (generic_name . (identifier) @name)
    (alias_qualified_name name: (identifier) @name)
    (qualified_name qualifier: (_) @receiver name: [(identifier) @name (generic_name . (identifier) @name)])
    (primary_constructor_base_type
      type: [
        (identifier) @name
        (generic_name . (identifier) @name)
        (qualified_name qualifier: (_) @receiver name: [(identifier) @name (generic_name . (identifier) @name)])
      ])
  ]) @reference.inherit

; Attributes: `[Serializable]`, `[Test, Category("x")]`, `[NUnit.Framework.Test]`; `[Foo]` means the
; class `FooAttribute` too (GraphSpec.attribute_suffix).
(attribute
  name: [
    (identifier) @name
    (generic_name . (identifier) @name)
    (qualified_name qualifier: (_) @receiver name: [(identifier) @name (generic_name . (identifier) @name)])
  ]) @reference.decorator

; Every other written type: fields, properties, parameters, locals, results, type arguments, casts,
; `is`/`as`, patterns, `typeof`, `default`, `catch`, constraints, explicit interface members, arrays,
; nullables and tuples. `A.B.Foo` is Foo reached through A.B (a namespace or an outer class).
([
  (variable_declaration type: [(identifier) @name (qualified_name qualifier: (_) @receiver name: (identifier) @name)])
  (parameter type: [(identifier) @name (qualified_name qualifier: (_) @receiver name: (identifier) @name)])
  (property_declaration type: [(identifier) @name (qualified_name qualifier: (_) @receiver name: (identifier) @name)])
  (indexer_declaration type: [(identifier) @name (qualified_name qualifier: (_) @receiver name: (identifier) @name)])
  (event_declaration type: [(identifier) @name (qualified_name qualifier: (_) @receiver name: (identifier) @name)])
  (delegate_declaration type: [(identifier) @name (qualified_name qualifier: (_) @receiver name: (identifier) @name)])
  (operator_declaration type: [(identifier) @name (qualified_name qualifier: (_) @receiver name: (identifier) @name)])
  (conversion_operator_declaration type: [(identifier) @name (qualified_name qualifier: (_) @receiver name: (identifier) @name)])
  (method_declaration returns: [(identifier) @name (qualified_name qualifier: (_) @receiver name: (identifier) @name)])
  (local_function_statement type: [(identifier) @name (qualified_name qualifier: (_) @receiver name: (identifier) @name)])
  (cast_expression type: [(identifier) @name (qualified_name qualifier: (_) @receiver name: (identifier) @name)])
  (as_expression right: [(identifier) @name (qualified_name qualifier: (_) @receiver name: (identifier) @name)])
  (declaration_pattern type: [(identifier) @name (qualified_name qualifier: (_) @receiver name: (identifier) @name)])
  (recursive_pattern type: [(identifier) @name (qualified_name qualifier: (_) @receiver name: (identifier) @name)])
  (constant_pattern [(identifier) @name (qualified_name qualifier: (_) @receiver name: (identifier) @name)])
  (typeof_expression type: [(identifier) @name (qualified_name qualifier: (_) @receiver name: (identifier) @name)])
  (default_expression type: [(identifier) @name (qualified_name qualifier: (_) @receiver name: (identifier) @name)])
  (array_type type: [(identifier) @name (qualified_name qualifier: (_) @receiver name: (identifier) @name)])
  (nullable_type type: [(identifier) @name (qualified_name qualifier: (_) @receiver name: (identifier) @name)])
  (pointer_type type: [(identifier) @name (qualified_name qualifier: (_) @receiver name: (identifier) @name)])
  (ref_type type: [(identifier) @name (qualified_name qualifier: (_) @receiver name: (identifier) @name)])
  (tuple_element type: [(identifier) @name (qualified_name qualifier: (_) @receiver name: (identifier) @name)])
  (type_argument_list [(identifier) @name (qualified_name qualifier: (_) @receiver name: (identifier) @name)])
  (type_parameter_constraint type: [(identifier) @name (qualified_name qualifier: (_) @receiver name: (identifier) @name)])
  (catch_declaration type: [(identifier) @name (qualified_name qualifier: (_) @receiver name: (identifier) @name)])
  (foreach_statement type: [(identifier) @name (qualified_name qualifier: (_) @receiver name: (identifier) @name)])
  (declaration_expression type: [(identifier) @name (qualified_name qualifier: (_) @receiver name: (identifier) @name)])
  (explicit_interface_specifier [(identifier) @name (qualified_name qualifier: (_) @receiver name: (identifier) @name)])
] @reference.type
  (#not-match? @name "^[A-Z]$"))
; A generic type wherever it is written (`List<Foo>`); where it is a call's or a base's name, the
; call or base reference at the same place wins (parse/facts.py).
((generic_name . (identifier) @name) @reference.type
  (#not-match? @name "^[A-Z]$"))

; A bare name read where a method may stand for a delegate (`Run(OnDone)`, `Loaded += OnLoad`,
; `return Never;`, `Func<bool> f = Never;`): a use of the method, or of the field or property read
; (reads of locals and parameters are dropped when the file is parsed).
(argument (identifier) @name) @reference.read
(assignment_expression right: (identifier) @name) @reference.read
(return_statement (identifier) @name) @reference.read
(arrow_expression_clause (identifier) @name) @reference.read
(variable_declarator name: (identifier) . (identifier) @name) @reference.read

; `using` directives (`using A.B;`, `using static A.B.C;`, `using X = A.B.C;`, `global using`):
; parsed by parse/hooks/csharp.py.
(using_directive) @import

; Fields, properties, events and enum members are members of their type: `this.repo`, `repo`,
; `Color.Red`, `order.Customer`.
(field_declaration (variable_declaration (variable_declarator name: (identifier) @name))) @definition.field
(event_field_declaration (variable_declaration (variable_declarator name: (identifier) @name))) @definition.field
(property_declaration name: (identifier) @name) @definition.field
(event_declaration name: (identifier) @name) @definition.field
(enum_member_declaration name: (identifier) @name) @definition.field

; Type evidence. A variable has the type it is declared with; `var` takes its initializer's: a `new`,
; a cast, an `as`, or the expression (a call, a name, a member).
((variable_declaration
  type: [(identifier) (generic_name) (qualified_name) (alias_qualified_name) (array_type) (nullable_type)
         (predefined_type) (tuple_type) (pointer_type)] @type
  (variable_declarator name: (identifier) @variable)) @hint.annotation
  (#not-eq? @type "var"))
((variable_declaration
  type: [(implicit_type) (identifier)] @_var
  (variable_declarator
    name: (identifier) @variable
    [(object_creation_expression type: (_) @type)
     (cast_expression type: (_) @type)
     (as_expression right: (_) @type)])) @hint.annotation
  (#eq? @_var "var"))
((variable_declaration
  type: [(implicit_type) (identifier)] @_var
  (variable_declarator
    name: (identifier) @variable
    [(invocation_expression) (identifier) (member_access_expression) (element_access_expression)
     (await_expression)] @type)) @hint.assign
  (#eq? @_var "var"))
(property_declaration type: (_) @type name: (identifier) @variable) @hint.annotation
(event_declaration type: (_) @type name: (identifier) @variable) @hint.annotation
(parameter type: (_) @type name: (identifier) @variable) @hint.parameter
(catch_declaration type: (_) @type name: (identifier) @variable) @hint.annotation
(declaration_pattern type: (_) @type name: (identifier) @variable) @hint.annotation
((declaration_expression type: (_) @type name: (identifier) @variable) @hint.annotation
  (#not-eq? @type "var"))
((foreach_statement type: (_) @type left: (identifier) @variable) @hint.annotation
  (#not-eq? @type "var"))
((foreach_statement type: (_) @_var left: (identifier) @variable right: (_) @type) @hint.element
  (#eq? @_var "var"))
(method_declaration returns: (_) @type name: (identifier) @variable) @hint.returns
; An extension method's `this` parameter: the type whose instances it is called on (`x.F()`).
((method_declaration
  name: (identifier) @variable
  parameters: (parameter_list . (parameter (modifier) @_this type: (_) @type))) @hint.extension
  (#eq? @_this "this"))

; Every name a method binds: a local or parameter shadows a field, property or type of that name.
(local_declaration_statement (variable_declaration (variable_declarator name: (_) @variable))) @binding
(using_statement (variable_declaration (variable_declarator name: (_) @variable))) @binding
(for_statement (variable_declaration (variable_declarator name: (_) @variable))) @binding
(fixed_statement (variable_declaration (variable_declarator name: (_) @variable))) @binding
(parameter name: (identifier) @variable) @binding
(catch_declaration name: (identifier) @variable) @binding
(foreach_statement left: (_) @variable) @binding
(declaration_pattern name: (identifier) @variable) @binding
(declaration_expression name: (identifier) @variable) @binding
(lambda_expression parameters: (implicit_parameter) @variable) @binding
(local_function_statement name: (identifier) @variable) @binding
; A type's or method's type parameters (`<TKey, TValue>`) are names it binds, not types.
(type_parameter name: (identifier) @variable) @binding
