"""`hashline mcp` driven end to end by the official Python MCP SDK (PyPI `mcp`).

The SDK is a client this project did not write: it launches the binary over stdio,
negotiates, lists the tools and calls them, and it validates every successful result's
`structuredContent` against the tool's `outputSchema` on its own.

Most tests here run the server with `--structured-content full`, where every step also
checks the structured value against the text a model sees: the anchors of the text's rows
are exactly the anchors in `structuredContent`. The default (no structuredContent, no
outputSchema: the text is the result, as every agent host shows it) has tests of its own
at the end, which work from the text alone, as a model does.
"""

from __future__ import annotations

import base64
import json
import os
import re
import struct
import subprocess
import zlib
from contextlib import asynccontextmanager
from pathlib import Path

import mcp.types as types
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError

REPO = Path(__file__).resolve().parents[2]
BINARY = Path(os.environ.get("HASHLINE_BIN", REPO / "target" / "debug" / "hashline"))
# A program that runs the binary, when it cannot run alone: Wine for the Windows build.
LAUNCHER = os.environ.get("HASHLINE_LAUNCHER")


def shown(path: Path) -> str:
    """An absolute path as the server writes it: under Wine (the launcher) the Unix file
    system is drive Z: and the separator is `\\`."""
    text = str(path.resolve())
    return "Z:" + text.replace("/", "\\") if LAUNCHER else text


def command(*args: str) -> list[str]:
    """The command line that runs `hashline ARGS` (through the launcher, if any)."""
    return [*([LAUNCHER] if LAUNCHER else []), str(BINARY), *args]

# SPEC §4.4: which tools change nothing and which may overwrite data.
READ_ONLY = {"read", "grep", "ast_search", "ls", "find"}
DESTRUCTIVE = {"edit", "write"}

# A row of a tool's text: an optional diff/refusal mark, then `LINE:HASH|`.
ROW = re.compile(r"^(?P<mark>>>>|[ +-])?\s*(?P<anchor>\d+:[0-9a-f]{3})\|", re.MULTILINE)

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture(scope="session", autouse=True)
def binary() -> Path:
    assert BINARY.is_file(), f"build the server first: cargo build -p hashline-cli (looked for {BINARY})"
    return BINARY


def png_bytes() -> bytes:
    """A valid 1x1 RGB PNG."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00\xff\x80\x00")
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")


@asynccontextmanager
async def connect(args: list[str], cwd: Path | None = None, list_roots_callback=None, structured: str = "full"):
    """A client session with `hashline mcp ARGS`; `structured` is `--structured-content`
    ("off" is the server's default)."""
    program, *rest = command("mcp", "--structured-content", structured, *args)
    # The SDK gives the server a minimal environment; a launcher keeps this one (Wine's
    # prefix and settings).
    env = dict(os.environ) if LAUNCHER else None
    params = StdioServerParameters(command=program, args=rest, cwd=cwd, env=env)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, list_roots_callback=list_roots_callback) as session:
            init = await session.initialize()
            yield session, init


def text_of(result: types.CallToolResult) -> str:
    return "\n\n".join(block.text for block in result.content if block.type == "text")


def rows(text: str, marks: set[str | None] | None = None) -> list[str]:
    """The anchors of the text's rows (optionally only rows with one of `marks`)."""
    return [m["anchor"] for m in ROW.finditer(text) if marks is None or m["mark"] in marks]


def anchors(lines: list[dict]) -> list[str]:
    return [line["anchor"] for line in lines]


async def call(session: ClientSession, name: str, arguments: dict) -> tuple[types.CallToolResult, str, dict]:
    result = await session.call_tool(name, arguments)
    assert result.structured_content is not None, f"{name}: no structuredContent"
    value = result.structured_content
    assert value["tool"] == name
    assert value["ok"] is (not result.is_error)
    return result, text_of(result), value


