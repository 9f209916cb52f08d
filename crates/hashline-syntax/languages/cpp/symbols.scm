; C++ symbols (also C headers, `.h`); `c_family.scm` (appended) holds what C shares.

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
(namespace_definition name: (_) @name) @definition.namespace
(alias_declaration name: (type_identifier) @name) @definition.type
; A namespace-level variable (file-level ones are in `c_family.scm`).
(namespace_definition body: (declaration_list
  (declaration declarator: [
    (identifier) @name
    (pointer_declarator declarator: (identifier) @name)
    (array_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))
    (init_declarator declarator: [
      (identifier) @name
      (pointer_declarator declarator: (identifier) @name)
      (array_declarator declarator: (identifier) @name)
      (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))
    ])
  ]) @definition.variable))
