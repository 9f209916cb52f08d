"""`hashline mcp --http` driven end to end by the official Python MCP SDK's Streamable HTTP
client: the same steps as the stdio test (list, read, anchored edit, stale-anchor refusal
and retry with the fresh anchors), over a loopback socket, with a bearer token.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from test_e2e import LAUNCHER, anchors, call, command, registry, rows

TOKEN = "test-token-0123456789abcdef"

# Each test stops the server with SIGTERM and requires a clean exit: Windows has no SIGTERM
# (the server stops on Ctrl-C and Ctrl-Break there), and nothing here can send a console
# event to a program under Wine.
pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(LAUNCHER is not None, reason="SIGTERM stops the server; Windows (under Wine) has none"),
]


@pytest.fixture
def anyio_backend():
    return "asyncio"


@contextmanager
def http_server(root: Path, token: str = TOKEN):
    """The server on an ephemeral loopback port; yields its URL, stops it with SIGTERM."""
    env = dict(os.environ, HASHLINE_MCP_TOKEN=token)
    process = subprocess.Popen(
        command("mcp", "--http", "127.0.0.1:0", "--structured-content", "full", "--root", str(root)),
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = process.stderr.readline()
        match = re.search(r"listening on (http://127\.0\.0\.1:\d+/mcp)", line)
        assert match, f"no address announced: {line!r}"
        yield match.group(1), process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            assert process.wait(timeout=30) == 0
        process.stderr.close()


@asynccontextmanager
async def connect(url: str, token: str = TOKEN):
    client = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    async with client, streamable_http_client(url, http_client=client) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            yield session, init


async def test_http_tools_read_edit_mismatch_and_retry(tmp_path: Path):
    (tmp_path / "notes.txt").write_text("alpha\nbeta\ngamma\n")
    with http_server(tmp_path) as (url, _):
        async with connect(url) as (session, init):
            assert init.server_info.name == "hashline"
            assert "hash-mismatch" in (init.instructions or "")

            # Every registry tool, nothing else.
            listed = {tool.name: tool for tool in (await session.list_tools()).tools}
            expected = {entry["name"]: entry for entry in registry()}
            assert listed.keys() == expected.keys()
            for name, tool in listed.items():
                assert tool.input_schema == expected[name]["inputSchema"]
                assert tool.output_schema == expected[name]["outputSchema"]

            result, text, value = await call(session, "read", {"path": "notes.txt"})
            assert not result.is_error
            assert re.fullmatch(r"snapshot: s[0-9a-z]{8}\n1:3c8\|alpha\n2:589\|beta\n3:56d\|gamma", text), text
            assert rows(text) == anchors(value["lines"])

            edit = {"set_line": {"anchor": "2:589", "new_text": "BETA"}}
            result, text, value = await call(session, "edit", {"path": "notes.txt", "edits": [edit]})
            assert not result.is_error, text
            assert (tmp_path / "notes.txt").read_text() == "alpha\nBETA\ngamma\n"
            assert re.search(r"^Anchors of the added lines: 2:a21$", text, re.M), text
            assert rows(text) == []
            assert rows(value["diff"], {" ", "+"}) == anchors(value["anchors"])

            (tmp_path / "notes.txt").write_text("alpha\nBETA (changed outside)\ngamma\n")
            stale = {"set_line": {"anchor": value["anchors"][1]["anchor"], "new_text": "Beta"}}
            result, text, value = await call(session, "edit", {"path": "notes.txt", "edits": [stale]})
            assert result.is_error
            assert value["error"]["code"] == "hash-mismatch"
            updated = value["error"]["details"]["updatedAnchors"]
            assert rows(text) == anchors(updated)
            [aimed] = value["error"]["details"]["targets"]
            assert aimed["sent"] == stale["set_line"]["anchor"]
            assert rows(text, {">>>"}) == [aimed["anchor"]]
            assert (tmp_path / "notes.txt").read_text() == "alpha\nBETA (changed outside)\ngamma\n"

            retry = {"set_line": {"anchor": aimed["anchor"], "new_text": "Beta"}}
            result, text, value = await call(session, "edit", {"path": "notes.txt", "edits": [retry]})
            assert not result.is_error, text
            assert (tmp_path / "notes.txt").read_text() == "alpha\nBeta\ngamma\n"

            # Confined to the root as over stdio.
            result, text, value = await call(session, "read", {"path": "/etc/hostname"})
            assert result.is_error and value["error"]["code"] == "path-outside-root"


async def test_http_sessions_have_their_own_ledgers(tmp_path: Path):
    (tmp_path / "a.txt").write_text("one\n")
    with http_server(tmp_path) as (url, _):
        async with connect(url) as (first, _), connect(url) as (second, _):
            result, text, _ = await call(first, "read", {"path": "a.txt"})
            assert not result.is_error, text
            # The second session has read nothing: its edit is refused.
            row = text.splitlines()[1]
            edit = {"set_line": {"anchor": row.split("|")[0], "new_text": "two"}}
            result, text, value = await call(second, "edit", {"path": "a.txt", "edits": [edit]})
            assert result.is_error and value["error"]["code"] == "file-not-read", text
            result, text, _ = await call(first, "edit", {"path": "a.txt", "edits": [edit]})
            assert not result.is_error, text
    assert (tmp_path / "a.txt").read_text() == "two\n"


async def test_http_refuses_a_missing_or_wrong_token(tmp_path: Path):
    with http_server(tmp_path) as (url, _):
        body = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        headers = {"Accept": "application/json, text/event-stream"}
        async with httpx2.AsyncClient() as client:
            for auth in [None, "Bearer wrong-token-0123456789"]:
                sent = dict(headers, **({"Authorization": auth} if auth else {}))
                response = await client.post(url, json=body, headers=sent)
                assert response.status_code == 401
                assert response.headers["www-authenticate"] == "Bearer"
                assert response.json()["error"]["code"] == -32001
        with pytest.raises(Exception):
            async with connect(url, token="wrong-token-0123456789"):
                pass


def test_sigterm_stops_the_server_cleanly(tmp_path: Path):
    with http_server(tmp_path) as (url, process):
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0
