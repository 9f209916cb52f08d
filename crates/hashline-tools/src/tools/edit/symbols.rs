//! Symbol ops (`replace_symbol`, `insert_before_symbol`, `insert_after_symbol`): resolved
//! against the file as read into ordinary anchored ops, so the engine's overlap rules and
//! the session's guards apply to them like to any other edit.

use hashline_core::edit::EditOp;
use hashline_core::{Anchor, AnchorRef, Document, LineNo};
use hashline_symbols::{Placement, Selection, insert_beside_symbol, replace_symbol, select};
use hashline_syntax::LanguageId;

use super::items::{Item, SymbolAction, SymbolRequest, variant};
use crate::error::{ErrorCode, ToolError};
use crate::paths::ResolvedPath;
use crate::session::Session;
use crate::tools::symbol_read::file_map;
use crate::warning::{Warning, WarningCode};

/// The engine ops of a batch: symbol ops become `replace_lines` / `insert_after` on the
/// lines they name now.
pub(crate) fn resolve(
    session: &Session,
    path: &ResolvedPath,
    doc: &Document,
    items: Vec<Item>,
    warnings: &mut Vec<Warning>,
) -> Result<Vec<EditOp>, ToolError> {
    let mut map = None;
    let mut ops = Vec::with_capacity(items.len());
    let mut claimed = Vec::new();
    for item in items {
        let request = match item {
            Item::Op(op) => {
                ops.push(op);
                continue;
            }
            Item::Symbol(request) => request,
        };
        if map.is_none() {
            map = Some(load_map(session, path, doc, &request)?);
        }
        let Some(map) = map.as_ref() else { continue };
        let (op, range) = symbol_op(doc, map, &request, warnings)?;
        claimed.extend(range.map(|(first, last)| Claim {
            index: ops.len(),
            symbol: request.symbol.trim().to_owned(),
            first,
            last,
        }));
        ops.push(op);
    }
    refuse_overlaps(&ops, &claimed)?;
    Ok(ops)
}

/// The lines a `replace_symbol` replaces, as the symbol's range (not the smaller change it
/// reduces to), for the overlap rule.
struct Claim {
    index: usize,
    symbol: String,
    first: u32,
    last: u32,
}

/// Another edit of the batch that touches lines a `replace_symbol` replaces is refused as
/// `overlapping-edit` (issue 21 item 1): the model meant both, and the replacement would
/// otherwise swallow the other edit or be swallowed by it. Edits next to the range (an
/// `insert_after` its last line, a change of the line before it) do not overlap it.
fn refuse_overlaps(ops: &[EditOp], claimed: &[Claim]) -> Result<(), ToolError> {
    let line = |anchor: &AnchorRef| match anchor {
        AnchorRef::Line { anchor, .. } => Some(anchor.line.get()),
        _ => None,
    };
    for claim in claimed {
        for (index, op) in ops.iter().enumerate().filter(|(i, _)| *i != claim.index) {
            let (name, touched) = match op {
                EditOp::SetLine { anchor, .. } => ("set_line", line(anchor).map(|l| (l, l))),
                EditOp::ReplaceLines { start, end, .. } => ("replace_lines", line(start).zip(line(end))),
                // Inserting after a line inside the range, not after its last line.
                EditOp::InsertAfter { anchor, .. } => {
                    ("insert_after", line(anchor).filter(|&l| l < claim.last).map(|l| (l, l)))
                }
                EditOp::MoveLines { start, end, .. } => ("move_lines", line(start).zip(line(end))),
                _ => ("", None),
            };
            let Some((low, high)) = touched else { continue };
            let other = claimed.iter().find(|c| c.index == index);
            let (low, high) = other.map_or((low, high), |c| (c.first, c.last));
            if low <= claim.last && high >= claim.first {
                let what = match other {
                    Some(c) => format!("edits[{index}] (replace_symbol {}, lines {}-{})", c.symbol, c.first, c.last),
                    None if low == high => format!("edits[{index}] ({name} at line {low})"),
                    None => format!("edits[{index}] ({name} of lines {low}-{high})"),
                };
                return Err(ToolError::new(
                    ErrorCode::OverlappingEdit,
                    format!(
                        "Edit rejected — nothing was written. {what} falls inside the replace_symbol range of {} (lines {}-{}) in edits[{}]: both would change the same lines. Put the change into the replace_symbol body, or send it in a separate call.",
                        claim.symbol, claim.first, claim.last, claim.index
                    ),
                ));
            }
        }
    }
    Ok(())
}

