; Scala symbols (Scala 2 and 3). Annotations are children of their definition (inside its
; range); the Scaladoc comment before it is its leading doc. Values are listed in template
; bodies and at file level only (a `val` in a block is a local).

(class_definition name: (_) @name) @definition.class
; An object is a class of one instance: its defs are methods.
(object_definition name: (_) @name) @definition.class
(package_object name: (_) @name) @definition.module
(trait_definition name: (_) @name) @definition.trait
(enum_definition name: (_) @name) @definition.enum
(type_definition name: (type_identifier) @name) @definition.type
(function_definition name: (_) @name) @definition.function
(function_declaration name: (_) @name) @definition.function
(given_definition name: (_) @name) @definition.variable

(template_body
  (val_definition
    (modifiers) @_final
    pattern: (identifier) @name
    (#match? @_final "final")) @definition.constant)
(template_body (val_definition pattern: (identifier) @name) @definition.variable)
(template_body (var_definition pattern: (identifier) @name) @definition.variable)
(template_body (val_declaration name: (_) @name) @definition.variable)
(template_body (var_declaration name: (_) @name) @definition.variable)
(compilation_unit (val_definition pattern: (identifier) @name) @definition.variable)
(compilation_unit (var_definition pattern: (identifier) @name) @definition.variable)
