; C++ symbols (also C headers, `.h`).

;; A function returning a pointer or reference has its function_declarator one level down.
(function_definition
  declarator: [
    (function_declarator declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name)
    (pointer_declarator declarator: (function_declarator declarator: [(identifier) (field_identifier) (operator_name)] @name))
    (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (operator_name)] @name))
  ]) @definition.function
(function_definition
  declarator: [
    (function_declarator
      declarator: (qualified_identifier scope: (_) @receiver name: [(identifier) (destructor_name) (operator_name)] @name))
    (pointer_declarator declarator: (function_declarator
      declarator: (qualified_identifier scope: (_) @receiver name: [(identifier) (operator_name)] @name)))
    (reference_declarator (function_declarator
      declarator: (qualified_identifier scope: (_) @receiver name: [(identifier) (operator_name)] @name)))
  ]) @definition.method
(class_specifier name: (type_identifier) @name body: (_)) @definition.class
(struct_specifier name: (type_identifier) @name body: (_)) @definition.struct
(union_specifier name: (type_identifier) @name body: (_)) @definition.struct
(enum_specifier name: (type_identifier) @name body: (_)) @definition.enum
(namespace_definition name: (_) @name) @definition.namespace
(type_definition declarator: (type_identifier) @name) @definition.type
(alias_declaration name: (type_identifier) @name) @definition.type
(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro

(preproc_include path: (_) @import)
