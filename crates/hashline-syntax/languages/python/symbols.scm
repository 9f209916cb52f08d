; Python symbols.

(function_definition name: (identifier) @name) @definition.function
(class_definition name: (identifier) @name) @definition.class
(module (expression_statement (assignment left: (identifier) @name)) @definition.variable)
(class_definition
  body: (block (expression_statement (assignment left: (identifier) @name)) @definition.variable))

(import_statement name: (_) @import)
(import_from_statement module_name: (_) @import)
