; C++ graph facts beyond what it shares with C (cfamily-graph.scm): qualified names, `new`, bases,
; templates, references, `auto`, `using`. Capture vocabulary: parse/facts.py. A qualified name's
; receiver is its innermost `qualified_identifier`, read whole (`a::b::f` -> `a.b`) by
; parse/hooks/cfamily.py.

; Calls: `ns::f()`, `Class::method()`, `f<T>()`, `x.get<T>()`.
(call_expression
  function: (qualified_identifier name: [(identifier) @name (template_function name: (identifier) @name)]) @receiver) @reference.call
(call_expression
  function: (qualified_identifier
    name: (qualified_identifier name: [(identifier) @name (template_function name: (identifier) @name)]) @receiver)) @reference.call
(call_expression
  function: (qualified_identifier
    name: (qualified_identifier
      name: (qualified_identifier name: [(identifier) @name (template_function name: (identifier) @name)]) @receiver))) @reference.call
(call_expression function: (template_function name: (identifier) @name)) @reference.call
(call_expression
  function: (field_expression argument: (_) @receiver field: (template_method name: (field_identifier) @name))) @reference.call

; `new Foo(x)`, `new ns::Foo`, `new Foo<T>()`: an instantiation of the class.
(new_expression type: [(type_identifier) @name (template_type name: (type_identifier) @name)]) @reference.call
(new_expression
  type: (qualified_identifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)]) @receiver) @reference.call

; Bases: `class A : public B, private ns::C<T>`.
(base_class_clause [(type_identifier) @name (template_type name: (type_identifier) @name)]) @reference.inherit
(base_class_clause
  (qualified_identifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)]) @receiver) @reference.inherit
(base_class_clause
  (qualified_identifier
    name: (qualified_identifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)]) @receiver)) @reference.inherit

; Types written anywhere a template or a qualified name puts them: `vector<Order>`, `ns::Order`.
(template_type name: (type_identifier) @name) @reference.type
((qualified_identifier name: [(type_identifier) @name (template_type name: (type_identifier) @name)]) @receiver
  @reference.type)
((class_specifier !body name: (type_identifier) @name) @reference.type)

; `using namespace ns;`, `using ns::f;`: parsed by parse/hooks/cfamily.py.
(using_declaration) @import

; `using Alias = ns::Foo;`: a name for the type it names, like a typedef.
(alias_declaration name: (type_identifier) @name) @definition.constant
(alias_declaration name: (type_identifier) @variable type: (type_descriptor) @type) @hint.alias

; Type evidence C has not: references (`const Foo& f`), `auto x = Foo()`, `auto p = new Foo()`,
; range-for variables, in-class and out-of-line methods' results.
(parameter_declaration type: (_) @type declarator: (reference_declarator (identifier) @variable)) @hint.parameter
(optional_parameter_declaration
  type: (_) @type
  declarator: [(identifier) @variable (pointer_declarator declarator: (identifier) @variable)
               (reference_declarator (identifier) @variable)]) @hint.parameter
((declaration
  type: (_) @type
  declarator: [(reference_declarator (identifier) @variable)
               (init_declarator declarator: (reference_declarator (identifier) @variable))]) @hint.annotation
  (#not-eq? @type "auto"))
(declaration
  type: (placeholder_type_specifier)
  declarator: (init_declarator
    declarator: [(identifier) @variable (pointer_declarator declarator: (identifier) @variable)
                 (reference_declarator (identifier) @variable)]
    value: (_) @type)) @hint.assign
((for_range_loop
  type: (_) @type
  declarator: [(identifier) @variable (reference_declarator (identifier) @variable)]) @hint.annotation
  (#not-eq? @type "auto"))
(for_range_loop
  type: (placeholder_type_specifier)
  declarator: [(identifier) @variable (reference_declarator (identifier) @variable)]
  right: (_) @type) @hint.element
(function_definition
  type: (_) @type
  declarator: [
    (function_declarator declarator: [(field_identifier) @variable (qualified_identifier name: (identifier) @variable)])
    (pointer_declarator
      declarator: (function_declarator declarator: [(field_identifier) @variable (qualified_identifier name: (identifier) @variable)]))
    (reference_declarator
      (function_declarator declarator: [(field_identifier) @variable (qualified_identifier name: (identifier) @variable)]))
  ]) @hint.returns

; Names C++ binds beyond C's: references, range-for variables, optional parameters, type parameters
; (`template <typename T>`: T is no class of the project).
(parameter_declaration declarator: (reference_declarator (identifier) @variable)) @binding
(optional_parameter_declaration
  declarator: [(identifier) @variable (pointer_declarator declarator: (identifier) @variable)
               (reference_declarator (identifier) @variable)]) @binding
(declaration declarator: (init_declarator declarator: (reference_declarator (identifier) @variable))) @binding
(for_range_loop declarator: [(identifier) @variable (reference_declarator (identifier) @variable)]) @binding
(type_parameter_declaration (type_identifier) @variable) @binding
(optional_type_parameter_declaration name: (type_identifier) @variable) @binding
