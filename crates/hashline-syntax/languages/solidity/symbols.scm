; Solidity symbols. NatSpec comments (`///`, `/** */`) before a declaration are its leading
; doc. Events and custom errors are listed as types (they declare a shape); a constructor,
; `receive` and `fallback` are named by their keyword.

(contract_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(library_declaration name: (identifier) @name) @definition.module
(struct_declaration name: (identifier) @name) @definition.struct
(enum_declaration name: (identifier) @name) @definition.enum
(user_defined_type_definition name: (identifier) @name) @definition.type
(event_definition name: (identifier) @name) @definition.type
(error_declaration name: (identifier) @name) @definition.type

(function_definition name: (identifier) @name) @definition.function
(modifier_definition name: (identifier) @name) @definition.function
(constructor_definition "constructor" @name) @definition.method
(fallback_receive_definition ["receive" "fallback"] @name) @definition.method

(state_variable_declaration "constant" name: (identifier) @name) @definition.constant
(state_variable_declaration name: (identifier) @name) @definition.variable
(constant_variable_declaration name: (identifier) @name) @definition.constant

(import_directive source: (string) @import)
