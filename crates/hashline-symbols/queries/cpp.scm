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
;; `typedef T name;`, `typedef T *name;`, `typedef T name[N];`, `typedef R (*name)(...);`
(type_definition declarator: [
  (type_identifier) @name
  (pointer_declarator declarator: (type_identifier) @name)
  (array_declarator declarator: (type_identifier) @name)
  (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))
]) @definition.type
(alias_declaration name: (type_identifier) @name) @definition.type
(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro
;; A file- or namespace-level variable, initialized or not, through pointers and arrays.
(translation_unit
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
  ]) @definition.variable)
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

(preproc_include path: (_) @import)
