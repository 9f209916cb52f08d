//! The one-call-per-hunk modes with snapshot tags (issue 49): every `edit` call cites the
//! snapshot of the view its anchors were copied from, as a model following the tools' text
//! does. The simulated model keeps every view a result showed it — the first read, each
//! edit's fresh rows, each refusal's rows, any later read — each with the tag that result
//! named, and takes each anchor from the last view that showed its line. It never computes a
//! hash or a tag, and never cites a row with a tag other than the one shown with it.
//!
//! An edit needs one tag per file. When the last views that showed an edit's anchors are
//! different snapshots, the call is counted as *mixed* (the figure that decides per-file
//! against per-anchor tags, decision 016 "Open"), and the model cites the newest snapshot
//! one view of which showed every anchor (the first read shows them all until lines move);
//! when none did, it reads the missing lines from the file now (counted as a re-read).

use std::path::PathBuf;
use std::sync::Arc;

use hashline::core::Document;
use hashline::tools::snapshots::{MemorySnapshots, Snapshots};
use hashline::{Session, SessionConfig, ToolResult};
use serde_json::{Value, json};

use super::{Calls, Failure, Row, Workspace, describe, message_row, refusal};
use crate::replay::script::{self, OldLine, Step, Target};

/// Who makes the calls: one session (with its own store), or a fresh stateless session
/// per call sharing one store (a stateless principal that keeps its tags across calls:
/// the CLI's `--stateless` with its state directory, MCP 2026-07-28 without sessions).
enum Principal {
    Session(Box<Session>),
    Stateless { root: PathBuf, store: Arc<dyn Snapshots> },
}

impl Principal {
    fn call(&self, workspace: &Workspace<'_>, tool: &str, args: Value) -> Result<ToolResult, Failure> {
        match self {
            Principal::Session(session) => Ok(workspace.call(session, tool, args)),
            Principal::Stateless { root, store } => {
                let config = SessionConfig::builder()
                    .root(root.clone())
                    .stateful(false)
                    .parse_on_read(false)
                    .snapshots(store.clone())
                    .build();
                let session = Session::new(config)
                    .map_err(|err| Failure::Wrong(format!("cannot open a session: {}", err.message)))?;
                Ok(workspace.call(&session, tool, args))
            }
        }
    }
}

/// Rows one result showed, with the tag it named for them.
struct View {
    tag: String,
    /// The pre-image's line `L` is this view's line `L + offset` (from `from` on: the
    /// lines above are those the hunks already applied changed or passed).
    offset: i64,
    from: u32,
    rows: std::collections::BTreeMap<u32, String>,
}

impl View {
    /// The row this view showed for the pre-image's line `line`.
    fn row(&self, line: OldLine) -> Option<&String> {
        line.shifted(self.offset).filter(|&at| at >= self.from).and_then(|at| self.rows.get(&at))
    }
}

/// The anchors and tag of one edit call.
struct Cite {
    tag: String,
    anchors: Vec<String>,
    /// The last views that showed the anchors were different snapshots.
    mixed: bool,
}

/// Everything the results showed the model, oldest first.
#[derive(Default)]
struct Views(Vec<View>);

impl Views {
    /// Whether a view of the snapshot `tag` showed the pre-image's line `line`.
    fn shows(&self, tag: &str, line: OldLine) -> bool {
        self.0.iter().any(|v| v.tag == tag && v.row(line).is_some())
    }

