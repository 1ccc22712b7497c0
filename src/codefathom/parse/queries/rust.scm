; Rust: functions, structs, enums, unions, traits, type aliases, impl blocks (named after their
; type), inline modules and macro_rules. Functions inside impl and trait blocks become methods.
(function_item
  name: (identifier) @name) @definition.function

; Trait methods without a default body.
(function_signature_item
  name: (identifier) @name) @definition.function

(struct_item
  name: (type_identifier) @name) @definition.struct

(enum_item
  name: (type_identifier) @name) @definition.enum

(union_item
  name: (type_identifier) @name) @definition.union

(trait_item
  name: (type_identifier) @name) @definition.trait

(type_item
  name: (type_identifier) @name) @definition.type

(impl_item
  type: [
    (type_identifier) @name
    (generic_type type: (type_identifier) @name)
    (scoped_type_identifier name: (type_identifier) @name)
    (generic_type type: (scoped_type_identifier name: (type_identifier) @name))
  ]) @definition.impl

; `mod name { ... }` only: `mod name;` is a reference to another file.
(mod_item
  name: (identifier) @name
  body: (declaration_list)) @definition.module

(macro_definition
  name: (identifier) @name) @definition.function
