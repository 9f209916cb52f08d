; Kotlin symbols. Annotations sit in a declaration's `modifiers` (inside its range); the
; KDoc comment before it is its leading doc. Properties are listed at file and class level
; only (a `val` in a function body is a local).

(class_declaration "interface" name: (identifier) @name) @definition.interface
(class_declaration name: (identifier) @name (enum_class_body)) @definition.enum
(class_declaration name: (identifier) @name) @definition.class
(object_declaration name: (identifier) @name) @definition.class
(companion_object name: (identifier) @name) @definition.class
(type_alias type: (identifier) @name) @definition.type
; An enum's functions are methods (the kind an enum does not give its members by itself).
(enum_class_body (function_declaration name: (identifier) @name) @definition.method)
(function_declaration name: (identifier) @name) @definition.function
(secondary_constructor "constructor" @name) @definition.method
(class_parameter ["val" "var"] (identifier) @name) @definition.variable

(source_file
  (property_declaration
    (modifiers (property_modifier) @_const)
    (variable_declaration (identifier) @name)
    (#eq? @_const "const")) @definition.constant)
(source_file (property_declaration (variable_declaration (identifier) @name)) @definition.variable)
(class_body
  (property_declaration
    (modifiers (property_modifier) @_const)
    (variable_declaration (identifier) @name)
    (#eq? @_const "const")) @definition.constant)
(class_body (property_declaration (variable_declaration (identifier) @name)) @definition.variable)

(import (qualified_identifier) @import)
