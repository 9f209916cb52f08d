//! `fuzz/` is a workspace of its own with its own `Cargo.lock`, and `.ci/run` builds it with
//! `--locked`: a dependency added to a workspace crate must reach that lock too, or CI fails
//! late, at the fuzzing step. This checks it with the rest of the tests.

use std::path::Path;
use std::process::Command;

#[test]
fn the_fuzz_lock_file_is_up_to_date() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/Cargo.toml");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--locked", "--manifest-path"])
        .arg(&manifest)
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "fuzz/Cargo.lock is stale (run `cargo tree --manifest-path fuzz/Cargo.toml` and commit it):\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}
