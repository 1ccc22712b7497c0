; Go: the package, functions, methods (named after their receiver's type), type declarations and the
; methods an interface declares.
(package_clause
  (package_identifier) @package)

(function_declaration
  name: (identifier) @name) @definition.function

(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [
        (type_identifier) @receiver
        (pointer_type (type_identifier) @receiver)
        (generic_type type: (type_identifier) @receiver)
        (pointer_type (generic_type type: (type_identifier) @receiver))
      ]))
  name: (field_identifier) @name) @definition.method

; `type X struct {...}` on its own: the whole declaration, so its doc comment is found. The text
; test keeps `type ( ... )` groups out (anchors do not see the anonymous "(").
((type_declaration
  (type_spec
    name: (type_identifier) @name
    type: (struct_type))) @definition.struct
  (#not-match? @definition.struct "^type\\s*\\("))

((type_declaration
  (type_spec
    name: (type_identifier) @name
    type: (interface_type))) @definition.interface
  (#not-match? @definition.interface "^type\\s*\\("))

((type_declaration
  (type_spec
    name: (type_identifier) @name
    type: (_) @_type)) @definition.type
  (#not-match? @_type "^(struct|interface)")
  (#not-match? @definition.type "^type\\s*\\("))

((type_declaration
  (type_alias
    name: (type_identifier) @name)) @definition.type
  (#not-match? @definition.type "^type\\s*\\("))

; `type ( ... )` groups: each spec is its own definition.
(type_declaration
  "("
  (type_spec
    name: (type_identifier) @name
    type: (struct_type)) @definition.struct)

(type_declaration
  "("
  (type_spec
    name: (type_identifier) @name
    type: (interface_type)) @definition.interface)

(type_declaration
  "("
  (type_spec
    name: (type_identifier) @name
    type: (_) @_type) @definition.type
  (#not-match? @_type "^(struct|interface)"))

(type_declaration
  "("
  (type_alias
    name: (type_identifier) @name) @definition.type)

; `var handler = func(...) {...}`
(var_declaration
  (var_spec
    name: (identifier) @name
    value: (expression_list . (func_literal) .))) @definition.function

; An interface's methods: declarations that calls through the interface mean (`r.Read(p)`).
(interface_type
  (method_elem name: (field_identifier) @name) @definition.method)
