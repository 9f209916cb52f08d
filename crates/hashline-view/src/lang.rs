//! The syntax hint of a path: a small fixed table from file extension to language id.

/// The syntax-highlighting language id of `path`, from its extension, or `None`.
///
/// The extension is read after the last `/` or `\` and the last `.` of that name, compared
/// case-insensitively; only the last extension counts. Dotfiles (`.gitignore`), names without
/// a dot (`/etc/hosts`), a trailing dot and unknown extensions give `None`, so a UI renders
/// plain text. The table is a display hint, deliberately small: adding a language is one line.
///
/// ```
/// use hashline_view::lang_from_path;
///
/// assert_eq!(lang_from_path("src/a.TSX"), Some("tsx"));
/// assert_eq!(lang_from_path(r"C:\src\main.rs"), Some("rs"));
/// assert_eq!(lang_from_path("archive.tar.gz"), None);
/// ```
pub fn lang_from_path(path: &str) -> Option<&'static str> {
    let base = path.rsplit(['/', '\\']).next().unwrap_or(path);
    match base.rfind('.') {
        Some(dot) if dot > 0 => lang_of_extension(&base[dot + 1..].to_ascii_lowercase()),
        _ => None,
    }
}

/// The table: a lower-case extension to its language id (43 entries).
fn lang_of_extension(ext: &str) -> Option<&'static str> {
    Some(match ext {
        "ts" | "mts" | "cts" => "ts",
        "tsx" => "tsx",
        "js" | "mjs" | "cjs" => "js",
        "jsx" => "jsx",
        "json" | "jsonc" => "json",
        "py" => "py",
        "rb" => "rb",
        "go" => "go",
        "rs" => "rs",
        "java" => "java",
        "kt" => "kotlin",
        "c" | "h" => "c",
        "cc" | "cpp" | "hpp" | "cxx" => "cpp",
        "cs" => "cs",
        "swift" => "swift",
        "php" => "php",
        "sh" | "bash" | "zsh" => "sh",
        "yaml" | "yml" => "yaml",
        "toml" => "toml",
        "ini" => "ini",
        "md" | "markdown" => "md",
        "mdx" => "mdx",
        "html" | "htm" => "html",
        "css" => "css",
        "scss" => "scss",
        "less" => "less",
        "sql" => "sql",
        "xml" => "xml",
        "lua" => "lua",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table of `render-intent.md` §3.4, verbatim.
    const TABLE: [(&str, &str); 43] = [
        ("ts", "ts"),
        ("tsx", "tsx"),
        ("mts", "ts"),
        ("cts", "ts"),
        ("js", "js"),
        ("jsx", "jsx"),
        ("mjs", "js"),
        ("cjs", "js"),
        ("php", "php"),
        ("htm", "html"),
        ("sql", "sql"),
        ("json", "json"),
        ("jsonc", "json"),
        ("py", "py"),
        ("rb", "rb"),
        ("go", "go"),
        ("rs", "rs"),
        ("java", "java"),
        ("kt", "kotlin"),
        ("markdown", "md"),
        ("css", "css"),
        ("xml", "xml"),
        ("c", "c"),
        ("h", "c"),
        ("cc", "cpp"),
        ("cpp", "cpp"),
        ("hpp", "cpp"),
        ("cxx", "cpp"),
        ("cs", "cs"),
        ("swift", "swift"),
        ("mdx", "mdx"),
        ("scss", "scss"),
        ("lua", "lua"),
        ("sh", "sh"),
        ("bash", "sh"),
        ("zsh", "sh"),
        ("yaml", "yaml"),
        ("yml", "yaml"),
        ("toml", "toml"),
        ("ini", "ini"),
        ("md", "md"),
        ("html", "html"),
        ("less", "less"),
    ];

    #[test]
    fn every_table_entry_maps_as_documented() {
        for (ext, lang) in TABLE {
            assert_eq!(lang_from_path(&format!("dir/file.{ext}")), Some(lang), "{ext}");
            let upper = format!("FILE.{}", ext.to_ascii_uppercase());
            assert_eq!(lang_from_path(&upper), Some(lang), "{upper}");
        }
    }

    #[test]
    fn the_table_has_43_distinct_extensions() {
        let mut exts: Vec<_> = TABLE.iter().map(|(ext, _)| ext).collect();
        exts.sort_unstable();
        exts.dedup();
        assert_eq!(exts.len(), 43);
    }

    #[test]
    fn maps_the_documented_examples() {
        assert_eq!(lang_from_path("src/a.ts"), Some("ts"));
        assert_eq!(lang_from_path("src/a.TSX"), Some("tsx"));
        assert_eq!(lang_from_path("/abs/module.mjs"), Some("js"));
        assert_eq!(lang_from_path("conf.yml"), Some("yaml"));
        assert_eq!(lang_from_path("README.md"), Some("md"));
    }

    #[test]
    fn both_separators_count() {
        assert_eq!(lang_from_path(r"C:\src\main.rs"), Some("rs"));
        assert_eq!(lang_from_path(r"C:\src/dir.py\plain"), None);
        assert_eq!(lang_from_path(r"a\b.c/d.go"), Some("go"));
    }

    #[test]
    fn an_unknown_extension_gives_none() {
        assert_eq!(lang_from_path("data.unknownext"), None);
        assert_eq!(lang_from_path("notes.txt"), None);
    }

    #[test]
    fn dotfiles_names_without_a_dot_and_trailing_dots_give_none() {
        assert_eq!(lang_from_path(".gitignore"), None);
        assert_eq!(lang_from_path("dir/.bashrc"), None);
        assert_eq!(lang_from_path("/etc/hosts"), None);
        assert_eq!(lang_from_path("trailingdot."), None);
        assert_eq!(lang_from_path(""), None);
        assert_eq!(lang_from_path("dir/"), None);
    }

    #[test]
    fn only_the_last_extension_counts() {
        assert_eq!(lang_from_path("a.py.bak"), None);
        assert_eq!(lang_from_path("archive.tar.gz"), None);
        assert_eq!(lang_from_path("/dir.py/plain"), None);
        assert_eq!(lang_from_path("x.bak.py"), Some("py"));
    }

    #[test]
    fn object_member_names_are_not_extensions() {
        for name in ["foo.constructor", "foo.__proto__", "foo.toString", "foo.hasOwnProperty"] {
            assert_eq!(lang_from_path(name), None, "{name}");
        }
    }

    #[test]
    fn non_ascii_names_do_not_panic() {
        assert_eq!(lang_from_path("dossier/ré.sumé.RS"), Some("rs"));
        assert_eq!(lang_from_path("日本.語"), None);
    }
}
