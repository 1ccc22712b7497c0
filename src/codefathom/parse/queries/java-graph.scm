; Java graph facts: references, imports, type evidence and fields.
; Capture vocabulary: parse/facts.py. Classes, methods and constructors come from java.scm.
; Single upper-case letters are type parameters by convention (`List<T>`), never the project's
; classes, and are left out; so are lower-case names where a type is written: `var`, which is
; not a type, and the packages of `java.util.List`.

; Calls: `f()` (a method of the class or one it inherits, or a static import), `x.f()`,
; `this.f()`, `super.f()`, `Foo.f()`, and method references `Foo::f`, `this::f`.
(method_invocation !object name: (identifier) @name) @reference.call
(method_invocation object: (_) @receiver name: (identifier) @name) @reference.call
((method_reference . (_) @receiver . (identifier) @name .) @reference.call
  (#not-eq? @name "new"))

; A class named for one of its static fields: `JsonScope.EMPTY_ARRAY`, `EnumTypeAdapter.FACTORY`.
((field_access object: (identifier) @name) @reference.read
  (#match? @name "^[A-Z][A-Za-z0-9_]*[a-z]"))

; `new Foo()`, `new Foo<>()`, `new a.b.Foo()`, `new Outer.Inner()`: an instantiation of the class.
(object_creation_expression type: (type_identifier) @name) @reference.call
(object_creation_expression type: (generic_type (type_identifier) @name)) @reference.call
(object_creation_expression
  type: (scoped_type_identifier (_) @receiver (type_identifier) @name .)) @reference.call
(object_creation_expression
  type: (generic_type (scoped_type_identifier (_) @receiver (type_identifier) @name .))) @reference.call

; Inheritance: `extends Base`, `implements Runner, Closeable`, an interface's `extends`.
(superclass (type_identifier) @name) @reference.inherit
(superclass (generic_type (type_identifier) @name)) @reference.inherit
(superclass (scoped_type_identifier (_) @receiver (type_identifier) @name .)) @reference.inherit
(superclass (generic_type (scoped_type_identifier (_) @receiver (type_identifier) @name .))) @reference.inherit
(super_interfaces (type_list (type_identifier) @name)) @reference.inherit
(super_interfaces (type_list (generic_type (type_identifier) @name))) @reference.inherit
(super_interfaces (type_list (scoped_type_identifier (_) @receiver (type_identifier) @name .))) @reference.inherit
(super_interfaces
  (type_list (generic_type (scoped_type_identifier (_) @receiver (type_identifier) @name .)))) @reference.inherit
(extends_interfaces (type_list (type_identifier) @name)) @reference.inherit
(extends_interfaces (type_list (generic_type (type_identifier) @name))) @reference.inherit
(extends_interfaces (type_list (scoped_type_identifier (_) @receiver (type_identifier) @name .))) @reference.inherit

; Annotations: `@Override`, `@Table(name = "x")`, `@javax.inject.Inject`.
(marker_annotation name: (identifier) @name) @reference.decorator
(annotation name: (identifier) @name) @reference.decorator
(marker_annotation name: (scoped_identifier scope: (_) @receiver name: (identifier) @name)) @reference.decorator
(annotation name: (scoped_identifier scope: (_) @receiver name: (identifier) @name)) @reference.decorator

; Every other written type: fields, parameters, locals, results, type arguments, casts,
; `instanceof`, `throws`, `catch`, `Foo.class`, bounds. `Outer.Inner` is Inner reached through
; Outer (a package prefix `a.b.Foo` too; lower-case parts are packages, not types).
((type_identifier) @name @reference.type
  (#not-match? @name "^([A-Z]|[a-z].*)$"))
((scoped_type_identifier (_) @receiver (type_identifier) @name .) @reference.type
  (#match? @name "^[A-Z]"))

; Imports: parsed by parse/hooks/java.py.
(import_declaration) @import

; Fields and enum constants are members of their class: `this.repo`, `repo`, `Color.RED`.
(field_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.field
(constant_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.field
(enum_constant name: (identifier) @name) @definition.field

; Type evidence. A Java variable has the type it is declared with; `var` takes its initializer's.
((local_variable_declaration
  type: (_) @type
  declarator: (variable_declarator name: (identifier) @variable)) @hint.annotation
  (#not-eq? @type "var"))
((local_variable_declaration
  type: (type_identifier) @_var
  declarator: (variable_declarator
    name: (identifier) @variable
    value: (object_creation_expression type: (_) @type))) @hint.annotation
  (#eq? @_var "var"))
((local_variable_declaration
  type: (type_identifier) @_var
  declarator: (variable_declarator
    name: (identifier) @variable
    value: [(method_invocation) (identifier) (field_access)] @type)) @hint.assign
  (#eq? @_var "var"))
(field_declaration
  type: (_) @type
  declarator: (variable_declarator name: (identifier) @variable)) @hint.annotation
(constant_declaration
  type: (_) @type
  declarator: (variable_declarator name: (identifier) @variable)) @hint.annotation
(formal_parameter type: (_) @type name: (identifier) @variable) @hint.parameter
(spread_parameter (_) @type . (variable_declarator name: (identifier) @variable)) @hint.parameter
(catch_formal_parameter (catch_type . (_) @type .) name: (identifier) @variable) @hint.annotation
(resource type: (_) @type name: (identifier) @variable) @hint.annotation
((enhanced_for_statement type: (_) @type name: (identifier) @variable) @hint.annotation
  (#not-eq? @type "var"))
((enhanced_for_statement type: (type_identifier) @_var name: (identifier) @variable value: (_) @type) @hint.element
  (#eq? @_var "var"))
(instanceof_expression right: (_) @type name: (identifier) @variable) @hint.annotation
(method_declaration type: (_) @type name: (identifier) @variable) @hint.returns

; Every name a method binds: a local or parameter shadows a field or class of that name.
(local_variable_declaration declarator: (variable_declarator name: (identifier) @variable)) @binding
(formal_parameter name: (identifier) @variable) @binding
(catch_formal_parameter name: (identifier) @variable) @binding
(enhanced_for_statement name: (identifier) @variable) @binding
(lambda_expression parameters: (identifier) @variable) @binding
(lambda_expression parameters: (inferred_parameters (identifier) @variable)) @binding
(resource name: (identifier) @variable) @binding
; A class's or method's type parameters (`<P_IN, K1>`) are names it binds, not classes.
(type_parameter . (type_identifier) @variable) @binding
