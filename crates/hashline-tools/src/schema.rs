//! The JSON Schemas of the tools: arguments, results and the error envelope, in standard
//! JSON Schema 2020-12 that any validating client understands.
//!
//! Every schema is generated here, through one set of [`settings`]: inlined subschemas and
//! the [`StandardFormats`] transform, so a tool added later gets standard schemas with no
//! work of its own. A tool's output schema ([`output_schema`]) is a `oneOf` tagged by `ok`:
//! the tool's success value, or the one error envelope ([`ToolFailure`]) that every tool
//! shares.
//!
//! ```
//! use hashline_tools::read::ReadTool;
//! use hashline_tools::schema::output_schema;
//!
//! let schema = output_schema::<ReadTool>();
//! let branches = schema["oneOf"].as_array().unwrap();
//! assert_eq!(branches[0]["properties"]["ok"]["const"], true);
//! assert_eq!(branches[1]["properties"]["ok"]["const"], false);
//! assert!(!schema.to_string().contains("\"format\""));
//! ```

use std::sync::OnceLock;

use schemars::generate::{Contract, SchemaSettings};
use schemars::transform::{RecursiveTransform, RestrictFormats, Transform};
use schemars::{JsonSchema, Schema};
use serde_json::{Map, Value, json};

pub use crate::result::ToolFailure;
use crate::tool::Tool;

/// Replaces schemars' integer formats (`uint32`, `uint64`, `uint`, `int32`, ...), which
/// standard validators do not know, with the range they stand for (`minimum` /
/// `maximum`), and drops any other format that JSON Schema 2020-12 does not define.
#[derive(Clone, Debug, Default)]
pub struct StandardFormats;

impl Transform for StandardFormats {
    fn transform(&mut self, schema: &mut Schema) {
        RecursiveTransform(integer_range).transform(schema);
        // Subschemas carry no `$schema` to infer the standard from: name its formats.
        let mut restrict = RestrictFormats::default();
        restrict.infer_from_meta_schema = false;
        restrict.allowed_formats.extend(STANDARD_FORMATS.iter().map(|&f| f.into()));
        restrict.transform(schema);
    }
}

/// The formats JSON Schema 2020-12 defines (its format-annotation vocabulary).
pub const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// The range of one of schemars' integer formats, as JSON numbers.
fn range_of(format: &str) -> Option<(Value, Value)> {
    let range = match format {
        "int8" => (json!(i8::MIN), json!(i8::MAX)),
        "int16" => (json!(i16::MIN), json!(i16::MAX)),
        "int32" => (json!(i32::MIN), json!(i32::MAX)),
        "int64" | "int" => (json!(i64::MIN), json!(i64::MAX)),
        "uint8" => (json!(0), json!(u8::MAX)),
        "uint16" => (json!(0), json!(u16::MAX)),
        "uint32" => (json!(0), json!(u32::MAX)),
        "uint64" | "uint" => (json!(0), json!(u64::MAX)),
        _ => return None,
    };
    Some(range)
}

/// One schema: an integer format becomes `minimum` / `maximum` (tighter bounds already
/// present, such as schemars' `minimum: 0`, are kept).
fn integer_range(schema: &mut Schema) {
    let Some(object) = schema.as_object_mut() else { return };
    let Some((min, max)) = object.get("format").and_then(Value::as_str).and_then(range_of) else { return };
    object.remove("format");
    object.entry("minimum").or_insert(min);
    object.entry("maximum").or_insert(max);
}

/// The settings every schema of the tools is generated with: JSON Schema 2020-12,
/// standard formats only. Tool schemas also inline every subschema ([`schema_of`]).
pub fn settings() -> SchemaSettings {
    SchemaSettings::draft2020_12().with_transform(StandardFormats)
}

/// The JSON Schema of a type, inlined (no `$ref`s), as JSON: what a program reading it
/// is given (arguments are deserialized, so the deserialize contract).
pub fn schema_of<T: JsonSchema>() -> Value {
    generate::<T>(Contract::Deserialize)
}

/// The JSON Schema of a value the tools write (the serialize contract: a field that is
/// left out when empty is not required).
pub fn output_schema_of<T: JsonSchema>() -> Value {
    generate::<T>(Contract::Serialize)
}

fn generate<T: JsonSchema>(contract: Contract) -> Value {
    let settings = settings().with(|s| {
        s.inline_subschemas = true;
        s.contract = contract;
    });
    let schema = settings.into_generator().into_root_schema_for::<T>();
    serde_json::to_value(schema).unwrap_or(Value::Null)
}

