; C++: namespaces, classes, structs, unions, enums and function definitions, in class bodies or
; out of line (`void Foo::bar()`, the engine splits the qualified name). Template and typedef
; declarations are wrappers (languages.py). Declarations without a body are not definitions.
(namespace_definition
  name: [(namespace_identifier) (nested_namespace_specifier)] @name) @definition.namespace

(class_specifier
  name: [(type_identifier) (qualified_identifier)] @name
  body: (field_declaration_list)) @definition.class

(class_specifier
  name: (template_type name: (type_identifier) @name)
  body: (field_declaration_list)) @definition.class

(struct_specifier
  name: [(type_identifier) (qualified_identifier)] @name
  body: (field_declaration_list)) @definition.struct

(struct_specifier
  name: (template_type name: (type_identifier) @name)
  body: (field_declaration_list)) @definition.struct

(union_specifier
  name: [(type_identifier) (qualified_identifier)] @name
  body: (field_declaration_list)) @definition.union

(enum_specifier
  name: [(type_identifier) (qualified_identifier)] @name
  body: (enumerator_list)) @definition.enum

(type_definition
  type: (struct_specifier
    !name
    body: (field_declaration_list))
  declarator: (type_identifier) @name) @definition.struct

; Functions and methods: the name sits in a function declarator, possibly under pointer or
; reference declarators for the return type. A specialization `f<int>()` is named f.
(function_definition
  declarator: (function_declarator
    declarator: [
      (identifier) @name (field_identifier) @name (qualified_identifier) @name (destructor_name) @name
      (operator_name) @name (operator_cast) @name
      (template_function name: (identifier) @name)
    ])) @definition.function

(function_definition
  declarator: (_
    (function_declarator
      declarator: [
        (identifier) @name (field_identifier) @name (qualified_identifier) @name (destructor_name) @name
        (operator_name) @name
        (template_function name: (identifier) @name)
      ]))) @definition.function

(function_definition
  declarator: (_
    (_
      (function_declarator
        declarator: [
          (identifier) @name (field_identifier) @name (qualified_identifier) @name (destructor_name) @name
          (operator_name) @name
          (template_function name: (identifier) @name)
        ])))) @definition.function

; `operator bool() const` written as a conversion function.
(function_definition
  declarator: (operator_cast) @name) @definition.function

; `auto add = [](int a, int b) {...};`
(declaration
  declarator: (init_declarator
    declarator: (identifier) @name
    value: (lambda_expression))) @definition.function
