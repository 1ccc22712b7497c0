; C#: a file-scoped `namespace A.B;` qualifies the whole file; a block `namespace A.B { }` is a
; container so its members nest under it (several per file are allowed).
(file_scoped_namespace_declaration
  name: (_) @package)

(namespace_declaration
  name: (_) @name) @definition.namespace

(class_declaration
  name: (identifier) @name) @definition.class

(struct_declaration
  name: (identifier) @name) @definition.struct

(interface_declaration
  name: (identifier) @name) @definition.interface

(enum_declaration
  name: (identifier) @name) @definition.enum

(record_declaration
  name: (identifier) @name) @definition.record

(method_declaration
  name: (identifier) @name) @definition.method

(constructor_declaration
  name: (identifier) @name) @definition.constructor

(local_function_statement
  name: (identifier) @name) @definition.function
