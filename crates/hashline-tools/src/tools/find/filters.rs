//! The value parsers of `find`: sizes (`minSize`/`maxSize`) and instants
//! (`modifiedSince`). Each returns the message a model sees when the value is malformed.

use std::time::{Duration, SystemTime};

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::de::Error as _;
use serde::{Deserialize, Deserializer};
use serde_json::{Number, Value};
use time::format_description::well_known::Rfc3339;
use time::macros::format_description;
use time::{Date, OffsetDateTime};

use crate::tools::ls::quoted;

/// A size argument: a number of bytes, or a string with an optional 1024-based suffix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SizeArg {
    /// A JSON number of bytes.
    Bytes(Number),
    /// A string such as `"2048"`, `"500K"`, `"1MB"` or `"1.5GB"`.
    Text(String),
}

impl From<u64> for SizeArg {
    fn from(bytes: u64) -> Self {
        SizeArg::Bytes(bytes.into())
    }
}

impl From<&str> for SizeArg {
    fn from(text: &str) -> Self {
        SizeArg::Text(text.to_owned())
    }
}

impl<'de> Deserialize<'de> for SizeArg {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match Value::deserialize(deserializer)? {
            Value::Number(n) => Ok(SizeArg::Bytes(n)),
            Value::String(s) => Ok(SizeArg::Text(s)),
            other => Err(D::Error::custom(format!(
                "expected a number of bytes or a size string like \"1MB\", received {other}"
            ))),
        }
    }
}

impl JsonSchema for SizeArg {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "SizeArg".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_generator: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "anyOf": [
                {"type": "number", "minimum": 0},
                {"type": "string"}
            ]
        })
    }
}

/// The accepted size suffixes (upper case) and their multipliers.
const UNITS: [(&str, u64); 8] = [
    ("", 1),
    ("B", 1),
    ("K", 1 << 10),
    ("KB", 1 << 10),
    ("M", 1 << 20),
    ("MB", 1 << 20),
    ("G", 1 << 30),
    ("GB", 1 << 30),
];

/// Bytes of a size argument named `field`: a non-negative number, or a decimal number
/// with an optional case-insensitive `B`/`K`/`KB`/`M`/`MB`/`G`/`GB` suffix (1024-based),
/// rounded to whole bytes.
pub fn parse_size(field: &str, value: &SizeArg) -> Result<u64, String> {
    let text = match value {
        SizeArg::Bytes(n) => {
            return match n.as_u64() {
                Some(bytes) => Ok(bytes),
                None => match n.as_f64() {
                    Some(f) if f.is_finite() && f >= 0.0 => Ok(f.round() as u64),
                    _ => Err(format!("Invalid {field} value: {n} (expected a non-negative number of bytes)")),
                },
            };
        }
        SizeArg::Text(text) => text,
    };
    let malformed = || {
        format!(
            "Invalid {field} value: {} (expected a number with optional B/K/KB/M/MB/G/GB suffix; units are 1024-based)",
            quoted(text)
        )
    };
    let trimmed = text.trim();
    let number_end = trimmed.find(|c: char| !c.is_ascii_digit() && c != '.').unwrap_or(trimmed.len());
    let (number, rest) = trimmed.split_at(number_end);
    let unit = rest.trim_start();
    let well_formed = match number.split_once('.') {
        Some((whole, fraction)) => is_digits(whole) && is_digits(fraction),
        None => is_digits(number),
    };
    if !well_formed || !unit.chars().all(|c| c.is_ascii_alphabetic()) {
        return Err(malformed());
    }
    let upper = unit.to_ascii_uppercase();
    let multiplier = match UNITS.iter().find(|(name, _)| *name == upper) {
        Some((_, m)) => *m,
        None => {
            return Err(format!(
                "Invalid {field} value: {} (unknown unit '{unit}'; accepted: B, K, KB, M, MB, G, GB)",
                quoted(text)
            ));
        }
    };
    let amount: f64 = number.parse().map_err(|_| malformed())?;
    Ok((amount * multiplier as f64).round() as u64)
}

fn is_digits(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}

