; Ruby symbols. A `def` at the top of the file is a function; in a class, a module, a
; `class << self` or a block (`Struct.new do … end`) it is a method.

(program (method name: (_) @name) @definition.function)
(method name: (_) @name) @definition.method
(singleton_method name: (_) @name) @definition.method
(class name: (_) @name) @definition.class
(module name: (_) @name) @definition.module
(assignment left: (constant) @name) @definition.constant

(call
  method: (identifier) @_require
  arguments: (argument_list (string (string_content) @import))
  (#any-of? @_require "require" "require_relative"))
