//! Edit items: JSON → engine ops, with `invalid-edit-variant` for every malformed shape.

use std::sync::Arc;

use hashline_core::edit::EditOp;
use hashline_core::{AnchorError, AnchorRef, Document, parse_anchor};
use schemars::JsonSchema;
use serde_json::{Map, Value};

use crate::error::{ErrorCode, ToolError};

/// The op keys an edit item may have (exactly one).
pub const OPS: [&str; 9] = [
    "set_line",
    "replace_lines",
    "insert_after",
    "replace",
    "replace_symbol",
    "insert_before_symbol",
    "insert_after_symbol",
    "copy_lines",
    "move_lines",
];

/// One parsed edit item: an engine op, or a symbol op resolved later against the file.
#[derive(Debug)]
pub enum Item {
    /// An op the engine takes as is.
    Op(EditOp),
    /// `replace_symbol`, `insert_before_symbol` or `insert_after_symbol`.
    Symbol(SymbolRequest),
}

/// A symbol op as given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SymbolRequest {
    /// Its index in `edits`.
    pub index: usize,
    /// What to do.
    pub action: SymbolAction,
    /// The selector.
    pub symbol: String,
    /// `new_body` (replace) or `new_text` (inserts).
    pub text: String,
}

/// What a symbol op does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SymbolAction {
    /// `replace_symbol`.
    Replace,
    /// `insert_before_symbol`.
    InsertBefore,
    /// `insert_after_symbol`.
    InsertAfter,
}

impl SymbolAction {
    /// The op's key.
    pub fn name(self) -> &'static str {
        match self {
            SymbolAction::Replace => "replace_symbol",
            SymbolAction::InsertBefore => "insert_before_symbol",
            SymbolAction::InsertAfter => "insert_after_symbol",
        }
    }
}

/// Reads another file for `from_path` (copy/move across files).
pub type SourceLoader<'a> = dyn Fn(&str) -> Result<Arc<Document>, ToolError> + 'a;

/// The most items one `edit` call takes (per file; `too-many-edits` past it). Planning is
/// linear in the items (sorted, not compared pairwise), so the bound keeps one call's work
/// and the request it came in proportionate, not fast enough.
pub const MAX_EDIT_ITEMS: usize = 10_000;

/// Parses the `edits` parameter: an array of items, or a JSON string of one (or of a
/// single item). Returns the ops, and the `from_path` of each op that has one.
pub fn parse_edits(edits: &Value, load: &SourceLoader<'_>) -> Result<Parsed, ToolError> {
    let owned;
    let list = match edits {
        Value::Array(items) => items.as_slice(),
        Value::String(text) => {
            owned = serde_json::from_str::<Value>(text).map_err(|err| {
                variant(format!("edits is a string but not valid JSON: {err}. Pass an array of edit items."))
            })?;
            match &owned {
                Value::Array(items) => items.as_slice(),
                Value::Object(_) => std::slice::from_ref(&owned),
                _ => return Err(variant("edits must be an array of edit items.".to_owned())),
            }
        }
        other => {
            return Err(variant(format!("edits must be an array of edit items, received {}.", kind(other))));
        }
    };
    if list.is_empty() {
        return Err(variant("edits must contain at least one edit item.".to_owned()));
    }
    if list.len() > MAX_EDIT_ITEMS {
        return Err(ToolError::new(
            ErrorCode::TooManyEdits,
            format!(
                "Edit rejected — nothing was written. edits has {} items; one call takes at most {MAX_EDIT_ITEMS}.",
                list.len()
            ),
        )
        .with_hint("Split the change into several edit calls, or use write to replace the file whole."));
    }
    let mut parsed = Parsed::default();
    for (index, item) in list.iter().enumerate() {
        let (op, from_path) = parse_item(index, item, load, &mut parsed.notes)?;
        parsed.items.push(op);
        parsed.from_paths.push(from_path);
    }
    Ok(parsed)
}

