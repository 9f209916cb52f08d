//! `docs/protocol.md` lists the languages of the registry (§4.8) between the markers
//! `<!-- languages -->` and `<!-- /languages -->`; this test keeps that table equal to the
//! registry, so a language added to `hashline-syntax` cannot go undocumented. On a mismatch
//! it prints the table to paste (`HASHLINE_UPDATE_DOCS=1` writes it in place instead).

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

#[test]
fn the_protocol_lists_every_registry_language() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/protocol.md");
    let doc = std::fs::read_to_string(path).expect("docs/protocol.md");
    let start = doc.find("<!-- languages -->\n").expect("the opening marker") + "<!-- languages -->\n".len();
    let end = doc.find("<!-- /languages -->").expect("the closing marker");
    let want = table();
    if std::env::var_os("HASHLINE_UPDATE_DOCS").is_some() && doc[start..end] != want {
        std::fs::write(path, format!("{}{want}{}", &doc[..start], &doc[end..])).expect("docs/protocol.md written");
        return;
    }
    assert!(
        doc[start..end] == want,
        "docs/protocol.md's language table is not the registry's; it should read:\n\n{want}"
    );
}
