; C: function definitions and named structs, unions and enums with a body. A typedef around one is
; a wrapper (languages.py), so `typedef struct node {...} node_t;` is the struct `node`; an anonymous
; typedef'd body takes the typedef's name. Prototypes and forward declarations are not definitions.
(function_definition
  declarator: (function_declarator
    declarator: (identifier) @name)) @definition.function

(function_definition
  declarator: (pointer_declarator
    declarator: (function_declarator
      declarator: (identifier) @name))) @definition.function

(function_definition
  declarator: (pointer_declarator
    declarator: (pointer_declarator
      declarator: (function_declarator
        declarator: (identifier) @name)))) @definition.function

; `int (*getfn(void))(int) {...}`: a function returning a function pointer.
(function_definition
  declarator: (function_declarator
    declarator: (parenthesized_declarator
      (pointer_declarator
        declarator: (function_declarator
          declarator: (identifier) @name))))) @definition.function

(struct_specifier
  name: (type_identifier) @name
  body: (field_declaration_list)) @definition.struct

(union_specifier
  name: (type_identifier) @name
  body: (field_declaration_list)) @definition.union

(enum_specifier
  name: (type_identifier) @name
  body: (enumerator_list)) @definition.enum

(type_definition
  type: (struct_specifier
    !name
    body: (field_declaration_list))
  declarator: (type_identifier) @name) @definition.struct

(type_definition
  type: (union_specifier
    !name
    body: (field_declaration_list))
  declarator: (type_identifier) @name) @definition.union

(type_definition
  type: (enum_specifier
    !name
    body: (enumerator_list))
  declarator: (type_identifier) @name) @definition.enum
