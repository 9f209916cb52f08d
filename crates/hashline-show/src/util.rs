//! Small text helpers shared by the renderers.

/// `path` relative to `root` when it lies below it, else as it is.
pub(crate) fn display_path<'a>(path: &'a str, root: Option<&str>) -> &'a str {
    root.and_then(|root| path.strip_prefix(root))
        .and_then(|rest| rest.strip_prefix('/'))
        .filter(|rest| !rest.is_empty())
        .unwrap_or(path)
}

/// `one` for 1, `many` otherwise.
pub(crate) fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_below_the_root_are_relative() {
        assert_eq!(display_path("/w/a/b.rs", Some("/w")), "a/b.rs");
        assert_eq!(display_path("/wx/a", Some("/w")), "/wx/a");
        assert_eq!(display_path("/w", Some("/w")), "/w");
        assert_eq!(display_path("/w/a", None), "/w/a");
    }
}
