; TypeScript symbols (TSX uses the same query).

(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(function_signature name: (identifier) @name) @definition.function
(class_declaration name: (type_identifier) @name) @definition.class
(abstract_class_declaration name: (type_identifier) @name) @definition.class
(method_definition name: [(property_identifier) (private_property_identifier)] @name) @definition.method
(abstract_method_signature name: (property_identifier) @name) @definition.method
(interface_declaration name: (type_identifier) @name) @definition.interface
(interface_declaration body: (_ (method_signature name: (property_identifier) @name) @definition.method))
(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration name: (identifier) @name) @definition.enum
(internal_module name: (_) @name) @definition.namespace
(module name: (_) @name) @definition.module
(program (lexical_declaration
  (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)])) @definition.function)
(program (export_statement (lexical_declaration
  (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)])) @definition.function))
(program (lexical_declaration kind: "const" (variable_declarator name: (identifier) @name)) @definition.constant)
(program (export_statement (lexical_declaration kind: "const" (variable_declarator name: (identifier) @name)) @definition.constant))
(program (lexical_declaration (variable_declarator name: (identifier) @name)) @definition.variable)
(program (export_statement (lexical_declaration (variable_declarator name: (identifier) @name)) @definition.variable))
(program (variable_declaration (variable_declarator name: (identifier) @name)) @definition.variable)
(program (export_statement (variable_declaration (variable_declarator name: (identifier) @name)) @definition.variable))
;; A namespace's own declarations, as the file's (a function's locals are not mapped).
(internal_module body: (statement_block (lexical_declaration
  (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)])) @definition.function))
(internal_module body: (statement_block (export_statement (lexical_declaration
  (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)])) @definition.function)))
(internal_module body: (statement_block (lexical_declaration kind: "const" (variable_declarator name: (identifier) @name)) @definition.constant))
(internal_module body: (statement_block (export_statement (lexical_declaration kind: "const" (variable_declarator name: (identifier) @name)) @definition.constant)))
(internal_module body: (statement_block (lexical_declaration (variable_declarator name: (identifier) @name)) @definition.variable))
(internal_module body: (statement_block (export_statement (lexical_declaration (variable_declarator name: (identifier) @name)) @definition.variable)))
(internal_module body: (statement_block (variable_declaration (variable_declarator name: (identifier) @name)) @definition.variable))
(internal_module body: (statement_block (export_statement (variable_declaration (variable_declarator name: (identifier) @name)) @definition.variable)))

(import_statement source: (string (string_fragment) @import))
