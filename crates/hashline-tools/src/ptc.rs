//! Structured shapes shared by the tools' values.

use hashline_core::display::{decode_lossy, display_line};
use hashline_core::{Anchor, LineHash, LineNo};
use schemars::JsonSchema;
use serde::Serialize;

/// One anchored line, exactly as its row shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct PtcLine {
    /// 1-based line number.
    pub line: u32,
    /// The 3-hex-digit hash.
    pub hash: String,
    /// `LINE:HASH`, identical to the row's prefix.
    pub anchor: String,
    /// The line's text (lossy UTF-8), without display escaping.
    pub raw: String,
    /// The text as the row shows it (controls escaped).
    pub display: String,
}

impl PtcLine {
    /// The structured form of one line.
    pub fn new(line: LineNo, hash: LineHash, content: &[u8]) -> Self {
        Self {
            line: line.get(),
            hash: hash.to_string(),
            anchor: Anchor::new(line, hash).to_string(),
            raw: decode_lossy(content).into_owned(),
            display: display_line(content).into_owned(),
        }
    }
}

/// A range of lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PtcRange {
    /// First line shown (1-based).
    pub start_line: u32,
    /// Last line shown (1-based, inclusive).
    pub end_line: u32,
    /// Lines in the file.
    pub total_lines: u32,
}