fn load_map(
    session: &Session,
    path: &ResolvedPath,
    doc: &Document,
    request: &SymbolRequest,
) -> Result<std::sync::Arc<hashline_symbols::SymbolMap>, ToolError> {
    let op = request.action.name();
    let unsupported = |why: String| {
        ToolError::new(
            ErrorCode::UnsupportedLanguage,
            format!("Edit rejected — nothing was written. edits[{}]: {op} {why}", request.index),
        )
        .with_hint("Use replace_lines / insert_after with anchors from read for this file.")
        .with_path(path.absolute_str())
    };
    if LanguageId::from_path(&path.display).is_none() {
        return Err(unsupported(format!(
            "needs a source file of a language with symbols ({}); {} is not one.",
            LanguageId::ALL.iter().map(|l| l.display_name()).collect::<Vec<_>>().join(", "),
            path.shown()
        )));
    }
    match file_map(session, path, doc) {
        Ok(Some(map)) => Ok(map),
        Ok(None) => Err(unsupported(format!("found no symbol map for {}.", path.shown()))),
        Err(reason) => Err(unsupported(format!("could not map {}: {reason}.", path.shown()))),
    }
}

fn symbol_op(
    doc: &Document,
    map: &hashline_symbols::SymbolMap,
    request: &SymbolRequest,
    warnings: &mut Vec<Warning>,
) -> Result<(EditOp, Option<(u32, u32)>), ToolError> {
    let where_ = format!("edits[{}].{}", request.index, request.action.name());
    let query = request.symbol.trim();
    if query.is_empty() {
        return Err(variant(format!("{where_}.symbol must not be empty.")));
    }
    let located = match select(map, query) {
        Selection::Found { found, tier, .. } if !tier.is_fuzzy() => found,
        Selection::Found { found, tier, .. } => {
            return Err(variant(format!(
                "{where_}: symbol '{query}' was not found exactly (closest: `{}` at lines {}-{}, by {}). Name it exactly, e.g. {}@{}.",
                found.symbol.name,
                found.symbol.start_line,
                found.symbol.end_line,
                tier.describe(),
                found.symbol.name,
                found.symbol.start_line
            )));
        }
        Selection::Ambiguous { candidates, total, .. } => {
            let list: Vec<String> = candidates
                .iter()
                .map(|c| {
                    format!(
                        "- {} ({}) — lines {}-{}",
                        c.symbol.name, c.symbol.kind, c.symbol.start_line, c.symbol.end_line
                    )
                })
                .collect();
            let selectors: Vec<String> =
                candidates.iter().map(|c| format!("{}@{}", c.symbol.name, c.symbol.start_line)).collect();
            return Err(variant(format!(
                "{where_}: symbol '{query}' is ambiguous ({total} matches):\n{}\nUse {} to select by start line.",
                list.join("\n"),
                selectors.join(" or ")
            )));
        }
        Selection::NotFound { available, .. } => {
            return Err(variant(format!(
                "{where_}: symbol '{query}' not found. Available symbols: {}",
                available.join(", ")
            )));
        }
    };
    let edit = match request.action {
        SymbolAction::Replace => replace_symbol(doc, &located, &request.text),
        SymbolAction::InsertBefore => insert_beside_symbol(doc, map, &located, &request.text, Placement::Before),
        SymbolAction::InsertAfter => insert_beside_symbol(doc, map, &located, &request.text, Placement::After),
    }
    .map_err(|message| variant(format!("{where_}: {message}")))?;
    warnings.extend(edit.warnings.iter().map(|w| Warning::new(WarningCode::NameMismatch, format!("{where_}: {w}"))));
    let range = (request.action == SymbolAction::Replace).then_some((edit.first, edit.last));
    let op = symbol_edit_op(doc, &located, edit, &where_)?;
    Ok((op, range))
}