    /// Picks the anchors of `lines` (pre-image lines): each from the last view that showed
    /// it; with several snapshots among those, the newest snapshot that showed them all.
    /// `Err` names the lines no single view showed with the others.
    /// With `newest`, the model cites the newest tag it was shown, each anchor from the last
    /// view that showed its line.
    fn cite(&self, lines: &[OldLine], newest: bool) -> Result<Cite, Vec<OldLine>> {
        let last = |line: OldLine| self.0.iter().rev().find(|v| v.row(line).is_some());
        let mut missing = Vec::new();
        let mut tags: Vec<&str> = Vec::new();
        for &line in lines {
            match last(line) {
                Some(view) if !tags.contains(&view.tag.as_str()) => tags.push(&view.tag),
                Some(_) => {}
                None => missing.push(line),
            }
        }
        if !missing.is_empty() {
            return Err(missing);
        }
        let mixed = tags.len() > 1;
        if newest && let Some(view) = self.0.last() {
            let anchors = lines.iter().filter_map(|&l| last(l).and_then(|v| v.row(l)).cloned()).collect();
            return Ok(Cite { tag: view.tag.clone(), anchors, mixed });
        }
        // The newest snapshot whose views showed every line.
        let by_tag = |tag: &str, line: OldLine| self.0.iter().rev().filter(|v| v.tag == tag).find_map(|v| v.row(line));
        for view in self.0.iter().rev() {
            let anchors: Option<Vec<String>> = lines.iter().map(|&l| by_tag(&view.tag, l).cloned()).collect();
            if let Some(anchors) = anchors {
                return Ok(Cite { tag: view.tag.clone(), anchors, mixed });
            }
        }
        // No snapshot showed them all: the lines the newest one lacks.
        let newest = &self.0[self.0.len() - 1].tag;
        Err(lines.iter().copied().filter(|&l| by_tag(newest, l).is_none()).collect())
    }
}

/// The tag a result names: the `snapshot: s…` line of its text, which its value must agree
/// with (`snapshot`, or a refusal's `details.snapshot`). `None` when the result names none.
fn named_tag(result: &ToolResult) -> Result<Option<String>, Failure> {
    let text = result.text();
    let said = text.lines().find_map(|l| l.strip_prefix("snapshot: ")).map(str::to_owned);
    let value = result.ptc_value();
    let valued = if result.is_error { &value["error"]["details"]["snapshot"] } else { &value["snapshot"] };
    let valued = valued.as_str().map(str::to_owned);
    if said != valued {
        return Err(Failure::Wrong(format!("the text names snapshot {said:?}, the value {valued:?}")));
    }
    Ok(said)
}

/// Whether the result says a cited tag could not be used.
fn fell_back(result: &ToolResult) -> bool {
    result.ptc_value()["warnings"].as_array().is_some_and(|w| w.iter().any(|w| w["code"] == "snapshot-fallback"))
}

