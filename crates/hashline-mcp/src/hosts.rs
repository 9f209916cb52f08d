//! What each agent host shows its model at once, and the budget a result gets there
//! (docs/protocol.md §10.1, "Within each host's limits").
//!
//! Hosts show a tool result inline up to a limit of their own, then cut its middle or
//! divert it to a file behind a short preview: silently, and past hashline's own
//! continuation note. So the server runs each call with a [`Budget`] that fits the host
//! that connected, known by the `clientInfo.name` it sent in `initialize` (or, on protocol
//! 2026-07-28, in each request's `_meta`). Every tool's text then fits it whole and is cut
//! by hashline, at a row, with its own note. An unknown client gets the smallest budget of
//! a known host; [`crate::ServerOptions::budget`] overrides the table.

use hashline::Budget;

use crate::StructuredContent;

/// One agent host: how to know it, what it shows inline, and the budget a result gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Host {
    /// The host's name, as the docs say it.
    pub name: &'static str,
    /// Its `clientInfo.name`s, matched without regard to case.
    pub client_names: &'static [&'static str],
    /// What it shows inline before it cuts or diverts a result, in characters.
    pub inline_limit: usize,
    /// The budget of a result's text there: the limit less room for what the host wraps
    /// around a result (`Wall time: …`, `<untrusted_context>` tags).
    pub budget: Budget,
    /// Whether it shows `JSON.stringify(structuredContent)` when a result has one (instead
    /// of the text, or beside it): with `--structured-content full` the JSON is what counts
    /// against its limit, about four times the text.
    pub shows_structured: bool,
}

const fn budget(bytes: usize) -> Budget {
    Budget { lines: Budget::DEFAULT.lines, bytes }
}

/// The hosts measured (docs/protocol.md §10.1 has the table and how it was measured). The
/// names are those each host sent (tests/hosts records them): Claude Code and Copilot CLI
/// speak protocol 2026-07-28 and name themselves in each request's `_meta`.
pub const HOSTS: &[Host] = &[
    Host {
        name: "Claude Code",
        client_names: &["claude-code"],
        inline_limit: 50_000,
        budget: budget(43 * 1024),
        shows_structured: true,
    },
    Host {
        name: "Codex CLI",
        client_names: &["codex-mcp-client"],
        inline_limit: 12_000,
        budget: budget(10_000),
        shows_structured: true,
    },
    Host {
        name: "Gemini CLI",
        client_names: &["gemini-cli-mcp-client"],
        inline_limit: 40_000,
        budget: budget(35 * 1024),
        shows_structured: false,
    },
    Host {
        name: "opencode",
        client_names: &["opencode"],
        inline_limit: 51_200,
        budget: budget(44 * 1024),
        shows_structured: false,
    },
    Host {
        name: "Copilot CLI",
        client_names: &["copilot-cli"],
        inline_limit: 20_480,
        budget: budget(16 * 1024),
        shows_structured: true,
    },
];

/// The budget of a client no row of [`HOSTS`] names: the smallest known host's, so that no
/// known host cuts it.
pub const UNKNOWN_CLIENT: Budget = budget(10_000);

/// The host a `clientInfo.name` names, if it is one of [`HOSTS`].
///
/// ```
/// use hashline_mcp::hosts::host_of;
/// assert_eq!(host_of("claude-code").map(|h| h.name), Some("Claude Code"));
/// assert_eq!(host_of("Codex-MCP-Client").map(|h| h.name), Some("Codex CLI"));
/// assert_eq!(host_of("my-agent"), None);
/// ```
pub fn host_of(client_name: &str) -> Option<&'static Host> {
    HOSTS.iter().find(|host| host.client_names.iter().any(|name| name.eq_ignore_ascii_case(client_name.trim())))
}

