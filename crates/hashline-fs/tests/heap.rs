//! `heap::release_free_memory` gives a thread's freed memory back to the system: the pages
//! of large blocks freed on another thread, behind a block still in use (which keeps glibc
//! from shrinking that arena by itself), leave the process's resident set. One test in its
//! own program, so that no other test's allocations move the figures.

/// The process's resident set in KiB (`VmRSS` in `/proc/self/status`: no page size to know).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn resident_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("status");
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).expect("VmRSS");
    line.split_whitespace().nth(1).and_then(|kib| kib.parse().ok()).expect("resident KiB")
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn memory_freed_on_another_thread_leaves_the_resident_set() {
    const BLOCKS: usize = 512;
    const BLOCK: usize = 64 << 10; // below the allocator's mmap threshold: from the arena
    // On another thread (its own arena), as a search's worker parses a large file: 32 MiB
    // in blocks with a small block that stays in use after every 64th (the allocator cannot
    // shrink its arena past one), then the blocks freed.
    let pins = std::thread::spawn(|| {
        let mut blocks = Vec::with_capacity(BLOCKS);
        let mut pins = Vec::new();
        for i in 0..BLOCKS {
            blocks.push(vec![i as u8 | 1; BLOCK]);
            if i % 64 == 63 {
                pins.push(vec![7u8; 2048]);
            }
        }
        drop(blocks);
        pins
    })
    .join()
    .expect("thread");
    let held = resident_kib();
    hashline_fs::heap::release_free_memory();
    let released = resident_kib();
    let mib = (BLOCKS * BLOCK / 1024) as u64;
    assert!(
        held >= released + mib / 2,
        "{held} KiB resident before, {released} KiB after: less than half of the {mib} KiB freed left"
    );
    assert!(pins.iter().all(|pin| pin.iter().all(|b| *b == 7)));
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
#[test]
fn memory_freed_on_another_thread_leaves_the_resident_set() {
    eprintln!("SKIPPED: release_free_memory gives memory back only with glibc's allocator");
}
