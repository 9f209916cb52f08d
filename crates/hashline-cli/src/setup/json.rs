//! Changes to a host's JSON (or JSONC) config file, spliced into its text: comments, key
//! order, indentation and every other entry stay as they were, and taking a change back cuts
//! out exactly what the change put in (with any object or array it had to make, once empty),
//! so the file's bytes are as before it.

use anyhow::{Result, anyhow, bail};
use jsonc_parser::ast::{Array, Object, Value as Node};
use jsonc_parser::common::Ranged;
use jsonc_parser::{CollectOptions, ParseOptions, parse_to_ast};
use serde::Serialize;
use serde_json::Value;

/// One change to a JSON file.
#[derive(Debug, Clone)]
pub enum JsonChange {
    /// The member `key` of the object at `path` (objects made when missing) is `value`.
    Member { path: Vec<String>, key: String, value: Value },
    /// The array at `path` holds `value` (once). An item `same` recognises as an older one of
    /// ours is replaced by it.
    Item { path: Vec<String>, value: Value, same: fn(&Value) -> bool },
}

/// The file's text after `change` (`remove`: after taking it back). `None` means the file is
/// not needed any more: it held nothing but what the change added.
pub fn apply(text: Option<&str>, change: &JsonChange, remove: bool) -> Result<Option<String>> {
    let source = text.unwrap_or("");
    if source.trim().is_empty() {
        if remove {
            return Ok(text.map(str::to_owned));
        }
        // A new (or empty) file: written as the hosts write theirs, two spaces, a final newline.
        return Ok(Some(format!("{}\n", serde_json::to_string_pretty(&change.fresh_value())?)));
    }
    let mut out = source.to_owned();
    if remove {
        if !take_back(&mut out, change)? {
            return Ok(Some(out));
        }
        // A file setup made (its own layout, nothing else in it) goes; a `{}` the user
        // wrote stays.
        let made_here = serde_json::to_string_pretty(&parse_value(source)?).is_ok_and(|t| t + "\n" == source);
        if is_empty_object(&out) && made_here {
            return Ok(None);
        }
        return Ok(Some(out));
    }
    put(&mut out, change)?;
    Ok(Some(out))
}

/// A JSON or JSONC text's value (`Null` for an empty text).
pub fn parse_value(text: &str) -> Result<Value> {
    Ok(parse(text)?.map(Value::from).unwrap_or(Value::Null))
}

/// Whether `text` holds the change, or an older one of ours (`same`), whatever its value:
/// what `doctor` asks of an approval or a hook.
pub fn holds(text: &str, change: &JsonChange) -> bool {
    let Ok(mut here) = parse_value(text) else { return false };
    for name in change.path() {
        here = here[name].take();
    }
    match change {
        JsonChange::Member { key, .. } => here.get(key).is_some(),
        JsonChange::Item { value, same, .. } => {
            here.as_array().is_some_and(|items| items.iter().any(|item| item == value || same(item)))
        }
    }
}

fn parse(text: &str) -> Result<Option<Node<'_>>> {
    let parsed =
        parse_to_ast(text, &CollectOptions::default(), &ParseOptions::default()).map_err(|err| anyhow!("{err}"))?;
    Ok(parsed.value)
}

impl JsonChange {
    fn path(&self) -> &[String] {
        match self {
            JsonChange::Member { path, .. } | JsonChange::Item { path, .. } => path,
        }
    }

    /// What goes at `path[depth..]` when the path is missing from there on.
    fn nested_from(&self, depth: usize) -> Value {
        let mut inner = match self {
            JsonChange::Member { key, value, .. } => {
                Value::Object([(key.clone(), value.clone())].into_iter().collect())
            }
            JsonChange::Item { value, .. } => Value::Array(vec![value.clone()]),
        };
        for name in self.path()[depth..].iter().rev() {
            inner = Value::Object([(name.clone(), inner)].into_iter().collect());
        }
        inner
    }

    /// The whole file when it holds only this change.
    fn fresh_value(&self) -> Value {
        self.nested_from(0)
    }
}

fn is_empty_object(text: &str) -> bool {
    let trimmed: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    trimmed == "{}"
}

/// How the file lays itself out: its newline and one level of indentation.
struct Style {
    nl: &'static str,
    unit: String,
}

impl Style {
    fn of(text: &str, top: &Object<'_>) -> Style {
        let nl = if text.contains("\r\n") { "\r\n" } else { "\n" };
        let unit = top
            .properties
            .first()
            .and_then(|p| line_indent(text, p.range.start))
            .filter(|i| !i.is_empty())
            .map(|i| if i.starts_with('\t') { "\t".to_owned() } else { i.to_owned() })
            .unwrap_or_else(|| "  ".to_owned());
        Style { nl, unit }
    }

