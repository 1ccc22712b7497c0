; JavaScript, TypeScript and TSX graph facts shared by the three grammars (joined with
; javascript-graph.scm or typescript-graph.scm, per the `queries` field of their rows in
; languages.py). Capture vocabulary: parse/facts.py.

; Calls: `f()`, `obj.m()`, `a.b.f()`; `new Foo()` is a call of the class.
(call_expression function: (identifier) @name) @reference.call
(call_expression
  function: (member_expression object: (_) @receiver property: (property_identifier) @name)) @reference.call
(new_expression constructor: (identifier) @name) @reference.call
(new_expression
  constructor: (member_expression object: (_) @receiver property: (property_identifier) @name)) @reference.call

; Names handed over as values: callbacks (`items.map(toLabel)`), table entries, aliases of a
; namespace's member (`const _await = internal._await`), returns, and local exports (`export { a as b }`).
(arguments (identifier) @name) @reference.read
(arguments (member_expression object: (_) @receiver property: (property_identifier) @name)) @reference.read
(pair value: (identifier) @name) @reference.read
(array (identifier) @name) @reference.read
(variable_declarator value: (identifier) @name) @reference.read
(variable_declarator
  value: (member_expression object: (identifier) @receiver property: (property_identifier) @name)) @reference.read
(return_statement (identifier) @name) @reference.read
(export_statement !source (export_clause (export_specifier name: (identifier) @name))) @reference.read

; Decorators, with or without arguments (`@Injectable()`, `@core.Component({...})`).
(decorator (identifier) @name) @reference.decorator
(decorator (member_expression object: (_) @receiver property: (property_identifier) @name)) @reference.decorator
(decorator (call_expression function: (identifier) @name)) @reference.decorator
(decorator
  (call_expression
    function: (member_expression object: (_) @receiver property: (property_identifier) @name))) @reference.decorator

