//! Driving the tools on a scratch copy of one file: read it through `read` (paging until
//! every line was shown), then apply a script of anchored edits through `edit` — all in
//! one call, or one call per hunk with the anchors of the first read, in a session or
//! statelessly. Every anchor sent is one a tool showed; nothing here computes a hash.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use hashline::core::Document;
use hashline::{CallContext, Session, SessionConfig, ToolResult, Toolbox};
use serde_json::{Value, json};

use super::script::{self, OldLine, Step, Target};

mod tagged;

/// A scratch copy of one file.
pub struct Workspace<'a> {
    toolbox: &'a Toolbox,
    root: PathBuf,
    file: PathBuf,
    /// The path as the tools are given it.
    arg: String,
}

/// Why a mode did not reproduce the post-image.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The tool refused a call (fail-closed: nothing wrong was written).
    Refused(String),
    /// The file came out wrong (or the harness could not run).
    Wrong(String),
}

/// What the one-call-per-hunk mode saw.
#[derive(Debug, Default)]
pub struct Calls {
    /// Calls whose stale anchors the tool re-aimed (exact-hash relocation).
    pub relocated: usize,
    /// Calls refused for stale anchors, then retried with fresh rows.
    pub retried: usize,
    /// Edit calls refused, retries included (each one round trip more than the hunks).
    pub refusals: usize,
    /// Whole-file re-reads after a retry refused as ambiguous (as a careful model does:
    /// the refusal's rows cannot settle a name two lines answer to; a read does). With
    /// snapshot tags: every read after the first, of the whole file or of one line.
    pub rereads: usize,
    /// With snapshot tags: edit calls whose anchors the model last saw in views of
    /// different snapshots (decision 016, "Open": per-file or per-anchor tags).
    pub mixed: usize,
    /// With snapshot tags: calls whose tag the store did not hold (`snapshot-fallback`).
    pub fallbacks: usize,
    /// One line per call, for mismatch reports.
    pub trace: Vec<String>,
}

impl<'a> Workspace<'a> {
    /// Creates `root` and the file `name` below it (a relative path).
    pub fn create(toolbox: &'a Toolbox, root: &Path, name: &str) -> Result<Self> {
        let file = root.join(name);
        let parent = file.parent().unwrap_or(root);
        std::fs::create_dir_all(parent).with_context(|| format!("cannot create {}", parent.display()))?;
        Ok(Self { toolbox, root: root.to_path_buf(), file, arg: format!("./{name}") })
    }

    /// Puts `bytes` in the file and opens a fresh session (or a stateless one, like a
    /// CLI call with `--stateless`) on the workspace.
    fn reset(&self, bytes: &[u8], stateful: bool) -> Result<Session, Failure> {
        std::fs::write(&self.file, bytes)
            .map_err(|err| Failure::Wrong(format!("cannot write {}: {err}", self.file.display())))?;
        let config = SessionConfig::builder().root(self.root.clone()).stateful(stateful).build();
        Session::new(config).map_err(|err| Failure::Wrong(format!("cannot open a session: {}", err.message)))
    }

    /// The file's bytes now.
    fn bytes(&self) -> Result<Vec<u8>, Failure> {
        std::fs::read(&self.file)
            .map_err(|err| Failure::Wrong(format!("cannot read back {}: {err}", self.file.display())))
    }

    fn call(&self, session: &Session, tool: &str, args: Value) -> ToolResult {
        self.toolbox.execute(session, tool, args, &CallContext::top_level())
    }

    fn edit(&self, session: &Session, items: Vec<Value>) -> ToolResult {
        self.call(session, "edit", json!({"path": self.arg, "edits": items}))
    }