impl Workspace<'_> {
    /// One `read` call through `principal`: its rows, where it continues, its tag.
    fn read_tagged(
        &self,
        principal: &Principal,
        offset: u32,
        limit: Option<u32>,
    ) -> Result<(Vec<Row>, Option<u32>, String), Failure> {
        let mut args = json!({"path": self.arg});
        if offset > 1 {
            args["offset"] = json!(offset);
        }
        if let Some(limit) = limit {
            args["limit"] = json!(limit);
        }
        let result = principal.call(self, "read", args)?;
        if result.is_error {
            return Err(Failure::Wrong(refusal("read", &result)));
        }
        let tag = named_tag(&result)?.ok_or_else(|| Failure::Wrong("a read named no snapshot".to_owned()))?;
        let value = result.ptc_value();
        let rows =
            value["lines"].as_array().map(|lines| lines.iter().filter_map(Row::of).collect()).unwrap_or_default();
        let next = value["continuation"]["nextOffset"].as_u64().and_then(|n| u32::try_from(n).ok());
        Ok((rows, next, tag))
    }

    /// Reads the whole file page by page: one view (every page names the same snapshot).
    fn read_all_tagged(&self, principal: &Principal, offset: i64, from: u32) -> Result<View, Failure> {
        let mut view: Option<View> = None;
        let mut at = 1;
        loop {
            let (rows, next, tag) = self.read_tagged(principal, at, None)?;
            let view = view.get_or_insert_with(|| View { tag: tag.clone(), offset, from, rows: Default::default() });
            if view.tag != tag {
                return Err(Failure::Wrong(format!("the pages of one read named {} and {tag}", view.tag)));
            }
            view.rows.extend(rows.into_iter().map(|r| (r.line, r.anchor)));
            match next {
                Some(next) if next > at => at = next,
                Some(next) => return Err(Failure::Wrong(format!("read continues at {next} after line {at}"))),
                None => break,
            }
        }
        view.ok_or_else(|| Failure::Wrong("no read".to_owned()))
    }

    /// Reads the pre-image's line `line` as the file is now (`at`: the shift of the hunks
    /// applied and the first line below them), a view of its own; counted as a re-read.
    #[allow(clippy::too_many_arguments)]
    fn read_line(
        &self,
        principal: &Principal,
        views: &mut Views,
        line: OldLine,
        (shift, below): (i64, u32),
        label: &str,
        calls: &mut Calls,
        notes: &mut Vec<String>,
    ) -> Result<(), Failure> {
        let at = line
            .shifted(shift)
            .ok_or_else(|| Failure::Wrong(format!("{label}: line {} shifted before line 1", line.0)))?;
        let (rows, _, tag) = self.read_tagged(principal, at, Some(1))?;
        calls.rereads += 1;
        notes.push(format!("read line {at}"));
        let rows = rows.into_iter().map(|r| (r.line, r.anchor)).collect();
        views.0.push(View { tag, offset: shift, from: below, rows });
        Ok(())
    }

    /// One `edit` call per hunk, top-down, every call citing a snapshot (see the module
    /// docs), through one session or (`stateful: false`) a fresh stateless session per call
    /// sharing one snapshot store. A call refused for a stale anchor is retried with the
    /// rows and tag of its refusal (the lines it did not show are read); a second refusal is
    /// followed by a whole-file read and one more retry. Returns the file's bytes after
    /// the last call.
    pub fn several_tagged(
        &self,
        pre: &[u8],
        steps: &[Step],
        stateful: bool,
        newest: bool,
        calls: &mut Calls,
    ) -> Result<Vec<u8>, Failure> {
        let principal = if stateful {
            Principal::Session(Box::new(self.reset(pre, true)?))
        } else {
            self.reset(pre, false)?;
            Principal::Stateless { root: self.root.clone(), store: Arc::new(MemorySnapshots::default()) }
        };
        let mut views = Views::default();
        views.0.push(self.read_all_tagged(&principal, 0, 1)?);
        let mut model: Vec<Vec<u8>> =
            script::contents(&Document::parse(pre.to_vec())).into_iter().map(<[u8]>::to_vec).collect();
        // How far the hunks applied moved the lines below them, and the first line (as the
        // file is now) below them.
        let (mut shift, mut below) = (0i64, 1u32);
        for (index, step) in steps.iter().enumerate() {
            let label = format!("hunk {} ({})", index + 1, describe(step));
            let lines = step.anchor_lines();
            let mut refused = 0;
            let mut notes = Vec::new();
            let mut reads = 0;
            let done = loop {
                let cite = match views.cite(&lines, newest) {
                    Ok(cite) => cite,
                    Err(missing) => {
                        reads += 1;
                        if reads > 2 {
                            return Err(Failure::Wrong(format!("{label}: reads showed no row for {missing:?}")));
                        }
                        // Rows no result showed (or none with the others): read them now.
                        for line in missing {
                            self.read_line(&principal, &mut views, line, (shift, below), &label, calls, &mut notes)?;
                        }
                        continue;
                    }
                };
                if cite.mixed {
                    calls.mixed += 1;
                    notes.push(format!("mixed views, cited {}", cite.tag));
                }
                let args = json!({
                    "path": self.arg,
                    "snapshot": cite.tag,
                    "edits": [step.item(&cite.anchors, true)],
                });
                let result = principal.call(self, "edit", args)?;
                if fell_back(&result) {
                    calls.fallbacks += 1;
                    notes.push(format!("snapshot {} fell back", cite.tag));
                }
                if !result.is_error {
                    break result;
                }
                let code = result.error_code().unwrap_or("?").to_owned();
                calls.refusals += 1;
                refused += 1;
                notes.push(format!("refused {code}"));
                // A model mixing views (`newest`) can give a range whose ends came from two
                // views in the wrong order (`invalid-anchor`): it reads the file and retries.
                let retried = matches!(code.as_str(), "hash-mismatch" | "line-out-of-range")
                    || (newest && code == "invalid-anchor");
                if !retried || refused > 2 {
                    calls.trace.push(format!("{label}: {}", notes.join(", ")));
                    return Err(Failure::Refused(refusal("edit", &result)));
                }
                match named_tag(&result)? {
                    Some(tag) if refused == 1 => {
                        // The refusal's rows, under the tag it names.
                        let mut rows: std::collections::BTreeMap<u32, String> =
                            result.text().lines().filter_map(message_row).collect();
                        let listed = &result.ptc_value()["error"]["details"]["updatedAnchors"];
                        rows.extend(
                            listed.as_array().into_iter().flatten().filter_map(Row::of).map(|r| (r.line, r.anchor)),
                        );
                        views.0.push(View { tag: tag.clone(), offset: shift, from: below, rows });
                        // The retry cites the file now: the lines the refusal did not show
                        // are read (the anchors shown before were refused).
                        let unshown: Vec<OldLine> = lines.iter().copied().filter(|&l| !views.shows(&tag, l)).collect();
                        for line in unshown {
                            self.read_line(&principal, &mut views, line, (shift, below), &label, calls, &mut notes)?;
                        }
                    }
                    _ => {
                        // A second refusal, or rows under no tag: read the whole file.
                        calls.rereads += 1;
                        notes.push("re-read".to_owned());
                        views.0.push(self.read_all_tagged(&principal, shift, below)?);
                    }
                }
                calls.retried += usize::from(refused == 1);
            };
            if relocated(&done) {
                calls.relocated += 1;
                notes.push("relocated".to_owned());
            }
            notes.push("ok".to_owned());
            calls.trace.push(format!("{label}: {}", notes.join(", ")));
            script::apply_model(&mut model, step, shift);
            shift += step.delta;
            let end = match step.target {
                Target::Lines { last, .. } => last,
                Target::After(line) => line,
            };
            below = OldLine(end.0 + 1).shifted(shift).unwrap_or(1);
            let tag =
                named_tag(&done)?.ok_or_else(|| Failure::Wrong(format!("{label}: the edit named no snapshot")))?;
            let value = done.ptc_value();
            let rows = value["anchors"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Row::of)
                .map(|r| (r.line, r.anchor))
                .collect();
            views.0.push(View { tag, offset: shift, from: below, rows });
            self.check_model(&model, &label)?;
        }
        self.bytes()
    }
}