    /// `value` as JSON, its lines after the first indented by `indent`.
    fn render(&self, value: &Value, indent: &str) -> String {
        let mut buf = Vec::new();
        let mut ser = serde_json::Serializer::with_formatter(
            &mut buf,
            serde_json::ser::PrettyFormatter::with_indent(self.unit.as_bytes()),
        );
        // Serializing a Value to memory cannot fail.
        let _ = value.serialize(&mut ser);
        String::from_utf8_lossy(&buf).lines().collect::<Vec<_>>().join(&format!("{}{indent}", self.nl))
    }
}

/// The whitespace before `at` on its line, when only whitespace is there.
fn line_indent(text: &str, at: usize) -> Option<&str> {
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let prefix = &text[start..at];
    prefix.chars().all(|c| c == ' ' || c == '\t').then_some(prefix)
}

/// The object at `path` (its first `depth` names found).
fn object_at<'a>(top: &'a Object<'a>, path: &[String]) -> Result<(usize, &'a Object<'a>)> {
    let mut here = top;
    for (depth, name) in path.iter().enumerate() {
        match here.properties.iter().find(|p| p.name.as_str() == name) {
            Some(prop) => match &prop.value {
                Node::Object(object) => here = object,
                _ => bail!("`{name}` is not a JSON object"),
            },
            None => return Ok((depth, here)),
        }
    }
    Ok((path.len(), here))
}

fn top_object<'a>(root: &'a Option<Node<'a>>) -> Result<&'a Object<'a>> {
    match root {
        Some(Node::Object(top)) => Ok(top),
        _ => bail!("its top level is not a JSON object"),
    }
}

/// Puts the change into `text`.
fn put(text: &mut String, change: &JsonChange) -> Result<()> {
    let root = parse(text)?;
    let top = top_object(&root)?;
    let style = Style::of(text, top);
    let (parents, last) = match change {
        JsonChange::Member { path, .. } => (path.as_slice(), None),
        JsonChange::Item { path, .. } => {
            let (last, parents) = path.split_last().ok_or_else(|| anyhow!("no array named"))?;
            (parents, Some(last))
        }
    };
    let (found, object) = object_at(top, parents)?;
    let splice = if found < parents.len() {
        // The path ends early: the rest of it goes in as one new member.
        insert_member(text, object, &parents[found], &change.nested_from(found + 1), &style)
    } else {
        match (change, last) {
            (JsonChange::Member { key, value, .. }, _) => {
                match object.properties.iter().find(|p| p.name.as_str() == key) {
                    Some(prop) if Value::from(prop.value.clone()) == *value => return Ok(()),
                    Some(prop) => {
                        let indent = line_indent(text, prop.range.start).unwrap_or("");
                        let range = prop.value.range();
                        (range.start, range.end, style.render(value, indent))
                    }
                    None => insert_member(text, object, key, value, &style),
                }
            }
            (JsonChange::Item { value, same, .. }, Some(name)) => {
                match object.properties.iter().find(|p| p.name.as_str() == name) {
                    None => insert_member(text, object, name, &Value::Array(vec![value.clone()]), &style),
                    Some(prop) => {
                        let Node::Array(array) = &prop.value else { bail!("`{name}` is not a JSON array") };
                        let items: Vec<Value> = array.elements.iter().map(|e| Value::from(e.clone())).collect();
                        if items.contains(value) {
                            return Ok(());
                        }
                        match items.iter().position(same) {
                            Some(i) => {
                                let range = array.elements[i].range();
                                let indent = line_indent(text, range.start).unwrap_or("");
                                (range.start, range.end, style.render(value, indent))
                            }
                            None => insert_item(text, array, value, &style),
                        }
                    }
                }
            }
            (JsonChange::Item { .. }, None) => bail!("no array named"),
        }
    };
    let (start, end, with) = splice;
    text.replace_range(start..end, &with);
    Ok(())
}

/// The splice that adds `"key": value` as `object`'s last member.
fn insert_member(text: &str, object: &Object<'_>, key: &str, value: &Value, style: &Style) -> (usize, usize, String) {
    let name = quoted(key);
    match object.properties.last() {
        Some(last) => {
            let end = last.value.range().end;
            match line_indent(text, last.range.start) {
                Some(indent) => (end, end, format!(",{}{indent}{name}: {}", style.nl, style.render(value, indent))),
                None => (end, end, format!(", {name}: {}", compact(value))),
            }
        }
        None => open_container(object.range.start, object.range.end, &format!("{name}: "), value),
    }
}

