//! `docs/protocol.md` lists the languages of the registry (§4.8) between the markers
//! `<!-- languages -->` and `<!-- /languages -->`, and the README names them between the same
//! markers; this test keeps both equal to the registry, so a language added to
//! `hashline-syntax` cannot go undocumented. On a mismatch it prints what should stand there
//! (`HASHLINE_UPDATE_DOCS=1` writes it in place instead).

use hashline_syntax::LanguageId;

/// The table the registry gives.
fn table() -> String {
    let mut out = String::from("| language | `lang` | files | aliases |\n|---|---|---|---|\n");
    for &lang in LanguageId::ALL {
        let spec = lang.spec();
        let mut files: Vec<String> = spec.extensions.iter().map(|e| format!("`.{e}`")).collect();
        files.extend(spec.file_names.iter().map(|f| format!("`{f}`")));
        let mut lang_cell = format!("`{}`", spec.name);
        for also in spec.also_searches {
            lang_cell.push_str(&format!(" (also searches {} files)", also.display_name()));
        }
        let aliases: Vec<String> = spec.aliases.iter().map(|a| format!("`{a}`")).collect();
        out.push_str(&format!(
            "| {} | {lang_cell} | {} | {} |\n",
            spec.display_name.replace('#', "\\#"),
            files.join(" "),
            if aliases.is_empty() { "—".to_owned() } else { aliases.join(" ") }
        ));
    }
    out
}

/// The README's list: the display names, comma-separated, on one line.
fn list() -> String {
    let names: Vec<&str> = LanguageId::ALL.iter().map(|l| l.display_name()).collect();
    format!("{} ({} languages).\n", names.join(", "), names.len())
}

/// Checks (or, with `HASHLINE_UPDATE_DOCS`, writes) what stands between the markers of `file`.
fn between_markers(file: &str, want: &str) {
    let path = format!("{}/../../{file}", env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("{file}: {err}"));
    let open = "<!-- languages -->\n";
    let start = doc.find(open).unwrap_or_else(|| panic!("{file}: the opening marker")) + open.len();
    let end = doc.find("<!-- /languages -->").unwrap_or_else(|| panic!("{file}: the closing marker"));
    if std::env::var_os("HASHLINE_UPDATE_DOCS").is_some() && doc[start..end] != *want {
        std::fs::write(&path, format!("{}{want}{}", &doc[..start], &doc[end..])).expect("written");
        return;
    }
    assert!(doc[start..end] == *want, "{file}'s language list is not the registry's; it should read:\n\n{want}");
}

#[test]
fn the_protocol_lists_every_registry_language() {
    between_markers("docs/protocol.md", &table());
}

#[test]
fn the_readme_names_every_registry_language() {
    between_markers("README.md", &list());
}
