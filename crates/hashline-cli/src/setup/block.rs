//! The rule in a host's instructions file (`CLAUDE.md`, `AGENTS.md`, `GEMINI.md`, ...),
//! inside marker comments so that a later `setup` updates it and `--remove` takes it out,
//! leaving the file's bytes as they were.

/// The marker lines of `host`'s block.
fn markers(host: &str) -> (String, String) {
    (
        format!("<!-- hashline setup {host}: begin (`hashline setup {host} --remove` takes this out) -->"),
        format!("<!-- hashline setup {host}: end -->"),
    )
}

/// The file's text with the block holding `rule` (`remove`: without the block). `None`: the
/// file held only the block and is not needed.
pub fn apply(text: Option<&str>, host: &str, rule: &str, remove: bool) -> Option<String> {
    let (begin, end) = markers(host);
    let block = format!("{begin}\n{}\n{end}\n", rule.trim_end());
    let source = text.unwrap_or("");
    match find(source, &begin, &end) {
        Some((start, stop)) if remove => {
            let mut before = source[..start].to_owned();
            // The separator `setup` put before the block: one newline (two when the file
            // ended with one).
            if before.ends_with('\n') {
                before.pop();
            }
            let out = format!("{before}{}", &source[stop..]);
            if out.is_empty() && text.is_some() { None } else { Some(out) }
        }
        Some((start, stop)) => Some(format!("{}{}{}", &source[..start], block, &source[stop..])),
        None if remove => text.map(str::to_owned),
        None if source.is_empty() => Some(block),
        None => Some(format!("{source}\n{block}")),
    }
}

/// Where the block is: from its line's start to just past its end marker's newline.
fn find(source: &str, begin: &str, end: &str) -> Option<(usize, usize)> {
    let start = source.find(begin)?;
    if start > 0 && !source[..start].ends_with('\n') {
        return None;
    }
    let end_at = start + source[start..].find(end)?;
    let mut stop = end_at + end.len();
    if source[stop..].starts_with('\n') {
        stop += 1;
    }
    Some((start, stop))
}

/// Whether `text` holds `host`'s block.
pub fn present(text: &str, host: &str) -> bool {
    let (begin, end) = markers(host);
    find(text, &begin, &end).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_block_comes_and_goes_leaving_the_bytes() {
        for before in ["# Project\n\nBuild with make.\n", "no newline at the end", "ends with a blank\n\n", "\n"] {
            let added = apply(Some(before), "codex", "Use hashline.", false).unwrap();
            assert!(added.starts_with(before) && present(&added, "codex"), "{added:?}");
            assert_eq!(apply(Some(&added), "codex", "Use hashline.", false).unwrap(), added, "idempotent");
            let updated = apply(Some(&added), "codex", "Use hashline, always.", false).unwrap();
            assert!(updated.contains("always") && !updated.contains("Use hashline.\n"), "{updated}");
            assert_eq!(apply(Some(&updated), "codex", "", true).as_deref(), Some(before), "{updated:?}");
        }
    }

    #[test]
    fn a_file_of_its_own_is_not_needed_after_it() {
        let made = apply(None, "gemini", "Use hashline.", false).unwrap();
        assert_eq!(apply(Some(&made), "gemini", "", true), None);
        // Another host's block is left alone.
        let both = apply(Some(&made), "codex", "Use hashline.", false).unwrap();
        let back = apply(Some(&both), "codex", "", true).unwrap();
        assert_eq!(back, made);
    }
}