/// Parsed edit items.
#[derive(Debug, Default)]
pub struct Parsed {
    /// The items, in request order.
    pub items: Vec<Item>,
    /// Per op, its `from_path` when it has one (for a cross-file move).
    pub from_paths: Vec<Option<String>>,
    /// Notes for ignored keys.
    pub notes: Vec<String>,
}

fn parse_item(
    index: usize,
    item: &Value,
    load: &SourceLoader<'_>,
    notes: &mut Vec<String>,
) -> Result<(Item, Option<String>), ToolError> {
    let Value::Object(object) = item else {
        return Err(variant(format!(
            "edits[{index}] must be an object with one of {}, received {}.",
            OPS.join(", "),
            kind(item)
        )));
    };
    if ["old_text", "new_text", "oldText", "newText"].iter().any(|k| object.contains_key(*k)) {
        return Err(variant(format!(
            "edits[{index}] has old_text/new_text at the top level of the item. Wrap them in an op: {{\"replace\": {{\"old_text\": \"...\", \"new_text\": \"...\"}}}}, or use set_line/replace_lines with anchors."
        )));
    }
    let keys: Vec<&str> = object.keys().map(String::as_str).collect();
    let ops: Vec<&str> = keys.iter().copied().filter(|k| OPS.contains(k)).collect();
    if ops.len() != 1 || keys.len() != 1 {
        return Err(variant(format!(
            "edits[{index}] must have exactly one key, one of {} (got: {}).",
            OPS.join(", "),
            if keys.is_empty() { "none".to_owned() } else { keys.join(", ") }
        )));
    }
    let name = ops[0];
    let Some(Value::Object(fields)) = object.get(name) else {
        return Err(variant(format!(
            "edits[{index}].{name} must be an object, received {}.",
            object.get(name).map_or("nothing", kind)
        )));
    };
    let mut reader = Fields { index, op: name, fields, used: Vec::new() };
    let parsed = match name {
        "set_line" => EditOp::SetLine {
            anchor: reader.anchor("anchor")?,
            new_text: reader.string("new_text")?,
            literal: reader.flag("literal")?,
        },
        "replace_lines" => EditOp::ReplaceLines {
            start: reader.anchor("start_anchor")?,
            end: reader.anchor("end_anchor")?,
            new_text: reader.string("new_text")?,
            literal: reader.flag("literal")?,
        },
        "insert_after" => {
            let anchor = reader.anchor("anchor")?;
            let new_text = if fields.contains_key("new_text") || !fields.contains_key("text") {
                reader.string("new_text")?
            } else {
                reader.string("text")?
            };
            EditOp::InsertAfter { anchor, new_text, literal: reader.flag("literal")? }
        }
        "replace" => EditOp::Replace {
            old_text: reader.string("old_text")?,
            new_text: reader.string("new_text")?,
            all: reader.flag("all")?,
            fuzzy: reader.flag("fuzzy")?,
        },
        "replace_symbol" | "insert_before_symbol" | "insert_after_symbol" => {
            let (action, text_field) = match name {
                "replace_symbol" => (SymbolAction::Replace, "new_body"),
                "insert_before_symbol" => (SymbolAction::InsertBefore, "new_text"),
                _ => (SymbolAction::InsertAfter, "new_text"),
            };
            let symbol = reader.string("symbol")?;
            let text = reader.string(text_field)?;
            reader.finish(notes);
            return Ok((Item::Symbol(SymbolRequest { index, action, symbol, text }), None));
        }
        _ => {
            let start = reader.anchor("start_anchor")?;
            let end = reader.anchor("end_anchor")?;
            let after = reader.anchor("after_anchor")?;
            let from_path = reader.optional_string("from_path")?;
            let source = from_path.as_deref().map(load).transpose()?;
            let op = if name == "copy_lines" {
                EditOp::CopyLines { start, end, after, source }
            } else {
                EditOp::MoveLines { start, end, after, source }
            };
            reader.finish(notes);
            return Ok((Item::Op(op), from_path));
        }
    };
    reader.finish(notes);
    Ok((Item::Op(parsed), None))
}

