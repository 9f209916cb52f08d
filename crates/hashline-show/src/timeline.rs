//! The timeline of a session: every call of a log with its result, nested calls under their
//! parent, and the views the presenters give them.

use hashline_tools::log::{LogDamage, LogEvent, LoggedResult, ReadLog, read_log};
use hashline_view::{ToolCallView, ToolResultRecord, ToolResultView, present_call, present_result};
use serde_json::Value;

use crate::ShowError;

/// The notice a top-level result carries when a nested call changed a file it had read.
const STALE_NOTICE: &str = "[Stale read context:";

/// A session log read into calls, in the order they started.
#[derive(Debug, Clone, Default)]
pub struct Timeline {
    /// The session's working directory, from the log's header (absent when it has none).
    pub root: Option<String>,
    /// The top-level calls (and calls whose parent is not in the log), each with its nested
    /// calls under it.
    pub calls: Vec<CallEntry>,
    /// Results whose call is not in the log, in log order.
    pub orphans: Vec<OrphanResult>,
    /// Lines that are JSON but no event this version knows.
    pub unknown_events: usize,
    /// Where the log was damaged, if it was; reading stopped there.
    pub damage: Option<LogDamage>,
}

/// One call, its result (if it returned) and the calls made inside it.
#[derive(Debug, Clone)]
pub struct CallEntry {
    /// The 1-based position of the call among all calls of the log (nested ones included).
    pub index: usize,
    /// The call's id.
    pub call_id: String,
    /// The tool's name.
    pub tool: String,
    /// The arguments, as logged.
    pub args: Value,
    /// The id of the call this one ran inside, for a nested call.
    pub parent: Option<String>,
    /// The pending view from [`present_call`].
    pub call_view: Option<ToolCallView>,
    /// What came back, or `None` while the call never returned.
    pub result: Option<CallResult>,
    /// The calls made inside this one, in the order they started.
    pub children: Vec<CallEntry>,
}

/// A call's result as the log kept it, and its view.
#[derive(Debug, Clone)]
pub struct CallResult {
    /// What presenters receive: content, error flag, meta.
    pub record: ToolResultRecord,
    /// The error code of a failure.
    pub error_code: Option<String>,
    /// The completed view from [`present_result`]; nested calls get none, as on the live path.
    pub view: Option<ToolResultView>,
    /// The stale-read-context notices at the head of the result's text.
    pub notices: Vec<String>,
    /// The change the call committed (docs/protocol.md §4.10), as the log recorded it.
    pub change_id: Option<String>,
    /// For a revert: the change it reverted.
    pub reverts: Option<String>,
    /// The revert in this log that undid this call's change, if one did.
    pub reverted_by: Option<String>,
}

/// A result whose call is not in the log (the log was cut before it, or ids were reused).
#[derive(Debug, Clone)]
pub struct OrphanResult {
    /// The result's call id.
    pub call_id: String,
    /// What was logged.
    pub record: ToolResultRecord,
    /// The error code of a failure.
    pub error_code: Option<String>,
}

/// What a card shows, decided by the result and its view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CardKind {
    /// A read card: numbered, anchored rows of a file window.
    Read,
    /// A diff card: the hunks a write or edit applied (or would apply).
    Diff,
    /// A search card: matching lines by file, or matching paths.
    Search,
    /// An error: the code and the message the model saw.
    Error,
    /// The raw content the model saw (the presenters gave no view).
    Generic,
    /// A call that never returned.
    Pending,
}

impl CardKind {
    /// Every kind, in the order summaries list them.
    pub const ALL: [CardKind; 6] =
        [CardKind::Read, CardKind::Diff, CardKind::Search, CardKind::Error, CardKind::Generic, CardKind::Pending];

    /// The kind's name: `read`, `diff`, `search`, `error`, `generic` or `pending`.
    pub fn name(self) -> &'static str {
        match self {
            CardKind::Read => "read",
            CardKind::Diff => "diff",
            CardKind::Search => "search",
            CardKind::Error => "error",
            CardKind::Generic => "generic",
            CardKind::Pending => "pending",
        }
    }
}

impl Timeline {
    /// Reads a session log's text (damage-tolerant: reading stops at a torn line, and what was
    /// read before it is kept).
    pub fn from_log_text(text: &str) -> Self {
        Self::from_log(&read_log(text))
    }

