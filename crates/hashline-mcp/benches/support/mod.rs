//! What the stdio benches share: the server binary, and a connection to it after the
//! handshake.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::json;

/// The release `hashline` (or `HASHLINE_BIN`), which must be built.
pub fn server_binary() -> PathBuf {
    let binary = std::env::var_os("HASHLINE_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/release/hashline"));
    assert!(binary.is_file(), "build the server first: cargo build --release -p hashline-cli ({})", binary.display());
    binary
}

/// The server's `--structured-content`: `STRUCTURED` (`off`, the server's default, or
/// `full`).
pub fn structured() -> String {
    std::env::var("STRUCTURED").unwrap_or_else(|_| "off".to_owned())
}

/// `hashline mcp --root ROOT --structured-content $STRUCTURED` over pipes, initialized.
pub fn start(binary: &Path, root: &Path) -> (Child, ChildStdin, BufReader<ChildStdout>) {
    let mut child = Command::new(binary)
        .args(["mcp", "--structured-content", &structured(), "--root"])
        .arg(root)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn hashline mcp");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}});
    writeln!(stdin, "{init}").expect("send");
    writeln!(stdin, "{}", json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).expect("send");
    stdin.flush().expect("flush");
    let mut line = String::new();
    stdout.read_line(&mut line).expect("initialize answer");
    assert!(line.contains("\"serverInfo\""), "{line}");
    (child, stdin, stdout)
}
