; Ruby: classes and modules are containers.
; `def self.x` is a method of the enclosing class; `class << self` adds no level of its own.
(class
  name: (_) @name) @definition.class

(module
  name: (_) @name) @definition.module

; Every `def` inside a class, module or block is a method; only one written at the top of the file is
; a function. (A top-level def matches both patterns; the match that starts earlier, at the program
; node, is reported first and wins.)
(program
  (method
    name: (_) @name) @definition.function)

(method
  name: (_) @name) @definition.method

(singleton_method
  name: (_) @name) @definition.method

; `Point = Struct.new(:x, :y) do ... end` and `Error = Class.new(StandardError)` define classes.
(assignment
  left: (constant) @name
  right: (call
    receiver: (constant) @_factory
    method: (identifier) @_new)
  (#any-of? @_factory "Struct" "Class" "Data")
  (#any-of? @_new "new" "define")) @definition.class
