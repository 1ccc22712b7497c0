; TypeScript and TSX: interfaces, type aliases, enums, abstract classes and namespaces, on top of
; ecmascript.scm (functions bound to variables, exports). Interface members, overload and abstract
; signatures stay part of their container.
(function_declaration
  name: (identifier) @name) @definition.function

(generator_function_declaration
  name: (identifier) @name) @definition.function

(class_declaration
  name: (type_identifier) @name) @definition.class

(abstract_class_declaration
  name: (type_identifier) @name) @definition.class

(interface_declaration
  name: (type_identifier) @name) @definition.interface

(type_alias_declaration
  name: (type_identifier) @name) @definition.type

(enum_declaration
  name: (identifier) @name) @definition.enum

; `namespace A.B {}` (the engine splits the dotted name) and `module A {}`. `declare module "x" {}`
; names a path, not a scope: what it declares is top level.
(internal_module
  name: [(identifier) (nested_identifier)] @name) @definition.namespace

(module
  name: [(identifier) (nested_identifier)] @name) @definition.module

; Methods of classes only: object-literal methods stay part of the code around them.
(class_body
  (method_definition
    name: [(property_identifier) (private_property_identifier)] @name) @definition.method)

; Class fields holding functions: `handler = (e: Event) => {}`.
(class_body
  (public_field_definition
    name: [(property_identifier) (private_property_identifier)] @name
    value: [(arrow_function) (function_expression) (generator_function)]) @definition.method)

