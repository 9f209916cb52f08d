//! Links the `hashline` binary as a position-dependent executable on Linux: the dynamic
//! loader then has no relative relocations to apply at start-up (a PIE build of this
//! binary has about 26,000, touching some 130 pages before `main`), which is a large part
//! of a short call's wall time (docs/benchmarks.md). The code is still compiled
//! position-independent; only the final link differs.

fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" && std::env::var_os("HASHLINE_PIE").is_none() {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
    println!("cargo:rerun-if-env-changed=HASHLINE_PIE");
}