    /// Builds the timeline of a log that was read already.
    pub fn from_log(log: &ReadLog) -> Self {
        let mut timeline =
            Timeline { unknown_events: log.unknown.len(), damage: log.damage.clone(), ..Timeline::default() };
        // Every call, flat, in start order; results are matched to the latest call with their
        // id that has none yet.
        let mut flat: Vec<CallEntry> = Vec::new();
        for event in &log.events {
            match event {
                LogEvent::Session { root, .. } => {
                    timeline.root.get_or_insert_with(|| root.clone());
                }
                LogEvent::Call { call_id, name, args, parent_call_id } => flat.push(CallEntry {
                    index: flat.len() + 1,
                    call_id: call_id.clone(),
                    tool: name.clone(),
                    args: args.clone(),
                    parent: parent_call_id.clone(),
                    call_view: present_call(name, args),
                    result: None,
                    children: Vec::new(),
                }),
                LogEvent::Result { call_id, result } => {
                    match flat.iter_mut().rev().find(|c| &c.call_id == call_id && c.result.is_none()) {
                        Some(call) => call.result = Some(CallResult::of(call, result)),
                        None => timeline.orphans.push(OrphanResult {
                            call_id: call_id.clone(),
                            record: result.record(),
                            error_code: result.error.as_ref().map(|e| e.code.clone()),
                        }),
                    }
                }
            }
        }
        mark_reverted(&mut flat);
        timeline.calls = nest(flat);
        timeline
    }

    /// The timeline with only the call `call_id` (and the calls nested in it).
    pub fn only(&self, call_id: &str) -> Result<Timeline, ShowError> {
        let found = self.iter().find(|c| c.call_id == call_id).ok_or_else(|| ShowError::CallNotFound {
            call_id: call_id.to_owned(),
            known: self.iter().take(10).map(|c| c.call_id.clone()).collect(),
        })?;
        Ok(Timeline {
            root: self.root.clone(),
            calls: vec![found.clone()],
            orphans: Vec::new(),
            unknown_events: 0,
            damage: None,
        })
    }

    /// Every call, depth first (a parent before its nested calls).
    pub fn iter(&self) -> impl Iterator<Item = &CallEntry> {
        let mut stack: Vec<&CallEntry> = self.calls.iter().rev().collect();
        std::iter::from_fn(move || {
            let next = stack.pop()?;
            stack.extend(next.children.iter().rev());
            Some(next)
        })
    }

    /// How many cards of each kind the timeline draws, in [`CardKind::ALL`] order.
    pub fn counts(&self) -> Vec<(CardKind, usize)> {
        let kinds: Vec<CardKind> = self.iter().map(CallEntry::card_kind).collect();
        let orphans = self.orphans.iter().map(|o| if o.record.is_error { CardKind::Error } else { CardKind::Generic });
        let kinds: Vec<CardKind> = kinds.into_iter().chain(orphans).collect();
        CardKind::ALL.iter().map(|&kind| (kind, kinds.iter().filter(|&&k| k == kind).count())).collect()
    }
}

impl CallResult {
    fn of(call: &CallEntry, logged: &LoggedResult) -> Self {
        let record = logged.record();
        let view = if call.parent.is_some() { None } else { present_result(&call.tool, &call.args, &record) };
        let notices = if call.parent.is_some() { Vec::new() } else { stale_notices(&record) };
        Self {
            error_code: logged.error.as_ref().map(|e| e.code.clone()),
            record,
            view,
            notices,
            change_id: logged.change_id.clone(),
            reverts: logged.reverts.clone(),
            reverted_by: None,
        }
    }
}

impl CallEntry {
    /// Whether the call ran inside another one.
    pub fn is_nested(&self) -> bool {
        self.parent.is_some()
    }

    /// The card's title: the result view's title, else the call view's, else the tool name.
    pub fn title(&self) -> String {
        let from_result = self.result.as_ref().and_then(|r| match r.view.as_ref()? {
            ToolResultView::Generic(v) => v.title.clone(),
            ToolResultView::Terminal(v) => v.title.clone(),
            ToolResultView::Diff(v) => v.title.clone(),
            ToolResultView::Search(hashline_view::SearchResultView::Matches(v)) => v.title.clone(),
            ToolResultView::Search(hashline_view::SearchResultView::Paths(v)) => v.title.clone(),
            ToolResultView::Read(v) => v.title.clone(),
        });
        let from_call = || match self.call_view.as_ref()? {
            ToolCallView::Generic(v) => Some(v.title.clone()),
            ToolCallView::Terminal(v) => Some(v.title.clone()),
            ToolCallView::Diff(v) => Some(v.title.clone()),
        };
        from_result.or_else(from_call).unwrap_or_else(|| self.tool.clone())
    }

