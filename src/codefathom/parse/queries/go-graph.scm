; Go graph facts: references, imports and type evidence.
; Capture vocabulary: parse/facts.py. Functions, methods and types come from go.scm.

; Calls: `f()`, `pkg.F()`, `x.M()`, `f().M()`.
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (selector_expression operand: (_) @receiver field: (field_identifier) @name)) @reference.call

; A function named as a value is used: passed (`HandleFunc("/", serve)`, `Recovery(out, pkg.Handle)`),
; set in a literal (`Handler{Func: serve}`, `[]lint{lintHelp}`), returned or assigned (`c.fn = c.collect`).
(argument_list (identifier) @name) @reference.read
(argument_list (selector_expression operand: (_) @receiver field: (field_identifier) @name)) @reference.read
(keyed_element value: (literal_element (identifier) @name)) @reference.read
(keyed_element value: (literal_element (selector_expression operand: (_) @receiver field: (field_identifier) @name))) @reference.read
(return_statement (expression_list (identifier) @name)) @reference.read
(literal_value (literal_element (identifier) @name)) @reference.read
(literal_value (literal_element (selector_expression operand: (_) @receiver field: (field_identifier) @name))) @reference.read
(var_spec value: (expression_list (identifier) @name)) @reference.read
(var_spec value: (expression_list (selector_expression operand: (_) @receiver field: (field_identifier) @name))) @reference.read
(assignment_statement right: (expression_list (identifier) @name)) @reference.read
(short_var_declaration right: (expression_list (identifier) @name)) @reference.read
; `new(T)`, `make(T, n)`: a type passed as an argument.
(argument_list (type_identifier) @name) @reference.type
(assignment_statement
  right: (expression_list (selector_expression operand: (_) @receiver field: (field_identifier) @name))) @reference.read

; Composite literals instantiate their type: `Foo{}`, `pkg.Foo{}`, `Foo[T]{}`.
(composite_literal type: (type_identifier) @name) @reference.call
(composite_literal type: (generic_type type: (type_identifier) @name)) @reference.call
(composite_literal
  type: (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name)) @reference.call

; Embedded struct fields: the struct inherits their methods (`type Store struct { Base }`).
(field_declaration_list
  (field_declaration !name type: (type_identifier) @name) @reference.inherit)
(field_declaration_list
  (field_declaration !name type: (generic_type type: (type_identifier) @name)) @reference.inherit)
(field_declaration_list
  (field_declaration !name
    type: (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name)) @reference.inherit)

; An interface embedding another has its methods (`type ReadCloser interface { Reader; Close() error }`);
; a union or constraint (`~int | ~string`) is no embedding.
(interface_type (type_elem . (type_identifier) @name .) @reference.inherit)
(interface_type
  (type_elem . (qualified_type package: (package_identifier) @receiver name: (type_identifier) @name) .)
  @reference.inherit)

; A package's constants and variables read in expressions (`n > MaxSides`, `registry[name]`,
; `case ErrClosed:`); reads of locals and parameters are dropped when the file is parsed.
(binary_expression left: (identifier) @name) @reference.read
(binary_expression right: (identifier) @name) @reference.read
(binary_expression left: (selector_expression operand: (_) @receiver field: (field_identifier) @name)) @reference.read
(binary_expression right: (selector_expression operand: (_) @receiver field: (field_identifier) @name)) @reference.read
(unary_expression operand: (identifier) @name) @reference.read
(index_expression operand: (identifier) @name) @reference.read
(index_expression index: (identifier) @name) @reference.read
(range_clause right: (identifier) @name) @reference.read
(expression_case value: (expression_list (identifier) @name)) @reference.read
(expression_case value: (expression_list (selector_expression operand: (_) @receiver field: (field_identifier) @name))) @reference.read

; Types written in declarations: parameters, results, fields, variables, conversions, containers.
(qualified_type package: (package_identifier) @receiver name: (type_identifier) @name) @reference.type
(parameter_declaration type: (type_identifier) @name) @reference.type
(variadic_parameter_declaration type: (type_identifier) @name) @reference.type
(field_declaration type: (type_identifier) @name) @reference.type
(var_spec type: (type_identifier) @name) @reference.type
(const_spec type: (type_identifier) @name) @reference.type
(function_declaration result: (type_identifier) @name) @reference.type
(method_declaration result: (type_identifier) @name) @reference.type
(method_elem result: (type_identifier) @name) @reference.type
(func_literal result: (type_identifier) @name) @reference.type
(pointer_type (type_identifier) @name) @reference.type
(slice_type element: (type_identifier) @name) @reference.type
(array_type element: (type_identifier) @name) @reference.type
(map_type key: (type_identifier) @name) @reference.type
(map_type value: (type_identifier) @name) @reference.type
(channel_type value: (type_identifier) @name) @reference.type
(generic_type type: (type_identifier) @name) @reference.type
(type_arguments (type_elem (type_identifier) @name)) @reference.type
(type_spec type: (type_identifier) @name) @reference.type
(type_alias type: (type_identifier) @name) @reference.type
(type_assertion_expression type: (type_identifier) @name) @reference.type
(type_conversion_expression type: (type_identifier) @name) @reference.type

