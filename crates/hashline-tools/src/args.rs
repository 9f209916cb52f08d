//! Argument preparation shared by every tool (SPEC §4.3), driven by the argument
//! struct's own JSON Schema so that the schema stays the one source of truth:
//! required `null` → `invalid-null`, optional `null` → omitted, base-10 strings accepted
//! for integers, wrong JSON types → `invalid-type`, unknown keys dropped with a
//! `params-adjusted` note, `errorMode` taken out.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::error::{ErrorCode, ToolError};

mod shape;

pub use shape::{ArgShape, PropertyShape, input_shape};

/// The argument every tool accepts besides its own.
pub const ERROR_MODE_KEY: &str = "errorMode";

/// Arguments ready for a tool.
#[derive(Debug)]
pub struct Prepared<A> {
    /// The typed arguments.
    pub args: A,
    /// What was ignored, e.g. `ignored unknown key "x"`.
    pub adjustments: Vec<String>,
}

/// Prepares `raw` for an argument type whose JSON Schema has the shape `shape`.
///
/// `integer_code` picks the error code for a malformed integer parameter (e.g.
/// `invalid-offset` for `offset`).
pub fn prepare<A: DeserializeOwned>(
    tool: &str,
    shape: &ArgShape,
    raw: Value,
    integer_code: fn(&str) -> ErrorCode,
) -> Result<Prepared<A>, ToolError> {
    let mut object = match raw {
        Value::Object(map) => map,
        Value::Null => Map::new(),
        other => {
            return Err(ToolError::new(
                ErrorCode::InvalidType,
                format!("Invalid arguments for {tool}: expected an object, received {}.", json_type(&other)),
            ));
        }
    };
    let mut adjustments = Vec::new();
    if let Some(mode) = object.remove(ERROR_MODE_KEY) {
        error_mode_is_value(&serde_json::json!({ ERROR_MODE_KEY: mode }))?;
    }
    let unknown: Vec<String> = object.keys().filter(|k| shape.property(k).is_none()).cloned().collect();
    for key in unknown {
        object.remove(&key);
        adjustments.push(format!("ignored unknown key {}", Value::String(key)));
    }

    for property in &shape.properties {
        let name = &property.name;
        let expected = property.expected.as_deref();
        let is_required = shape.required.iter().any(|r| r == name);
        match object.get(name) {
            None if is_required => {
                return Err(ToolError::new(
                    ErrorCode::InvalidType,
                    format!("Invalid {name}: expected {}, received nothing ({name} is required).", describe(expected)),
                ));
            }
            None => {}
            Some(Value::Null) if is_required => {
                return Err(ToolError::new(
                    ErrorCode::InvalidNull,
                    format!("Invalid {name}: expected {}, received null.", describe(expected)),
                ));
            }
            Some(Value::Null) => {
                object.remove(name.as_str());
            }
            Some(value) => {
                if let Some(fixed) = check_value(name, property, expected, value, integer_code)? {
                    object.insert(name.clone(), fixed);
                }
            }
        }
    }

    let args = serde_json::from_value(Value::Object(object))
        .map_err(|err| ToolError::new(ErrorCode::InvalidType, format!("Invalid arguments for {tool}: {err}.")))?;
    Ok(Prepared { args, adjustments })
}

/// The `errorMode` argument: `true` for `"value"`, `false` for `"throw"` or absent.
pub fn error_mode_is_value(raw: &Value) -> Result<bool, ToolError> {
    match raw.get(ERROR_MODE_KEY) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::String(mode)) if mode == "throw" => Ok(false),
        Some(Value::String(mode)) if mode == "value" => Ok(true),
        Some(other) => Err(ToolError::new(
            ErrorCode::InvalidType,
            format!("Invalid errorMode: expected \"throw\" or \"value\", received {other}."),
        )),
    }
}

/// The JSON type a property's schema asks for, ignoring `null`.
fn expected_type(property: &Value) -> Option<&str> {
    match property.get("type") {
        Some(Value::String(t)) => Some(t.as_str()),
        Some(Value::Array(types)) => types.iter().filter_map(Value::as_str).find(|t| *t != "null"),
        _ => None,
    }
}

fn describe(expected: Option<&str>) -> &'static str {
    match expected {
        Some("string") => "string",
        Some("integer") => "a base-10 integer",
        Some("number") => "number",
        Some("boolean") => "boolean",
        Some("array") => "array",
        Some("object") => "object",
        _ => "a value",
    }
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Checks one present, non-null value; returns a replacement when it was converted.
fn check_value(
    name: &str,
    property: &PropertyShape,
    expected: Option<&str>,
    value: &Value,
    integer_code: fn(&str) -> ErrorCode,
) -> Result<Option<Value>, ToolError> {
    let wrong_type = || {
        ToolError::new(
            ErrorCode::InvalidType,
            format!("Invalid {name}: expected {}, received {}.", describe(expected), json_type(value)),
        )
    };
    match expected {
        Some("integer") => {
            let bad = || {
                ToolError::new(
                    integer_code(name),
                    format!("Invalid {name}: expected a base-10 integer, received {}.", as_sent(value)),
                )
            };
            let number = match value {
                Value::Number(n) => {
                    n.as_i64().or_else(|| n.as_f64().filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15).map(|f| f as i64))
                }
                Value::String(s) => parse_base10(s),
                _ => None,
            }
            .ok_or_else(bad)?;
            let minimum = property.minimum.unwrap_or(i64::MIN);
            let maximum = property.maximum.unwrap_or(i64::MAX);
            if number < minimum || number > maximum {
                return Err(ToolError::new(
                    integer_code(name),
                    format!(
                        "Invalid {name}: expected an integer between {minimum} and {maximum}, received {}.",
                        as_sent(value)
                    ),
                ));
            }
            Ok(Some(Value::from(number)))
        }
        Some("string") if !value.is_string() => Err(wrong_type()),
        Some("boolean") if !value.is_boolean() => Err(wrong_type()),
        Some("array") if !value.is_array() => Err(wrong_type()),
        Some("object") if !value.is_object() => Err(wrong_type()),
        _ => Ok(None),
    }
}

