; JavaScript: functions, generators, classes and their methods, and variables bound to functions.
; A declaration such as `const f = () => {}` is the definition, so its doc comment and `const` belong to it.
(function_declaration
  name: (identifier) @name) @definition.function

(generator_function_declaration
  name: (identifier) @name) @definition.function

(class_declaration
  name: (identifier) @name) @definition.class

; Methods of classes only: object-literal methods stay part of the code around them.
(class_body
  (method_definition
    name: [(property_identifier) (private_property_identifier)] @name) @definition.method)

; Class fields holding functions: `handler = (e) => {}`.
(class_body
  (field_definition
    property: [(property_identifier) (private_property_identifier)] @name
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
