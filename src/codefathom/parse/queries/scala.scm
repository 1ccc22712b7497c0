; Scala: leading `package a.b` clauses, chained or not (`package a` `package b`), qualify the file;
; a packaging with a body (`package a { }`, `package a:`) is a container of its own.
(compilation_unit
  .
  (package_clause
    name: (package_identifier) @package
    !body)+)

(package_clause
  name: (package_identifier) @name
  body: (_)) @definition.namespace

(class_definition
  name: (identifier) @name) @definition.class

(object_definition
  name: (identifier) @name) @definition.object

(package_object
  name: (identifier) @name) @definition.object

; A named given instance (`given intOrd: Ordering[Int] with ...`) holds its methods like an object.
(given_definition
  name: (identifier) @name
  body: [(with_template_body) (template_body)]) @definition.object

(trait_definition
  name: (identifier) @name) @definition.trait

(enum_definition
  name: (identifier) @name) @definition.enum

; `def` with a body, and abstract `def` declarations in traits and abstract classes. An auxiliary
; constructor is the method `this`.
(function_definition
  name: (identifier) @name) @definition.function

(function_declaration
  name: (identifier) @name) @definition.function