/// A value as the caller wrote it, as near as JSON lets us know: a whole number too big
/// for 64 bits arrives as a float and is shown in digits (`100000000000000000000`, not
/// `1e20`).
fn as_sent(value: &Value) -> String {
    match value.as_number().and_then(serde_json::Number::as_f64) {
        Some(f) if value.as_i64().is_none() && value.as_u64().is_none() && f.fract() == 0.0 && f.is_finite() => {
            format!("{f:.0}")
        }
        _ => value.to_string(),
    }
}

/// `^-?\d+$` (surrounding whitespace allowed), as an integer.
fn parse_base10(text: &str) -> Option<i64> {
    let t = text.trim();
    let digits = t.strip_prefix('-').unwrap_or(t);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    t.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, Deserialize, schemars::JsonSchema, PartialEq)]
    #[serde(rename_all = "camelCase")]
    struct Example {
        path: String,
        offset: Option<u32>,
        map: Option<bool>,
    }

    fn run(raw: Value) -> Result<Prepared<Example>, ToolError> {
        let schema = crate::schema::schema_of::<Example>();
        prepare("read", &ArgShape::of_schema(&schema), raw, |name| {
            if name == "offset" { ErrorCode::InvalidOffset } else { ErrorCode::InvalidType }
        })
    }

    #[test]
    fn numeric_strings_and_integral_floats_are_integers() {
        assert_eq!(run(json!({"path": "a", "offset": "2"})).expect("ok").args.offset, Some(2));
        assert_eq!(run(json!({"path": "a", "offset": 3.0})).expect("ok").args.offset, Some(3));
    }

    #[test]
    fn malformed_integers_name_the_parameter() {
        for bad in [json!("2x"), json!(1.5), json!(true), json!("")] {
            let err = run(json!({"path": "a", "offset": bad})).expect_err("bad");
            assert_eq!(err.code, ErrorCode::InvalidOffset);
            assert!(
                err.message.starts_with("Invalid offset: expected a base-10 integer, received "),
                "{}",
                err.message
            );
        }
        let negative = run(json!({"path": "a", "offset": -1})).expect_err("negative");
        assert_eq!(negative.code, ErrorCode::InvalidOffset);
    }

    #[test]
    fn numbers_past_the_range_are_echoed_as_sent() {
        let raw: Value = serde_json::from_str(r#"{"path": "a", "offset": 100000000000000000000}"#).expect("json");
        let err = run(raw).expect_err("huge");
        assert_eq!(err.message, "Invalid offset: expected a base-10 integer, received 100000000000000000000.");
        let err = run(json!({"path": "a", "offset": 5_000_000_000_u64})).expect_err("past u32");
        assert_eq!(err.message, "Invalid offset: expected an integer between 0 and 4294967295, received 5000000000.");
    }

    #[test]
    fn required_null_optional_null_and_the_string_null() {
        let err = run(json!({"path": null})).expect_err("null");
        assert_eq!(
            (err.code, err.message.as_str()),
            (ErrorCode::InvalidNull, "Invalid path: expected string, received null.")
        );
        let ok = run(json!({"path": "null", "offset": null, "map": null})).expect("ok");
        assert_eq!(ok.args, Example { path: "null".into(), offset: None, map: None });
    }

    #[test]
    fn wrong_types_missing_and_unknown_keys() {
        let err = run(json!({"path": 7})).expect_err("type");
        assert_eq!(
            (err.code, err.message.as_str()),
            (ErrorCode::InvalidType, "Invalid path: expected string, received number.")
        );
        assert_eq!(run(json!({})).expect_err("missing").code, ErrorCode::InvalidType);
        assert_eq!(run(json!([1])).expect_err("array").code, ErrorCode::InvalidType);
        let adjusted = run(json!({"path": "a", "colour": 1, "errorMode": "value"})).expect("ok");
        assert_eq!(adjusted.adjustments, vec!["ignored unknown key \"colour\"".to_owned()]);
    }

    #[test]
    fn error_mode() {
        assert_eq!(error_mode_is_value(&json!({})).ok(), Some(false));
        assert_eq!(error_mode_is_value(&json!({"errorMode": "value"})).ok(), Some(true));
        assert_eq!(error_mode_is_value(&json!({"errorMode": 3})).map_err(|e| e.code), Err(ErrorCode::InvalidType));
    }
}