/// The splice that adds `value` as `array`'s last item.
fn insert_item(text: &str, array: &Array<'_>, value: &Value, style: &Style) -> (usize, usize, String) {
    match array.elements.last() {
        Some(last) => {
            let range = last.range();
            match line_indent(text, range.start) {
                Some(indent) => (range.end, range.end, format!(",{}{indent}{}", style.nl, style.render(value, indent))),
                None => (range.end, range.end, format!(", {}", compact(value))),
            }
        }
        None => open_container(array.range.start, array.range.end, "", value),
    }
}

/// The splice that fills an empty object or array (`{}`, `[]`) that was there with its first
/// entry, on the container's line (`"key": ` with a space after the colon even in a compact
/// file): taking it back then leaves the container, where one `setup` made goes with it.
fn open_container(start: usize, end: usize, prefix: &str, value: &Value) -> (usize, usize, String) {
    (start + 1, end - 1, format!("{prefix}{}", compact(value)))
}

/// Whether the sole member `name` at `entry` of the object opening at `open` was put into an
/// object that was there before: `open_container`'s form, on the object's line with a space
/// after the colon (the compact form setup writes for what it makes has none).
fn container_was_there(text: &str, open: usize, entry: usize, name: &str) -> bool {
    !text[open..entry].contains('\n') && text[entry..].starts_with(&format!("{}: ", quoted(name)))
}

fn quoted(name: &str) -> String {
    serde_json::to_string(name).unwrap_or_default()
}

