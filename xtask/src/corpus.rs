//! The search benchmarks' corpus (SPEC §11): the sources of the workspace's dependencies in
//! cargo's registry folder, copied once into `target/bench-corpus/` and frozen there with a
//! manifest (`MANIFEST.txt`: one line per crate with its file count and bytes). Every machine
//! that built the project has these sources, so every machine can rebuild the same corpus.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use serde_json::Value;

/// The frozen corpus: its directory and what the manifest says.
pub struct Corpus {
    /// The directory holding one folder per crate.
    pub dir: PathBuf,
    /// Crates copied.
    pub crates: usize,
    /// Files copied.
    pub files: u64,
    /// Bytes copied.
    pub bytes: u64,
}

/// Freezes the corpus below `target/` (or reuses it when its manifest is there).
pub fn freeze(root: &Path) -> Result<Corpus> {
    let dir = root.join("target/bench-corpus");
    let manifest = dir.join("MANIFEST.txt");
    if let Ok(text) = fs::read_to_string(&manifest) {
        return parse_manifest(&dir, &text);
    }
    let sources = registry_sources(root)?;
    if sources.is_empty() {
        bail!("cargo metadata lists no registry dependencies; build the project once first");
    }
    let data = dir.join("crates");
    fs::remove_dir_all(&dir).ok();
    fs::create_dir_all(&data).context("cannot create the corpus directory")?;
    let mut lines = Vec::new();
    let (mut files, mut bytes) = (0u64, 0u64);
    for (name, source) in &sources {
        let (f, b) = copy_tree(source, &data.join(name))?;
        files += f;
        bytes += b;
        lines.push(format!("{name} {f} {b}"));
    }
    lines.sort();
    let text = format!(
        "# hashline bench corpus: the workspace's registry dependencies (crate files bytes)\n# total {} {files} {bytes}\n{}\n",
        sources.len(),
        lines.join("\n")
    );
    fs::write(&manifest, &text).context("cannot write the corpus manifest")?;
    parse_manifest(&dir, &text)
}

fn parse_manifest(dir: &Path, text: &str) -> Result<Corpus> {
    let total = text.lines().find_map(|l| l.strip_prefix("# total ")).context("corpus manifest without a total")?;
    let numbers: Vec<u64> = total.split_whitespace().filter_map(|n| n.parse().ok()).collect();
    let [crates, files, bytes] = numbers[..] else { bail!("malformed corpus manifest total: {total}") };
    Ok(Corpus { dir: dir.join("crates"), crates: crates as usize, files, bytes })
}