/// Reads the fields of one item's payload, naming every problem precisely.
struct Fields<'a> {
    index: usize,
    op: &'a str,
    fields: &'a Map<String, Value>,
    used: Vec<&'static str>,
}

impl Fields<'_> {
    fn where_(&self, field: &str) -> String {
        format!("edits[{}].{}.{field}", self.index, self.op)
    }

    fn string(&mut self, field: &'static str) -> Result<String, ToolError> {
        self.used.push(field);
        match self.fields.get(field) {
            Some(Value::String(text)) => Ok(text.clone()),
            Some(other) => Err(variant(format!("{} must be a string, received {}.", self.where_(field), kind(other)))),
            None => Err(variant(format!("{} is required.", self.where_(field)))),
        }
    }

    fn optional_string(&mut self, field: &'static str) -> Result<Option<String>, ToolError> {
        self.used.push(field);
        match self.fields.get(field) {
            None => Ok(None),
            Some(Value::String(text)) => Ok(Some(text.clone())),
            Some(other) => Err(variant(format!("{} must be a string, received {}.", self.where_(field), kind(other)))),
        }
    }

    fn flag(&mut self, field: &'static str) -> Result<bool, ToolError> {
        self.used.push(field);
        match self.fields.get(field) {
            None => Ok(false),
            Some(Value::Bool(flag)) => Ok(*flag),
            Some(other) => {
                Err(variant(format!("{} must be true or false, received {}.", self.where_(field), kind(other))))
            }
        }
    }

    fn anchor(&mut self, field: &'static str) -> Result<AnchorRef, ToolError> {
        let text = self.string(field)?;
        parse_anchor(&text).map_err(|err| {
            let code = match err {
                AnchorError::LineTooLarge { .. } => ErrorCode::LineOutOfRange,
                _ => ErrorCode::InvalidAnchor,
            };
            ToolError::new(code, format!("Edit rejected — nothing was written. {}: {err}", self.where_(field)))
        })
    }

    fn finish(self, notes: &mut Vec<String>) {
        for key in self.fields.keys().filter(|k| !self.used.contains(&k.as_str())) {
            notes.push(format!(
                "ignored unknown key {} in edits[{}].{}",
                Value::String(key.clone()),
                self.index,
                self.op
            ));
        }
    }
}

