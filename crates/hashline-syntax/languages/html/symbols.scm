; HTML symbols. Captures: @name, @name.id (appended as `#id`), @definition.<kind>, @import.
; An element with an `id` is named `tag#id`; a landmark element without one by its tag. The
; id pattern comes first: for an element with both, the first pattern's name is kept.

(element (start_tag (tag_name) @name
  (attribute (attribute_name) @_attr [(attribute_value) @name.id (quoted_attribute_value (attribute_value) @name.id)])
  (#eq? @_attr "id"))) @definition.element
(element (self_closing_tag (tag_name) @name
  (attribute (attribute_name) @_attr [(attribute_value) @name.id (quoted_attribute_value (attribute_value) @name.id)])
  (#eq? @_attr "id"))) @definition.element
(script_element (start_tag (tag_name) @name
  (attribute (attribute_name) @_attr [(attribute_value) @name.id (quoted_attribute_value (attribute_value) @name.id)])
  (#eq? @_attr "id"))) @definition.element
(style_element (start_tag (tag_name) @name
  (attribute (attribute_name) @_attr [(attribute_value) @name.id (quoted_attribute_value (attribute_value) @name.id)])
  (#eq? @_attr "id"))) @definition.element

(element (start_tag (tag_name) @name
  (#any-of? @name "html" "head" "body" "header" "nav" "main" "footer" "aside" "section"
    "article" "form" "table" "template" "dialog" "iframe" "svg"))) @definition.element
(script_element (start_tag (tag_name) @name)) @definition.element
(style_element (start_tag (tag_name) @name)) @definition.element

; What the page loads: scripts by `src`, stylesheets and icons by `href`.
(start_tag (tag_name) @_tag (attribute (attribute_name) @_attr (quoted_attribute_value (attribute_value) @import))
  (#eq? @_tag "script") (#eq? @_attr "src"))
(start_tag (tag_name) @_tag (attribute (attribute_name) @_attr (quoted_attribute_value (attribute_value) @import))
  (#eq? @_tag "link") (#eq? @_attr "href"))
(self_closing_tag (tag_name) @_tag (attribute (attribute_name) @_attr (quoted_attribute_value (attribute_value) @import))
  (#eq? @_tag "link") (#eq? @_attr "href"))
