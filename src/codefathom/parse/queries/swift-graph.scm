; Swift graph facts: references, imports, type evidence and properties.
; Capture vocabulary: parse/facts.py. Types, extensions, protocols and functions come from swift.scm;
; receivers and types are rewritten into dotted expressions by parse/hooks/swift.py (`a?.b!.c` ->
; `a.b.c`, `(x as? Foo)?.f` -> `Foo(x).f`, `[Foo]` -> `Array[Foo]`, `Foo?` -> `Foo`). A call of a
; type's name is an instantiation, bound to the type. The grammar names both a parameter's name and
; its type `name`, so patterns anchor on the `:` between them rather than on fields.

; Calls: `f()`, `Foo()`, `x.f()`, `x?.f()`, `self.f()`, `super.f()`, `Foo.shared.f()`, `Foo.init(x)`.
(call_expression . (simple_identifier) @name) @reference.call
(call_expression
  . (navigation_expression
      target: (_) @receiver
      suffix: (navigation_suffix suffix: (simple_identifier) @name))) @reference.call

; Member reads: `self.repo`, `Color.red`, `Store.shared` (a call of the same name wins, parse/facts.py),
; and a bare name a member is read through (`Store` in `Store.shared`; a local's read is dropped, a
; closure's `$0` is none).
(navigation_expression
  target: (_) @receiver
  suffix: (navigation_suffix suffix: (simple_identifier) @name)) @reference.read
((navigation_expression target: (simple_identifier) @name) @reference.read
  (#not-match? @name "^[$]"))

; Inheritance and conformance: `class A: Base, P`, `struct S: P`, `extension Foo: P`, `protocol P: Q`.
(class_declaration (inheritance_specifier (user_type . (type_identifier) @name))) @reference.inherit
(protocol_declaration (inheritance_specifier (user_type . (type_identifier) @name))) @reference.inherit

; Attributes naming a type: global actors and property wrappers (`@MainActor`, `@Published`, a
; project's `@Clamped`). The language's own are lower case (`@objc`, `@main`, `@discardableResult`):
; no type, and `@main` is no reference to a `main` method.
((attribute (user_type . (type_identifier) @name)) @reference.decorator
  (#match? @name "^[A-Z]"))

; Every other written type: annotations, parameters, results, generic arguments, `as?`/`is`,
; constraints, `[Foo]`, `Foo?`. `Outer.Inner` is Inner reached through Outer (the hook reads the
; qualifier from the whole type). Single upper-case letters are type parameters by convention; a
; lower-case name is an array literal the grammar reads as a type (`[order].forEach`).
(((user_type . (type_identifier) @name) @reference.type)
  (#match? @name "^[A-Z_]")
  (#not-match? @name "^[A-Z]$"))
(((user_type (type_identifier) . "." . (type_identifier) @name) @receiver @reference.type)
  (#match? @name "^[A-Z]"))

; `import Foo`, `@testable import Foo`, `import struct Foo.Bar`: parsed by parse/hooks/swift.py.
(import_declaration) @import

; Stored and computed properties are members of their type (top-level ones constants of the module);
; enum cases are members of their enum (`Color.red`). (A property in a function body is a local:
; parse/facts.py drops it.)
(property_declaration name: (pattern (simple_identifier) @name)) @definition.constant
(protocol_property_declaration (pattern (simple_identifier) @name)) @definition.constant
(enum_entry (simple_identifier) @name) @definition.constant

; Type evidence. A property or local has the type it is declared with, else (no annotation between
; its name and `=`) its initializer's.
(property_declaration
  name: (pattern (simple_identifier) @variable)
  (type_annotation (_) @type)) @hint.annotation
(property_declaration
  name: (pattern (simple_identifier) @variable)
  .
  "="
  .
  value: [(call_expression) (navigation_expression) (simple_identifier) (as_expression) (self_expression)
          (try_expression) (await_expression)] @type) @hint.assign
(property_declaration
  name: (pattern (simple_identifier) @variable)
  .
  "="
  .
  value: [(line_string_literal) (multi_line_string_literal) (integer_literal) (real_literal)
          (boolean_literal)] @type) @hint.literal
(protocol_property_declaration
  (pattern (simple_identifier) @variable)
  (type_annotation (_) @type)) @hint.annotation
(parameter (simple_identifier) @variable . ":" . (_) @type) @hint.parameter
; `if let x = y`, `guard let x = y as? Foo`: an optional's value has the optional's type.
(if_statement bound_identifier: (simple_identifier) @variable . "=" . (_) @type) @hint.assign
(guard_statement bound_identifier: (simple_identifier) @variable . "=" . (_) @type) @hint.assign
(for_statement item: (pattern (simple_identifier) @variable) collection: (_) @type) @hint.element
; A function's declared result.
(function_declaration
  name: (simple_identifier) @variable
  "->" . (_) @type) @hint.returns
(protocol_function_declaration
  name: (simple_identifier) @variable
  "->" . (_) @type) @hint.returns

; Every name a function binds: a local or parameter shadows a property or type of that name.
(property_declaration name: (pattern (simple_identifier) @variable)) @binding
(parameter (simple_identifier) @variable . ":") @binding
(if_statement bound_identifier: (simple_identifier) @variable) @binding
(guard_statement bound_identifier: (simple_identifier) @variable) @binding
(for_statement item: (pattern (simple_identifier) @variable)) @binding
(lambda_parameter name: (simple_identifier) @variable) @binding
(catch_block (pattern (simple_identifier) @variable)) @binding
; A type's or function's type parameters (`<Element: Hashable>`) are names it binds, not types.
(type_parameter . (type_identifier) @variable) @binding

; An extension adds to a type named like it: the scope of the members it holds, but no symbol, so the
; type's name means the type (declared here, in another file, or a library's), never an extension.
(class_declaration declaration_kind: "extension") @definition.block
