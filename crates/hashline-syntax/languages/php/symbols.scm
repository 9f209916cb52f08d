; PHP symbols. Attributes (`#[...]`) are part of a declaration's node; docblocks are the
; comments before it.

(namespace_definition name: (namespace_name) @name) @definition.namespace
(class_declaration name: (name) @name) @definition.class
(interface_declaration name: (name) @name) @definition.interface
(trait_declaration name: (name) @name) @definition.trait
(enum_declaration name: (name) @name) @definition.enum
(method_declaration name: (name) @name) @definition.method
(function_definition name: (name) @name) @definition.function
(const_declaration (const_element (name) @name)) @definition.constant
(enum_case name: (name) @name) @definition.constant
(property_declaration (property_element name: (variable_name (name) @name))) @definition.variable

(namespace_use_clause [(qualified_name) (name)] @import)
