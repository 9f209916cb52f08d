; Zig symbols. A container is a `const Name = struct/enum/union/opaque {…}`; a function
; inside one is its method (also in the `struct` a generic type's function returns). The
; file's and each container's own `const` and `var` declarations are constants and
; variables (a function's locals are not mapped); error sets are types; a `test "name"`
; block is a function named by its string.

(variable_declaration (identifier) @name (struct_declaration)) @definition.struct
(variable_declaration (identifier) @name (union_declaration)) @definition.struct
(variable_declaration (identifier) @name (enum_declaration)) @definition.enum
(variable_declaration (identifier) @name (opaque_declaration)) @definition.type
(variable_declaration (identifier) @name
  [(error_set_declaration) (binary_expression left: (error_set_declaration))]) @definition.type

(struct_declaration (function_declaration name: (identifier) @name) @definition.method)
(union_declaration (function_declaration name: (identifier) @name) @definition.method)
(enum_declaration (function_declaration name: (identifier) @name) @definition.method)
(opaque_declaration (function_declaration name: (identifier) @name) @definition.method)
(function_declaration name: (identifier) @name) @definition.function
(test_declaration (string (string_content) @name)) @definition.function
(test_declaration (identifier) @name) @definition.function

(source_file (variable_declaration "const" (identifier) @name) @definition.constant)
(source_file (variable_declaration "var" (identifier) @name) @definition.variable)
(struct_declaration (variable_declaration "const" (identifier) @name) @definition.constant)
(struct_declaration (variable_declaration "var" (identifier) @name) @definition.variable)
(enum_declaration (variable_declaration "const" (identifier) @name) @definition.constant)
(union_declaration (variable_declaration "const" (identifier) @name) @definition.constant)
(opaque_declaration (variable_declaration "const" (identifier) @name) @definition.constant)

(builtin_function
  (builtin_identifier) @_import
  (arguments (string (string_content) @import))
  (#eq? @_import "@import"))