; A package's constants and variables (`const MaxSides = 12`, `var ErrClosed = errors.New(...)`): code
; names them. A variable holding a function literal is a function unit already (go.scm).
(source_file (const_declaration (const_spec name: (identifier) @name) @definition.constant))
((source_file (var_declaration (var_spec name: (identifier) @name) @definition.constant))
  (#not-match? @definition.constant "=\\s*func\\b"))

; Imports: parsed by parse/hooks/go.py.
(import_spec) @import

; Type evidence. A Go variable has one static type from its declaration on: `x := Foo{}`,
; `x := &Foo{}`, `var x Foo` and typed parameters (method receivers too) are declared types;
; `x := f()` is typed by f's declared result.
(short_var_declaration
  left: (expression_list . (identifier) @variable .)
  right: (expression_list . (composite_literal type: (_) @type) .)) @hint.annotation
(short_var_declaration
  left: (expression_list . (identifier) @variable .)
  right: (expression_list
    . (unary_expression operator: "&" operand: (composite_literal type: (_) @type)) .)) @hint.annotation
((short_var_declaration
  left: (expression_list . (identifier) @variable .)
  right: (expression_list
    . (call_expression
      function: (identifier) @_new
      arguments: (argument_list . [(type_identifier) (qualified_type) (generic_type)] @type .)) .)) @hint.annotation
  (#eq? @_new "new"))
((short_var_declaration
  left: (expression_list . (identifier) @variable)
  right: (expression_list . (call_expression function: (_) @_function) @type .)) @hint.assign
  (#not-eq? @_function "new"))
(short_var_declaration
  left: (expression_list . (identifier) @variable .)
  right: (expression_list . [(identifier) (selector_expression)] @type .)) @hint.alias
(var_spec
  name: (identifier) @variable
  type: [(type_identifier) (qualified_type) (generic_type)] @type) @hint.annotation
(var_spec
  name: (identifier) @variable
  type: (pointer_type [(type_identifier) (qualified_type) (generic_type)] @type)) @hint.annotation
(var_spec
  name: (identifier) @variable
  !type
  value: (expression_list . (composite_literal type: (_) @type) .)) @hint.annotation
(var_spec
  name: (identifier) @variable
  !type
  value: (expression_list . (call_expression) @type .)) @hint.assign
(parameter_declaration
  name: (identifier) @variable
  type: [(type_identifier) (qualified_type) (generic_type)] @type) @hint.parameter
(parameter_declaration
  name: (identifier) @variable
  type: (pointer_type [(type_identifier) (qualified_type) (generic_type)] @type)) @hint.parameter
(parameter_declaration
  name: (identifier) @variable
  type: [(slice_type) (array_type) (map_type) (channel_type) (function_type) (interface_type)] @type) @hint.parameter
; Containers: `var xs []Item`, `byName map[string]*Item`, a channel; what indexing and ranging over
; them give is read from the written type (graph/resolve.py).
(var_spec
  name: (identifier) @variable
  type: [(slice_type) (array_type) (map_type) (channel_type)] @type) @hint.annotation
(field_declaration
  name: (field_identifier) @variable
  type: [(slice_type) (array_type) (map_type) (channel_type)] @type) @hint.annotation
; `for _, item := range items`: the second variable is an item of what is ranged over (a slice's
; element, a map's value); the first, an index or a key, stays untyped.
(range_clause
  left: (expression_list . (_) . (identifier) @variable .)
  right: (_) @type) @hint.item
; Fields of a struct: `items *Index` types `s.items` (an annotation in the struct's body).
(field_declaration
  name: (field_identifier) @variable
  type: [(type_identifier) (qualified_type) (generic_type)] @type) @hint.annotation
(field_declaration
  name: (field_identifier) @variable
  type: (pointer_type [(type_identifier) (qualified_type) (generic_type)] @type)) @hint.annotation
; Declared results: `func NewStore() *Store`, `func Open() (*File, error)` (the first result).
(function_declaration
  name: (identifier) @variable
  result: [(type_identifier) (qualified_type) (generic_type)] @type) @hint.returns
(function_declaration
  name: (identifier) @variable
  result: (pointer_type [(type_identifier) (qualified_type) (generic_type)] @type)) @hint.returns
(function_declaration
  name: (identifier) @variable
  result: (parameter_list
    . (parameter_declaration type: [(type_identifier) (qualified_type) (generic_type)] @type))) @hint.returns
(function_declaration
  name: (identifier) @variable
  result: (parameter_list
    . (parameter_declaration
      type: (pointer_type [(type_identifier) (qualified_type) (generic_type)] @type)))) @hint.returns
(function_declaration
  name: (identifier) @variable
  result: [(slice_type) (array_type) (map_type) (channel_type)] @type) @hint.returns
(function_declaration
  name: (identifier) @variable
  result: (parameter_list
    . (parameter_declaration type: [(slice_type) (array_type) (map_type) (channel_type)] @type))) @hint.returns
(method_declaration
  name: (field_identifier) @variable
  result: [(type_identifier) (qualified_type) (generic_type)] @type) @hint.returns
(method_declaration
  name: (field_identifier) @variable
  result: [(slice_type) (array_type) (map_type) (channel_type)] @type) @hint.returns
(method_declaration
  name: (field_identifier) @variable
  result: (parameter_list
    . (parameter_declaration type: [(slice_type) (array_type) (map_type) (channel_type)] @type))) @hint.returns
(method_declaration
  name: (field_identifier) @variable
  result: (pointer_type [(type_identifier) (qualified_type) (generic_type)] @type)) @hint.returns
(method_declaration
  name: (field_identifier) @variable
  result: (parameter_list
    . (parameter_declaration type: [(type_identifier) (qualified_type) (generic_type)] @type))) @hint.returns
(method_declaration
  name: (field_identifier) @variable
  result: (parameter_list
    . (parameter_declaration
      type: (pointer_type [(type_identifier) (qualified_type) (generic_type)] @type)))) @hint.returns

; Every name a scope binds: a local shadows the package's names, and one bound without type
; evidence has an unknown type.
(short_var_declaration left: (expression_list) @variable) @binding
(range_clause left: (expression_list) @variable) @binding
(var_spec name: (identifier) @variable) @binding
(parameter_declaration name: (identifier) @variable) @binding
(variadic_parameter_declaration name: (identifier) @variable) @binding