/// The input JSON Schema of a tool: the committed `schemas/<tool>.input.json` of this
/// crate (which `fixtures/schemas/` links to), parsed once (generating it costs a CLI call more than the rest of an `edit`), else
/// generated. A test holds every committed file equal to the generated schema, and
/// `cargo xtask fixtures` writes the files from [`generated_input_schema`].
pub fn input_schema<T: Tool>() -> &'static Value {
    committed_input_schema::<T>().unwrap_or_else(generated_input_schema::<T>)
}

/// The committed input schema text of the tool `name` (see [`input_schema`]).
pub(crate) fn committed_input_text(name: &str) -> Option<&'static str> {
    COMMITTED_INPUT_SCHEMAS.iter().find(|(n, _)| *n == name).map(|(_, text)| *text)
}

/// The input JSON Schema of a tool as generated from its argument type and made lean for
/// models ([`lean`](crate::lean_schema::lean)); cached.
pub fn generated_input_schema<T: Tool>() -> &'static Value {
    use std::any::TypeId;
    use std::collections::HashMap;
    use std::sync::Mutex;
    static LEAN: OnceLock<Mutex<HashMap<TypeId, &'static Value>>> = OnceLock::new();
    let cache = LEAN.get_or_init(Default::default);
    let mut map = cache.lock().unwrap_or_else(|p| p.into_inner());
    map.entry(TypeId::of::<T::Args>()).or_insert_with(|| {
        let mut schema = generate::<T::Args>(Contract::Deserialize);
        crate::lean_schema::lean(&mut schema);
        Box::leak(Box::new(schema))
    })
}

/// The committed input schemas, by tool name (the fixtures' pretty JSON text).
const COMMITTED_INPUT_SCHEMAS: &[(&str, &str)] = &[
    ("read", include_str!("../schemas/read.input.json")),
    ("edit", include_str!("../schemas/edit.input.json")),
    ("write", include_str!("../schemas/write.input.json")),
    ("ls", include_str!("../schemas/ls.input.json")),
    ("find", include_str!("../schemas/find.input.json")),
    ("grep", include_str!("../schemas/grep.input.json")),
    ("ast_search", include_str!("../schemas/ast_search.input.json")),
];

/// The committed input schema of `T`, parsed once; `None` for a tool without one.
pub fn committed_input_schema<T: Tool>() -> Option<&'static Value> {
    use std::collections::HashMap;
    use std::sync::Mutex;
    static PARSED: OnceLock<Mutex<HashMap<&'static str, Option<&'static Value>>>> = OnceLock::new();
    let parsed = PARSED.get_or_init(Default::default);
    let mut map = parsed.lock().unwrap_or_else(|p| p.into_inner());
    *map.entry(T::NAME).or_insert_with(|| {
        let (_, text) = COMMITTED_INPUT_SCHEMAS.iter().find(|(name, _)| *name == T::NAME)?;
        let value: Value = serde_json::from_str(text).ok()?;
        Some(Box::leak(Box::new(value)))
    })
}

/// The error envelope's schema: one for all tools.
pub fn failure_schema() -> &'static Value {
    cached::<ToolFailure<'static>>(Contract::Serialize)
}

/// The output JSON Schema of a tool: `{tool, ok}` plus, tagged by `ok`, either the tool's
/// success value (`ok: true`) or the shared error envelope (`ok: false`). A client that
/// validates every result, errors included, accepts both.
pub fn output_schema<T: Tool>() -> Value {
    let success = branch(cached::<T::Value>(Contract::Serialize), true);
    let failure = branch(failure_schema(), false);
    json!({
        "$schema": META_SCHEMA,
        "title": format!("{} result", T::NAME),
        "description": format!("What `{}` returns as structured content: its value (`ok: true`) or the error envelope every tool shares (`ok: false`).", T::NAME),
        "type": "object",
        "properties": {
            "tool": {"description": "The tool's name.", "const": T::NAME},
            "ok": {"description": "`true` for a success, `false` for an error result.", "type": "boolean"},
        },
        "required": ["tool", "ok"],
        "oneOf": [success, failure],
    })
}

/// The 2020-12 meta-schema's URI.
pub const META_SCHEMA: &str = "https://json-schema.org/draft/2020-12/schema";

