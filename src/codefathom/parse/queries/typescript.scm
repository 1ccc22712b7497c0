; TypeScript and TSX (the tsx row of languages.py reads this file): JavaScript's definitions plus
; interfaces, type aliases, enums, abstract classes and namespaces. A declaration such as
; `const f = () => {}` is the definition, so its doc comment and
; `const` belong to it. Interface members, overload and abstract signatures stay part of their container.
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

(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)])) @definition.function

(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)])) @definition.function

(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: (class))) @definition.class

(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: (class))) @definition.class

; CommonJS: `exports.f = function () {}` and `module.exports.f = () => {}`.
(expression_statement
  (assignment_expression
    left: (member_expression
      object: [(identifier) (member_expression)] @_exports
      property: (property_identifier) @name)
    right: [(arrow_function) (function_expression) (generator_function)])
  (#match? @_exports "^(module\\.)?exports$")) @definition.function

; `module.exports = function name() {}` is named by its function.
(expression_statement
  (assignment_expression
    left: (member_expression
      object: (identifier) @_module
      property: (property_identifier) @_exports)
    right: [(function_expression name: (identifier) @name) (generator_function name: (identifier) @name)])
  (#eq? @_module "module")
  (#eq? @_exports "exports")) @definition.function

; Functions assigned to an object's property: `app.use = function use(fn) {}` is app's method use,
; `Router.prototype.route = function () {}` is Router's.
(expression_statement
  (assignment_expression
    left: (member_expression
      object: (identifier) @receiver
      property: (property_identifier) @name)
    right: [(arrow_function) (function_expression) (generator_function)])
  (#not-match? @receiver "^(exports|module)$")) @definition.function

(expression_statement
  (assignment_expression
    left: (member_expression
      object: (member_expression
        object: (identifier) @receiver
        property: (property_identifier) @_prototype)
      property: (property_identifier) @name)
    right: [(arrow_function) (function_expression) (generator_function)])
  (#eq? @_prototype "prototype")) @definition.function