fn compact(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// Takes the change back out of `text`; `false` when it was not there.
fn take_back(text: &mut String, change: &JsonChange) -> Result<bool> {
    let path = change.path();
    let (cut, kept) = {
        let root = parse(text)?;
        let top = top_object(&root)?;
        let (parents, last) = match change {
            JsonChange::Member { path, key, .. } => (path.as_slice(), key),
            JsonChange::Item { path, .. } => {
                let (last, parents) = path.split_last().ok_or_else(|| anyhow!("no array named"))?;
                (parents, last)
            }
        };
        let (found, object) = object_at(top, parents)?;
        if found < parents.len() {
            return Ok(false);
        }
        let Some(index) = object.properties.iter().position(|p| p.name.as_str() == last) else { return Ok(false) };
        let sole = object.properties.len() == 1;
        match change {
            JsonChange::Member { .. } => {
                let prop = &object.properties[index];
                (
                    member_cut(object, index),
                    sole && container_was_there(text, object.range.start, prop.range.start, last),
                )
            }
            JsonChange::Item { value, same, .. } => {
                let Node::Array(array) = &object.properties[index].value else { return Ok(false) };
                let Some(i) = array.elements.iter().position(|e| {
                    let v = Value::from(e.clone());
                    &v == value || same(&v)
                }) else {
                    return Ok(false);
                };
                if array.elements.len() > 1 {
                    (item_cut(array, i), true)
                } else {
                    // The array goes with its last item when setup made it.
                    let prop = &object.properties[index];
                    (
                        member_cut(object, index),
                        sole && container_was_there(text, object.range.start, prop.range.start, last),
                    )
                }
            }
        }
    };
    text.replace_range(cut, "");
    if kept {
        return Ok(true);
    }
    // Objects of the path left empty go too, innermost first, up to one that was there.
    for depth in (1..=path.len().min(path.len() - matches!(change, JsonChange::Item { .. }) as usize)).rev() {
        let cut = {
            let root = parse(text)?;
            let top = top_object(&root)?;
            let (found, object) = object_at(top, &path[..depth])?;
            if found < depth
                || !object.properties.is_empty()
                || !text[object.range.start + 1..object.range.end - 1].trim().is_empty()
            {
                break;
            }
            let (_, parent) = object_at(top, &path[..depth - 1])?;
            let Some(index) = parent.properties.iter().position(|p| p.name.as_str() == path[depth - 1]) else { break };
            let prop = &parent.properties[index];
            let was_there = parent.properties.len() == 1
                && container_was_there(text, parent.range.start, prop.range.start, &path[depth - 1]);
            (member_cut(parent, index), was_there)
        };
        text.replace_range(cut.0, "");
        if cut.1 {
            break;
        }
    }
    Ok(true)
}

/// The text that goes with `object`'s member `index`: from the end of the one before (its
/// comma and the line break setup wrote), else up to the next one, else the object's inside.
fn member_cut(object: &Object<'_>, index: usize) -> std::ops::Range<usize> {
    let props = &object.properties;
    if index > 0 {
        props[index - 1].value.range().end..props[index].value.range().end
    } else if props.len() > 1 {
        props[0].range.start..props[1].range.start
    } else {
        object.range.start + 1..object.range.end - 1
    }
}

/// The same for an array's item.
fn item_cut(array: &Array<'_>, index: usize) -> std::ops::Range<usize> {
    let items = &array.elements;
    if index > 0 {
        items[index - 1].range().end..items[index].range().end
    } else if items.len() > 1 {
        items[0].range().start..items[1].range().start
    } else {
        array.range.start + 1..array.range.end - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn member() -> JsonChange {
        JsonChange::Member {
            path: vec!["mcpServers".into()],
            key: "hashline".into(),
            value: json!({"command": "hashline", "args": ["mcp"]}),
        }
    }

    fn round_trip(before: &str, change: &JsonChange) -> String {
        let added = apply(Some(before), change, false).unwrap().unwrap();
        let again = apply(Some(&added), change, false).unwrap().unwrap();
        assert_eq!(again, added, "a second run changes nothing");
        let back = apply(Some(&added), change, true).unwrap();
        assert_eq!(back.as_deref(), Some(before), "taken back to the same bytes, from:\n{added}");
        added
    }

    #[test]
    fn a_server_joins_the_others_and_leaves_them_as_they_were() {
        let before = "{\n  // mine\n  \"mcpServers\": {\n    \"other\": { \"command\": \"x\" }\n  },\n  \"theme\": \"dark\"\n}\n";
        let added = round_trip(before, &member());
        assert!(added.contains("// mine") && added.contains("\"other\": { \"command\": \"x\" }"), "{added}");
        let value: Value = parse_value(&added).unwrap();
        assert_eq!(value["mcpServers"]["hashline"]["args"], json!(["mcp"]));
    }

    #[test]
    fn an_object_it_had_to_make_goes_when_taken_back() {
        for before in ["{\n  \"theme\": \"dark\"\n}\n", "{\"theme\":\"dark\"}", "{\n\t\"a\": 1\n}"] {
            round_trip(before, &member());
        }
    }

    #[test]
    fn a_file_of_its_own_is_not_needed_after_it() {
        let made = apply(None, &member(), false).unwrap().unwrap();
        assert_eq!(apply(Some(&made), &member(), true).unwrap(), None);
        // An empty object the user wrote stays.
        assert_eq!(apply(Some("{}\n"), &member(), true).unwrap().as_deref(), Some("{}\n"));
        round_trip("{}\n", &member());
        round_trip("{\n  \"mcpServers\": {},\n  \"hooks\": {}\n}\n", &member());
    }

    #[test]
    fn an_array_item_is_added_once_and_taken_back() {
        let change =
            JsonChange::Item { path: vec!["enabledMcpjsonServers".into()], value: json!("hashline"), same: |_| false };
        round_trip("{\n  \"enabledMcpjsonServers\": [\"other\"]\n}\n", &change);
        round_trip("{\n  \"permissions\": {}\n}\n", &change);
    }

    #[test]
    fn every_layout_comes_back_byte_for_byte() {
        for before in [
            "{\r\n  \"mcpServers\": {\r\n    \"a\": {}\r\n  }\r\n}\r\n",
            "{\n\t\"mcpServers\": {\n\t\t\"a\": {\"command\": \"x\"},\n\t},\n}",
            "// comment first\n{ /* inline */ \"mcpServers\": { \"a\": 1 } }\n",
            "{\n  \"mcpServers\": {}\n}\n",
            "{\"projects\":{},\"mcpServers\":{\"a\":{\"command\":\"x\"}}}",
        ] {
            round_trip(before, &member());
        }
    }

    #[test]
    fn an_older_item_of_ours_is_replaced_and_taken_back() {
        let change = JsonChange::Item {
            path: vec!["hooks".into(), "PreToolUse".into()],
            value: json!({"matcher": "Edit", "hooks": [{"command": "/new/hashline hook claude-code"}]}),
            same: |v| v["hooks"][0]["command"].as_str().is_some_and(|c| c.ends_with(" hook claude-code")),
        };
        let before = "{\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\"matcher\": \"Bash\"},\n      {\"matcher\": \"Edit\", \"hooks\": [{\"command\": \"/old/hashline hook claude-code\"}]}\n    ]\n  }\n}\n";
        let added = apply(Some(before), &change, false).unwrap().unwrap();
        assert!(
            added.contains("/new/hashline") && !added.contains("/old/hashline") && added.contains("Bash"),
            "{added}"
        );
        let back = apply(Some(&added), &change, true).unwrap().unwrap();
        assert_eq!(parse_value(&back).unwrap(), json!({"hooks": {"PreToolUse": [{"matcher": "Bash"}]}}));
        round_trip("{\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\"matcher\": \"Bash\"}\n    ]\n  }\n}\n", &change);
        round_trip("{\n  \"model\": \"x\"\n}\n", &change);
    }

    #[test]
    fn what_is_not_an_object_is_refused() {
        assert!(apply(Some("[]"), &member(), false).is_err());
        assert!(apply(Some("{\"mcpServers\": 3}"), &member(), false).is_err());
        assert!(apply(Some("{\"mcpServers\": "), &member(), false).is_err());
    }
}