; Imports: `import ... from`, `export ... from`, `const x = require("x")`; parsed by parse/hooks/ecmascript.py.
(import_statement) @import
(export_statement source: (string)) @import
; `export { try_ as try }`: the file's `try_` under another name (module "": the file itself).
(export_statement !source (export_clause (export_specifier alias: (_)))) @import
(lexical_declaration
  (variable_declarator
    value: (call_expression function: (identifier) @_require arguments: (arguments . (string) .)))
  (#eq? @_require "require")) @import
(variable_declaration
  (variable_declarator
    value: (call_expression function: (identifier) @_require arguments: (arguments . (string) .)))
  (#eq? @_require "require")) @import

; Type evidence: `const x = new Foo()`, `const x = make()`, `const x = y`, literals, and on `this`
; in methods.
(variable_declarator name: (identifier) @variable value: [(new_expression) (call_expression)] @type) @hint.assign
(variable_declarator
  name: (identifier) @variable value: [(identifier) (member_expression) (subscript_expression)] @type) @hint.alias
(variable_declarator
  name: (identifier) @variable
  value: [(string) (template_string) (number) (true) (false) (array) (object) (regex)] @type) @hint.literal
; `let windows = [new Subject<T>()]`: an array of what its first element is.
(variable_declarator
  name: (identifier) @variable
  value: (array . (new_expression constructor: [(identifier) (member_expression)] @type))) @hint.array_of
; Narrowing: inside `if (x instanceof Foo) ...`, `if (isFoo(x)) ...`, `isFoo(x) ? ... : ...` and
; `isFoo(x) && ...`, x is a Foo (a guard is a function whose return type says `x is Foo`).
(if_statement
  condition: (parenthesized_expression
    (binary_expression left: (identifier) @variable operator: "instanceof" right: [(identifier) (member_expression)] @type))
  consequence: (_) @narrowed) @hint.narrowed
(if_statement
  condition: (parenthesized_expression
    (call_expression function: [(identifier) (member_expression)] @type arguments: (arguments . (identifier) @variable)))
  consequence: (_) @narrowed) @hint.narrowed
(ternary_expression
  condition: [(binary_expression left: (identifier) @variable operator: "instanceof" right: [(identifier) (member_expression)] @type)
              (call_expression function: [(identifier) (member_expression)] @type arguments: (arguments . (identifier) @variable))]
  consequence: (_) @narrowed) @hint.narrowed
(binary_expression
  left: [(binary_expression left: (identifier) @variable operator: "instanceof" right: [(identifier) (member_expression)] @type)
         (call_expression function: [(identifier) (member_expression)] @type arguments: (arguments . (identifier) @variable))]
  operator: "&&"
  right: (_) @narrowed) @hint.narrowed

; `const { a, b: c } = expr`: `expr.a` and `expr.b` (not `require()`, an import).
(variable_declarator
  name: (object_pattern (shorthand_property_identifier_pattern) @variable)
  value: (_) @type
  (#not-match? @type "^require[ (]")) @hint.property
(variable_declarator
  name: (object_pattern (pair_pattern key: (property_identifier) @key value: (identifier) @variable))
  value: (_) @type
  (#not-match? @type "^require[ (]")) @hint.property
; `for (const x of xs)`: what iterating xs gives.
(for_in_statement left: (identifier) @variable operator: "of" right: (_) @type) @hint.element
(assignment_expression
  left: (member_expression object: (this) @object property: (property_identifier) @variable)
  right: [(new_expression) (call_expression)] @type) @hint.attribute
(assignment_expression
  left: (member_expression object: (this) @object property: (property_identifier) @variable)
  right: [(identifier) (member_expression)] @type) @hint.attribute_alias
(assignment_expression
  left: (member_expression object: (this) @object property: (property_identifier) @variable)
  right: [(string) (template_string) (number) (true) (false) (array) (object) (regex)] @type) @hint.attribute_literal

; Names a scope binds: a local shadows outer names, and one bound without evidence has no type.
; (Not a function's own name: `const f = () => f()` binds `f` outside it.)
(variable_declarator name: (identifier) @variable !value) @binding
; A function made inside a block is a local of the function around it: `const run = () => ...` in a
; body hides a module's `run` (at the top level it is a unit, named as a function).
(statement_block
  (lexical_declaration
    (variable_declarator name: (identifier) @variable value: [(arrow_function) (function_expression)]) @binding))
(variable_declarator
  name: (identifier) @variable
  value: [(call_expression) (await_expression) (member_expression) (identifier) (subscript_expression)
          (binary_expression) (ternary_expression) (parenthesized_expression)]) @binding

; Module constants whose value is not a function (`export const action = createActionFactory()`,
; `var isMap = makePredicate(Map)`): callable or not, code names them. Arrow functions and function
; expressions assigned at the top level are units already, named as functions; `require()` is an import.
; `(_ ...)` is a `const`/`let` or a `var` declaration: the two nodes that hold declarators.
(program
  (_
    (variable_declarator
      name: (identifier) @name
      value: [(new_expression) (identifier) (member_expression) (subscript_expression) (object) (array)
                   (string) (template_string) (number) (true) (false) (null) (regex) (binary_expression)
                   (ternary_expression) (parenthesized_expression) (await_expression) (unary_expression)]) @definition.constant))
; Exported: the same values as above, in three patterns. Written as one alternation of all eighteen,
; this pattern alone took a third of the query's time on effect's TypeScript (1.4 s; split, 1.15 s).
(program
  (export_statement
    declaration: (_
      (variable_declarator
        name: (identifier) @name
        value: [(new_expression) (identifier) (member_expression) (subscript_expression) (object) (array)])
      @definition.constant)))
(program
  (export_statement
    declaration: (_
      (variable_declarator
        name: (identifier) @name
        value: [(string) (template_string) (number) (true) (false) (null) (regex) (binary_expression)])
      @definition.constant)))
(program
  (export_statement
    declaration: (_
      (variable_declarator
        name: (identifier) @name
        value: [(ternary_expression) (parenthesized_expression) (await_expression) (unary_expression)])
      @definition.constant)))
; Module constants taken apart from a value (`const { isArray } = Array`, `const { keys: getKeys } = Object`).
(program
  (_ (variable_declarator name: (object_pattern (shorthand_property_identifier_pattern) @name) value: (_) @_value)
    @definition.constant)
  (#not-match? @_value "^require[ (]"))
(program
  (_ (variable_declarator name: (object_pattern (pair_pattern value: (identifier) @name)) value: (_) @_value)
    @definition.constant)
  (#not-match? @_value "^require[ (]"))
(program
  (_ (variable_declarator name: (identifier) @name value: (call_expression function: (_) @_callee)) @definition.constant)
  (#not-eq? @_callee "require"))
(program
  (export_statement
    declaration: (_
      (variable_declarator name: (identifier) @name value: (call_expression function: (_) @_callee)) @definition.constant))
  (#not-eq? @_callee "require"))
