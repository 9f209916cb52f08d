"""Records a session of N tool calls (default 2,000) through `hashline batch --log`.

A scratch workspace of small Rust files is read whole and in windows, edited, listed,
searched, written, and asked for files that do not exist, in a fixed rotation, so the log
holds every card kind with real tool output.

    python3 tests/browser/make_big_log.py HASHLINE_BIN OUT.jsonl [N]
"""

import json
import subprocess
import sys
import tempfile
from pathlib import Path

FILES = 50
LINES = 40


def source(k: int, version: int) -> str:
    lines = [f"//! Module {k}.", "", f"pub const VALUE_{k}: u32 = {version};", ""]
    for i in range(LINES - len(lines)):
        lines.append(f"pub fn f{k}_{i}(x: u32) -> u32 {{ x * {i} + VALUE_{k} }}")
    return "\n".join(lines) + "\n"


def requests(n: int):
    versions = {k: 0 for k in range(FILES)}
    for i in range(n):
        k = (i // 10) % FILES
        path = f"src/m{k}.rs"
        step = i % 10
        if step in (0, 8):
            yield "read", {"path": path}
        elif step == 1:
            yield "read", {"path": path, "offset": 10, "limit": 12}
        elif step == 2:
            old = versions[k]
            versions[k] += 1
            yield "edit", {"path": path, "edits": [{"replace": {
                "old_text": f"VALUE_{k}: u32 = {old};", "new_text": f"VALUE_{k}: u32 = {old + 1};"}}]}
        elif step == 3:
            yield "ls", {"path": "src"}
        elif step == 4:
            yield "find", {"pattern": f"m{k}*.rs"}
        elif step == 5:
            yield "read", {"path": f"src/missing{k}.rs"}
        elif step == 6:
            yield "write", {"path": f"notes/n{i}.md", "content": f"# Note {i}\n\nAbout `m{k}`.\n"}
        elif step == 7:
            yield "edit", {"path": path, "edits": [{"set_line": {"anchor": "3:000", "new_text": "x"}}]}
        else:
            yield "edit", {"path": path, "edits": [{"replace": {"old_text": "no such text", "new_text": "y"}}]}


def main() -> None:
    binary, out = sys.argv[1], Path(sys.argv[2]).resolve()
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 2000
    out.unlink(missing_ok=True)
    with tempfile.TemporaryDirectory() as work:
        src = Path(work, "src")
        src.mkdir()
        for k in range(FILES):
            (src / f"m{k}.rs").write_text(source(k, 0))
        lines = "".join(json.dumps({"tool": t, "args": a}) + "\n" for t, a in requests(n))
        run = subprocess.run([binary, "--root", work, "--log", str(out), "batch"], input=lines,
                             capture_output=True, text=True, check=False)
        if run.returncode not in (0, 1):
            sys.exit(f"hashline batch failed ({run.returncode}): {run.stderr}")
    calls = sum(1 for line in out.read_text().splitlines() if '"tool/call"' in line)
    if calls != n:
        sys.exit(f"expected {n} calls in the log, found {calls}")


if __name__ == "__main__":
    main()
