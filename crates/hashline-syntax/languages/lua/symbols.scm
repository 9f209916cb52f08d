; Lua symbols. `function T:m()` is a method of T and `function T.f()` a function of T (the
; receiver: both show as T's methods); the file's own locals and globals are variables
; (constants when `<const>` or written in capitals; of `local a, b = …` the first name);
; a function-valued field of a table the file declares is that table's function.

(function_declaration name: (identifier) @name) @definition.function
(function_declaration
  name: (dot_index_expression table: (_) @receiver field: (identifier) @name)) @definition.function
(function_declaration
  name: (method_index_expression table: (_) @receiver method: (identifier) @name)) @definition.method

(chunk (variable_declaration
  (assignment_statement (variable_list . name: (identifier) @name attribute: (attribute (identifier) @_const)))
  (#eq? @_const "const")) @definition.constant)
(chunk (variable_declaration
  (assignment_statement (variable_list . name: (identifier) @name))
  (#match? @name "^[A-Z][A-Z0-9_]+$")) @definition.constant)
(chunk (variable_declaration (assignment_statement (variable_list . name: (identifier) @name))) @definition.variable)
(chunk (variable_declaration (variable_list . name: (identifier) @name)) @definition.variable)
(chunk (assignment_statement (variable_list . name: (identifier) @name)) @definition.variable)
(chunk (assignment_statement
  (variable_list name: (dot_index_expression table: (_) @receiver field: (identifier) @name))
  (expression_list value: (table_constructor))) @definition.variable)

(chunk (_ (expression_list value: (table_constructor
  (field name: (identifier) @name value: (function_definition)) @definition.function))))
(chunk (_ (_ (expression_list value: (table_constructor
  (field name: (identifier) @name value: (function_definition)) @definition.function)))))

(function_call
  name: (identifier) @_require
  arguments: (arguments (string content: (string_content) @import))
  (#eq? @_require "require"))
