; PHP: `namespace App\Models;` qualifies the file; the block form `namespace App\Models { }` is a
; container of its own. Methods inside classes, interfaces, traits and enums.
(namespace_definition
  name: (namespace_name) @package
  !body)

(namespace_definition
  name: (namespace_name) @name
  body: (compound_statement)) @definition.namespace

(class_declaration
  name: (name) @name) @definition.class

(interface_declaration
  name: (name) @name) @definition.interface

(trait_declaration
  name: (name) @name) @definition.trait

(enum_declaration
  name: (name) @name) @definition.enum

(function_definition
  name: (name) @name) @definition.function

(method_declaration
  name: (name) @name) @definition.method