/// Whether the tool re-aimed an anchor (it must not, for a cited one).
fn relocated(result: &ToolResult) -> bool {
    result.ptc_value()["warnings"].as_array().is_some_and(|w| w.iter().any(|w| w["code"] == "anchor-relocated"))
}

#[cfg(test)]
mod tests {
    use super::{OldLine, View, Views};

    fn view(tag: &str, offset: i64, from: u32, lines: std::ops::RangeInclusive<u32>) -> View {
        View { tag: tag.to_owned(), offset, from, rows: lines.map(|l| (l, format!("{l}:{tag}"))).collect() }
    }

    #[test]
    fn anchors_come_from_the_last_view_that_showed_them_and_one_snapshot_that_showed_all() {
        // The read (lines 1-20), then an edit that added a line above line 6 and showed 6-8.
        let views = Views(vec![view("s1", 0, 1, 1..=20), view("s2", 1, 6, 4..=8)]);
        let cite = |lines: &[u32]| views.cite(&lines.iter().map(|&l| OldLine(l)).collect::<Vec<_>>(), false);
        // Both last shown by the edit (lines 7 and 8 of its snapshot).
        let both = cite(&[6, 7]).unwrap();
        assert_eq!((both.tag.as_str(), both.mixed), ("s2", false));
        assert_eq!(both.anchors, ["7:s2", "8:s2"]);
        // Line 5 of the edit's snapshot is above the lines it moved: not the pre-image's 4.
        assert_eq!(cite(&[4]).unwrap().anchors, ["4:s1"]);
        // Mixed: 7 last shown by the edit, 12 only by the read, which showed both.
        let mixed = cite(&[7, 12]).unwrap();
        assert_eq!((mixed.tag.as_str(), mixed.mixed), ("s1", true));
        assert_eq!(mixed.anchors, ["7:s1", "12:s1"]);
        // Never shown.
        assert_eq!(cite(&[30]).err(), Some(vec![OldLine(30)]));
        // Shown, but by no one snapshot: the lines the newest lacks.
        let apart = Views(vec![view("s1", 0, 1, 1..=5), view("s2", 0, 1, 8..=9)]);
        assert_eq!(apart.cite(&[OldLine(4), OldLine(9)], false).err(), Some(vec![OldLine(4)]));
        assert!(apart.shows("s1", OldLine(4)) && !apart.shows("s2", OldLine(4)));
    }
}
