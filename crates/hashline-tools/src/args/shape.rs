//! What argument preparation needs of a tool's input schema: each top-level property's JSON
//! type and integer bounds, in the schema's order, and which properties are required.
//!
//! Read straight from the committed schema text ([`ArgShape::parse`]), skipping the nested
//! schemas of the properties without building them: a CLI call prepares its arguments once,
//! and `edit`'s schema is 31 KB, most of it the schemas of the edit operations.

use std::sync::OnceLock;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::Value;

use crate::schema::{committed_input_text, generated_input_schema};
use crate::tool::Tool;

/// The shape of a tool's input schema, read once from the committed text without building
/// the whole schema (a CLI call prepares its arguments once), else taken from the generated
/// schema. A test holds it equal to the shape of [`crate::schema::input_schema`] for every
/// tool.
pub fn input_shape<T: Tool>() -> &'static ArgShape {
    use std::collections::HashMap;
    use std::sync::Mutex;
    static SHAPES: OnceLock<Mutex<HashMap<&'static str, &'static ArgShape>>> = OnceLock::new();
    let shapes = SHAPES.get_or_init(Default::default);
    let mut map = shapes.lock().unwrap_or_else(|p| p.into_inner());
    map.entry(T::NAME).or_insert_with(|| {
        let shape = committed_input_text(T::NAME)
            .and_then(|text| ArgShape::parse(text).ok())
            .unwrap_or_else(|| ArgShape::of_schema(generated_input_schema::<T>()));
        Box::leak(Box::new(shape))
    })
}

/// The shape of an input schema (see the module's documentation).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ArgShape {
    pub(crate) properties: Vec<PropertyShape>,
    pub(crate) required: Vec<String>,
}

/// One top-level property of an input schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PropertyShape {
    pub(super) name: String,
    /// The JSON type asked for, ignoring `null`.
    pub(super) expected: Option<String>,
    pub(super) minimum: Option<i64>,
    pub(super) maximum: Option<i64>,
}

impl ArgShape {
    /// The shape of a schema held as a value.
    pub fn of_schema(schema: &Value) -> Self {
        let properties = schema
            .get("properties")
            .and_then(Value::as_object)
            .map(|properties| {
                properties
                    .iter()
                    .map(|(name, property)| PropertyShape {
                        name: name.clone(),
                        expected: super::expected_type(property).map(str::to_owned),
                        minimum: property.get("minimum").and_then(Value::as_i64),
                        maximum: property.get("maximum").and_then(Value::as_i64),
                    })
                    .collect()
            })
            .unwrap_or_default();
        let required = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|names| names.iter().filter_map(Value::as_str).map(str::to_owned).collect())
            .unwrap_or_default();
        ArgShape { properties, required }
    }

    /// The shape of a schema's JSON text, equal to [`ArgShape::of_schema`] of the parsed
    /// text. A text this reader does not take in one pass (a `required` that is not a list
    /// of strings, say) is parsed whole instead.
    pub fn parse(text: &str) -> serde_json::Result<Self> {
        match serde_json::from_str::<SchemaText>(text) {
            Ok(schema) => Ok(ArgShape { properties: schema.properties.0, required: schema.required }),
            Err(_) => Ok(Self::of_schema(&serde_json::from_str(text)?)),
        }
    }

    /// The property named `name`.
    pub(super) fn property(&self, name: &str) -> Option<&PropertyShape> {
        self.properties.iter().find(|p| p.name == name)
    }
}

#[derive(Deserialize)]
struct SchemaText {
    #[serde(default)]
    properties: PropertiesText,
    #[serde(default)]
    required: Vec<String>,
}

/// The properties in the text's order; of two with one name, the later one's schema in the
/// first one's place (as a JSON object value keeps them).
#[derive(Default)]
struct PropertiesText(Vec<PropertyShape>);

impl<'de> Deserialize<'de> for PropertiesText {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Properties;
        impl<'de> Visitor<'de> for Properties {
            type Value = PropertiesText;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object of property schemas")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<PropertiesText, A::Error> {
                let mut properties: Vec<PropertyShape> = Vec::new();
                while let Some((name, property)) = map.next_entry::<String, PropertyText>()? {
                    let shape = PropertyShape {
                        name,
                        expected: property.ty.and_then(TypeText::expected),
                        minimum: property.minimum.as_ref().and_then(serde_json::Number::as_i64),
                        maximum: property.maximum.as_ref().and_then(serde_json::Number::as_i64),
                    };
                    match properties.iter_mut().find(|p| p.name == shape.name) {
                        Some(earlier) => *earlier = shape,
                        None => properties.push(shape),
                    }
                }
                Ok(PropertiesText(properties))
            }
        }
        deserializer.deserialize_map(Properties)
    }
}

