; CSS symbols. Captures: @name (several are joined by a space), @definition.<kind>, @import.
; Rule sets are rules named by their selectors; at-rules are rules named by their keyword and
; prelude; custom properties (`--brand: …`) are variables. Plain declarations are not listed.

(rule_set (selectors) @name) @definition.rule

(media_statement "@media" @name (_) @name . (block)) @definition.rule
(supports_statement "@supports" @name (_) @name . (block)) @definition.rule
(keyframes_statement "@keyframes" @name (keyframes_name) @name) @definition.rule
(at_rule (at_keyword) @name . (block)) @definition.rule
(at_rule (at_keyword) @name (_) @name . (block)) @definition.rule

(declaration (property_name) @name (#match? @name "^--")) @definition.variable

(import_statement (string_value) @import)
(import_statement (call_expression (arguments (string_value) @import)))