/// The budget of a call from `client_name` (none when the client sent no `clientInfo`),
/// as the server's `structured` mode serves it.
///
/// ```
/// use hashline::Budget;
/// use hashline_mcp::StructuredContent;
/// use hashline_mcp::hosts::{UNKNOWN_CLIENT, budget_for};
/// assert_eq!(budget_for(Some("codex-mcp-client"), StructuredContent::Off).bytes, 10_000);
/// assert_eq!(budget_for(Some("someone-else"), StructuredContent::Off), UNKNOWN_CLIENT);
/// // Where the host shows the typed value's JSON, the text's share of the limit is a quarter.
/// assert_eq!(budget_for(Some("claude-code"), StructuredContent::Full).bytes, 43 * 1024 / 4);
/// ```
pub fn budget_for(client_name: Option<&str>, structured: StructuredContent) -> Budget {
    let Some(host) = client_name.and_then(host_of) else { return UNKNOWN_CLIENT };
    match (structured, host.shows_structured) {
        (StructuredContent::Full, true) => Budget::new(host.budget.lines, host.budget.bytes / 4),
        _ => host.budget,
    }
}

/// The server's `--budget`: `auto` (the host's, by [`budget_for`]) or a byte size for every
/// result (`12000`, `48KB`; 1 KB = 1024 bytes), with the default 2000 lines.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BudgetChoice {
    /// Each call gets the budget of the host that connected.
    #[default]
    Auto,
    /// Every call gets this budget.
    Fixed(Budget),
}

impl BudgetChoice {
    /// The budget every call gets, if one is fixed ([`crate::ServerOptions::budget`]).
    pub fn fixed(self) -> Option<Budget> {
        match self {
            Self::Auto => None,
            Self::Fixed(budget) => Some(budget),
        }
    }
}

/// ```
/// use hashline::Budget;
/// use hashline_mcp::hosts::BudgetChoice;
/// assert_eq!("auto".parse(), Ok(BudgetChoice::Auto));
/// assert_eq!("48KB".parse::<BudgetChoice>().unwrap().fixed().unwrap().bytes, 48 * 1024);
/// assert_eq!("12000".parse::<BudgetChoice>().unwrap().fixed(), Some(Budget::new(2000, 12_000)));
/// assert!("1".parse::<BudgetChoice>().is_err());
/// assert!("ten".parse::<BudgetChoice>().is_err());
/// ```
impl std::str::FromStr for BudgetChoice {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let text = text.trim();
        if text.eq_ignore_ascii_case("auto") {
            return Ok(Self::Auto);
        }
        let lower = text.to_ascii_lowercase();
        let (digits, unit) = match lower.strip_suffix("kb").or_else(|| lower.strip_suffix('k')) {
            Some(digits) => (digits.trim(), 1024),
            None => (lower.strip_suffix('b').unwrap_or(&lower).trim(), 1),
        };
        let bytes = digits
            .parse::<usize>()
            .ok()
            .and_then(|n| n.checked_mul(unit))
            .ok_or_else(|| format!("expected `auto` or a size such as 12000 or 48KB, not `{text}`"))?;
        if !(Budget::MIN_BYTES..=Budget::MAX_BYTES).contains(&bytes) {
            return Err(format!(
                "a budget of {bytes} bytes is outside {}..={} bytes",
                Budget::MIN_BYTES,
                Budget::MAX_BYTES
            ));
        }
        Ok(Self::Fixed(Budget::new(Budget::DEFAULT.lines, bytes)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_budget_leaves_room_under_its_hosts_limit() {
        for host in HOSTS {
            // A budget in bytes is never more characters; a tenth of the limit is left for
            // what the host wraps around the text.
            assert!(host.budget.bytes * 10 <= host.inline_limit * 9, "{}", host.name);
            assert!(UNKNOWN_CLIENT.bytes <= host.budget.bytes, "{}", host.name);
            assert_eq!(
                Budget::new(host.budget.lines, host.budget.bytes),
                host.budget,
                "{} is within bounds",
                host.name
            );
        }
    }

    #[test]
    fn no_client_name_belongs_to_two_hosts() {
        let names: Vec<&str> = HOSTS.iter().flat_map(|h| h.client_names.iter().copied()).collect();
        for name in &names {
            assert_eq!(names.iter().filter(|n| n.eq_ignore_ascii_case(name)).count(), 1, "{name}");
        }
    }
}
