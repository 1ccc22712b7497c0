; Ruby graph facts: references, requires, type evidence, attributes and constants.
; Capture vocabulary: parse/facts.py. Classes, modules and methods come from ruby.scm; receivers and
; values are rewritten by parse/hooks/ruby.py (`Foo::Bar.new(x)` -> `Foo.Bar(x)`, `@repo` -> `self.repo`).
; A bare `save` is a local variable read or a call of self's method: `maybe_call`, dropped when the
; method binds the name, else a call.

; A module is class-like: mixed into classes (`include`), its methods found through them.
(module name: (_) @name) @definition.class

; Calls: `f()`, `f x`, `x.f`, `self.f`, `Foo.f`, `Foo::Bar.f`, `x&.f`. `Foo.new` is an instantiation:
; a call of the class (its `initialize` runs).
(call !receiver method: (identifier) @name) @reference.call
((call receiver: (_) @receiver method: (identifier) @name) @reference.call
  (#not-eq? @name "new"))
((call receiver: (constant) @name method: (identifier) @_new) @reference.call
  (#eq? @_new "new"))
((call receiver: (scope_resolution scope: (_) @receiver name: (constant) @name) method: (identifier) @_new)
  @reference.call
  (#eq? @_new "new"))
((call receiver: (scope_resolution !scope name: (constant) @name) method: (identifier) @_new) @reference.call
  (#eq? @_new "new"))

; `super`, `super(x)`: the enclosing method's namesake in the base class or an included module.
(super) @name @reference.super

; A bare name where a value is read: a local, else a call of self's method (`save`, `total + 1`).
([
  (body_statement (identifier) @name)
  (block_body (identifier) @name)
  (then (identifier) @name)
  (else (identifier) @name)
  (ensure (identifier) @name)
  (begin (identifier) @name)
  (parenthesized_statements (identifier) @name)
  (program (identifier) @name)
  (argument_list (identifier) @name)
  (array (identifier) @name)
  (pair value: (identifier) @name)
  (assignment right: (identifier) @name)
  (operator_assignment right: (identifier) @name)
  (right_assignment_list (identifier) @name)
  (binary (identifier) @name)
  (unary (identifier) @name)
  (call receiver: (identifier) @name)
  (element_reference (identifier) @name)
  (if condition: (identifier) @name)
  (unless condition: (identifier) @name)
  (while condition: (identifier) @name)
  (until condition: (identifier) @name)
  (if_modifier (identifier) @name)
  (unless_modifier (identifier) @name)
  (while_modifier (identifier) @name)
  (until_modifier (identifier) @name)
  (rescue_modifier (identifier) @name)
  (conditional (identifier) @name)
  (interpolation (identifier) @name)
  (case value: (identifier) @name)
  (in (identifier) @name)
  (splat_argument (identifier) @name)
  (hash_splat_argument (identifier) @name)
  (block_argument (identifier) @name)
  (range (identifier) @name)
] @reference.maybe_call)

; Constants where a value is read: a class or module (`raise Shop::Error`, `Foo === x`, `rescue E`), or a
; constant's value (`MAX`, upper case). `A::B` is B reached through A.
([
  (body_statement [(constant) @name (scope_resolution scope: (_) @receiver name: (constant) @name)])
  (block_body [(constant) @name (scope_resolution scope: (_) @receiver name: (constant) @name)])
  (then [(constant) @name (scope_resolution scope: (_) @receiver name: (constant) @name)])
  (argument_list [(constant) @name (scope_resolution scope: (_) @receiver name: (constant) @name)])
  (array [(constant) @name (scope_resolution scope: (_) @receiver name: (constant) @name)])
  (pair value: [(constant) @name (scope_resolution scope: (_) @receiver name: (constant) @name)])
  (assignment right: [(constant) @name (scope_resolution scope: (_) @receiver name: (constant) @name)])
  (operator_assignment right: [(constant) @name (scope_resolution scope: (_) @receiver name: (constant) @name)])
  (binary [(constant) @name (scope_resolution scope: (_) @receiver name: (constant) @name)])
  (call receiver: [(constant) @name (scope_resolution scope: (_) @receiver name: (constant) @name)])
  (element_reference object: [(constant) @name (scope_resolution scope: (_) @receiver name: (constant) @name)])
  (exceptions [(constant) @name (scope_resolution scope: (_) @receiver name: (constant) @name)])
  (pattern [(constant) @name (scope_resolution scope: (_) @receiver name: (constant) @name)])
  (conditional [(constant) @name (scope_resolution scope: (_) @receiver name: (constant) @name)])
  (interpolation [(constant) @name (scope_resolution scope: (_) @receiver name: (constant) @name)])
  (scope_resolution scope: (constant) @name)
] @reference.type
  (#not-match? @name "^[A-Z][A-Z0-9_]+$"))
([
  (body_statement [(constant) @name (scope_resolution scope: (_) @receiver name: (constant) @name)])
  (then [(constant) @name (scope_resolution scope: (_) @receiver name: (constant) @name)])
  (argument_list [(constant) @name (scope_resolution scope: (_) @receiver name: (constant) @name)])
  (array [(constant) @name (scope_resolution scope: (_) @receiver name: (constant) @name)])
  (pair value: [(constant) @name (scope_resolution scope: (_) @receiver name: (constant) @name)])
  (assignment right: [(constant) @name (scope_resolution scope: (_) @receiver name: (constant) @name)])
  (operator_assignment right: [(constant) @name (scope_resolution scope: (_) @receiver name: (constant) @name)])
  (binary [(constant) @name (scope_resolution scope: (_) @receiver name: (constant) @name)])
  (call receiver: [(constant) @name (scope_resolution scope: (_) @receiver name: (constant) @name)])
  (element_reference [(constant) @name (scope_resolution scope: (_) @receiver name: (constant) @name)])
  (conditional [(constant) @name (scope_resolution scope: (_) @receiver name: (constant) @name)])
  (interpolation [(constant) @name (scope_resolution scope: (_) @receiver name: (constant) @name)])
] @reference.read
  (#match? @name "^[A-Z][A-Z0-9_]+$"))

; Inheritance: `class A < B`, `class A < Shop::Base`; modules mixed in: `include M`, `extend M`,
; `prepend M` (their methods are found through the class).
(superclass [(constant) @name (scope_resolution scope: (_) @receiver name: (constant) @name)]) @reference.inherit
((call
  !receiver
  method: (identifier) @_mixin
  arguments: (argument_list [(constant) @name (scope_resolution scope: (_) @receiver name: (constant) @name)]))
  @reference.inherit
  (#any-of? @_mixin "include" "extend" "prepend"))

; Requires: parsed by parse/hooks/ruby.py.
((call
  !receiver
  method: (identifier) @_require
  arguments: (argument_list . (string))) @import
  (#any-of? @_require "require" "require_relative" "load"))

; `attr_accessor :total` makes `total` (and `total=`) a member of the class; a constant written in a
; class or module body is a member of it, one at the top level a global (not a class factory:
; `Point = Struct.new(...)` is a class, from ruby.scm).
((call
  !receiver
  method: (identifier) @_attr
  arguments: (argument_list (simple_symbol) @name)) @definition.field
  (#any-of? @_attr "attr_accessor" "attr_reader" "attr_writer"))
((assignment left: (constant) @name right: (_) @_value) @definition.constant
  (#not-match? @_value "^(Struct|Class|Data)[.](new|define)"))

; Type evidence: `x = Foo.new`, `x = make`, `x = y`, literals; `@x = Foo.new` (in any method: an
; instance variable is the object's).
(assignment left: (identifier) @variable right: (call) @type) @hint.assign
(operator_assignment left: (identifier) @variable right: (call) @type) @hint.assign
(assignment
  left: (identifier) @variable
  right: [(identifier) (constant) (scope_resolution) (instance_variable) (self) (nil)] @type) @hint.alias
(assignment
  left: (identifier) @variable
  right: [(string) (integer) (float) (array) (hash) (simple_symbol) (delimited_symbol) (true) (false) (regex)
          (string_array) (symbol_array) (rational) (complex) (heredoc_beginning) (range) (lambda)] @type) @hint.literal
(assignment left: (constant) @variable right: [(constant) (scope_resolution)] @type) @hint.alias
(assignment left: (instance_variable) @variable right: (_) @type) @hint.attribute
(operator_assignment left: (instance_variable) @variable right: (_) @type) @hint.attribute

; Every name a method binds: a local or parameter shadows a method of that name (`save = 1; save`).
(assignment left: (identifier) @variable) @binding
(operator_assignment left: (identifier) @variable) @binding
(left_assignment_list (identifier) @variable) @binding
(rest_assignment (identifier) @variable) @binding
(method_parameters (identifier) @variable) @binding
(lambda_parameters (identifier) @variable) @binding
(block_parameters (identifier) @variable) @binding
(destructured_parameter (identifier) @variable) @binding
(optional_parameter name: (identifier) @variable) @binding
(keyword_parameter name: (identifier) @variable) @binding
(splat_parameter name: (identifier) @variable) @binding
(hash_splat_parameter name: (identifier) @variable) @binding
(block_parameter name: (identifier) @variable) @binding
(exception_variable (identifier) @variable) @binding
(for pattern: (identifier) @variable) @binding
(for pattern: (left_assignment_list (identifier) @variable)) @binding
