; TypeScript and TSX only (joined with ecmascript-graph.scm): base classes and interfaces, types,
; annotations, parameters, fields and return types.
(class_heritage (extends_clause value: (identifier) @name)) @reference.inherit
(class_heritage
  (extends_clause value: (member_expression object: (_) @receiver property: (property_identifier) @name))) @reference.inherit
(class_heritage (implements_clause (type_identifier) @name)) @reference.inherit
(class_heritage (implements_clause (generic_type name: (type_identifier) @name))) @reference.inherit
(extends_type_clause (type_identifier) @name) @reference.inherit
; A type alias of a union or an intersection of named types has their members, as bases: `observer.next()`
; on a `PartialObserver<T> = NextObserver<T> | ErrorObserver<T> | CompletionObserver<T>` is NextObserver's.
(type_alias_declaration value: (union_type [(type_identifier) @name (generic_type name: (type_identifier) @name)])) @reference.inherit
(type_alias_declaration value: (union_type (union_type [(type_identifier) @name (generic_type name: (type_identifier) @name)]))) @reference.inherit
(type_alias_declaration value: (union_type (union_type (union_type [(type_identifier) @name (generic_type name: (type_identifier) @name)])))) @reference.inherit
(type_alias_declaration value: (intersection_type [(type_identifier) @name (generic_type name: (type_identifier) @name)])) @reference.inherit
(type_alias_declaration value: (intersection_type (intersection_type [(type_identifier) @name (generic_type name: (type_identifier) @name)]))) @reference.inherit

; Types in annotations, generics and `as` casts.
(type_annotation (type_identifier) @name) @reference.type
(type_annotation (nested_type_identifier module: (_) @receiver name: (type_identifier) @name)) @reference.type
(generic_type name: (type_identifier) @name) @reference.type
(type_arguments (type_identifier) @name) @reference.type
(union_type (type_identifier) @name) @reference.type
(array_type (type_identifier) @name) @reference.type
(as_expression (type_identifier) @name) @reference.type

; Type evidence from annotations.
(variable_declarator name: (identifier) @variable type: (type_annotation (_) @type)) @hint.annotation
; `const x = y as Foo` (not `as const`): declared like an annotation; `const x = y!`: what y is.
(variable_declarator
  name: (identifier) @variable !type
  value: (as_expression (_) [(type_identifier) (generic_type) (nested_type_identifier)] @type .)) @hint.annotation
(variable_declarator
  name: (identifier) @variable !type
  value: (non_null_expression [(identifier) (member_expression) (subscript_expression)] @type)) @hint.alias
(variable_declarator
  name: (identifier) @variable !type
  value: (non_null_expression [(call_expression) (new_expression)] @type)) @hint.assign
(required_parameter pattern: (identifier) @variable type: (type_annotation (_) @type)) @hint.parameter
(optional_parameter pattern: (identifier) @variable type: (type_annotation (_) @type)) @hint.parameter
(public_field_definition
  name: (property_identifier) @variable type: (type_annotation (_) @type)) @hint.annotation
(public_field_definition
  name: (property_identifier) @variable value: [(new_expression) (call_expression)] @type) @hint.assign
; `constructor(private repo: Repo)`: a field of the instance.
(required_parameter
  [(accessibility_modifier) "readonly"] pattern: (identifier) @variable type: (type_annotation (_) @type)) @hint.attribute_annotation
(optional_parameter
  [(accessibility_modifier) "readonly"] pattern: (identifier) @variable type: (type_annotation (_) @type)) @hint.attribute_annotation
; An interface's property: `observer.next` on an `Observer` whose `next: (value: T) => void`, `init.progressSubscriber`.
(interface_body (property_signature name: (property_identifier) @variable type: (type_annotation (_) @type)) @hint.annotation)
(method_definition name: (property_identifier) @variable return_type: (type_annotation (_) @type)) @hint.returns
(function_declaration name: (identifier) @variable return_type: (type_annotation (_) @type)) @hint.returns
; Type guards: what a call that returned true says of its first argument (`isFoo(x): x is Foo`).
(function_declaration
  name: (identifier) @variable return_type: (type_predicate_annotation (type_predicate type: (_) @type))) @hint.guards
