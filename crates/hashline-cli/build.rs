//! The `hashline` binary is a position-independent executable (PIE) by default: the C
//! grammars parse untrusted files, and with PIE the address of the binary's own code is
//! randomised like that of its libraries, heap and stack, so a memory-safety bug in one of
//! them is much harder to exploit (docs/decisions/009-pie.md).
//!
//! `HASHLINE_NO_PIE=1` at build time links it position-dependent on Linux instead: the
//! dynamic loader then has no relative relocations to apply at start-up (a PIE build has
//! about 26,000, touching some 130 pages before `main`), about 1.4 ms less per short call
//! (docs/benchmarks.md), at the cost of that randomisation. The code is still compiled
//! position-independent; only the final link differs. A static build (`-C
//! target-feature=+crt-static`) is linked by rustc itself; `-no-pie` is never added there.

fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    let features = std::env::var("CARGO_CFG_TARGET_FEATURE").unwrap_or_default();
    let crt_static = features.split(',').any(|f| f == "crt-static");
    if os == "linux" && env == "gnu" && !crt_static && std::env::var_os("HASHLINE_NO_PIE").is_some() {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
    println!("cargo:rerun-if-env-changed=HASHLINE_NO_PIE");
}
