; C# symbols. Attributes are children of their declaration (so inside its range); the
; `///` comments before it are its leading doc.

(namespace_declaration name: (_) @name) @definition.namespace
(file_scoped_namespace_declaration name: (_) @name) @definition.namespace
(class_declaration name: (identifier) @name) @definition.class
(record_declaration "struct" name: (identifier) @name) @definition.struct
(record_declaration name: (identifier) @name) @definition.class
(struct_declaration name: (identifier) @name) @definition.struct
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(delegate_declaration name: (identifier) @name) @definition.type
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
(destructor_declaration name: (identifier) @name) @definition.method
(operator_declaration operator: _ @name) @definition.method
(local_function_statement name: (identifier) @name) @definition.function
(property_declaration name: (identifier) @name) @definition.variable
(indexer_declaration "this" @name) @definition.variable
(event_declaration name: (identifier) @name) @definition.variable
(event_field_declaration (variable_declaration (variable_declarator name: (identifier) @name))) @definition.variable
(field_declaration
  (modifier) @_const
  (variable_declaration (variable_declarator name: (identifier) @name))
  (#eq? @_const "const")) @definition.constant
(field_declaration (variable_declaration (variable_declarator name: (identifier) @name))) @definition.variable

(using_directive (_) @import)