(variable_declarator
  name: (identifier) @variable
  value: (arrow_function return_type: (type_predicate_annotation (type_predicate type: (_) @type)))) @hint.guards
(variable_declarator
  name: (identifier) @variable
  type: (type_annotation (function_type return_type: (type_predicate type: (_) @type)))) @hint.guards
(variable_declarator
  name: (identifier) @variable
  value: (as_expression (_) (function_type return_type: (type_predicate type: (_) @type)) .)) @hint.guards

; Untyped parameters of a function passed to a call or `new`, typed by the callee's signature
; (`operate((source, subscriber) => ...)`, `new Observable((subscriber) => ...)`).
(call_expression
  function: (_) @type
  arguments: (arguments
    [(arrow_function parameters: (formal_parameters (required_parameter pattern: (identifier) @variable !type)))
     (function_expression parameters: (formal_parameters (required_parameter pattern: (identifier) @variable !type)))
     (arrow_function parameter: (identifier) @variable)])) @hint.callback
(new_expression
  constructor: (_) @type
  arguments: (arguments
    [(arrow_function parameters: (formal_parameters (required_parameter pattern: (identifier) @variable !type)))
     (function_expression parameters: (formal_parameters (required_parameter pattern: (identifier) @variable !type)))
     (arrow_function parameter: (identifier) @variable)])) @hint.callback
; ... and chosen by a conditional (`new Observable(scheduler ? (subscriber) => ... : (subscriber) => ...)`).
(call_expression
  function: (_) @type
  arguments: (arguments
    (ternary_expression
      [(arrow_function parameters: (formal_parameters (required_parameter pattern: (identifier) @variable !type)))
       (function_expression parameters: (formal_parameters (required_parameter pattern: (identifier) @variable !type)))
       (arrow_function parameter: (identifier) @variable)]))) @hint.callback
(new_expression
  constructor: (_) @type
  arguments: (arguments
    (ternary_expression
      [(arrow_function parameters: (formal_parameters (required_parameter pattern: (identifier) @variable !type)))
       (function_expression parameters: (formal_parameters (required_parameter pattern: (identifier) @variable !type)))
       (arrow_function parameter: (identifier) @variable)]))) @hint.callback

(required_parameter pattern: (identifier) @variable) @binding
(optional_parameter pattern: (identifier) @variable) @binding
; Destructured parameters: `({ left, right: r }: Options)`, `([first, second]: Pair)`.
(required_parameter pattern: (object_pattern (shorthand_property_identifier_pattern) @variable)) @binding
(required_parameter pattern: (object_pattern (pair_pattern value: (identifier) @variable))) @binding
(required_parameter
  pattern: (object_pattern (object_assignment_pattern left: (shorthand_property_identifier_pattern) @variable))) @binding
(required_parameter pattern: (array_pattern (identifier) @variable)) @binding

; Module constants whose value is a cast or an assertion (`export const x = make() as Foo`, and
; with `var`: `export var isObservableMap = createInstanceofPredicate(...) as (x: any) => boolean`).
(program
  (_
    (variable_declarator
      name: (identifier) @name value: [(as_expression) (satisfies_expression) (non_null_expression)]))
  @definition.constant)
(program
  (export_statement
    declaration: (_
      (variable_declarator
        name: (identifier) @name value: [(as_expression) (satisfies_expression) (non_null_expression)]))
    @definition.constant))

; Members of interfaces (`observer.next()` on an `Observer` names one) and class properties, which
; code calls when they hold functions (`this.schedulerActionCtor(...)`).
(interface_body (method_signature name: (property_identifier) @name) @definition.field)
(interface_body (property_signature name: (property_identifier) @name) @definition.field)
(class_body (public_field_definition name: (property_identifier) @name) @definition.field)
(class_body (abstract_method_signature name: (property_identifier) @name) @definition.field)
; Constructor parameter properties (`constructor(private onFinalize?: () => void)`): fields of the class.
(method_definition
  name: (property_identifier) @_constructor
  parameters: (formal_parameters
    [(required_parameter [(accessibility_modifier) "readonly"] pattern: (identifier) @name)
     (optional_parameter [(accessibility_modifier) "readonly"] pattern: (identifier) @name)] @definition.parameter_field)
  (#eq? @_constructor "constructor"))
