; Haskell symbols. Captures: @name (several are joined by a space), @definition.<kind>, @import.
; Each equation of a function is a declaration of its own; the first takes the type signature
; and the Haddock comment above it (the row's `leading`). `where`-bound functions nest in
; theirs; `let` and `where` values are locals and not listed.

(header module: (module) @name) @definition.module

(data_type name: (_) @name) @definition.struct
(newtype name: (_) @name) @definition.struct
(type_synonym name: (_) @name) @definition.type
(type_family name: (_) @name) @definition.type
(data_family name: (_) @name) @definition.type
(class name: (_) @name) @definition.interface
(instance name: (_) @name patterns: (_) @name) @definition.impl

(function name: (_) @name) @definition.function
(function (infix operator: (_) @name)) @definition.function
(declarations (bind name: (_) @name) @definition.function)
(instance_declarations (bind name: (_) @name) @definition.function)
(class_declarations (signature name: (_) @name) @definition.function)

(import module: (module) @import)
