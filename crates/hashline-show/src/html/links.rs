//! Which read card shows a file, so that search results can link to it.

use std::collections::HashMap;

use hashline_view::ToolResultView;
use serde_json::Value;

use crate::timeline::{CallEntry, Timeline};

/// The read cards of a timeline by the absolute path they show.
pub(crate) struct ReadCards {
    /// Normalized absolute path → the indices of the calls whose read card shows it, in order.
    by_path: HashMap<String, Vec<usize>>,
    root: Option<String>,
}

impl ReadCards {
    pub(crate) fn of(timeline: &Timeline) -> Self {
        let mut by_path: HashMap<String, Vec<usize>> = HashMap::new();
        for call in timeline.iter() {
            if let Some(ToolResultView::Read(read)) = call.result.as_ref().and_then(|r| r.view.as_ref()) {
                by_path.entry(normalize(&read.path)).or_default().push(call.index);
            }
        }
        Self { by_path, root: timeline.root.clone() }
    }

    /// The read card to link a path found by `call` to: the latest one before the call, else
    /// the first one after it. A relative path is tried against the call's `path` argument,
    /// then against the session root.
    pub(crate) fn for_path(&self, call: &CallEntry, path: &str) -> Option<usize> {
        let root = self.root.as_deref()?;
        let base = call.args.get("path").and_then(Value::as_str).filter(|p| !p.trim().is_empty());
        let candidates = [base.map(|base| join(&join(root, base), path)), Some(join(root, path))];
        let cards = candidates.iter().flatten().find_map(|abs| self.by_path.get(&normalize(abs)))?;
        cards.iter().rev().find(|&&i| i < call.index).or_else(|| cards.first()).copied()
    }
}

/// `path` against `base` unless it is absolute.
fn join(base: &str, path: &str) -> String {
    if path.starts_with('/') { path.to_owned() } else { format!("{}/{path}", base.trim_end_matches('/')) }
}

/// `.` and `..` components and repeated slashes folded away (textually; no file system).
fn normalize(path: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            part => parts.push(part),
        }
    }
    let joined = parts.join("/");
    if path.starts_with('/') { format!("/{joined}") } else { joined }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_textually() {
        assert_eq!(normalize("/w/./a//b/../c.rs"), "/w/a/c.rs");
        assert_eq!(normalize("{{cwd}}/src/../x"), "{{cwd}}/x");
        assert_eq!(join("/w", "src"), "/w/src");
        assert_eq!(join("/w/", "/abs"), "/abs");
    }
}
