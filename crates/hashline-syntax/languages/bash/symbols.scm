; Bash symbols: functions (also one defined inside another), and the script's own
; variables — constants when `readonly` or `declare -r` — but not a function's locals.

(function_definition name: (word) @name) @definition.function

(program (declaration_command "readonly" (variable_assignment name: (variable_name) @name)) @definition.constant)
(program (declaration_command
  ["declare" "typeset"] (word) @_flags (variable_assignment name: (variable_name) @name)
  (#match? @_flags "^-[a-zA-Z]*r")) @definition.constant)
(program (declaration_command (variable_assignment name: (variable_name) @name)) @definition.variable)
(program (variable_assignment name: (variable_name) @name) @definition.variable)

(command
  name: (command_name (word) @_source)
  argument: (_) @import
  (#any-of? @_source "source" "."))