/// An `invalid-edit-variant` error.
pub fn variant(message: String) -> ToolError {
    ToolError::new(ErrorCode::InvalidEditVariant, format!("Edit rejected — nothing was written. {message}"))
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The schema of one edit item, as the tool's input schema gives it to a model (parsing is
/// by hand above, for precise errors; a test holds the two to the same keys). Written out
/// rather than derived: one short description per op and none on the fields, whose names
/// say what they hold and which the tool's description explains once.
#[derive(Debug)]
pub struct EditItemSchema;

impl JsonSchema for EditItemSchema {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "EditItem".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let op = |name: &str, description: &str, fields: &[(&str, &str)], required: &[&str]| {
            let properties: Map<String, Value> =
                fields.iter().map(|(field, kind)| ((*field).to_owned(), serde_json::json!({"type": kind}))).collect();
            serde_json::json!({
                "description": description,
                "type": "object",
                "properties": {name: {"type": "object", "properties": properties, "required": required}},
                "required": [name],
            })
        };
        let text = [("anchor", "string"), ("new_text", "string"), ("literal", "boolean")];
        let range =
            [("start_anchor", "string"), ("end_anchor", "string"), ("new_text", "string"), ("literal", "boolean")];
        let moved =
            [("start_anchor", "string"), ("end_anchor", "string"), ("after_anchor", "string"), ("from_path", "string")];
        let symbol = [("symbol", "string"), ("new_text", "string")];
        let branches = vec![
            op("set_line", "Replace one line (`new_text: \"\"` deletes it).", &text, &["anchor", "new_text"]),
            op(
                "replace_lines",
                "Replace the lines from start_anchor to end_anchor, inclusive.",
                &range,
                &["start_anchor", "end_anchor", "new_text"],
            ),
            op("insert_after", "Insert lines after the anchored line.", &text, &["anchor", "new_text"]),
            op(
                "replace",
                "Replace exact text that occurs once (every occurrence with `all`; `fuzzy` also matches it with other trailing whitespace, quotes, dashes or Unicode spaces).",
                &[("old_text", "string"), ("new_text", "string"), ("all", "boolean"), ("fuzzy", "boolean")],
                &["old_text", "new_text"],
            ),
            op(
                "replace_symbol",
                "Replace a whole declaration, found by name, with new_body (re-indented; its docs stay unless new_body brings its own).",
                &[("symbol", "string"), ("new_body", "string")],
                &["symbol", "new_body"],
            ),
            op(
                "insert_before_symbol",
                "Insert code before a declaration (and its docs).",
                &symbol,
                &["symbol", "new_text"],
            ),
            op("insert_after_symbol", "Insert code after a declaration.", &symbol, &["symbol", "new_text"]),
            op(
                "copy_lines",
                "Copy the inclusive range after after_anchor (from another file with from_path).",
                &moved,
                &["start_anchor", "end_anchor", "after_anchor"],
            ),
            op(
                "move_lines",
                "Move the inclusive range after after_anchor (from another file with from_path).",
                &moved,
                &["start_anchor", "end_anchor", "after_anchor"],
            ),
        ];
        let mut schema = schemars::Schema::default();
        schema.insert("anyOf".to_owned(), Value::Array(branches));
        schema
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The schema's branches, as `(op, properties, required)`.
    fn branches() -> Vec<(String, Map<String, Value>, Vec<String>)> {
        let schema = EditItemSchema::json_schema(&mut schemars::SchemaGenerator::default()).to_value();
        let branches = schema["anyOf"].as_array().expect("anyOf");
        branches
            .iter()
            .map(|branch| {
                let (op, payload) = branch["properties"].as_object().expect("properties").iter().next().expect("op");
                let properties = payload["properties"].as_object().expect("fields").clone();
                let required = payload["required"].as_array().expect("required");
                (op.clone(), properties, required.iter().map(|r| r.as_str().expect("name").to_owned()).collect())
            })
            .collect()
    }

    fn sample(kind: &str, field: &str) -> Value {
        match (kind, field.ends_with("anchor")) {
            ("boolean", _) => Value::Bool(true),
            (_, true) => Value::from("2:589"),
            _ => Value::from("text"),
        }
    }

    /// The written-out schema and the hand-written parser name the same ops and fields: an
    /// item with only the required fields parses, and so does one with every field, with no
    /// key ignored; an item without one required field is refused.
    #[test]
    fn the_item_schema_and_the_parser_agree() {
        let document = Arc::new(Document::parse(b"alpha\nbeta\n".to_vec()));
        let load: &SourceLoader<'_> = &|_: &str| Ok(Arc::clone(&document));
        let found = branches();
        assert_eq!(found.iter().map(|(op, _, _)| op.as_str()).collect::<Vec<_>>(), OPS);
        for (op, properties, required) in found {
            let kind = |field: &str| properties[field]["type"].as_str().expect("type").to_owned();
            let item = |fields: &[&String]| {
                let payload: Map<String, Value> = fields.iter().map(|f| ((*f).clone(), sample(&kind(f), f))).collect();
                serde_json::json!({ op.clone(): payload })
            };
            let minimal: Vec<&String> = required.iter().collect();
            let mut notes = Vec::new();
            parse_item(0, &item(&minimal), load, &mut notes).unwrap_or_else(|e| panic!("{op} (required only): {e:?}"));
            let every: Vec<&String> = properties.keys().collect();
            parse_item(0, &item(&every), load, &mut notes).unwrap_or_else(|e| panic!("{op} (every field): {e:?}"));
            assert!(notes.is_empty(), "{op}: the parser ignored a field the schema names: {notes:?}");
            for missing in &required {
                let fewer: Vec<&String> = required.iter().filter(|f| f != &missing).collect();
                assert!(parse_item(0, &item(&fewer), load, &mut notes).is_err(), "{op} without {missing} parsed");
            }
        }
    }
}
