//! A result's JSON parts (`details.ptcValue` and `meta`, SPEC §4.1), kept typed until a
//! front end asks for them: the `--json` line writes a typed value straight to its bytes,
//! the MCP server, the session log and the tests get the JSON value (built once, on first
//! use). Either way the JSON is the same; a `ptcValue` is `{tool, ok, ...the value's
//! fields}`.

use std::fmt;
use std::ops::Deref;
use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

/// A typed value and its JSON projection.
trait Projection: Send + Sync {
    /// The projection as a JSON value.
    fn to_value(&self) -> Value;
    /// The projection's JSON text, appended to `out` (the bytes `serde_json::to_writer` of
    /// [`Projection::to_value`] would write).
    fn write_json(&self, out: &mut Vec<u8>);
}

/// A successful call's typed value, with the tool's name.
struct Success<V> {
    tool: String,
    value: V,
}

/// The projection written straight from the typed value: the value's own fields follow
/// `tool` and `ok`, as [`Projection::to_value`] orders them.
#[derive(Serialize)]
struct Wire<'a, V> {
    tool: &'a str,
    ok: bool,
    #[serde(flatten)]
    value: &'a V,
}

impl<V: Serialize + Send + Sync> Projection for Success<V> {
    fn to_value(&self) -> Value {
        let mut ptc = Map::new();
        ptc.insert("tool".into(), Value::from(self.tool.as_str()));
        ptc.insert("ok".into(), Value::Bool(true));
        if let Ok(Value::Object(fields)) = serde_json::to_value(&self.value) {
            ptc.extend(fields);
        }
        Value::Object(ptc)
    }

    fn write_json(&self, out: &mut Vec<u8>) {
        let start = out.len();
        let wire = Wire { tool: &self.tool, ok: true, value: &self.value };
        if serde_json::to_writer(&mut *out, &wire).is_err() {
            // A value that is not an object of fields: what `to_value` makes of it.
            out.truncate(start);
            write_value(out, &self.to_value());
        }
    }
}

/// A typed value projected as itself.
struct Plain<V>(V);

impl<V: Serialize + Send + Sync> Projection for Plain<V> {
    fn to_value(&self) -> Value {
        value_of(&self.0)
    }

    fn write_json(&self, out: &mut Vec<u8>) {
        write_typed(out, &self.0);
    }
}

/// A typed value's JSON value (`null` when it has none).
fn value_of<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// Appends a typed value's JSON text, the bytes `serde_json::to_writer` of [`value_of`] writes.
fn write_typed<T: Serialize>(out: &mut Vec<u8>, value: &T) {
    let start = out.len();
    if serde_json::to_writer(&mut *out, value).is_err() {
        out.truncate(start);
        write_value(out, &value_of(value));
    }
}

/// A JSON part made from a successful call's typed value when first asked for: a
/// presentation meta that repeats the value's lines is built only for a front end that
/// projects it (a session log, `--json`), not for every call.
struct Derived<V, M> {
    of: Arc<Success<V>>,
    make: fn(&V) -> M,
}

impl<V: Serialize + Send + Sync, M: Serialize> Projection for Derived<V, M> {
    fn to_value(&self) -> Value {
        value_of(&(self.make)(&self.of.value))
    }

    fn write_json(&self, out: &mut Vec<u8>) {
        write_typed(out, &(self.make)(&self.of.value));
    }
}

/// Appends a JSON value's text.
fn write_value(out: &mut Vec<u8>, value: &Value) {
    // Writing a `Value` into a `Vec` cannot fail.
    let _ = serde_json::to_writer(out, value);
}

/// A JSON part of a result: a typed value (a successful call's value or meta) or a JSON
/// value (a failure's, or one read back). Dereferences to the JSON value, built on first use.
#[derive(Clone, Default)]
pub struct LazyJson {
    typed: Option<Arc<dyn Projection>>,
    value: OnceLock<Value>,
}

impl LazyJson {
    /// The `ptcValue` of a successful call of `tool` with `value`: `{tool, ok: true, ...}`.
    pub fn success<V: Serialize + Send + Sync + 'static>(tool: &str, value: V) -> Self {
        Self { typed: Some(Arc::new(Success { tool: tool.to_owned(), value })), value: OnceLock::new() }
    }

    /// The `ptcValue` of a successful call of `tool` with `value`, and a JSON part `make`
    /// builds from the value when it is first projected (never, when nobody asks): both
    /// share the one value.
    pub fn success_and_derived<V, M>(tool: &str, value: V, make: fn(&V) -> M) -> (Self, Self)
    where
        V: Serialize + Send + Sync + 'static,
        M: Serialize + 'static,
    {
        let success = Arc::new(Success { tool: tool.to_owned(), value });
        let derived = Derived { of: Arc::clone(&success), make };
        (
            Self { typed: Some(success), value: OnceLock::new() },
            Self { typed: Some(Arc::new(derived)), value: OnceLock::new() },
        )
    }

    /// A typed value as itself (the value `serde_json::to_value` makes of it, `null` if none).
    pub fn typed<V: Serialize + Send + Sync + 'static>(value: V) -> Self {
        Self { typed: Some(Arc::new(Plain(value))), value: OnceLock::new() }
    }

    /// The JSON value.
    pub fn value(&self) -> &Value {
        self.value.get_or_init(|| self.typed.as_ref().map_or(Value::Null, |typed| typed.to_value()))
    }

    /// The JSON value, owned.
    pub fn into_value(self) -> Value {
        match (self.value.into_inner(), self.typed) {
            (Some(value), _) => value,
            (None, Some(typed)) => typed.to_value(),
            (None, None) => Value::Null,
        }
    }

    /// Whether this is a typed value (a successful call's `ptcValue` has no `error` field).
    pub fn is_typed(&self) -> bool {
        self.typed.is_some()
    }

    /// Appends the value's JSON text, the same bytes as `serde_json::to_writer` of
    /// [`LazyJson::value`], without building the JSON value of a typed one.
    pub fn write_json(&self, out: &mut Vec<u8>) {
        match (&self.typed, self.value.get()) {
            (Some(typed), _) => typed.write_json(out),
            (None, Some(value)) => write_value(out, value),
            (None, None) => out.extend_from_slice(b"null"),
        }
    }
}

