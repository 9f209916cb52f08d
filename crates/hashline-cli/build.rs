//! Links the `hashline` binary as a position-dependent executable on Linux: the dynamic
//! loader then has no relative relocations to apply at start-up (a PIE build of this
//! binary has about 26,000, touching some 130 pages before `main`), which is a large part
//! of a short call's wall time (docs/benchmarks.md). The code is still compiled
//! position-independent; only the final link differs.
//!
//! A static build (`-C target-feature=+crt-static -C relocation-model=static`, the README's
//! install command) is linked by rustc itself, without the dynamic loader at all; `-no-pie`
//! is left out there (with a static-PIE link it would make a binary that cannot start).

fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    let features = std::env::var("CARGO_CFG_TARGET_FEATURE").unwrap_or_default();
    let crt_static = features.split(',').any(|f| f == "crt-static");
    if os == "linux" && env == "gnu" && !crt_static && std::env::var_os("HASHLINE_PIE").is_none() {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
    println!("cargo:rerun-if-env-changed=HASHLINE_PIE");
}
