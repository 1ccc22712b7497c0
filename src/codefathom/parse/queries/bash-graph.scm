; Bash graph facts: commands that may call the project's functions, and `source` / `.` imports.
; Capture vocabulary: parse/facts.py. Functions come from bash.scm. A command's name is a call of
; the function of that name when the project defines one (graph/shell.py), else a builtin or an
; external program; variables are not tracked.

; `deploy_app arg`, in pipelines, lists, `$(...)`, conditions, subshells: every simple command.
; A name written with an expansion (`$cmd arg`, `"$@"`) is known only when it runs.
(command name: (command_name (word) @name)) @reference.call

; `trap cleanup EXIT`, `trap 'on_error' ERR`: the handler is called when the signal comes; `time build`
; runs its command (`command f` and `exec f` skip functions, `sudo f` and `xargs f` cannot run them).
((command
  name: (command_name (word) @_runs)
  .
  argument: (word) @name) @reference.call
  (#any-of? @_runs "trap" "time")
  (#match? @name "^[A-Za-z_][A-Za-z0-9_:.-]*$"))
((command
  name: (command_name (word) @_trap)
  .
  argument: [(raw_string) (string)] @name) @reference.call
  (#eq? @_trap "trap")
  (#match? @name "^['\"][A-Za-z_][A-Za-z0-9_:.-]*['\"]$"))

; `source lib.sh`, `. "$(dirname "$0")/lib.sh"`: parsed by parse/hooks/bash.py.
((command name: (command_name (word) @_source) argument: (_)) @import
  (#any-of? @_source "source" "."))

; A function defined inside another one (`outer() { inner() { ...; }; inner; }`): defined when the
; outer one runs, a symbol of its own (those at the top level are units, from bash.scm).
(function_definition name: (word) @name) @definition.local