impl From<Value> for LazyJson {
    fn from(value: Value) -> Self {
        Self { typed: None, value: OnceLock::from(value) }
    }
}

impl Deref for LazyJson {
    type Target = Value;

    fn deref(&self) -> &Value {
        self.value()
    }
}

impl fmt::Debug for LazyJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.value(), f)
    }
}

/// Equal when their JSON values are.
impl PartialEq for LazyJson {
    fn eq(&self, other: &Self) -> bool {
        self.value() == other.value()
    }
}

impl Serialize for LazyJson {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.value().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for LazyJson {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Value::deserialize(deserializer).map(Self::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Sample {
        path: String,
        lines: Vec<u32>,
        #[serde(skip_serializing_if = "Option::is_none")]
        note: Option<String>,
        text: String,
    }

    #[derive(Serialize)]
    #[serde(untagged)]
    enum Shapes {
        One(Box<Sample>),
        Many { files: Vec<Sample>, warnings: Vec<String> },
    }

    fn sample() -> Sample {
        Sample { path: "/a\"b".into(), lines: vec![1, 2], note: None, text: "tab\there \u{1}\u{feff}é".into() }
    }

    fn direct(ptc: &LazyJson) -> String {
        let mut out = Vec::new();
        ptc.write_json(&mut out);
        String::from_utf8(out).expect("utf-8")
    }

    #[test]
    fn the_direct_text_is_the_text_of_the_value() {
        let cases = [
            LazyJson::success("read", sample()),
            LazyJson::success("edit", Shapes::One(Box::new(sample()))),
            LazyJson::success("edit", Shapes::Many { files: vec![sample(), sample()], warnings: vec!["w".into()] }),
        ];
        for ptc in cases {
            let text = direct(&ptc);
            assert!(text.starts_with(r#"{"tool":"#), "{text}");
            assert_eq!(text, serde_json::to_string(ptc.value()).expect("json"));
            assert_eq!(ptc.value()["ok"], true);
        }
    }

    #[test]
    fn a_value_that_is_not_an_object_keeps_only_tool_and_ok() {
        let ptc = LazyJson::success("ls", vec![1, 2, 3]);
        assert_eq!(direct(&ptc), r#"{"tool":"ls","ok":true}"#);
        assert_eq!(*ptc, serde_json::json!({"tool": "ls", "ok": true}));
        let unit = LazyJson::success("ls", ());
        assert_eq!(direct(&unit), r#"{"tool":"ls","ok":true}"#);
    }

    #[test]
    fn a_json_value_round_trips_and_compares_by_value() {
        let value = serde_json::json!({"tool": "read", "ok": false, "error": {"code": "x"}});
        let ptc = LazyJson::from(value.clone());
        assert!(!ptc.is_typed());
        assert_eq!(direct(&ptc), value.to_string());
        let back: LazyJson = serde_json::from_str(&value.to_string()).expect("parses");
        assert_eq!(back, ptc);
        assert_eq!(
            LazyJson::success("read", sample()),
            LazyJson::from(LazyJson::success("read", sample()).into_value())
        );
        assert_eq!(direct(&LazyJson::default()), "null");
    }

    #[test]
    fn a_plain_typed_value_is_its_own_json() {
        let plain = LazyJson::typed(sample());
        assert_eq!(direct(&plain), serde_json::to_string(&sample()).expect("json"));
        assert_eq!(*plain, serde_json::to_value(sample()).expect("json"));
        assert_eq!(direct(&plain), serde_json::to_string(plain.value()).expect("json"));
    }

    #[test]
    fn a_derived_part_is_made_from_the_value_only_when_projected() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static MADE: AtomicUsize = AtomicUsize::new(0);
        fn paths(value: &Sample) -> Vec<String> {
            MADE.fetch_add(1, Ordering::SeqCst);
            value.lines.iter().map(|n| format!("{}:{n}", value.path)).collect()
        }
        let (ptc, meta) = LazyJson::success_and_derived("read", sample(), paths);
        assert_eq!(MADE.load(Ordering::SeqCst), 0, "nothing made before it is asked for");
        assert_eq!(
            direct(&ptc),
            serde_json::to_string(&LazyJson::success("read", sample()).into_value()).expect("json")
        );
        assert_eq!(MADE.load(Ordering::SeqCst), 0, "the value's own projection makes nothing");
        let expected = serde_json::json!(["/a\"b:1", "/a\"b:2"]);
        assert_eq!(direct(&meta), expected.to_string());
        assert_eq!(*meta, expected);
        assert_eq!(meta.clone().into_value(), expected);
        assert!(meta.is_typed());
    }
}
