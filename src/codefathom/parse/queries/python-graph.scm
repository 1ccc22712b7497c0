; Python graph facts: references, imports, type evidence, fields and constants.
; Capture vocabulary: parse/facts.py. Definitions of classes and functions come from python.scm.

; Calls: `f()`, `obj.method()`, `pkg.mod.f()`.
(call function: (identifier) @name) @reference.call
(call function: (attribute object: (_) @receiver attribute: (identifier) @name)) @reference.call

; Base classes.
(class_definition superclasses: (argument_list (identifier) @name)) @reference.inherit
(class_definition
  superclasses: (argument_list (attribute object: (_) @receiver attribute: (identifier) @name))) @reference.inherit
; A generic base: `class Box(Generic[T])`, `class SupportsRead(Protocol[T])`.
(class_definition superclasses: (argument_list (subscript value: (identifier) @name))) @reference.inherit
(class_definition
  superclasses: (argument_list
    (subscript value: (attribute object: (_) @receiver attribute: (identifier) @name)))) @reference.inherit

; Decorators, with or without arguments (`@cache`, `@app.route("/")`).
(decorator (identifier) @name) @reference.decorator
(decorator (attribute object: (_) @receiver attribute: (identifier) @name)) @reference.decorator
(decorator (call function: (identifier) @name)) @reference.decorator
(decorator (call function: (attribute object: (_) @receiver attribute: (identifier) @name))) @reference.decorator

; Types in annotations, including inside generics (`list[Foo]`).
(type (identifier) @name) @reference.type
(type (attribute object: (_) @receiver attribute: (identifier) @name)) @reference.type
(type_parameter (type (identifier) @name)) @reference.type
(type (binary_operator (identifier) @name)) @reference.type
(type (binary_operator (binary_operator (identifier) @name))) @reference.type

; Names passed or assigned as values: callbacks, handlers, aliases.
(argument_list (identifier) @name) @reference.read
(keyword_argument value: (identifier) @name) @reference.read
; Bound methods and module members handed over as values: `Thread(target=self._run)`, `map(str.strip, x)`.
(argument_list (attribute object: (_) @receiver attribute: (identifier) @name)) @reference.read
(keyword_argument value: (attribute object: (_) @receiver attribute: (identifier) @name)) @reference.read
; ... assigned (`acquire = _CACHE.acquire`) or kept in a table (`{0: _get_stdin}`, `[check_a, check_b]`).
(assignment right: (attribute object: (_) @receiver attribute: (identifier) @name)) @reference.read
(pair value: (identifier) @name) @reference.read
(list (identifier) @name) @reference.read
(tuple (identifier) @name) @reference.read
(return_statement (identifier) @name) @reference.read
(default_parameter value: (identifier) @name) @reference.read
(typed_default_parameter value: (identifier) @name) @reference.read
(assignment right: (identifier) @name) @reference.read

; Imports: parsed by parse/hooks/python.py.
(import_statement) @import
(import_from_statement) @import

; Type evidence for receivers.
(assignment left: (identifier) @variable right: (call) @type) @hint.assign
(assignment left: (identifier) @variable type: (type) @type) @hint.annotation
(assignment left: (identifier) @variable right: [(identifier) (attribute)] @type) @hint.alias
(assignment
  left: (attribute object: (identifier) @object attribute: (identifier) @variable)
  right: (call) @type) @hint.attribute
(assignment
  left: (attribute object: (identifier) @object attribute: (identifier) @variable)
  type: (type) @type) @hint.attribute_annotation
(assignment
  left: (attribute object: (identifier) @object attribute: (identifier) @variable)
  right: [(identifier) (attribute)] @type) @hint.attribute_alias
(typed_parameter (identifier) @variable type: (type) @type) @hint.parameter
(typed_default_parameter name: (identifier) @variable type: (type) @type) @hint.parameter
(function_definition name: (identifier) @variable return_type: (type) @type) @hint.returns
(for_statement left: (identifier) @variable right: (_) @type) @hint.element
(for_in_clause left: (identifier) @variable right: (_) @type) @hint.element
(with_item value: (as_pattern . (_) @type alias: (as_pattern_target (identifier) @variable))) @hint.enter
(except_clause (as_pattern . (_) @type alias: (as_pattern_target (identifier) @variable))) @hint.caught
(assignment
  left: (identifier) @variable
  right: [(string) (concatenated_string) (integer) (float) (true) (false) (list) (dictionary) (set) (tuple)
          (list_comprehension) (dictionary_comprehension) (set_comprehension)] @type) @hint.literal
(assignment
  left: (attribute object: (identifier) @object attribute: (identifier) @variable)
  right: [(string) (concatenated_string) (integer) (float) (true) (false) (list) (dictionary) (set) (tuple)
          (list_comprehension) (dictionary_comprehension) (set_comprehension)] @type) @hint.attribute_literal

; Every name a scope binds (parameters, assignment and loop targets, `as` names, walrus), and every
; `obj.attr = ...`: a local shadows outer names, and a binding without type evidence makes the
; variable's type unknown.
(parameters) @variable @binding
(lambda_parameters) @variable @binding
(assignment left: (_) @variable) @binding
(augmented_assignment left: (identifier) @variable) @binding
(for_statement left: (_) @variable) @binding
(for_in_clause left: (_) @variable) @binding
(as_pattern alias: (as_pattern_target) @variable) @binding
(named_expression name: (identifier) @variable) @binding

; Classes and functions defined inside functions, at any depth of blocks: local to their scope,
; they shadow any global of that name (facts.py keeps those whose nearest definition is a function).
(function_definition name: (identifier) @name) @definition.local
(class_definition name: (identifier) @name) @definition.local

; Module constants and class fields, also inside `if`/`try` blocks (facts.py checks the nearest
; definition around them).
(assignment left: (identifier) @name) @definition.constant