    /// The rows one `read` call showed.
    fn read(&self, session: &Session, offset: u32, limit: Option<u32>) -> Result<(Vec<Row>, Option<u32>), Failure> {
        let mut args = json!({"path": self.arg});
        if offset > 1 {
            args["offset"] = json!(offset);
        }
        if let Some(limit) = limit {
            args["limit"] = json!(limit);
        }
        let result = self.call(session, "read", args);
        if result.is_error {
            return Err(Failure::Wrong(refusal("read", &result)));
        }
        let value = result.ptc_value();
        let rows =
            value["lines"].as_array().map(|lines| lines.iter().filter_map(Row::of).collect()).unwrap_or_default();
        let next = value["continuation"]["nextOffset"].as_u64().and_then(|n| u32::try_from(n).ok());
        Ok((rows, next))
    }

    /// Reads the whole file, page by page: the anchor of every line, by line.
    fn read_all(&self, session: &Session) -> Result<Vec<String>, Failure> {
        let mut anchors = Vec::new();
        let mut offset = 1;
        loop {
            let (rows, next) = self.read(session, offset, None)?;
            for row in rows {
                if row.line as usize != anchors.len() + 1 {
                    let due = anchors.len() + 1;
                    return Err(Failure::Wrong(format!("read showed line {} where line {due} was due", row.line)));
                }
                anchors.push(row.anchor);
            }
            match next {
                Some(next) if next as usize == anchors.len() + 1 => offset = next,
                Some(next) => {
                    return Err(Failure::Wrong(format!("read continues at {next} after {} lines", anchors.len())));
                }
                None => return Ok(anchors),
            }
        }
    }

    /// The whole script in one `edit` call, in a session (`literal` or not). Returns the
    /// file's bytes after it.
    pub fn batch(&self, pre: &[u8], steps: &[Step], literal: bool) -> Result<Vec<u8>, Failure> {
        let session = self.reset(pre, true)?;
        let shown = self.read_all(&session)?;
        let items = steps
            .iter()
            .map(|step| Ok(step.item(&original(&shown, step, 0)?, literal)))
            .collect::<Result<_, Failure>>()?;
        let result = self.edit(&session, items);
        if result.is_error {
            return Err(Failure::Refused(refusal("edit", &result)));
        }
        self.bytes()
    }

