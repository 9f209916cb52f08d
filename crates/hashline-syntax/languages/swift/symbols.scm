; Swift symbols. The grammar's `name` field also labels types (a function's return type):
; names are matched by their node kind. Attributes sit in a declaration's `modifiers` (inside its range); the
; `///` comments before it are its leading doc. One node kind holds classes, structs, enums,
; actors and extensions (an extension is listed as an impl of the type it extends).
; Properties are listed at file and type level only (a `let` in a body is a local).

(class_declaration declaration_kind: "class" name: (_) @name) @definition.class
(class_declaration declaration_kind: "actor" name: (_) @name) @definition.class
(class_declaration declaration_kind: "struct" name: (_) @name) @definition.struct
(class_declaration declaration_kind: "enum" name: (_) @name) @definition.enum
(class_declaration declaration_kind: "extension" name: (_) @name) @definition.impl
(protocol_declaration name: (_) @name) @definition.interface
(typealias_declaration name: (type_identifier) @name) @definition.type

; An enum's functions are methods (an enum does not make them methods by itself).
(enum_class_body (function_declaration name: (simple_identifier) @name) @definition.method)
(function_declaration name: (simple_identifier) @name) @definition.function
(protocol_function_declaration name: (simple_identifier) @name) @definition.method
(init_declaration "init" @name) @definition.method
(deinit_declaration "deinit" @name) @definition.method
(subscript_declaration "subscript" @name) @definition.method

(source_file
  (property_declaration
    (value_binding_pattern) @_let
    name: (pattern bound_identifier: (simple_identifier) @name)
    (#eq? @_let "let")) @definition.constant)
(source_file (property_declaration name: (pattern bound_identifier: (simple_identifier) @name)) @definition.variable)
(class_body
  (property_declaration
    (modifiers (property_modifier) @_static)
    (value_binding_pattern) @_let
    name: (pattern bound_identifier: (simple_identifier) @name)
    (#eq? @_static "static")
    (#eq? @_let "let")) @definition.constant)
(class_body (property_declaration name: (pattern bound_identifier: (simple_identifier) @name)) @definition.variable)
(enum_class_body (property_declaration name: (pattern bound_identifier: (simple_identifier) @name)) @definition.variable)
(protocol_body (protocol_property_declaration name: (pattern bound_identifier: (simple_identifier) @name)) @definition.variable)

(import_declaration (identifier) @import)
