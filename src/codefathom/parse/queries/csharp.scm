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

; `operator +(Money a, Money b)` is named `operator+`, `implicit operator decimal(Money m)` `operator decimal`:
; the keyword is written before the name (`@name.prefix`).
(operator_declaration
  "operator" @name.prefix
  operator: _ @name) @definition.method

(conversion_operator_declaration
  "operator" @name.prefix
  type: _ @name) @definition.method

(local_function_statement
  name: (identifier) @name) @definition.function
