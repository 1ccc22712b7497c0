; JavaScript only (joined with ecmascript-graph.scm): base classes, parameters.
(class_heritage (identifier) @name) @reference.inherit
(class_heritage (member_expression object: (_) @receiver property: (property_identifier) @name)) @reference.inherit

(formal_parameters (identifier) @variable) @binding
(formal_parameters (assignment_pattern left: (identifier) @variable)) @binding

; Class fields: `repo = new Repo()`.
(field_definition property: (property_identifier) @variable value: [(new_expression) (call_expression)] @type) @hint.assign
(class_body (field_definition property: (property_identifier) @name) @definition.field)
