; PHP graph facts: references, `use` imports, type evidence, properties and constants.
; Capture vocabulary: parse/facts.py. Classes, interfaces, traits, enums, functions and methods come
; from php.scm; receivers and types are rewritten by parse/hooks/php.py (`$this->repo` -> `this.repo`,
; `new Foo($x)` -> `Foo(x)`, `App\Model\Order` -> `App.Model.Order`, `?Order` -> `Order`).
; `A\B\Foo` is Foo reached through the namespace A\B.

; Calls: `f()`, `A\f()`, `$x->f()`, `$x?->f()`, `Foo::f()`, `self::f()`, `static::f()`, `parent::f()`.
(function_call_expression function: (name) @name) @reference.call
(function_call_expression function: (qualified_name prefix: (_) @receiver (name) @name)) @reference.call
(member_call_expression object: (_) @receiver name: (name) @name) @reference.call
(nullsafe_member_call_expression object: (_) @receiver name: (name) @name) @reference.call
(scoped_call_expression scope: (_) @receiver name: (name) @name) @reference.call

; `new Foo()`, `new A\Foo()`: an instantiation of the class (its constructor runs).
((object_creation_expression (name) @name) @reference.call
  (#not-match? @name "^(self|static|parent)$"))
(object_creation_expression (qualified_name prefix: (_) @receiver (name) @name)) @reference.call
(object_creation_expression (qualified_name . (name) @name .)) @reference.call

; Inheritance: `extends Base`, `implements I, J`, an interface's `extends`, `use Trait;` in a class.
(base_clause [(name) @name (qualified_name prefix: (_) @receiver (name) @name) (qualified_name . (name) @name .)])
  @reference.inherit
(class_interface_clause
  [(name) @name (qualified_name prefix: (_) @receiver (name) @name) (qualified_name . (name) @name .)])
  @reference.inherit
(use_declaration [(name) @name (qualified_name prefix: (_) @receiver (name) @name) (qualified_name . (name) @name .)])
  @reference.inherit

; Attributes: `#[Route('/x')]`, `#[ORM\Entity]`.
(attribute [(name) @name (qualified_name prefix: (_) @receiver (name) @name) (qualified_name . (name) @name .)])
  @reference.decorator

; Written types: parameters, results, properties, `catch`, `instanceof`, `Foo::class`, `Foo::BAR`.
((named_type (name) @name) @reference.type
  (#not-match? @name "^(self|static|parent)$"))
(named_type (qualified_name prefix: (_) @receiver (name) @name)) @reference.type
(named_type (qualified_name . (name) @name .)) @reference.type
((binary_expression operator: "instanceof" right: (name) @name) @reference.type
  (#not-match? @name "^(self|static|parent)$"))
(binary_expression operator: "instanceof" right: (qualified_name prefix: (_) @receiver (name) @name)) @reference.type
((class_constant_access_expression . (name) @name) @reference.type
  (#not-match? @name "^(self|static|parent)$"))
(class_constant_access_expression . (qualified_name prefix: (_) @receiver (name) @name)) @reference.type
; A class constant read: `Foo::BAR`, `self::LIMIT`.
((class_constant_access_expression . (_) @receiver . (name) @name .) @reference.read
  (#not-eq? @name "class"))

; `use A\B;`, `use A\B as C;`, `use function A\f;`, `use const A\X;`, `use A\{B, C as D};`: parsed by
; parse/hooks/php.py.
(namespace_use_declaration) @import

; Properties, promoted constructor parameters and class constants are members of their class; a
; constant outside every class is a global (of its namespace).
(property_declaration (property_element name: (variable_name (name) @name))) @definition.field
(const_declaration (const_element (name) @name)) @definition.field

; Type evidence. A parameter or property has its declared type; a variable takes what is assigned.
(simple_parameter type: (_) @type name: (variable_name (name) @variable)) @hint.parameter
(variadic_parameter type: (_) @type name: (variable_name (name) @variable)) @hint.parameter
(property_promotion_parameter type: (_) @type name: (variable_name (name) @variable)) @hint.parameter
(property_promotion_parameter type: (_) @type name: (variable_name (name) @variable)) @hint.attribute_annotation
(property_declaration type: (_) @type (property_element name: (variable_name (name) @variable))) @hint.annotation
(catch_clause type: (type_list . (named_type) @type .) name: (variable_name (name) @variable)) @hint.annotation
(method_declaration name: (name) @variable return_type: (_) @type) @hint.returns
(function_definition name: (name) @variable return_type: (_) @type) @hint.returns
(assignment_expression
  left: (variable_name (name) @variable)
  right: [(object_creation_expression) (member_call_expression) (nullsafe_member_call_expression)
          (scoped_call_expression) (function_call_expression)] @type) @hint.assign
(assignment_expression
  left: (variable_name (name) @variable)
  right: [(variable_name) (member_access_expression) (nullsafe_member_access_expression) (null)] @type) @hint.alias
(assignment_expression
  left: (variable_name (name) @variable)
  right: [(string) (encapsed_string) (integer) (float) (boolean) (array_creation_expression) (heredoc)] @type)
  @hint.literal
; `$this->repo = new Repo()`, `$this->repo = $repo`.
((assignment_expression
  left: (member_access_expression object: (variable_name (name) @object) name: (name) @variable)
  right: [(object_creation_expression) (member_call_expression) (scoped_call_expression) (function_call_expression)
          (array_creation_expression) (string) (integer) (null)] @type) @hint.attribute
  (#eq? @object "this"))
((assignment_expression
  left: (member_access_expression object: (variable_name (name) @object) name: (name) @variable)
  right: [(variable_name) (member_access_expression)] @type) @hint.attribute_alias
  (#eq? @object "this"))

; Every name a function binds: `$x` shadows nothing by syntax, but the binder reads `$x->f()` as `x.f()`.
(assignment_expression left: (variable_name (name) @variable)) @binding
(assignment_expression left: (list_literal (variable_name (name) @variable))) @binding
(simple_parameter name: (variable_name (name) @variable)) @binding
(variadic_parameter name: (variable_name (name) @variable)) @binding
(property_promotion_parameter name: (variable_name (name) @variable)) @binding
(foreach_statement . (_) . (variable_name (name) @variable)) @binding
(foreach_statement . (_) . (pair (variable_name (name) @variable))) @binding
(foreach_statement . (_) . (by_ref (variable_name (name) @variable))) @binding
(catch_clause name: (variable_name (name) @variable)) @binding
