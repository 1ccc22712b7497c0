; C and C++ graph facts shared by both grammars: calls, types, includes, fields, macros, typedefs and
; type evidence. Capture vocabulary: parse/facts.py. Functions, structs, classes come from c.scm and
; cpp.scm; cpp-graph.scm adds namespaces, `new`, bases and templates. Receivers and types are
; rewritten by parse/hooks/cfamily.py (`p->q.f` -> `p.q.f`, `const struct foo *` -> `foo`).

; Calls: `f()`, `s.f()`, `p->f()` (a function pointer field, or a C++ method), a function-like macro.
(call_expression function: (identifier) @name) @reference.call
(call_expression
  function: (field_expression argument: (_) @receiver field: (field_identifier) @name)) @reference.call

; Written types: declarations, parameters, fields, results, casts, `sizeof`, template arguments;
; `struct foo *p` names the struct (a struct written with a body is its definition, not a use).
(_ type: (type_identifier) @name) @reference.type
((struct_specifier !body name: (type_identifier) @name) @reference.type)
((union_specifier !body name: (type_identifier) @name) @reference.type)
((enum_specifier !body name: (type_identifier) @name) @reference.type)

; Names read where a function may stand for a pointer to it (`uv_close(h, on_close)`,
; `{ .save = order_save }`, `cb = on_done;`, `return f;`), or a macro constant is passed: a use of
; the function or constant (reads of locals and parameters are dropped when the file is parsed).
(argument_list (identifier) @name) @reference.read
(argument_list (pointer_expression argument: (identifier) @name)) @reference.read
(initializer_list (identifier) @name) @reference.read
(initializer_pair value: (identifier) @name) @reference.read
(assignment_expression right: (identifier) @name) @reference.read
(return_statement (identifier) @name) @reference.read
(init_declarator value: (identifier) @name) @reference.read

; `#include "a.h"`, `#include <stdio.h>`: parsed by parse/hooks/cfamily.py, resolved by graph/cinclude.py.
(preproc_include) @import

; Macros and enumerators are names of the file's top level (C enumerators are not scoped by their enum).
(preproc_def name: (identifier) @name) @definition.constant
(preproc_function_def name: (identifier) @name) @definition.constant
(enumerator name: (identifier) @name) @definition.constant

; Typedefs: `typedef struct uv_loop_s uv_loop_t;`, `typedef int (*cb)(int);`, `typedef Foo Bar;`; the
; name stands for the type it names (a `@hint.alias` of that type). A typedef of a struct written
; with a body and no tag of its own is that struct (c.scm), so it is no constant.
((type_definition
  type: [(struct_specifier !body) (union_specifier !body) (enum_specifier !body) (type_identifier)
         (primitive_type) (sized_type_specifier)]
  declarator: (type_identifier) @name) @definition.constant)
((type_definition
  type: [(struct_specifier name: (type_identifier) @_tag body: (_)) (union_specifier name: (type_identifier) @_tag body: (_))
         (enum_specifier name: (type_identifier) @_tag body: (_))]
  declarator: (type_identifier) @name) @definition.constant
  (#not-eq? @name @_tag))
(type_definition declarator: (pointer_declarator declarator: (type_identifier) @name)) @definition.constant
(type_definition
  declarator: (function_declarator
    declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))) @definition.constant
((type_definition
  type: [(struct_specifier name: (type_identifier) @type) (union_specifier name: (type_identifier) @type)
         (enum_specifier name: (type_identifier) @type) (type_identifier) @type]
  declarator: [(type_identifier) @variable (pointer_declarator declarator: (type_identifier) @variable)]) @hint.alias
  (#not-eq? @variable @type))

; Fields of structs, unions and classes: `s->count`, `ops->save(o)` (a function pointer).
(field_declaration
  declarator: [
    (field_identifier) @name
    (pointer_declarator declarator: (field_identifier) @name)
    (pointer_declarator declarator: (pointer_declarator declarator: (field_identifier) @name))
    (array_declarator declarator: (field_identifier) @name)
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (field_identifier) @name)))
  ]) @definition.field

; Type evidence. A variable, parameter or field has the type it is declared with (pointers and
; qualifiers dropped by the rewriter); a function its result; a prototype (`int f(void);`, kept as a
; `prototype` hint of the name at the top level) says which header declares a function.
((declaration
  type: (_) @type
  declarator: [
    (identifier) @variable
    (pointer_declarator declarator: (identifier) @variable)
    (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @variable))
    (array_declarator declarator: (identifier) @variable)
    (init_declarator declarator: [
      (identifier) @variable
      (pointer_declarator declarator: (identifier) @variable)
      (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @variable))
      (array_declarator declarator: (identifier) @variable)])
  ]) @hint.annotation
  (#not-eq? @type "auto"))
(parameter_declaration
  type: (_) @type
  declarator: [
    (identifier) @variable
    (pointer_declarator declarator: (identifier) @variable)
    (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @variable))
    (array_declarator declarator: (identifier) @variable)
  ]) @hint.parameter
(field_declaration
  type: (_) @type
  declarator: [
    (field_identifier) @variable
    (pointer_declarator declarator: (field_identifier) @variable)
    (pointer_declarator declarator: (pointer_declarator declarator: (field_identifier) @variable))
    (array_declarator declarator: (field_identifier) @variable)
  ]) @hint.annotation
(function_definition
  type: (_) @type
  declarator: [
    (function_declarator declarator: (identifier) @variable)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @variable))
  ]) @hint.returns
(declaration
  type: (_) @type
  declarator: [
    (function_declarator declarator: (identifier) @variable)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @variable))
  ]) @hint.prototype

; Every name a function binds: a parameter or local shadows a global, macro or member of that name.
(parameter_declaration
  declarator: [
    (identifier) @variable
    (pointer_declarator declarator: (identifier) @variable)
    (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @variable))
    (array_declarator declarator: (identifier) @variable)
  ]) @binding
(declaration
  declarator: [
    (identifier) @variable
    (pointer_declarator declarator: (identifier) @variable)
    (array_declarator declarator: (identifier) @variable)
    (init_declarator declarator: [
      (identifier) @variable
      (pointer_declarator declarator: (identifier) @variable)
      (array_declarator declarator: (identifier) @variable)])
  ]) @binding

; Preprocessor conditionals, nested ones too: the platforms a definition inside one is compiled for
; (parse/hooks/cfamily.py reads their branches).
[(preproc_if) (preproc_ifdef)] @conditional