    /// What the card shows.
    pub fn card_kind(&self) -> CardKind {
        let Some(result) = &self.result else { return CardKind::Pending };
        if result.record.is_error {
            return CardKind::Error;
        }
        match &result.view {
            Some(ToolResultView::Read(_)) => CardKind::Read,
            Some(ToolResultView::Diff(_)) => CardKind::Diff,
            Some(ToolResultView::Search(_)) => CardKind::Search,
            Some(ToolResultView::Generic(_) | ToolResultView::Terminal(_)) | None => CardKind::Generic,
        }
    }
}

/// Marks each call whose change a later revert in the log undid with that revert's id.
fn mark_reverted(flat: &mut [CallEntry]) {
    let reverts: Vec<(String, String)> = flat
        .iter()
        .filter_map(|c| c.result.as_ref())
        .filter_map(|r| Some((r.reverts.clone()?, r.change_id.clone()?)))
        .collect();
    for call in flat.iter_mut() {
        if let Some(result) = call.result.as_mut()
            && let Some(id) = &result.change_id
        {
            result.reverted_by = reverts.iter().rev().find(|(undone, _)| undone == id).map(|(_, by)| by.clone());
        }
    }
}

/// Puts every nested call under its parent (the latest earlier call with that id); a call
/// whose parent is not in the log stays at the top.
fn nest(flat: Vec<CallEntry>) -> Vec<CallEntry> {
    // parent_of[i] = the index in `flat` of call i's parent, when it is an earlier call.
    let parent_of: Vec<Option<usize>> = flat
        .iter()
        .enumerate()
        .map(|(i, call)| {
            let parent = call.parent.as_deref()?;
            flat[..i].iter().rposition(|c| c.call_id == parent)
        })
        .collect();
    let mut slots: Vec<Option<CallEntry>> = flat.into_iter().map(Some).collect();
    // Children come after their parents, so attaching from the back moves finished subtrees.
    for i in (0..slots.len()).rev() {
        if let Some(parent) = parent_of[i]
            && let Some(child) = slots[i].take()
            && let Some(slot) = slots[parent].as_mut()
        {
            slot.children.insert(0, child);
        }
    }
    slots.into_iter().flatten().collect()
}

