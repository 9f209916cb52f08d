; HCL (Terraform) symbols. Captures: @name (several are joined by a space),
; @definition.<kind>, @import.
; A block is named by its type and labels, without quotes (`resource aws_instance web`,
; `variable region`, `dynamic ingress`); a `module` block by its label alone. Variables and
; outputs are variables, `locals` entries constants, top-level attributes (`.tfvars`)
; variables, every other block a module. For a block matched by several patterns the first
; is kept: the longer label lists come first.

(block (identifier) @name @_type (#eq? @_type "variable") (string_lit (template_literal) @name)) @definition.variable
(block (identifier) @name @_type (#eq? @_type "output") (string_lit (template_literal) @name)) @definition.variable
(block (identifier) @_type (#eq? @_type "module") (string_lit (template_literal) @name)) @definition.module

(block (identifier) @name (#not-eq? @name "module")
  . (string_lit (template_literal) @name) . (string_lit (template_literal) @name)) @definition.module
(block (identifier) @name (#not-eq? @name "module") . (string_lit (template_literal) @name)) @definition.module
(block (identifier) @name (#not-eq? @name "module")) @definition.module

(block (identifier) @_type (#eq? @_type "locals") (body (attribute (identifier) @name) @definition.constant))
(config_file (body (attribute (identifier) @name) @definition.variable))

; Modules a configuration uses, by their `source` (an attribute of that name is a module's).
(attribute (identifier) @_key (#eq? @_key "source") (expression (literal_value (string_lit (template_literal) @import))))
