//! The registry agrees with `hashline_view::lang_from_path` (the UI's syntax hint) on every
//! extension both know, except `.h`: the view hints C, the registry parses C++ (SPEC §6.1).

use hashline_syntax::LanguageId;
use hashline_view::lang_from_path;

#[test]
fn every_extension_the_view_knows_names_the_same_language() {
    for &lang in LanguageId::ALL {
        for ext in lang.extensions() {
            let path = format!("dir/file.{ext}");
            let Some(hint) = lang_from_path(&path) else { continue };
            if *ext == "h" {
                assert_eq!((hint, lang), ("c", LanguageId::Cpp));
                continue;
            }
            let from_hint = LanguageId::from_name(hint);
            // The view has no TSX/JSX grammar split: `jsx` is JavaScript in both.
            assert_eq!(from_hint, Some(lang), "{path}: view says {hint}");
        }
    }
}

#[test]
fn every_view_hint_with_a_grammar_is_in_the_registry() {
    for ext in
        ["rs", "c", "cc", "cpp", "hpp", "cxx", "py", "js", "jsx", "mjs", "cjs", "ts", "mts", "cts", "tsx", "java", "go"]
    {
        let path = format!("f.{ext}");
        assert!(lang_from_path(&path).is_some(), "{ext}");
        assert!(LanguageId::from_path(&path).is_some(), "{ext}");
    }
}
