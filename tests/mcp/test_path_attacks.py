"""The path-attack table (tests/path_attacks.json) against every tool over MCP, driven by the
official Python SDK: each attack is refused, nothing outside the root is read or written."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

REPO = Path(__file__).resolve().parents[2]
BINARY = Path(os.environ.get("HASHLINE_BIN", REPO / "target" / "debug" / "hashline"))
TABLE = json.loads((REPO / "tests" / "path_attacks.json").read_text())

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend():
    return "asyncio"


def snapshot(directory: Path) -> list[tuple[str, bytes | None]]:
    out = []
    for path in sorted(directory.rglob("*")):
        out.append((str(path), None if path.is_dir() else path.read_bytes()))
    return out


async def test_every_tool_refuses_every_path_attack(tmp_path: Path):
    base = tmp_path.resolve()
    (base / "r" / "a" / "b" / "c").mkdir(parents=True)
    (base / "out").mkdir()
    (base / "out" / "s.txt").write_text("secret\n")
    for at, to in TABLE["links"]:
        os.symlink(to.replace("{base}", str(base)), base / at)
    before = snapshot(base / "out")
    # The typed value's error code is what is checked: the structured mode.
    args = ["mcp", "--structured-content", "full", "--root", str(base / "r")]
    params = StdioServerParameters(command=str(BINARY), args=args, cwd=base / "r")
    failures = []
    tried = 0
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            for attack in TABLE["attacks"]:
                path = attack["path"].replace("{base}", str(base))
                calls = [
                    ("read", {"path": path}),
                    ("write", {"path": path, "content": "owned\n"}),
                    ("edit", {"path": path, "edits": [{"replace": {"old_text": "secret", "new_text": "owned"}}]}),
                    ("ls", {"path": path}),
                    ("find", {"path": path, "pattern": "*"}),
                    ("grep", {"path": path, "pattern": "secret"}),
                    ("ast_search", {"path": path, "pattern": "secret", "lang": "python"}),
                ]
                for tool, arguments in calls:
                    tried += 1
                    result = await session.call_tool(tool, arguments)
                    value = result.structured_content or {}
                    code = (value.get("error") or {}).get("code")
                    text = "".join(block.text for block in result.content if block.type == "text")
                    ok = result.is_error and (attack["expect"] == "error" or code == "path-outside-root")
                    if not ok or "secret" in text:
                        failures.append(f"{tool} {path!r} ({attack['name']}): {code} {text}")
    assert snapshot(base / "out") == before, "something outside the root changed"
    assert not (base / "newdir").exists(), "a folder was created outside the root"
    assert not failures, f"{len(failures)} of {tried} calls not refused:\n" + "\n".join(failures)