    /// One `edit` call per hunk, top-down, in a session or (`stateful: false`) without
    /// one, each first tried with the anchors of the last whole read (stale by the shift
    /// of the hunks above). A refusal for stale anchors is retried with rows the tools
    /// returned since, at the lines the shift predicts. A retry refused as ambiguous is
    /// followed by a read of the whole file and one more retry with its rows; the hunks
    /// after it then take their anchors from that read. Returns the file's bytes after
    /// the last call.
    pub fn several(&self, pre: &[u8], steps: &[Step], stateful: bool, calls: &mut Calls) -> Result<Vec<u8>, Failure> {
        let session = self.reset(pre, stateful)?;
        let mut shown = self.read_all(&session)?;
        // Where the pre-image's lines are in `shown`: `shown` was read after the hunks
        // above had moved them by `base`.
        let mut base = 0i64;
        // Rows known to hold for the file as it is now, by line.
        let mut current: BTreeMap<u32, String> = (1..).zip(shown.iter().cloned()).collect();
        // What the file's lines should be after each call, to name the call that erred.
        let mut model: Vec<Vec<u8>> =
            script::contents(&Document::parse(pre.to_vec())).into_iter().map(<[u8]>::to_vec).collect();
        let mut shift = 0i64;
        for (index, step) in steps.iter().enumerate() {
            let label = format!("hunk {} ({})", index + 1, describe(step));
            let first = self.edit(&session, vec![step.item(&original(&shown, step, base)?, true)]);
            let done = if !first.is_error {
                let at = step.anchor_lines().first().map_or(0, |l| i64::from(l.0) + base);
                let meant = at - base + shift;
                if let Some(notes) = relocations(&first) {
                    calls.relocated += 1;
                    calls.trace.push(format!("{label}: ok, relocated ({notes} The line meant is {meant}.)"));
                } else if shift != base {
                    calls.trace.push(format!(
                        "{label}: applied at stale line {at} without relocation (the line meant is {meant})"
                    ));
                } else {
                    calls.trace.push(format!("{label}: ok"));
                }
                first
            } else {
                let code = first.error_code().unwrap_or("?").to_owned();
                if !matches!(code.as_str(), "hash-mismatch" | "line-out-of-range") {
                    calls.trace.push(format!("{label}: refused {code}"));
                    return Err(Failure::Refused(refusal("edit", &first)));
                }
                calls.refusals += 1;
                calls.retried += 1;
                learn(&mut current, &first);
                let fresh = self.fresh_rows(&session, &mut current, step, shift, &label)?;
                let retry = self.edit(&session, vec![step.item(&fresh, true)]);
                if !retry.is_error {
                    calls.trace.push(format!("{label}: refused {code}, retried ok"));
                    retry
                } else if is_ambiguous(&retry) {
                    // The refusal's rows cannot settle a name two lines answer to: read the
                    // file again (the later hunks take their anchors from this read too).
                    calls.refusals += 1;
                    calls.rereads += 1;
                    shown = self.read_all(&session)?;
                    base = shift;
                    current = (1..).zip(shown.iter().cloned()).collect();
                    let fresh = self.fresh_rows(&session, &mut current, step, shift, &label)?;
                    let again = self.edit(&session, vec![step.item(&fresh, true)]);
                    if again.is_error {
                        calls.refusals += 1;
                        calls.trace.push(format!("{label}: refused {code}, retry ambiguous, re-read, refused again"));
                        return Err(Failure::Refused(refusal("edit (after a re-read)", &again)));
                    }
                    calls.trace.push(format!("{label}: refused {code}, retry ambiguous, re-read, retried ok"));
                    again
                } else {
                    calls.refusals += 1;
                    calls.trace.push(format!("{label}: refused {code}, retry refused too"));
                    return Err(Failure::Refused(refusal("edit (retry)", &retry)));
                }
            };
            // Rows at and below the change moved or went; the result's rows are fresh.
            let touched = step.first_touched().shifted(shift).unwrap_or(1);
            let landed = done.ptc_value()["firstChangedLine"].as_u64().and_then(|l| u32::try_from(l).ok());
            current.split_off(&landed.map_or(touched, |l| l.min(touched)));
            learn(&mut current, &done);
            script::apply_model(&mut model, step, shift);
            shift += step.delta;
            self.check_model(&model, &label)?;
        }
        self.bytes()
    }

    /// Fails when the file's lines are not `model`'s, the lines the calls up to `label`
    /// should have left.
    fn check_model(&self, model: &[Vec<u8>], label: &str) -> Result<(), Failure> {
        let now = Document::parse(self.bytes()?);
        let lines = script::contents(&now);
        let Some(at) =
            (0..lines.len().max(model.len())).find(|&i| lines.get(i).copied() != model.get(i).map(Vec::as_slice))
        else {
            return Ok(());
        };
        let show =
            |line: Option<&[u8]>| line.map_or("<no line>".to_owned(), |l| format!("{:?}", String::from_utf8_lossy(l)));
        Err(Failure::Wrong(format!(
            "{label} left the file wrong at line {}: meant {}, got {}",
            at + 1,
            show(model.get(at).map(Vec::as_slice)),
            show(lines.get(at).copied())
        )))
    }

    /// The rows known to hold now at the lines `step` names (its old lines moved by
    /// `shift`), reading a line that no tool has shown since it changed.
    fn fresh_rows(
        &self,
        session: &Session,
        current: &mut BTreeMap<u32, String>,
        step: &Step,
        shift: i64,
        label: &str,
    ) -> Result<Vec<String>, Failure> {
        let mut fresh = Vec::new();
        for line in step.anchor_lines() {
            let line = line.shifted(shift).ok_or_else(|| Failure::Wrong(format!("{label}: shifted before line 1")))?;
            if !current.contains_key(&line) {
                let (rows, _) = self.read(session, line, Some(1))?;
                current.extend(rows.into_iter().map(|r| (r.line, r.anchor)));
            }
            let row = current.get(&line).cloned();
            fresh.push(row.ok_or_else(|| Failure::Wrong(format!("{label}: no row for line {line}")))?);
        }
        Ok(fresh)
    }
}