/// `name-version` and source directory of every registry package in the dependency graph.
fn registry_sources(root: &Path) -> Result<Vec<(String, PathBuf)>> {
    let out = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned()))
        .args(["metadata", "--format-version", "1", "--locked"])
        .current_dir(root)
        .output()
        .context("cannot run cargo metadata")?;
    if !out.status.success() {
        bail!("cargo metadata failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    let metadata: Value = serde_json::from_slice(&out.stdout).context("cargo metadata printed no JSON")?;
    let mut sources = Vec::new();
    for package in metadata["packages"].as_array().into_iter().flatten() {
        let registry = package["source"].as_str().is_some_and(|s| s.starts_with("registry+"));
        let manifest = package["manifest_path"].as_str().map(Path::new);
        if let (true, Some(dir)) = (registry, manifest.and_then(Path::parent))
            && dir.is_dir()
        {
            let name =
                format!("{}-{}", package["name"].as_str().unwrap_or("?"), package["version"].as_str().unwrap_or("?"));
            sources.push((name, dir.to_path_buf()));
        }
    }
    sources.sort();
    sources.dedup();
    Ok(sources)
}

/// Copies regular files and directories (not symlinks); returns (files, bytes).
fn copy_tree(from: &Path, to: &Path) -> Result<(u64, u64)> {
    mirror_tree(from, to, &|from, to| fs::copy(from, to).map(drop))
}

/// The bounded sub-corpus of the structural-search comparison: every `stride`-th crate of
/// the frozen corpus (in name order), the stride chosen so that about `rust_bytes` of `.rs`
/// sources are kept, hard-linked (or copied) into `target/bench-corpus/ast/crates/` with its
/// own `MANIFEST.txt`. Both `ast-grep` and ours search this same folder.
pub fn rust_subset(corpus: &Corpus, rust_bytes: u64) -> Result<(Corpus, u64)> {
    let base = corpus.dir.parent().context("corpus folder without a parent")?.join("ast");
    let manifest = base.join("MANIFEST.txt");
    if let Ok(text) = fs::read_to_string(&manifest) {
        let kept = text
            .lines()
            .find_map(|l| l.strip_prefix("# rust "))
            .and_then(|n| n.trim().parse().ok())
            .context("sub-corpus manifest without its Rust bytes")?;
        return Ok((parse_manifest(&base, &text)?, kept));
    }
    let mut crates: Vec<(String, u64)> = Vec::new();
    for entry in fs::read_dir(&corpus.dir).context("cannot list the corpus")? {
        let entry = entry?;
        if entry.file_type()?.is_dir() {
            crates.push((entry.file_name().to_string_lossy().into_owned(), rust_size(&entry.path())?));
        }
    }
    crates.sort();
    let total: u64 = crates.iter().map(|(_, b)| b).sum();
    let stride = total.div_ceil(rust_bytes.max(1)).max(1) as usize;
    let data = base.join("crates");
    fs::remove_dir_all(&base).ok();
    fs::create_dir_all(&data).context("cannot create the sub-corpus folder")?;
    let (mut files, mut bytes, mut kept) = (0u64, 0u64, 0u64);
    let mut lines = Vec::new();
    for (name, rust) in crates.iter().step_by(stride) {
        let (f, b) = link_tree(&corpus.dir.join(name), &data.join(name))?;
        files += f;
        bytes += b;
        kept += rust;
        lines.push(format!("{name} {f} {b}"));
    }
    let text = format!(
        "# hashline structural-search sub-corpus: every {stride}th crate of ../MANIFEST.txt (crate files bytes)\n# total {} {files} {bytes}\n# rust {kept}\n{}\n",
        lines.len(),
        lines.join("\n")
    );
    fs::write(&manifest, &text).context("cannot write the sub-corpus manifest")?;
    Ok((parse_manifest(&base, &text)?, kept))
}

/// The large generated tree of the search benchmarks: numbered copies of the frozen corpus
/// (`target/bench-corpus-large/crates/copy00/`, `copy01/`, ...; real copies, not hard links, so that
/// no file has several names) until it holds at least `min_files` files and `min_bytes`
/// bytes. Deterministic: the same corpus gives the same tree. Reused when its manifest is there.
pub fn replicate(corpus: &Corpus, min_files: u64, min_bytes: u64) -> Result<Corpus> {
    let base = corpus.dir.parent().and_then(Path::parent).context("corpus folder without a parent")?;
    let dir = base.join("bench-corpus-large");
    let manifest = dir.join("MANIFEST.txt");
    if let Ok(text) = fs::read_to_string(&manifest) {
        return parse_manifest(&dir, &text);
    }
    fs::remove_dir_all(&dir).ok();
    let (mut files, mut bytes, mut copies) = (0u64, 0u64, 0usize);
    let mut lines = Vec::new();
    while files < min_files || bytes < min_bytes {
        if corpus.files == 0 {
            bail!("the corpus is empty");
        }
        let name = format!("copy{copies:02}");
        let (f, b) = copy_tree(&corpus.dir, &dir.join("crates").join(&name))?;
        files += f;
        bytes += b;
        copies += 1;
        lines.push(format!("{name} {f} {b}"));
    }
    let text = format!(
        "# hashline large search tree: numbered copies of ../../bench-corpus/crates (copy files bytes)\n# total {copies} {files} {bytes}\n{}\n",
        lines.join("\n")
    );
    fs::write(&manifest, &text).context("cannot write the large tree's manifest")?;
    parse_manifest(&dir, &text)
}

/// Bytes of the `.rs` files below `dir`.
fn rust_size(dir: &Path) -> Result<u64> {
    let mut bytes = 0;
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        if kind.is_dir() {
            bytes += rust_size(&entry.path())?;
        } else if kind.is_file() && entry.path().extension().is_some_and(|e| e == "rs") {
            bytes += entry.metadata()?.len();
        }
    }
    Ok(bytes)
}

/// Hard-links (or, across devices, copies) regular files and directories; returns (files,
/// bytes).
fn link_tree(from: &Path, to: &Path) -> Result<(u64, u64)> {
    mirror_tree(from, to, &|from, to| fs::hard_link(from, to).or_else(|_| fs::copy(from, to).map(drop)))
}

/// Recreates the directories below `from` under `to` and puts each regular file there with
/// `place` (symlinks are left out); returns (files, bytes).
fn mirror_tree(from: &Path, to: &Path, place: &dyn Fn(&Path, &Path) -> std::io::Result<()>) -> Result<(u64, u64)> {
    fs::create_dir_all(to)?;
    let (mut files, mut bytes) = (0, 0);
    for entry in fs::read_dir(from).with_context(|| format!("cannot list {}", from.display()))? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let target = to.join(entry.file_name());
        if kind.is_dir() {
            let (f, b) = mirror_tree(&entry.path(), &target, place)?;
            files += f;
            bytes += b;
        } else if kind.is_file() {
            place(&entry.path(), &target)?;
            bytes += entry.metadata()?.len();
            files += 1;
        }
    }
    Ok((files, bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_and_links_mirror_files_and_directories_but_not_symlinks() {
        let dir = tempfile::tempdir().expect("tempdir");
        let from = dir.path().join("from");
        fs::create_dir_all(from.join("sub")).expect("mkdir");
        fs::write(from.join("a.rs"), "abc").expect("write");
        fs::write(from.join("sub/b.txt"), "hello").expect("write");
        #[cfg(unix)]
        std::os::unix::fs::symlink(from.join("a.rs"), from.join("link.rs")).expect("symlink");
        for (name, mirror) in [("copy", copy_tree as fn(&Path, &Path) -> Result<(u64, u64)>), ("link", link_tree)] {
            let to = dir.path().join(name);
            assert_eq!(mirror(&from, &to).expect("mirror"), (2, 8), "{name}");
            assert_eq!(fs::read_to_string(to.join("sub/b.txt")).expect("read"), "hello");
            assert!(!to.join("link.rs").exists(), "{name}: symlinks are left out");
        }
    }
}