/// A property's schema, of which only the type and bounds are kept; the rest is skipped.
#[derive(Deserialize)]
struct PropertyText {
    #[serde(rename = "type", default)]
    ty: Option<TypeText>,
    #[serde(default)]
    minimum: Option<serde_json::Number>,
    #[serde(default)]
    maximum: Option<serde_json::Number>,
}

/// `"type"`: one name, or a list of names (of which `null` does not count).
enum TypeText {
    One(String),
    Many(Vec<String>),
    Other,
}

impl TypeText {
    fn expected(self) -> Option<String> {
        match self {
            TypeText::One(name) => Some(name),
            TypeText::Many(names) => names.into_iter().find(|t| t != "null"),
            TypeText::Other => None,
        }
    }
}

impl<'de> Deserialize<'de> for TypeText {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Type;
        impl<'de> Visitor<'de> for Type {
            type Value = TypeText;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON type name or a list of them")
            }

            fn visit_str<E: de::Error>(self, name: &str) -> Result<TypeText, E> {
                Ok(TypeText::One(name.to_owned()))
            }

            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<TypeText, A::Error> {
                // Like `Value::as_str` over the list: entries that are not strings are passed.
                let mut names = Vec::new();
                while let Some(entry) = seq.next_element::<Value>()? {
                    if let Value::String(name) = entry {
                        names.push(name);
                    }
                }
                Ok(TypeText::Many(names))
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TypeText, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(TypeText::Other)
            }

            fn visit_bool<E: de::Error>(self, _: bool) -> Result<TypeText, E> {
                Ok(TypeText::Other)
            }

            fn visit_i64<E: de::Error>(self, _: i64) -> Result<TypeText, E> {
                Ok(TypeText::Other)
            }

            fn visit_u64<E: de::Error>(self, _: u64) -> Result<TypeText, E> {
                Ok(TypeText::Other)
            }

            fn visit_f64<E: de::Error>(self, _: f64) -> Result<TypeText, E> {
                Ok(TypeText::Other)
            }

            fn visit_unit<E: de::Error>(self) -> Result<TypeText, E> {
                Ok(TypeText::Other)
            }
        }
        deserializer.deserialize_any(Type)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_tool_prepares_from_the_shape_of_its_schema() {
        use crate::tools::{ast_search, edit, find, grep, ls, read, write};
        fn check<T: Tool>() {
            let shape = input_shape::<T>();
            assert_eq!(shape, &ArgShape::of_schema(crate::schema::input_schema::<T>()), "{}", T::NAME);
            assert!(!shape.properties.is_empty(), "{}", T::NAME);
        }
        check::<read::ReadTool>();
        check::<edit::EditTool>();
        check::<write::WriteTool>();
        check::<ls::LsTool>();
        check::<find::FindTool>();
        check::<grep::GrepTool>();
        check::<ast_search::AstSearchTool>();
    }

    #[test]
    fn the_text_reader_agrees_with_the_value_reader() {
        for schema in [
            json!({"properties": {"path": {"type": "string"}, "offset": {"type": ["integer", "null"], "minimum": 1, "maximum": 9.5}}, "required": ["path"]}),
            json!({"properties": {"a": {"type": ["null", "boolean"]}, "b": {"items": {"type": "string"}}, "c": {"type": {"x": 1}}, "d": {"type": [1, "null", "array"]}}}),
            json!({"properties": {"n": {"type": "integer", "minimum": -3.0, "maximum": 18446744073709551615u64}}}),
            json!({"title": "no properties"}),
            json!({"properties": {"a": {"type": "string"}}, "required": ["a", 3]}),
        ] {
            let text = serde_json::to_string(&schema).expect("text");
            assert_eq!(ArgShape::parse(&text).expect("parse"), ArgShape::of_schema(&schema), "{text}");
        }
        // Duplicate property names: the later schema in the first one's place, as a value keeps them.
        let text = r#"{"properties": {"a": {"type": "string"}, "b": {"type": "boolean"}, "a": {"type": "integer"}}}"#;
        let value: Value = serde_json::from_str(text).expect("value");
        assert_eq!(ArgShape::parse(text).expect("parse"), ArgShape::of_schema(&value));
        assert!(ArgShape::parse("{not json").is_err());
    }
}
