; JavaScript (and JSX) symbols.

(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(class_declaration name: (identifier) @name) @definition.class
(method_definition name: [(property_identifier) (private_property_identifier)] @name) @definition.method
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

(import_statement source: (string (string_fragment) @import))
