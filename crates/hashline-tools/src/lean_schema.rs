//! The input schemas as a model is given them: every byte of a tool's definition is read
//! by the model on every turn (issue 47: the seven tools' name, description and input
//! schema were 28.9 KB), so the generated schema is made lean without changing what it
//! accepts or says:
//!
//! - the root keeps no `$schema` (MCP's default dialect is JSON Schema 2020-12), `title` or
//!   `description` (the tool's description says what the tool is);
//! - a description's whitespace runs, the line breaks of doc comments among them, become one
//!   space, and an empty description goes;
//! - a choice of constants (`oneOf` of `const` branches, each with its own description,
//!   optionally or `null`) becomes one `enum`: the property's description names the values;
//! - an `anyOf` whose branch is itself an `anyOf` is flattened.
//!
//! ```
//! use hashline_tools::lean_schema::lean;
//! use serde_json::json;
//!
//! let mut schema = json!({
//!     "$schema": "https://json-schema.org/draft/2020-12/schema", "title": "Args", "type": "object",
//!     "properties": {"kind": {"description": "`a` or `b`,\nthe kind.", "anyOf": [
//!         {"oneOf": [{"description": "A.", "type": "string", "const": "a"}, {"type": "string", "const": "b"}]},
//!         {"type": "null"}]}}});
//! lean(&mut schema);
//! assert_eq!(schema, json!({"type": "object", "properties": {
//!     "kind": {"description": "`a` or `b`, the kind.", "enum": ["a", "b", null]}}}));
//! ```

use serde_json::{Map, Value};

/// Makes a generated input schema lean (see the module's rules), in place.
pub fn lean(schema: &mut Value) {
    if let Value::Object(root) = schema {
        for key in ["$schema", "title", "description"] {
            root.shift_remove(key);
        }
    }
    walk(schema);
}

fn walk(value: &mut Value) {
    match value {
        Value::Object(object) => {
            for child in object.values_mut() {
                walk(child);
            }
            tidy(object);
        }
        Value::Array(items) => items.iter_mut().for_each(walk),
        _ => {}
    }
}

/// One schema object, its children already lean.
fn tidy(object: &mut Map<String, Value>) {
    if let Some(Value::String(text)) = object.get_mut("description") {
        let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
        if joined.is_empty() {
            object.shift_remove("description");
        } else {
            *text = joined;
        }
    }
    if let Some(Value::Array(branches)) = object.get_mut("anyOf") {
        let flat = branches.drain(..).flat_map(|branch| match branch {
            Value::Object(mut inner) if inner.len() == 1 && inner.contains_key("anyOf") => {
                match inner.remove("anyOf") {
                    Some(Value::Array(nested)) => nested,
                    other => vec![Value::Object(Map::from_iter(other.map(|v| ("anyOf".to_owned(), v))))],
                }
            }
            other => vec![other],
        });
        *branches = flat.collect();
    }
    if let Some(values) = constants(object) {
        // In the place of the first key it replaces, so the schema reads in the same order.
        let at = object.keys().position(|k| k == "oneOf" || k == "anyOf").unwrap_or(object.len());
        for key in ["oneOf", "anyOf", "type"] {
            object.shift_remove(key);
        }
        object.shift_insert(at.min(object.len()), "enum".to_owned(), Value::Array(values));
    }
}

/// The values of a choice of constants: `oneOf` of `const` branches, or `anyOf` of such a
/// choice (already an `enum`, its children being lean first) and `{"type": "null"}`.
fn constants(object: &Map<String, Value>) -> Option<Vec<Value>> {
    if let Some(Value::Array(branches)) = object.get("oneOf") {
        let values = branches.iter().map(|b| b.get("const").cloned()).collect::<Option<Vec<_>>>()?;
        return (!values.is_empty()).then_some(values);
    }
    let branches = object.get("anyOf")?.as_array()?;
    let [choice, null] = branches.as_slice() else { return None };
    if null != &serde_json::json!({"type": "null"}) {
        return None;
    }
    let choice = choice.as_object()?;
    if !choice.keys().all(|k| matches!(k.as_str(), "enum" | "description" | "type")) {
        return None;
    }
    let mut values = choice.get("enum")?.as_array()?.clone();
    values.push(Value::Null);
    Some(values)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn nested_any_of_is_flattened_and_empty_descriptions_go() {
        let mut schema = json!({"description": " ", "anyOf": [
            {"anyOf": [{"type": "number", "minimum": 0}, {"type": "string"}]}, {"type": "null"}]});
        lean(&mut schema);
        assert_eq!(schema, json!({"anyOf": [{"type": "number", "minimum": 0}, {"type": "string"}, {"type": "null"}]}));
    }

    #[test]
    fn a_choice_that_is_not_only_constants_stays() {
        let original = json!({"anyOf": [{"oneOf": [{"const": "a"}, {"type": "integer"}]}, {"type": "null"}]});
        let mut schema = original.clone();
        lean(&mut schema);
        assert_eq!(schema, original);
    }
}
