; Kotlin: `package a.b` qualifies the file. class_declaration covers class, interface, enum class,
; data/sealed/value/annotation classes. A named companion object is an object of its own; an
; unnamed one adds no level, so its members read `Outer.member` as they are called.
(package_header
  (_) @package)

(class_declaration
  name: (identifier) @name) @definition.class

(object_declaration
  name: (identifier) @name) @definition.object

(companion_object
  name: (identifier) @name) @definition.object

; Extension functions keep their receiver in the signature (`fun String.shout()`).
(function_declaration
  name: (identifier) @name) @definition.function

(secondary_constructor
  "constructor" @name) @definition.constructor

; The grammar misreads an annotation with arguments followed by a soft keyword (`@Target(CLASS)
; annotation class A`, `@OptIn(X::class) actual class B { }`) as an infix call `annotation class A`
; (no syntax error); such a call with `class` in the middle is the class. The annotation around it is
; a wrapper (see languages.py), so it and the doc above it belong to the class.
(infix_expression
  .
  (identifier)
  .
  (identifier) @_keyword
  .
  [
    (identifier) @name
    (call_expression
      .
      (identifier) @name
      .
      (annotated_lambda))
  ]
  .
  (#any-of? @_keyword "class" "interface" "object")) @definition.class