/// A root schema as one branch of an output schema: no `$schema` of its own, `ok` fixed
/// to `tag` and required; keys in a reading order (title, description, type, properties
/// with `ok` first, required, then the rest).
fn branch(schema: &Value, tag: bool) -> Value {
    let Some(source) = schema.as_object() else { return schema.clone() };
    let mut rest = source.clone();
    rest.remove("$schema");
    let mut properties = Map::from_iter([("ok".to_owned(), json!({"const": tag}))]);
    if let Some(Value::Object(fields)) = rest.remove("properties") {
        properties.extend(fields.into_iter().filter(|(name, _)| name != "ok"));
    }
    let mut required = vec![Value::from("ok")];
    if let Some(Value::Array(names)) = rest.remove("required") {
        required.extend(names.into_iter().filter(|name| name != "ok"));
    }
    let mut out = Map::new();
    for key in ["title", "description"] {
        if let Some(value) = rest.remove(key) {
            out.insert(key.to_owned(), value);
        }
    }
    rest.remove("type");
    out.insert("type".into(), Value::from("object"));
    out.insert("properties".into(), Value::Object(properties));
    out.insert("required".into(), Value::Array(required));
    out.extend(rest);
    Value::Object(out)
}

/// A type's schema under `contract`, built once; it lives as long as the program, like
/// the type itself.
fn cached<T: JsonSchema + 'static>(contract: Contract) -> &'static Value {
    use std::any::TypeId;
    use std::collections::HashMap;
    use std::sync::Mutex;
    static CACHE: OnceLock<Mutex<HashMap<(TypeId, bool), &'static Value>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    let mut map = cache.lock().unwrap_or_else(|p| p.into_inner());
    let serialize = matches!(contract, Contract::Serialize);
    map.entry((TypeId::of::<T>(), serialize)).or_insert_with(|| Box::leak(Box::new(generate::<T>(contract))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_committed_input_schema_is_the_generated_one() {
        use crate::tools::{ast_search, edit, find, grep, ls, read, write};
        fn check<T: Tool>() -> &'static str {
            let (_, text) = COMMITTED_INPUT_SCHEMAS.iter().find(|(name, _)| *name == T::NAME).expect("committed");
            let generated = serde_json::to_string_pretty(generated_input_schema::<T>()).unwrap() + "\n";
            // The text, not only the value: the key order is what clients see.
            assert_eq!(
                *text,
                generated,
                "crates/hashline-tools/schemas/{}.input.json is stale: run `cargo xtask fixtures`",
                T::NAME
            );
            assert_eq!(input_schema::<T>(), generated_input_schema::<T>());
            assert!(
                std::ptr::eq(input_schema::<T>(), committed_input_schema::<T>().unwrap()),
                "the committed one is used"
            );
            T::NAME
        }
        let names = [
            check::<read::ReadTool>(),
            check::<edit::EditTool>(),
            check::<write::WriteTool>(),
            check::<ls::LsTool>(),
            check::<find::FindTool>(),
            check::<grep::GrepTool>(),
            check::<ast_search::AstSearchTool>(),
        ];
        assert_eq!(names.len(), COMMITTED_INPUT_SCHEMAS.len());
    }

    #[derive(JsonSchema)]
    #[allow(dead_code)]
    struct Numbers {
        small: u8,
        line: u32,
        bytes: u64,
        count: usize,
        signed: i32,
        maybe: Option<u32>,
        list: Vec<u16>,
    }

    #[test]
    fn integer_formats_become_ranges() {
        let schema = schema_of::<Numbers>();
        let range = |name: &str| {
            let p = &schema["properties"][name];
            (p.get("format").cloned(), p["minimum"].clone(), p["maximum"].clone())
        };
        assert_eq!(range("small"), (None, json!(0), json!(255)));
        assert_eq!(range("line"), (None, json!(0), json!(4_294_967_295_u32)));
        assert_eq!(range("bytes"), (None, json!(0), json!(u64::MAX)));
        assert_eq!(range("count"), (None, json!(0), json!(u64::MAX)));
        assert_eq!(range("signed"), (None, json!(i32::MIN), json!(i32::MAX)));
        assert_eq!(range("maybe"), (None, json!(0), json!(4_294_967_295_u32)));
        assert_eq!(schema["properties"]["list"]["items"]["maximum"], json!(65535));
        assert!(!schema.to_string().contains("\"format\""), "{schema}");
    }

    #[test]
    fn standard_formats_stay_and_others_go() {
        let mut schema = Schema::try_from(json!({
            "type": "object",
            "properties": {
                "when": {"type": "string", "format": "date-time"},
                "odd": {"type": "string", "format": "semver"},
                "wide": {"type": "integer", "format": "uint128"},
            }
        }))
        .expect("schema");
        StandardFormats.transform(&mut schema);
        let value = schema.to_value();
        assert_eq!(value["properties"]["when"]["format"], "date-time");
        assert_eq!(value["properties"]["odd"], json!({"type": "string"}));
        assert_eq!(value["properties"]["wide"], json!({"type": "integer"}));
    }
}
