//! Commits two files at once beneath a root, all or none, and prints the backend.
//!
//! `cargo run -p hashline-fs --example commit` (add `HASHLINE_FS_BACKEND=portable` to run
//! what macOS runs).

use std::path::Path;

use hashline_fs::{Journal, Member, RootDir, Target, atomic};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let root = RootDir::open(&dir.path().canonicalize()?)?;
    let names = ["src/a.txt", "src/b.txt"];
    let targets = names
        .iter()
        .map(|name| Target::open(&root, Path::new(name), &root.path().join(name), true))
        .collect::<Result<Vec<_>, _>>()?;
    let members: Vec<Member<'_>> = targets
        .iter()
        .map(|target| Member { target, old: b"", new: b"one\ntwo\n", check: false, remove: false })
        .collect();
    let states = atomic::commit(&Journal::new(&root), &members, &|_, _| Ok(())).map_err(|(_, err)| err)?;
    for (name, state) in names.iter().zip(states) {
        let bytes = hashline_fs::read_beneath(&root, Path::new(name))?;
        println!("{name}: {state:?}, {} bytes", bytes.len());
    }
    println!("backend: {}", hashline_fs::backend().name());
    Ok(())
}
