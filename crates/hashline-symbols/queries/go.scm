; Go symbols. A method's receiver type is its parent.

(function_declaration name: (identifier) @name) @definition.function
(method_declaration
  receiver: (parameter_list (parameter_declaration type: [(type_identifier) (pointer_type (type_identifier)) (generic_type) (pointer_type (generic_type))] @receiver))
  name: (field_identifier) @name) @definition.method
(type_declaration (type_spec name: (type_identifier) @name type: (struct_type))) @definition.struct
(type_declaration (type_spec name: (type_identifier) @name type: (interface_type))) @definition.interface
(type_declaration (type_spec name: (type_identifier) @name)) @definition.type
(type_declaration (type_alias name: (type_identifier) @name)) @definition.type
(source_file (const_declaration (const_spec name: (identifier) @name) @definition.constant))
(source_file (var_declaration (var_spec name: (identifier) @name) @definition.variable))

(import_spec path: (_) @import)