/// The instant of a `modifiedSince` argument: `YYYY-MM-DD` (UTC midnight), an RFC 3339
/// timestamp with `Z` or an offset, or `Nm` / `Nh` / `Nd` before `now`.
pub fn parse_modified_since(value: &str, now: SystemTime) -> Result<SystemTime, String> {
    let invalid = || {
        format!(
            "Invalid modifiedSince value: {} (expected ISO date/timestamp or relative shorthand like '1h', '24h', '7d', '30m')",
            quoted(value)
        )
    };
    let trimmed = value.trim();
    if let Some(unit) = trimmed.chars().last().filter(|c| matches!(c, 'm' | 'h' | 'd')) {
        let count = trimmed[..trimmed.len() - 1].trim_end();
        if is_digits(count) {
            let seconds_per_unit: u64 = match unit {
                'm' => 60,
                'h' => 60 * 60,
                _ => 24 * 60 * 60,
            };
            return count
                .parse::<u64>()
                .ok()
                .and_then(|n| n.checked_mul(seconds_per_unit))
                .and_then(|secs| now.checked_sub(Duration::from_secs(secs)))
                .ok_or_else(invalid);
        }
    }
    if is_iso_date_shape(value) {
        if let Ok(date) = Date::parse(value, format_description!("[year]-[month]-[day]")) {
            return Ok(date.midnight().assume_utc().into());
        }
        return Err(invalid());
    }
    OffsetDateTime::parse(value, &Rfc3339).map(SystemTime::from).map_err(|_| invalid())
}

/// `dddd-dd-dd`.
fn is_iso_date_shape(value: &str) -> bool {
    let bytes = value.as_bytes();
    bytes.len() == 10
        && bytes.iter().enumerate().all(|(i, b)| match i {
            4 | 7 => *b == b'-',
            _ => b.is_ascii_digit(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn size(text: &str) -> Result<u64, String> {
        parse_size("minSize", &SizeArg::from(text))
    }

    #[test]
    fn sizes_with_and_without_suffixes() {
        assert_eq!(size("2048"), Ok(2048));
        assert_eq!(size("10B"), Ok(10));
        assert_eq!(size("1k"), Ok(1024));
        assert_eq!(size(" 500 KB "), Ok(500 * 1024));
        assert_eq!(size("1M"), Ok(1 << 20));
        assert_eq!(size("1.5mb"), Ok(3 << 19));
        assert_eq!(size("2G"), Ok(2 << 30));
        assert_eq!(size("1GB"), Ok(1 << 30));
        assert_eq!(size("0.5"), Ok(1));
        assert_eq!(parse_size("maxSize", &SizeArg::from(7)), Ok(7));
        let float: SizeArg = serde_json::from_str("2.4").expect("number");
        assert_eq!(parse_size("maxSize", &float), Ok(2));
    }

    #[test]
    fn malformed_sizes_say_why() {
        assert_eq!(
            size("1XB"),
            Err("Invalid minSize value: \"1XB\" (unknown unit 'XB'; accepted: B, K, KB, M, MB, G, GB)".into())
        );
        let shape = " (expected a number with optional B/K/KB/M/MB/G/GB suffix; units are 1024-based)";
        for bad in ["", "abc", "1.", ".5", "1.2.3", "-1", "1 K B", "1K!"] {
            assert_eq!(size(bad), Err(format!("Invalid minSize value: {}{shape}", quoted(bad))), "{bad:?}");
        }
        let negative: SizeArg = serde_json::from_str("-5").expect("number");
        assert_eq!(
            parse_size("maxSize", &negative),
            Err("Invalid maxSize value: -5 (expected a non-negative number of bytes)".into())
        );
        assert!(serde_json::from_str::<SizeArg>("true").is_err());
    }

    fn utc(text: &str) -> SystemTime {
        OffsetDateTime::parse(text, &Rfc3339).expect("timestamp").into()
    }

    #[test]
    fn instants_in_all_three_forms() {
        let now = utc("2024-06-15T12:00:00Z");
        assert_eq!(parse_modified_since("2024-01-02", now), Ok(utc("2024-01-02T00:00:00Z")));
        assert_eq!(parse_modified_since("2024-01-02T03:04:05+02:00", now), Ok(utc("2024-01-02T01:04:05Z")));
        assert_eq!(parse_modified_since("2024-01-02T03:04:05.250Z", now), Ok(utc("2024-01-02T03:04:05.250Z")));
        assert_eq!(parse_modified_since("30m", now), Ok(utc("2024-06-15T11:30:00Z")));
        assert_eq!(parse_modified_since(" 2 h ", now), Ok(utc("2024-06-15T10:00:00Z")));
        assert_eq!(parse_modified_since("7d", now), Ok(utc("2024-06-08T12:00:00Z")));
    }

    #[test]
    fn malformed_instants_say_what_is_accepted() {
        let now = SystemTime::UNIX_EPOCH;
        for bad in
            ["", "yesterday", "2024-02-30", "2024-1-2", "2024-01-02T03:04:05", "5w", "d", "99999999999999999999d"]
        {
            let err = parse_modified_since(bad, now).expect_err(bad);
            assert_eq!(
                err,
                format!(
                    "Invalid modifiedSince value: {} (expected ISO date/timestamp or relative shorthand like '1h', '24h', '7d', '30m')",
                    quoted(bad)
                )
            );
        }
    }
}
