//! Changes to Codex's `config.toml`, made in place (toml_edit keeps comments, order and
//! formatting): the table `[mcp_servers.hashline]`, and taking it back.

use anyhow::{Context, Result, bail};
use toml_edit::{DocumentMut, Item, Table, value};

/// The file's text with `[<table>.<key>]` holding `command` and `args` (`remove`: without
/// it). `None`: the file held nothing else and is not needed.
pub fn apply(
    text: Option<&str>,
    table: &str,
    key: &str,
    command: &str,
    args: &[&str],
    remove: bool,
) -> Result<Option<String>> {
    let source = text.unwrap_or("");
    let mut doc: DocumentMut = source.parse().context("it is not valid TOML")?;
    if remove {
        let Some(servers) = doc.get_mut(table) else { return Ok(text.map(str::to_owned)) };
        // `[mcp_servers]` written out stays; one only implied by its sub-tables goes with the
        // last of them.
        let implied = servers.as_table().is_some_and(Table::is_implicit);
        let Some(servers) = servers.as_table_like_mut() else { return Ok(text.map(str::to_owned)) };
        if servers.remove(key).is_none() {
            return Ok(text.map(str::to_owned));
        }
        if servers.is_empty() && implied {
            doc.remove(table);
        }
        let out = doc.to_string();
        if out.trim().is_empty() && text.is_some() {
            return Ok(None);
        }
        return Ok(Some(out));
    }
    let servers = doc.entry(table).or_insert_with(|| {
        let mut t = Table::new();
        t.set_implicit(true);
        Item::Table(t)
    });
    let Some(servers) = servers.as_table_mut() else {
        bail!("`{table}` is not a table");
    };
    let mut entry = Table::new();
    entry.insert("command", value(command));
    let mut list = toml_edit::Array::new();
    for arg in args {
        list.push(*arg);
    }
    entry.insert("args", value(list));
    let same = servers.get(key).and_then(Item::as_table).is_some_and(|old| {
        old.get("command").and_then(Item::as_str) == Some(command)
            && old
                .get("args")
                .and_then(Item::as_array)
                .is_some_and(|a| a.iter().map(|v| v.as_str()).eq(args.iter().map(|a| Some(*a))))
            && old.len() == 2
    });
    if !same {
        servers.insert(key, Item::Table(entry));
    }
    Ok(Some(doc.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(before: &str) -> String {
        let added = apply(Some(before), "mcp_servers", "hashline", "/bin/hashline", &["mcp"], false).unwrap().unwrap();
        let again = apply(Some(&added), "mcp_servers", "hashline", "/bin/hashline", &["mcp"], false).unwrap().unwrap();
        assert_eq!(again, added);
        let back = apply(Some(&added), "mcp_servers", "hashline", "/bin/hashline", &["mcp"], true).unwrap();
        assert_eq!(back.as_deref(), Some(before), "from:\n{added}");
        added
    }

    #[test]
    fn the_table_joins_the_file_and_leaves_as_it_came() {
        let added = round_trip("# mine\nmodel = \"o5\"\n\n[mcp_servers.other]\ncommand = \"x\"\n");
        assert!(added.contains("[mcp_servers.hashline]\ncommand = \"/bin/hashline\"\nargs = [\"mcp\"]"), "{added}");
        round_trip("model = \"o5\"\n");
        round_trip("[mcp_servers]\n");
        round_trip("[ mcp_servers ] # mine\n");
    }

    #[test]
    fn a_file_of_its_own_is_not_needed_after_it() {
        let made = apply(None, "mcp_servers", "hashline", "h", &["mcp"], false).unwrap().unwrap();
        assert_eq!(made, "[mcp_servers.hashline]\ncommand = \"h\"\nargs = [\"mcp\"]\n");
        assert_eq!(apply(Some(&made), "mcp_servers", "hashline", "h", &["mcp"], true).unwrap(), None);
    }

    #[test]
    fn invalid_toml_is_refused() {
        assert!(apply(Some("model = \n"), "mcp_servers", "hashline", "h", &["mcp"], false).is_err());
        assert!(apply(Some("mcp_servers = 3\n"), "mcp_servers", "hashline", "h", &["mcp"], false).is_err());
    }
}
