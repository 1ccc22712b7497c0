; Swift: class_declaration covers class, struct, enum, actor and extension; an extension names an
; existing type (`extension Point`, `extension Foo.Bar`, `extension [String]`), so its members read `Point.member`.
(class_declaration
  name: (type_identifier) @name) @definition.class

(class_declaration
  declaration_kind: "extension"
  name: (_) @name) @definition.extension

(protocol_declaration
  name: (type_identifier) @name) @definition.protocol

(function_declaration
  name: (simple_identifier) @name) @definition.function

(protocol_function_declaration
  name: (simple_identifier) @name) @definition.method

(init_declaration
  "init" @name) @definition.constructor