/// Whether a refusal is for an ambiguous anchor (two lines answer to it).
fn is_ambiguous(result: &ToolResult) -> bool {
    result.error_code() == Some("hash-mismatch") && result.text().contains(" is ambiguous: ")
}

/// One anchored row a tool showed.
struct Row {
    line: u32,
    anchor: String,
}

impl Row {
    fn of(value: &Value) -> Option<Self> {
        let line = u32::try_from(value["line"].as_u64()?).ok()?;
        Some(Self { line, anchor: value["anchor"].as_str()?.to_owned() })
    }
}

/// The anchors a read showed for a step's lines, the read having been taken when the
/// pre-image's lines there had moved by `base`.
fn original(shown: &[String], step: &Step, base: i64) -> Result<Vec<String>, Failure> {
    step.anchor_lines()
        .into_iter()
        .map(|old| {
            let OldLine(line) = old;
            old.shifted(base)
                .and_then(|at| shown.get(at as usize - 1))
                .cloned()
                .ok_or_else(|| Failure::Wrong(format!("read never showed line {line} (moved by {base})")))
        })
        .collect()
}

/// Records the rows a result carries: an edit's fresh `anchors`, a refusal's
/// `updatedAnchors` and the `LINE:HASH|` rows of its message.
fn learn(current: &mut BTreeMap<u32, String>, result: &ToolResult) {
    let value = result.ptc_value();
    let listed = [&value["anchors"], &value["error"]["details"]["updatedAnchors"]];
    for row in listed.into_iter().filter_map(Value::as_array).flatten().filter_map(Row::of) {
        current.insert(row.line, row.anchor);
    }
    if result.is_error {
        current.extend(result.text().lines().filter_map(message_row));
    }
}

/// `>>> 12:abc|text` or `    12:abc|text` → `(12, "12:abc")`.
fn message_row(line: &str) -> Option<(u32, String)> {
    let row = line.strip_prefix(">>> ").or_else(|| line.strip_prefix("    "))?;
    let (number, rest) = row.split_once(':')?;
    let hash = rest.get(..3).filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))?;
    if rest.as_bytes().get(3) != Some(&b'|') || !number.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((number.parse().ok()?, format!("{number}:{hash}")))
}

/// The relocation notes of a result, when the tool re-aimed an anchor.
fn relocations(result: &ToolResult) -> Option<String> {
    let notes: Vec<&str> = result.ptc_value()["warnings"]
        .as_array()?
        .iter()
        .filter(|w| w["code"] == "anchor-relocated")
        .filter_map(|w| w["message"].as_str())
        .collect();
    (!notes.is_empty()).then(|| notes.join(" "))
}

fn describe(step: &Step) -> String {
    match step.target {
        Target::Lines { first, last } if first == last => format!("line {}", first.0),
        Target::Lines { first, last } => format!("lines {}-{}", first.0, last.0),
        Target::After(line) => format!("after line {}", line.0),
    }
}

/// A refused call, for a report: the code and the first line of the message.
fn refusal(call: &str, result: &ToolResult) -> String {
    let text = result.text();
    format!("{call} refused: {}: {}", result.error_code().unwrap_or("?"), text.lines().next().unwrap_or(""))
}

#[cfg(test)]
mod tests {
    use super::message_row;

    #[test]
    fn message_rows_parse_marked_and_context_rows_only() {
        assert_eq!(message_row(">>> 12:abc|x: y"), Some((12, "12:abc".to_owned())));
        assert_eq!(message_row("    3:d05|"), Some((3, "3:d05".to_owned())));
        assert_eq!(message_row("    ..."), None);
        assert_eq!(message_row("12:abc|not a marked row"), None);
        assert_eq!(message_row(">>> 1:ab|short hash"), None);
    }
}
