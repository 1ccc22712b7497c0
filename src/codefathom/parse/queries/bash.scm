; Bash: functions, written `name() { }`, `function name { }` or `function name() ( )`.
(function_definition
  name: (word) @name) @definition.function