def registry() -> list[dict]:
    """The facade registry as the CLI prints it: the only list of tools."""
    out = subprocess.run(command("tools"), check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


async def test_tools_read_edit_mismatch_retry_and_image(tmp_path: Path):
    (tmp_path / "notes.txt").write_text("alpha\nbeta\ngamma\n")
    (tmp_path / "pixel.png").write_bytes(png_bytes())

    async with connect(["--root", str(tmp_path)]) as (session, init):
        assert init.server_info.name == "hashline"
        assert re.fullmatch(r"\d+\.\d+\.\d+.*", init.server_info.version)
        assert "hash-mismatch" in (init.instructions or "")

        # Every registry tool, with its schemas and annotations, and nothing else.
        listed = {tool.name: tool for tool in (await session.list_tools()).tools}
        expected = {entry["name"]: entry for entry in registry()}
        assert listed.keys() == expected.keys()
        assert {"read", "edit", "write", "ls", "find", "grep", "ast_search"} == listed.keys() <= READ_ONLY | DESTRUCTIVE
        for name, tool in listed.items():
            entry = expected[name]
            assert tool.description == entry["description"]
            assert tool.input_schema == entry["inputSchema"]
            assert tool.output_schema == entry["outputSchema"]
            assert tool.input_schema.get("type") == "object"
            assert tool.output_schema.get("type") == "object"
            hints = tool.annotations
            assert hints is not None, name
            assert hints.title == entry["annotations"]["title"] == tool.title
            assert hints.read_only_hint is (name in READ_ONLY)
            assert hints.destructive_hint is (name in DESTRUCTIVE)
            assert hints.idempotent_hint is entry["annotations"]["idempotentHint"]
            assert hints.open_world_hint is False
        assert listed["read"].annotations.idempotent_hint is True
        assert listed["edit"].annotations.idempotent_hint is False

        # read: rows in the text, the same anchors in the structured value.
        result, text, value = await call(session, "read", {"path": "notes.txt"})
        assert not result.is_error
        assert re.fullmatch(r"snapshot: s[0-9a-z]{8}\n1:3c8\|alpha\n2:589\|beta\n3:56d\|gamma", text), text
        assert rows(text) == anchors(value["lines"]) == ["1:3c8", "2:589", "3:56d"]

        # edit by anchor: the text names the added lines' new anchors (not their content);
        # the value's anchored diff has context and removed rows too, its new-side rows the
        # fresh anchors of the value.
        edit = {"set_line": {"anchor": "2:589", "new_text": "BETA"}}
        result, text, value = await call(session, "edit", {"path": "notes.txt", "edits": [edit]})
        assert not result.is_error, text
        assert (tmp_path / "notes.txt").read_text() == "alpha\nBETA\ngamma\n"
        assert re.search(r"^Anchors of the added lines: 2:a21$", text, re.M), text
        assert rows(text) == []
        assert rows(value["diff"], {" ", "+"}) == anchors(value["anchors"])
        assert "2:589" in rows(value["diff"], {"-"})

        # An external change, then an edit from the stale view: refused with fresh rows.
        (tmp_path / "notes.txt").write_text("alpha\nBETA (changed outside)\ngamma\n")
        stale = {"set_line": {"anchor": value["anchors"][1]["anchor"], "new_text": "Beta"}}
        result, text, value = await call(session, "edit", {"path": "notes.txt", "edits": [stale]})
        assert result.is_error
        error = value["error"]
        assert error["code"] == "hash-mismatch"
        assert "nothing was written" in text
        # Every row the text shows (the marked one and its context) is in updatedAnchors.
        updated = error["details"]["updatedAnchors"]
        assert rows(text) == anchors(updated)
        # The targets (the rows the text marks >>>) are in the value: the anchor as sent and
        # its line's fresh one; no need to parse the text for them.
        [aimed] = error["details"]["targets"]
        assert aimed["sent"] == stale["set_line"]["anchor"]
        assert rows(text, {">>>"}) == [aimed["anchor"]]
        target = next(row for row in updated if row["anchor"] == aimed["anchor"])
        assert target["raw"] == "BETA (changed outside)"
        assert (tmp_path / "notes.txt").read_text() == "alpha\nBETA (changed outside)\ngamma\n"

        # Retry with the returned anchor, no re-read: it lands.
        retry = {"set_line": {"anchor": target["anchor"], "new_text": "Beta"}}
        result, text, value = await call(session, "edit", {"path": "notes.txt", "edits": [retry]})
        assert not result.is_error, text
        assert rows(text) == rows(text, {"+"}) and set(rows(text)) <= set(anchors(value["anchors"]))
        assert rows(value["diff"], {" ", "+"}) == anchors(value["anchors"])
        assert (tmp_path / "notes.txt").read_text() == "alpha\nBeta\ngamma\n"

        # An image read: image content, a structured value of kind image, no anchors.
        result, text, value = await call(session, "read", {"path": "pixel.png"})
        assert not result.is_error
        images = [block for block in result.content if block.type == "image"]
        assert len(images) == 1
        assert images[0].mime_type == "image/png"
        assert base64.b64decode(images[0].data) == png_bytes()
        assert value["kind"] == "image"
        assert rows(text) == [] and "lines" not in value

        # Tool failures are results, never protocol errors; an unknown tool is no tool's
        # failure: a protocol error, -32602 (MCP).
        result, text, value = await call(session, "read", {"path": "missing.txt"})
        assert result.is_error and value["error"]["code"] == "file-not-found"
        with pytest.raises(MCPError) as unknown:
            await session.call_tool("no_such_tool", {})
        assert unknown.value.error.code == types.INVALID_PARAMS
        result, text, value = await call(session, "read", {"path": 7})
        assert result.is_error and value["error"]["code"] == "invalid-type"


# A grep row: `path:>>LINE:HASH|` for a match, `path:  LINE:HASH|` for context.
GREP_ROW = re.compile(r"^(?P<path>.+?):(?P<mark>>>|  )(?P<anchor>\d+:[0-9a-f]{3})\|", re.MULTILINE)


async def test_grep_rows_edit_without_a_read(tmp_path: Path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("def alpha():\n    return 1\n")
    (tmp_path / "src" / "b.py").write_bytes(b"\xef\xbb\xbfx = alpha()\r\ny = 2\r\n")

    async with connect(["--root", str(tmp_path)]) as (session, _):
        result, text, value = await call(session, "grep", {"pattern": "alpha", "context": 1})
        assert not result.is_error, text
        assert text.splitlines()[0] == "[2 matches in 2 files]"
        shown = [(m["path"], m["mark"], m["anchor"]) for m in GREP_ROW.finditer(text)]
        records = [(r["path"], r["kind"], r["anchor"]) for r in value["records"]]
        assert [a for _, _, a in shown] == [a for _, _, a in records]
        assert [m for _, m, _ in shown] == [">>" if k == "match" else "  " for _, k, _ in records]
        assert value["totalMatches"] == 2
        assert value["completeness"] == {
            "search": "complete",
            "counted": "all",
            "limitReached": False,
            "nativeTruncated": False,
            "omittedMatches": 0,
            "displayTruncated": False,
        }

        # With a limit the search stops in path order once it has more than it shows, and
        # says the count is a lower bound.
        result, text, stopped = await call(session, "grep", {"pattern": "alpha", "limit": 1})
        assert not result.is_error, text
        assert stopped["completeness"]["counted"] == "stoppedAtLimit"
        assert stopped["completeness"]["limitReached"] is True
        assert [r["path"].endswith("a.py") for r in stopped["records"]] == [True]
        assert "the search stopped there" in text

        # The grep rows count as served: an edit of the CRLF+BOM file lands without a read.
        anchor = next(a for p, k, a in records if p.endswith("b.py") and k == "match")
        edit = {"set_line": {"anchor": anchor, "new_text": "x = alpha() + 1"}}
        result, text, value = await call(session, "edit", {"path": "src/b.py", "edits": [edit]})
        assert not result.is_error, text
        assert (tmp_path / "src" / "b.py").read_bytes() == b"\xef\xbb\xbfx = alpha() + 1\r\ny = 2\r\n"

        result, text, value = await call(session, "grep", {"pattern": "("})
        assert result.is_error and value["error"]["code"] == "invalid-pattern"

        # ast_search: anchored rows for the structural matches, the same anchors in the value.
        result, text, value = await call(session, "ast_search", {"pattern": "alpha($$$)", "lang": "python"})
        assert not result.is_error, text
        assert re.fullmatch(r"--- src/b\.py \(snapshot: s[0-9a-z]{8}\) ---", text.splitlines()[0]), text
        assert rows(text.replace(">>", "")) == [line["anchor"] for f in value["files"] for line in f["lines"]]
        assert value["totalMatches"] == 1
        result, text, value = await call(session, "ast_search", {"pattern": "def (", "lang": "python"})
        assert result.is_error and value["error"]["code"] == "pattern-parse-error"


async def test_edit_then_revert_restores_the_bytes_exactly(tmp_path: Path):
    """Issue 27: an edit names its change; reverting it restores the file byte for byte
    (BOM and CRLF included), is itself a change, and a second revert of it is refused."""
    original = b"\xef\xbb\xbfalpha\r\nbeta\r\ngamma"
    (tmp_path / "win.txt").write_bytes(original)

    async with connect(["--root", str(tmp_path)]) as (session, _):
        result, text, value = await call(session, "read", {"path": "win.txt"})
        assert not result.is_error, text
        beta = anchors(value["lines"])[1]
        edit = {"set_line": {"anchor": beta, "new_text": "BETA\nmore"}}
        result, text, value = await call(session, "edit", {"path": "win.txt", "edits": [edit]})
        assert not result.is_error, text
        change = value["changeId"]
        assert re.fullmatch(r"c1-[0-9a-f]{4}", change), change
        assert text.splitlines()[-1] == f'Change {change} (undo: edit {{"revert": "{change}"}})'
        assert (tmp_path / "win.txt").read_bytes() == b"\xef\xbb\xbfalpha\r\nBETA\r\nmore\r\ngamma"

        result, text, value = await call(session, "edit", {"revert": change})
        assert not result.is_error, text
        assert (tmp_path / "win.txt").read_bytes() == original
        assert value["reverts"] == change
        undo = value["changeId"]
        assert undo != change and text.startswith(f"Reverted win.txt to its content before {change}")

        result, text, value = await call(session, "edit", {"revert": change})
        assert result.is_error and value["error"]["code"] == "change-reverted", text
        assert (tmp_path / "win.txt").read_bytes() == original

        # Another program changes the file: reverting the revert is refused, nothing written.
        (tmp_path / "win.txt").write_bytes(original + b"\r\ndelta")
        result, text, value = await call(session, "edit", {"revert": undo})
        assert result.is_error and value["error"]["code"] == "change-conflict", text
        assert (tmp_path / "win.txt").read_bytes() == original + b"\r\ndelta"


async def test_client_roots_become_the_session_roots(tmp_path: Path):
    project = tmp_path / "project"
    elsewhere = tmp_path / "elsewhere"
    project.mkdir()
    elsewhere.mkdir()
    (project / "inside.txt").write_text("inside\n")
    (elsewhere / "outside.txt").write_text("outside\n")
    asked = []

    async def list_roots(context) -> types.ListRootsResult:
        asked.append(True)
        return types.ListRootsResult(
            roots=[
                # Not a directory: skipped (the SDK itself only allows file:// roots).
                types.Root(uri=(tmp_path / "missing").as_uri()),
                types.Root(uri=project.as_uri(), name="project"),
            ]
        )

    # No --root: the server runs in `elsewhere`, but the client's root wins.
    async with connect([], cwd=elsewhere, list_roots_callback=list_roots) as (session, _):
        result, text, value = await call(session, "read", {"path": "inside.txt"})
        assert not result.is_error, text
        assert rows(text) == anchors(value["lines"])
        assert value["path"] == shown(project / "inside.txt")

        result, text, value = await call(session, "read", {"path": str(elsewhere / "outside.txt")})
        assert result.is_error
        assert value["error"]["code"] == "path-outside-root"
    assert asked, "the server never asked for roots/list"


async def test_without_roots_the_working_directory_is_the_root(tmp_path: Path):
    here = tmp_path / "here"
    elsewhere = tmp_path / "elsewhere"
    here.mkdir()
    elsewhere.mkdir()
    (here / "here.txt").write_text("here\n")
    (elsewhere / "there.txt").write_text("there\n")
    async with connect([], cwd=here) as (session, _):
        result, text, value = await call(session, "read", {"path": "here.txt"})
        assert not result.is_error, text
        assert rows(text) == anchors(value["lines"]) == ["1:" + value["lines"][0]["hash"]]
        result, text, value = await call(session, "read", {"path": str(elsewhere / "there.txt")})
        assert result.is_error and value["error"]["code"] == "path-outside-root"


async def test_root_flag_wins_over_client_roots(tmp_path: Path):
    flagged = tmp_path / "flagged"
    offered = tmp_path / "offered"
    flagged.mkdir()
    offered.mkdir()
    (flagged / "f.txt").write_text("flagged\n")
    (offered / "o.txt").write_text("offered\n")

    async def list_roots(context) -> types.ListRootsResult:
        return types.ListRootsResult(roots=[types.Root(uri=offered.as_uri())])

    async with connect(["--root", str(flagged)], list_roots_callback=list_roots) as (session, _):
        result, text, value = await call(session, "read", {"path": "f.txt"})
        assert not result.is_error, text
        result, text, value = await call(session, "read", {"path": str(offered / "o.txt")})
        assert value["error"]["code"] == "path-outside-root"


# ---- The default: the text is the result -------------------------------------------------


def text_call_checks(result: types.CallToolResult) -> str:
    """A default-mode result: content blocks and the error flag, nothing structured."""
    assert result.structured_content is None, f"structuredContent in the default mode: {result.structured_content}"
    return text_of(result)


async def test_by_default_the_model_works_from_the_text_alone(tmp_path: Path):
    """Issue 47: hosts show their model `structuredContent` when a result has one, so by
    default no result carries it and no tool lists an outputSchema. Everything a model needs
    is in the text: the rows to edit by, the refusal's fresh rows, grep's matched lines."""
    (tmp_path / "notes.txt").write_text("alpha\nbeta\ngamma\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("def alpha():\n    return 1\n")

    async with connect(["--root", str(tmp_path)], structured="off") as (session, _):
        listed = (await session.list_tools()).tools
        assert {tool.name for tool in listed} == READ_ONLY | DESTRUCTIVE
        for tool in listed:
            assert tool.output_schema is None, f"{tool.name} lists an outputSchema"
            assert tool.input_schema.get("type") == "object"

        text = text_call_checks(await session.call_tool("read", {"path": "notes.txt"}))
        assert re.fullmatch(r"snapshot: s[0-9a-z]{8}\n1:3c8\|alpha\n2:589\|beta\n3:56d\|gamma", text), text

        # The anchor as the model copies it from the row.
        beta = rows(text)[1]
        edit = {"set_line": {"anchor": beta, "new_text": "BETA"}}
        result = await session.call_tool("edit", {"path": "notes.txt", "edits": [edit]})
        text = text_call_checks(result)
        assert not result.is_error, text
        assert (tmp_path / "notes.txt").read_text() == "alpha\nBETA\ngamma\n"
        fresh = re.findall(r"^Anchors of the added lines: (.*)$", text, re.M)[0].split(" ")
        assert len(fresh) == 1 and fresh[0].startswith("2:"), text

        # A stale view is refused, and the refusal's text holds the fresh rows to retry with.
        (tmp_path / "notes.txt").write_text("alpha\nBETA (changed outside)\ngamma\n")
        stale = {"set_line": {"anchor": fresh[0], "new_text": "Beta"}}
        result = await session.call_tool("edit", {"path": "notes.txt", "edits": [stale]})
        text = text_call_checks(result)
        assert result.is_error
        assert text.startswith("Edit rejected — nothing was written.")
        [aimed] = rows(text, {">>>"})
        retry = {"set_line": {"anchor": aimed, "new_text": "Beta"}}
        result = await session.call_tool("edit", {"path": "notes.txt", "edits": [retry]})
        text = text_call_checks(result)
        assert not result.is_error, text
        assert (tmp_path / "notes.txt").read_text() == "alpha\nBeta\ngamma\n"

        # grep shows the matched line's text in its rows, anchors ready for edit.
        result = await session.call_tool("grep", {"pattern": "return"})
        text = text_call_checks(result)
        assert not result.is_error, text
        [match] = [m for m in GREP_ROW.finditer(text) if m["mark"] == ">>"]
        assert text[match.end():].splitlines()[0] == "    return 1"

        # An error is an error result whose text says what to do.
        result = await session.call_tool("read", {"path": "missing.txt"})
        assert result.is_error
        assert text_call_checks(result) == "File not found: missing.txt"