/// The engine op of a resolved symbol edit.
fn symbol_edit_op(
    doc: &Document,
    located: &hashline_symbols::Located,
    edit: hashline_symbols::SymbolEdit,
    where_: &str,
) -> Result<EditOp, ToolError> {
    let anchor = |number: u32| -> Result<AnchorRef, ToolError> {
        let line = LineNo::new(number)
            .and_then(|n| doc.line(n))
            .ok_or_else(|| variant(format!("{where_}: line {number} of the symbol is past the end of the file.")))?;
        Ok(AnchorRef::Line { anchor: Anchor { line: line.number, hash: line.hash() }, content: None })
    };
    let Some(edit) = unchanged_ends_dropped(doc, edit) else {
        // The symbol already reads exactly so: its first line rewritten as itself (a no-op).
        let line = anchor(located.symbol.start_line)?;
        let text = LineNo::new(located.symbol.start_line).and_then(|n| doc.line(n)).map(|l| l.content.to_vec());
        let new_text = String::from_utf8_lossy(&text.unwrap_or_default()).into_owned();
        return Ok(EditOp::ReplaceLines { start: line.clone(), end: line, new_text, literal: true });
    };
    let joined = edit.lines.join("\n");
    // The engine ignores one trailing newline: a trailing blank line needs two.
    let new_text = if edit.lines.last().is_some_and(String::is_empty) { format!("{joined}\n") } else { joined.clone() };
    if edit.last >= edit.first {
        return Ok(EditOp::ReplaceLines {
            start: anchor(edit.first)?,
            end: anchor(edit.last)?,
            new_text,
            literal: true,
        });
    }
    if edit.first > 1 {
        return Ok(EditOp::InsertAfter { anchor: anchor(edit.first - 1)?, new_text, literal: true });
    }
    // Before line 1: replace line 1 with the new lines followed by itself.
    let first = LineNo::new(1).and_then(|n| doc.line(n)).map(|l| String::from_utf8_lossy(l.content).into_owned());
    Ok(EditOp::ReplaceLines {
        start: anchor(1)?,
        end: anchor(1)?,
        new_text: format!("{joined}\n{}", first.unwrap_or_default()),
        literal: true,
    })
}

/// The edit without the lines at its start and end that it would write unchanged: a
/// symbol replacement that changes one line of a long body rewrites that line only, so the
/// other lines keep their anchors and the change is not reported as large.
/// `None` when a replacement would change nothing at all.
fn unchanged_ends_dropped(
    doc: &Document,
    mut edit: hashline_symbols::SymbolEdit,
) -> Option<hashline_symbols::SymbolEdit> {
    let replaces = edit.last >= edit.first;
    let same = |number: u32, text: &str| {
        LineNo::new(number).and_then(|n| doc.line(n)).is_some_and(|line| line.content == text.as_bytes())
    };
    let mut head = 0;
    while edit.first + head <= edit.last && edit.lines.get(head as usize).is_some_and(|l| same(edit.first + head, l)) {
        head += 1;
    }
    edit.lines.drain(..head as usize);
    edit.first += head;
    while edit.last >= edit.first && edit.lines.last().is_some_and(|l| same(edit.last, l)) {
        edit.lines.pop();
        edit.last -= 1;
    }
    (!(replaces && edit.last < edit.first && edit.lines.is_empty())).then_some(edit)
}
