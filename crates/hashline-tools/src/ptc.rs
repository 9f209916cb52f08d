//! Structured shapes shared by the tools' values.

use hashline_core::display::{decode_lossy, display_line, is_plain_ascii};
use hashline_core::{LineHash, LineNo};
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
        // The digits are ASCII: the text is borrowed, then copied once.
        let hash_text = String::from_utf8_lossy(&hash.hex()).into_owned();
        let mut digits = itoa::Buffer::new();
        let number = digits.format(line.get());
        let mut anchor = String::with_capacity(number.len() + 4);
        anchor.push_str(number);
        anchor.push(':');
        anchor.push_str(&hash_text);
        let (raw, display) = match std::str::from_utf8(content) {
            Ok(text) if is_plain_ascii(content) => (text.to_owned(), text.to_owned()),
            _ => (decode_lossy(content).into_owned(), display_line(content).into_owned()),
        };
        Self { line: line.get(), hash: hash_text, anchor, raw, display }
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
