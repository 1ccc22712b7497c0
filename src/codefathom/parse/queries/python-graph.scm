; Python graph facts: references, imports, type evidence, fields and constants.
; Capture vocabulary: parse/facts.py. Definitions of classes and functions come from python.scm.

; Calls: `f()`, `obj.method()`, `pkg.mod.f()`.
(call function: (identifier) @name) @reference.call
(call function: (attribute object: (_) @receiver attribute: (identifier) @name)) @reference.call

; Base classes.
(class_definition superclasses: (argument_list (identifier) @name)) @reference.inherit
(class_definition
  superclasses: (argument_list (attribute object: (_) @receiver attribute: (identifier) @name))) @reference.inherit

; Decorators, with or without arguments (`@cache`, `@app.route("/")`).
(decorator (identifier) @name) @reference.decorator
(decorator (attribute object: (_) @receiver attribute: (identifier) @name)) @reference.decorator
(decorator (call function: (identifier) @name)) @reference.decorator
(decorator (call function: (attribute object: (_) @receiver attribute: (identifier) @name))) @reference.decorator

; Types in annotations, including inside generics (`list[Foo]`).
(type (identifier) @name) @reference.type
(type (attribute object: (_) @receiver attribute: (identifier) @name)) @reference.type
(type_parameter (type (identifier) @name)) @reference.type

; Names passed or assigned as values: callbacks, handlers, aliases.
(argument_list (identifier) @name) @reference.read
(keyword_argument value: (identifier) @name) @reference.read
(assignment right: (identifier) @name) @reference.read

; Imports: parsed by parse/hooks/python.py.
(import_statement) @import
(import_from_statement) @import

; Type evidence for receivers.
(assignment left: (identifier) @variable right: (call function: [(identifier) (attribute)] @type)) @hint.assign
(assignment left: (identifier) @variable type: (type) @type) @hint.annotation
(assignment
  left: (attribute object: (identifier) @object attribute: (identifier) @variable)
  right: (call function: [(identifier) (attribute)] @type)) @hint.attribute
(assignment
  left: (attribute object: (identifier) @object attribute: (identifier) @variable)
  type: (type) @type) @hint.attribute
(typed_parameter (identifier) @variable type: (type) @type) @hint.parameter
(typed_default_parameter name: (identifier) @variable type: (type) @type) @hint.parameter
(function_definition name: (identifier) @variable return_type: (type) @type) @hint.returns
(assignment
  left: (identifier) @variable
  right: [(string) (concatenated_string) (integer) (float) (true) (false) (list) (dictionary) (set) (tuple)
          (list_comprehension) (dictionary_comprehension) (set_comprehension)] @type) @hint.literal

; Functions defined inside functions: local to their scope, they shadow any global of that name.
(function_definition body: (block (function_definition name: (identifier) @name) @definition.local))
(function_definition
  body: (block (decorated_definition definition: (function_definition name: (identifier) @name) @definition.local)))

; Module constants and class fields.
(module (expression_statement (assignment left: (identifier) @name) @definition.constant))
(class_definition body: (block (expression_statement (assignment left: (identifier) @name) @definition.field)))
