; Shared by JavaScript, TypeScript and TSX (see the queries field of their rows in languages.py):
; functions bound to variables, exports and properties.
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
