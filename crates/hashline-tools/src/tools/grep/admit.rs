//! Which matches a grep result returns: the first `limit` in path order, then at most
//! [`PER_FILE_CAP`] per file when more than [`PER_FILE_CAP_ABOVE`] were admitted, each with
//! its context lines.

use hashline_search::{FileHits, HitKind, HitLine};

/// Above this many admitted matches, each file shows only its first [`PER_FILE_CAP`].
pub const PER_FILE_CAP_ABOVE: usize = 50;

/// Matches shown per file when more than [`PER_FILE_CAP_ABOVE`] were admitted.
pub const PER_FILE_CAP: usize = 10;

/// One file's share of the result.
#[derive(Debug)]
pub(crate) struct AdmittedFile<'a> {
    /// The file's hits (its path and every kept line).
    pub hits: &'a FileHits,
    /// The lines returned: the shown matches and their context, in line order.
    pub lines: Vec<&'a HitLine>,
    /// Matches admitted under `limit`.
    pub admitted: usize,
    /// Admitted matches the per-file cap left out.
    pub more: usize,
}

/// The files of a result, in path order.
#[derive(Debug, Default)]
pub(crate) struct Admitted<'a> {
    /// Files with at least one admitted match.
    pub files: Vec<AdmittedFile<'a>>,
    /// Matches admitted under `limit` (before the per-file cap).
    pub total: usize,
}

/// Admits the first `limit` matches of `files` (sorted by path; every match counts, kept
/// or not) and applies the per-file cap.
pub(crate) fn admit(files: &[FileHits], limit: usize, context: usize) -> Admitted<'_> {
    let mut shares = Vec::new();
    let mut total = 0usize;
    for hits in files {
        if total == limit {
            break;
        }
        let share = usize::try_from(hits.match_count).unwrap_or(usize::MAX).min(limit - total);
        if share > 0 {
            total += share;
            shares.push((hits, share));
        }
    }
    let cap = if total > PER_FILE_CAP_ABOVE { PER_FILE_CAP } else { usize::MAX };
    let files = shares
        .into_iter()
        .map(|(hits, admitted)| {
            // Fewer kept than admitted: the file's kept bytes ran out (`MAX_KEPT_BYTES`).
            let shown = admitted.min(cap).min(hits.kept_matches());
            AdmittedFile { hits, lines: lines_of(hits, shown, context), admitted, more: admitted - shown }
        })
        .collect();
    Admitted { files, total }
}

/// The first `matches` matching lines of a file and the context lines within `context`
/// lines of one of them.
fn lines_of(hits: &FileHits, matches: usize, context: usize) -> Vec<&HitLine> {
    let kept: Vec<u32> =
        hits.lines.iter().filter(|l| l.kind == HitKind::Match).take(matches).map(|l| l.line.get()).collect();
    lines_near(hits.lines.iter(), &kept, context)
}

/// Of `lines` (in line order), the matches in `kept` (ascending) and the context lines
/// within `context` lines of one of them.
pub(crate) fn lines_near<'a>(
    lines: impl Iterator<Item = &'a HitLine>,
    kept: &[u32],
    context: usize,
) -> Vec<&'a HitLine> {
    let near = |line: u32| {
        let at = kept.partition_point(|&m| m < line);
        let close = |m: u32| m.abs_diff(line) as usize <= context;
        kept.get(at).is_some_and(|&m| close(m)) || (at > 0 && close(kept[at - 1]))
    };
    lines
        .filter(|l| match l.kind {
            HitKind::Match => kept.binary_search(&l.line.get()).is_ok(),
            HitKind::Context => near(l.line.get()),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use hashline_core::LineNo;

    use super::*;

    fn file(name: &str, matches: &[u32], context: &[u32]) -> FileHits {
        let mut lines: Vec<HitLine> = matches
            .iter()
            .map(|&n| (n, HitKind::Match))
            .chain(context.iter().map(|&n| (n, HitKind::Context)))
            .map(|(n, kind)| {
                let line = LineNo::new(n).expect("line");
                HitLine { line, hash: hashline_core::LineHash::of(b"x"), content: b"x".to_vec(), kind, measured: None }
            })
            .collect();
        lines.sort_by_key(|l| l.line);
        FileHits { path: PathBuf::from(name), match_count: matches.len() as u64, lines, bare_cr: false, identity: None }
    }

    fn shape(admitted: &Admitted<'_>) -> Vec<(String, Vec<u32>, usize, usize)> {
        admitted
            .files
            .iter()
            .map(|f| {
                let lines = f.lines.iter().map(|l| l.line.get()).collect();
                (f.hits.path.to_string_lossy().into_owned(), lines, f.admitted, f.more)
            })
            .collect()
    }

    #[test]
    fn limit_takes_matches_in_path_order_with_their_context() {
        let files = [file("a", &[2, 5], &[1, 3, 4, 6]), file("b", &[7, 9], &[8, 10]), file("c", &[1], &[])];
        let admitted = admit(&files, 3, 1);
        assert_eq!(admitted.total, 3);
        assert_eq!(shape(&admitted), [("a".into(), vec![1, 2, 3, 4, 5, 6], 2, 0), ("b".into(), vec![7, 8], 1, 0)]);
    }

    #[test]
    fn above_fifty_each_file_shows_ten() {
        let many: Vec<u32> = (1..=40).map(|n| n * 3).collect();
        let files = [file("a", &many, &[]), file("b", &many, &[])];
        let admitted = admit(&files, 100, 0);
        assert_eq!(admitted.total, 80);
        let shape = shape(&admitted);
        assert_eq!(shape[0].1, (1..=10).map(|n| n * 3).collect::<Vec<_>>());
        assert_eq!((shape[0].2, shape[0].3), (40, 30));
        let admitted = admit(&files[..1], 50, 0);
        assert_eq!((admitted.total, admitted.files[0].lines.len()), (40, 40));
    }
}
