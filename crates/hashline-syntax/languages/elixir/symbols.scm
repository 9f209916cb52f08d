; Elixir symbols. Declarations are calls (`defmodule Name do … end`, `def name(args)`):
; the name is the module alias or the called function's name, also under a `when` guard.
; Each clause of a multi-clause function is its own symbol. `@doc`, `@spec`, `@impl` and
; other module attributes before a declaration belong to it (the row's `leading`).

(call target: (identifier) @_kw (arguments . (alias) @name)
  (#eq? @_kw "defmodule")) @definition.module
(call target: (identifier) @_kw (arguments . (alias) @name)
  (#eq? @_kw "defprotocol")) @definition.interface
(call target: (identifier) @_kw (arguments . (alias) @name)
  (#eq? @_kw "defimpl")) @definition.impl
(call target: (identifier) @_kw @name
  (#any-of? @_kw "defstruct" "defexception")) @definition.struct

(call target: (identifier) @_kw
  (arguments . [
    (call target: (identifier) @name)
    (identifier) @name
    (binary_operator left: (call target: (identifier) @name) operator: "when")
    (binary_operator left: (identifier) @name operator: "when")
  ])
  (#any-of? @_kw "def" "defp" "defdelegate")) @definition.function
(call target: (identifier) @_kw
  (arguments . [
    (call target: (identifier) @name)
    (identifier) @name
    (binary_operator left: (call target: (identifier) @name) operator: "when")
    (binary_operator left: (identifier) @name operator: "when")
  ])
  (#any-of? @_kw "defmacro" "defmacrop" "defguard" "defguardp")) @definition.macro

; `@type name :: …` and module attributes holding values (`@timeout 5_000`).
(unary_operator operator: "@"
  operand: (call target: (identifier) @_kw
    (arguments . (binary_operator left: [(identifier) @name (call target: (identifier) @name)] operator: "::"))
  (#any-of? @_kw "type" "typep" "opaque"))) @definition.type
(unary_operator operator: "@"
  operand: (call target: (identifier) @name (arguments)
  (#not-any-of? @name "doc" "moduledoc" "typedoc" "spec" "impl" "type" "typep" "opaque" "callback"
    "macrocallback" "optional_callbacks" "behaviour" "derive" "enforce_keys" "deprecated" "since"
    "dialyzer" "compile" "external_resource" "on_load" "on_definition" "before_compile"
    "after_compile" "after_verify" "vsn" "file" "derive"))) @definition.constant

(call target: (identifier) @_kw (arguments . (alias) @import)
  (#any-of? @_kw "alias" "import" "require" "use"))
