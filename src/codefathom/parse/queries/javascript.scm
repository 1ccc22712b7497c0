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

