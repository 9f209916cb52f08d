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

/// The schema of one edit item (for the tool's input schema; parsing is by hand above,
/// for precise errors).
#[derive(JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)] // A schema-only type: never built, only described.
pub enum EditItemSchema {
    /// Replace one line. `new_text: ""` deletes it; `"\n"` leaves one empty line.
    SetLine {
        /// `{anchor: "LINE:HASH", new_text, literal?}`
        set_line: AnchoredText,
    },
    /// Replace the inclusive range between two anchors.
    ReplaceLines {
        /// `{start_anchor, end_anchor, new_text, literal?}`
        replace_lines: RangeText,
    },
    /// Insert lines after an anchored line.
    InsertAfter {
        /// `{anchor, new_text, literal?}`
        insert_after: AnchoredText,
    },
    /// Replace exact text (must occur once unless `all`).
    Replace {
        /// `{old_text, new_text, all?, fuzzy?}`
        replace: ReplaceText,
    },
    /// Replace a whole symbol (function, class, method, ...) by name, with its new
    /// declaration. Leading docs and attributes stay unless `new_body` brings its own.
    ReplaceSymbol {
        /// `{symbol, new_body}`
        replace_symbol: SymbolBody,
    },
    /// Insert code before a symbol (before its docs), separated as the file separates symbols.
    InsertBeforeSymbol {
        /// `{symbol, new_text}`
        insert_before_symbol: SymbolText,
    },
    /// Insert code after a symbol, separated as the file separates symbols.
    InsertAfterSymbol {
        /// `{symbol, new_text}`
        insert_after_symbol: SymbolText,
    },
    /// Copy an anchored range after another anchored line (optionally from another file).
    CopyLines {
        /// `{start_anchor, end_anchor, after_anchor, from_path?}`
        copy_lines: RangeMove,
    },
    /// Move an anchored range after another anchored line (optionally from another file).
    MoveLines {
        /// `{start_anchor, end_anchor, after_anchor, from_path?}`
        move_lines: RangeMove,
    },
}

/// `set_line` / `insert_after` fields.
#[derive(JsonSchema)]
#[allow(dead_code)] // A schema-only type.
pub struct AnchoredText {
    /// `LINE:HASH` copied from a row (e.g. `12:3c8`).
    anchor: String,
    /// The new lines (plain text, no `LINE:HASH|` prefixes).
    new_text: String,
    /// Keep `new_text` exactly as given (no cleanup of echoed anchors).
    literal: Option<bool>,
}

/// `replace_lines` fields.
#[derive(JsonSchema)]
#[allow(dead_code)] // A schema-only type.
pub struct RangeText {
    /// Anchor of the first line to replace.
    start_anchor: String,
    /// Anchor of the last line to replace (inclusive).
    end_anchor: String,
    /// The replacement lines; `""` deletes the range.
    new_text: String,
    /// Keep `new_text` exactly as given.
    literal: Option<bool>,
}

/// `replace` fields.
#[derive(JsonSchema)]
#[allow(dead_code)] // A schema-only type.
pub struct ReplaceText {
    /// Exact text to find.
    old_text: String,
    /// Its replacement.
    new_text: String,
    /// Replace every occurrence.
    all: Option<bool>,
    /// If the exact text is absent, ignore trailing whitespace, quote/dash styles and Unicode spaces.
    fuzzy: Option<bool>,
}

/// `replace_symbol` fields.
#[derive(JsonSchema)]
#[allow(dead_code)] // A schema-only type.
pub struct SymbolBody {
    /// The symbol: `name`, `Parent.name`, or `name@LINE` (as for read's `symbol`).
    symbol: String,
    /// The complete new declaration (signature and body), indented as you like: it is
    /// re-indented to the symbol's indentation.
    new_body: String,
}

/// `insert_before_symbol` / `insert_after_symbol` fields.
#[derive(JsonSchema)]
#[allow(dead_code)] // A schema-only type.
pub struct SymbolText {
    /// The symbol: `name`, `Parent.name`, or `name@LINE` (as for read's `symbol`).
    symbol: String,
    /// The code to insert, re-indented to the symbol's indentation.
    new_text: String,
}

/// `copy_lines` / `move_lines` fields.
#[derive(JsonSchema)]
#[allow(dead_code)] // A schema-only type.
pub struct RangeMove {
    /// Anchor of the first line.
    start_anchor: String,
    /// Anchor of the last line (inclusive).
    end_anchor: String,
    /// Anchor of the line to insert after.
    after_anchor: String,
    /// Take the lines from this other file (its anchors, from a read of it).
    from_path: Option<String>,
}
