//! Every fuzz target on its committed seed corpus, on every regression input (crashes the
//! fuzzer found, kept as files), and on random bytes: the targets are tests too.

use std::path::PathBuf;

use proptest::prelude::*;

/// `fuzz/<kind>/<target>/*`, sorted.
fn inputs(kind: &str, target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fuzz").join(kind).join(target);
    let Ok(entries) = std::fs::read_dir(&dir) else { return Vec::new() };
    let mut files: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.is_file()).collect();
    files.sort();
    files.into_iter().map(|p| (p.clone(), std::fs::read(&p).expect("read input"))).collect()
}

#[test]
fn every_target_has_a_seed_corpus_and_passes_it() {
    for (name, target) in hashline_fuzz::TARGETS {
        let seeds = inputs("corpus", name);
        assert!(!seeds.is_empty(), "fuzz/corpus/{name} holds no seeds");
        for (path, bytes) in seeds {
            let outcome = std::panic::catch_unwind(|| target(&bytes));
            assert!(outcome.is_ok(), "{name} failed on {}", path.display());
        }
    }
}

#[test]
fn every_regression_input_passes() {
    for (name, target) in hashline_fuzz::TARGETS {
        for (path, bytes) in inputs("regressions", name) {
            let outcome = std::panic::catch_unwind(|| target(&bytes));
            assert!(outcome.is_ok(), "{name} failed on {}", path.display());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn targets_hold_on_random_bytes(data in proptest::collection::vec(any::<u8>(), 0..512)) {
        for (_, target) in hashline_fuzz::TARGETS {
            target(&data);
        }
    }
}