/// The stale-read-context notices a result's text opens with.
fn stale_notices(record: &ToolResultRecord) -> Vec<String> {
    let Some(text) = record.content.first().and_then(|b| b.as_text()) else { return Vec::new() };
    text.lines()
        .take_while(|line| line.starts_with(STALE_NOTICE) || line.is_empty())
        .filter(|line| !line.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The text of a record for a raw card: every text block, images as one-line notes, and the
/// stale notices (shown apart) left out.
pub(crate) fn raw_text(record: &ToolResultRecord, skip_notices: bool) -> String {
    let mut out = String::new();
    for (i, block) in record.content.iter().enumerate() {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        match block {
            hashline_view::ContentBlock::Text { text } => {
                let text = if i == 0 && skip_notices { strip_notices(text) } else { text.as_str() };
                out.push_str(text);
            }
            hashline_view::ContentBlock::Image { data, mime_type } => {
                out.push_str(&format!("[image {mime_type}, {} bytes of base64]", data.len()));
            }
        }
    }
    out
}

/// `text` without the stale notices (and the blank lines after them) it opens with.
fn strip_notices(text: &str) -> &str {
    let mut rest = text;
    while rest.starts_with(STALE_NOTICE) || rest.starts_with('\n') {
        rest = rest.split_once('\n').map_or("", |(_, tail)| tail);
    }
    rest
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str = concat!(
        "{\"type\":\"session\",\"version\":1,\"root\":\"/w\"}\n",
        "{\"type\":\"tool/call\",\"callId\":\"a\",\"name\":\"read\",\"args\":{\"path\":\"s.txt\"}}\n",
        "{\"type\":\"tool/result\",\"callId\":\"a\",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"1:260|one\"}],\"isError\":false,\"meta\":{\"path\":\"/w/s.txt\",\"offset\":1,\"lines\":[{\"number\":1,\"text\":\"one\",\"hash\":\"260\"}],\"totalLines\":1}}}\n",
        "{\"type\":\"tool/call\",\"callId\":\"p\",\"name\":\"ls\",\"args\":{}}\n",
        "{\"type\":\"tool/call\",\"callId\":\"n\",\"name\":\"edit\",\"args\":{\"path\":\"s.txt\",\"edits\":[]},\"parentCallId\":\"p\"}\n",
        "{\"type\":\"tool/result\",\"callId\":\"n\",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"Edited\"}],\"isError\":false}}\n",
        "{\"type\":\"tool/result\",\"callId\":\"p\",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"s.txt\"}],\"isError\":false,\"meta\":{\"paths\":[\"s.txt\"],\"truncated\":false,\"total\":1}}}\n",
        "{\"type\":\"tool/call\",\"callId\":\"q\",\"name\":\"ls\",\"args\":{}}\n",
        "{\"type\":\"tool/result\",\"callId\":\"q\",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"[Stale read context: s.txt changed after an earlier read. Re-run read to refresh.]\\n\\ns.txt\"}],\"isError\":false}}\n",
        "{\"type\":\"tool/result\",\"callId\":\"zz\",\"result\":{\"content\":[],\"isError\":true}}\n",
        "{\"type\":\"tool/call\",\"callId\":\"w\",\"name\":\"write\",\"args\":{\"path\":\"t\",\"content\":\"x\"}}\n",
    );

    #[test]
    fn nests_matches_and_classifies() {
        let timeline = Timeline::from_log_text(LOG);
        assert_eq!(timeline.root.as_deref(), Some("/w"));
        let ids: Vec<&str> = timeline.calls.iter().map(|c| c.call_id.as_str()).collect();
        assert_eq!(ids, ["a", "p", "q", "w"]);
        assert_eq!(timeline.calls[1].children[0].call_id, "n");
        assert_eq!(timeline.calls[1].children[0].index, 3);
        let kinds: Vec<CardKind> = timeline.iter().map(CallEntry::card_kind).collect();
        use CardKind::*;
        assert_eq!(kinds, [Read, Search, Generic, Generic, Pending]);
        assert_eq!(timeline.orphans.len(), 1);
        let counts = timeline.counts();
        assert_eq!(counts[0], (Read, 1));
        assert_eq!(counts[3], (Error, 1), "the orphan failure is an error card");
    }

    #[test]
    fn nested_calls_get_titles_but_no_result_view() {
        let timeline = Timeline::from_log_text(LOG);
        let nested = &timeline.calls[1].children[0];
        assert_eq!(nested.title(), "Edit s.txt");
        assert!(nested.result.as_ref().is_some_and(|r| r.view.is_none()));
    }

    #[test]
    fn stale_notices_are_taken_apart() {
        let timeline = Timeline::from_log_text(LOG);
        let result = timeline.calls[2].result.as_ref().expect("returned");
        assert_eq!(
            result.notices,
            ["[Stale read context: s.txt changed after an earlier read. Re-run read to refresh.]"]
        );
        assert_eq!(raw_text(&result.record, true), "s.txt");
    }

    #[test]
    fn images_are_one_line_in_raw_text() {
        let record = ToolResultRecord {
            content: vec![
                hashline_view::ContentBlock::text("see"),
                hashline_view::ContentBlock::Image { data: "aGk=".into(), mime_type: "image/png".into() },
            ],
            is_error: false,
            meta: None,
        };
        assert_eq!(raw_text(&record, false), "see\n[image image/png, 4 bytes of base64]");
    }

    #[test]
    fn only_keeps_one_call_and_names_the_known_ones() {
        let timeline = Timeline::from_log_text(LOG);
        let one = timeline.only("p").expect("known");
        assert_eq!(one.iter().count(), 2);
        let err = timeline.only("nope").expect_err("unknown");
        assert!(err.to_string().contains("a, p, n, q, w"), "{err}");
    }

    #[test]
    fn damage_keeps_what_came_before() {
        let cut = &LOG[..LOG.len() - 20];
        let timeline = Timeline::from_log_text(cut);
        assert_eq!(timeline.damage.as_ref().map(|d| d.line), Some(11));
        assert_eq!(timeline.calls.len(), 3);
    }
}
