; Dart symbols. A class member is a `member_declaration` (a wrapper: the `///` comments
; before it are its doc) holding a method with its body or a bodiless `declaration`
; (fields, constructors without a body, abstract members); annotations are inside it.
; A named constructor is named by its second part (`Track.fromJson` reads as a member).

(class_declaration name: (identifier) @name) @definition.class
(mixin_declaration name: (identifier) @name) @definition.trait
(extension_declaration name: (identifier) @name) @definition.impl
(extension_type_declaration name: (_) @name) @definition.class
(enum_declaration name: (identifier) @name) @definition.enum
(type_alias . (type_identifier) @name) @definition.type

(function_declaration
  signature: [
    (function_signature name: (identifier) @name)
    (getter_signature name: (identifier) @name)
    (setter_signature name: (identifier) @name)
  ]) @definition.function
(local_function_declaration (function_signature name: (identifier) @name)) @definition.function

(method_declaration
  signature: (method_signature [
    (function_signature name: (identifier) @name)
    (getter_signature name: (identifier) @name)
    (setter_signature name: (identifier) @name)
    (operator_signature operator: _ @name)
    (constructor_signature name: (identifier) @name . parameters: (formal_parameter_list))
    (factory_constructor_signature name: (identifier) @name . parameters: (formal_parameter_list))
    (constant_constructor_signature name: (identifier) @name . parameters: (formal_parameter_list))
    (redirecting_factory_constructor_signature name: (identifier) @name . parameters: (formal_parameter_list))
  ])) @definition.method
(declaration [
    (function_signature name: (identifier) @name)
    (getter_signature name: (identifier) @name)
    (setter_signature name: (identifier) @name)
    (operator_signature operator: _ @name)
    (constructor_signature name: (identifier) @name . parameters: (formal_parameter_list))
    (factory_constructor_signature name: (identifier) @name . parameters: (formal_parameter_list))
    (constant_constructor_signature name: (identifier) @name . parameters: (formal_parameter_list))
    (redirecting_factory_constructor_signature name: (identifier) @name . parameters: (formal_parameter_list))
  ]) @definition.method

(declaration "const" (static_final_declaration_list (static_final_declaration name: (identifier) @name))) @definition.constant
(declaration (static_final_declaration_list (static_final_declaration name: (identifier) @name))) @definition.variable
(declaration (initialized_identifier_list (initialized_identifier name: (identifier) @name))) @definition.variable
(declaration (identifier_list (identifier) @name)) @definition.variable
(top_level_variable_declaration modifier: "const" (static_final_declaration_list (static_final_declaration name: (identifier) @name))) @definition.constant
(top_level_variable_declaration (static_final_declaration_list (static_final_declaration name: (identifier) @name))) @definition.variable
(top_level_variable_declaration (initialized_identifier_list (initialized_identifier name: (identifier) @name))) @definition.variable

(import_specification uri: (configurable_uri) @import)
