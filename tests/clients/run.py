#!/usr/bin/env python3
"""Third-party MCP clients against `hashline mcp`: read → edit → stale edit → retry → revert.

Each client runs in its default mode (no protocol pinning: whatever it negotiates by default;
the revision is recorded) over stdio (`hashline mcp --root DIR`) and over Streamable HTTP
(`hashline mcp --http 127.0.0.1:0 --root DIR`), each run in a fresh directory with a fresh
server. What is checked is in README.md beside this file. .ci/clients installs the clients and
runs this; by hand:

    python run.py --binary PATH --node PATH --modules DIR [--only fastmcp,ai-sdk] [--skip CLIENT=REASON]

Prints PASS / FAIL / SKIPPED per client and transport, with the negotiated revision, and a
last line `clients: N passed, N failed, N skipped`. Exit 1 when any run failed. A client that
cannot run here (not installed, no Node) is SKIPPED with its reason, and is no failure.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import signal
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

NAME = "notes.txt"
INITIAL = "alpha\nbeta\ngamma γ\n".encode()
AFTER_EDIT = "alpha\nBETA\ngamma γ\n".encode()
# What another program makes of the file between the edit and the stale edit: a line above,
# and the line the edit wrote, rewritten.
ON_DISK = "zero\nalpha\nBETA, changed on disk\ngamma γ\n".encode()
AFTER_RETRY = "zero\nalpha\nBETA again\ngamma γ\n".encode()

TAG = re.compile(r"^snapshot: (s[0-9a-hjkmnp-tv-z]{8})$", re.M)
ROW = re.compile(r"^(?P<mark>>>> |    )?(?P<anchor>\d+:[0-9a-f]+)\|(?P<text>.*)$", re.M)
CHANGE = re.compile(r'^Change (?P<id>c\d+-[0-9a-f]+) \(undo: edit \{"revert": "(?P=id)"\}\)$', re.M)
ADDED = re.compile(r"^Anchors of the added lines: (?P<anchors>.+)$", re.M)

CLIENTS = ("fastmcp", "ai-sdk", "inspector-cli", "mcpdo")
TRANSPORTS = ("stdio", "http")
CALL_TIMEOUT = 30
RUN_TIMEOUT = 90

# Known shapes of a failure, with what they mean, printed under a FAIL so that the log says
# why. They explain; they never turn a FAIL into anything else.
DIAGNOSES = [
    (
        re.compile(r"^Revert refused — nothing was written\. No change (c\d+-[0-9a-f]+) in this session"),
        "the change the edit's result named is not in the hashline session that served the revert. "
        "Changes (what revert restores) are kept per hashline session (docs/protocol.md §4.10): a "
        "principal's requests of protocol 2026-07-28 share one over HTTP, but every initialize opens a "
        "new one (§10.2, §10.3), so a client that initializes for every call loses its changes between "
        "calls. Snapshot tags are kept per principal (the token) and do carry across sessions, which "
        "is why the edits before it worked.",
    ),
    (
        re.compile(r"^Edit rejected — nothing was written\. You must get fresh anchors for .* before editing it"),
        "file-not-read: the session that served this edit has shown no rows of the file, and it does not "
        "hold the cited snapshot tag. Over stdio the snapshot store and the read gate belong to one "
        "connection, i.e. one hashline process (docs/protocol.md §1.5, §10.3); a client that starts a "
        "new server process for every call gets a fresh one each time.",
    ),
]


# --------------------------------------------------------------------------------------------
# The scenario


@dataclass
class Result:
    is_error: bool
    text: str
    structured: Any = None
    raw: Any = None


class Failure(Exception):
    def __init__(self, step: str, message: str, request: Any = None, result: Result | None = None,
                 expected: bytes | None = None, actual: bytes | None = None):
        super().__init__(message)
        self.step = step
        self.message = message
        self.request = request
        self.result = result
        self.expected = expected
        self.actual = actual

    def describe(self) -> str:
        lines = [f"step {self.step}: {self.message}"]
        if self.request is not None:
            lines.append(f"  request: {json.dumps(self.request, ensure_ascii=False)}")
        if self.result is not None:
            lines.append(f"  isError: {str(self.result.is_error).lower()}; structuredContent: "
                         f"{json.dumps(self.result.structured, ensure_ascii=False)}")
            lines.append("  text:")
            lines.extend(f"    | {line}" for line in self.result.text.split("\n"))
            for pattern, meaning in DIAGNOSES:
                if pattern.search(self.result.text):
                    lines.append(f"  why: {meaning}")
        if self.expected is not None:
            lines.append(f"  file expected: {self.expected!r}")
            lines.append(f"  file now:      {self.actual!r}")
        return "\n".join(lines)


class Scenario:
    """The steps against one client, whose `call(tool, args)` each goes through."""

    def __init__(self, client: "Driver", root: Path, transcript: list):
        self.client = client
        self.file = root / NAME
        self.transcript = transcript

    async def call(self, step: str, tool: str, args: dict) -> Result:
        started = time.monotonic()
        try:
            result = await asyncio.wait_for(self.client.call(tool, args), CALL_TIMEOUT)
        except asyncio.TimeoutError:
            raise Failure(step, f"no answer within {CALL_TIMEOUT} s", request={"tool": tool, "args": args})
        except Failure:
            raise
        except Exception as err:  # the client itself failed: a protocol error, a crash
            raise Failure(step, f"the client raised {type(err).__name__}: {err}", request={"tool": tool, "args": args})
        self.transcript.append({"step": step, "tool": tool, "args": args, "isError": result.is_error,
                                "text": result.text, "structuredContent": result.structured,
                                "seconds": round(time.monotonic() - started, 3)})
        return result

    def bytes_are(self, step: str, expected: bytes) -> None:
        actual = self.file.read_bytes()
        if actual != expected:
            raise Failure(step, "the file's bytes are not what this step must leave", expected=expected, actual=actual)

    @staticmethod
    def expect(condition: bool, step: str, message: str, request: dict, result: Result) -> None:
        if not condition:
            raise Failure(step, message, request={"tool": request["tool"], "args": request["args"]}, result=result)

    @staticmethod
    def one_tag(text: str) -> str | None:
        tags = TAG.findall(text)
        return tags[0] if len(tags) == 1 else None

    @staticmethod
    def change_id(text: str) -> str | None:
        # The change line is the text's last line (docs/protocol.md §4.10).
        last = text.rstrip("\n").split("\n")[-1]
        match = CHANGE.fullmatch(last)
        return match["id"] if match else None

    async def run(self) -> None:
        step = "1 read"
        request = {"tool": "read", "args": {"path": NAME}}
        r = await self.call(step, **request)
        self.expect(not r.is_error, step, "the read failed", request, r)
        tag0 = self.one_tag(r.text)
        self.expect(tag0 is not None and r.text.startswith(f"snapshot: {tag0}\n"), step,
                    "the text does not open with one `snapshot: s…` line", request, r)
        rows = [(m["anchor"], m["text"]) for m in ROW.finditer(r.text) if not m["mark"]]
        lines = INITIAL.decode().split("\n")[:-1]
        self.expect([text for _, text in rows] == lines, step, f"the rows are not the file's lines {lines}", request, r)
        self.expect([anchor.split(":")[0] for anchor, _ in rows] == ["1", "2", "3"], step,
                    "the rows are not numbered 1-3", request, r)
        self.bytes_are(step, INITIAL)
        beta = rows[1][0]

        step = "2 edit"
        request = {"tool": "edit", "args": {"path": NAME, "snapshot": tag0,
                                            "edits": [{"set_line": {"anchor": beta, "new_text": "BETA"}}]}}
        r = await self.call(step, **request)
        self.expect(not r.is_error, step, "the edit was refused", request, r)
        self.expect(r.text.startswith(f"Edited {NAME} "), step, f"the text does not open with `Edited {NAME}`", request, r)
        tag1 = self.one_tag(r.text)
        self.expect(tag1 is not None and tag1 != tag0, step, "no new `snapshot: s…` line", request, r)
        added = ADDED.search(r.text)
        self.expect(added is not None, step, "the text names no `Anchors of the added lines: …`", request, r)
        added_anchors = added["anchors"].split()
        self.expect(len(added_anchors) == 1 and added_anchors[0].startswith("2:"), step,
                    "the added lines' anchors are not one anchor of line 2", request, r)
        id1 = self.change_id(r.text)
        self.expect(id1 is not None, step, 'the last line is not `Change c… (undo: edit {"revert": "c…"})`', request, r)
        self.bytes_are(step, AFTER_EDIT)

        # Another program changes the file: the line the edit wrote, and a line above it.
        self.file.write_bytes(ON_DISK)

        # Edited again with what the client holds from before that change: each refused, nothing
        # written, with the line now in the cited line's place marked `>>>` under a new tag.
        fresh = []
        for step, anchor, tag in (("3a stale edit (the read's anchor and tag)", beta, tag0),
                                  ("3b stale edit (the edit result's anchor and tag)", added_anchors[0], tag1)):
            request = {"tool": "edit", "args": {"path": NAME, "snapshot": tag,
                                                "edits": [{"set_line": {"anchor": anchor, "new_text": "BETA again"}}]}}
            r = await self.call(step, **request)
            self.expect(r.is_error, step, "a stale edit was not refused (isError is not true)", request, r)
            self.expect(r.text.startswith("Edit rejected — nothing was written."), step,
                        "the text does not open with `Edit rejected — nothing was written.`", request, r)
            self.expect(f"Line {anchor} of the cited snapshot has changed since" in r.text, step,
                        "the refusal does not say the cited line has changed since (hash-mismatch)", request, r)
            if r.structured is not None:
                code = (r.structured.get("error") or {}).get("code") if isinstance(r.structured, dict) else None
                self.expect(code == "hash-mismatch", step,
                            f"structuredContent's error.code is {code!r}, not hash-mismatch", request, r)
            tag2 = self.one_tag(r.text)
            self.expect(tag2 is not None and tag2 not in (tag0, tag1), step,
                        "no new `snapshot: s…` line above the fresh rows", request, r)
            marked = [(m["anchor"], m["text"]) for m in ROW.finditer(r.text) if m["mark"] == ">>> "]
            self.expect(len(marked) == 1 and marked[0][1] == "BETA, changed on disk" and marked[0][0].startswith("3:"),
                        step, "the fresh rows do not mark line 3 (`>>> 3:…|BETA, changed on disk`)", request, r)
            self.expect(not fresh or fresh[0] == (marked[0][0], tag2), step,
                        "the two refusals of the same bytes show another anchor or tag", request, r)
            self.bytes_are(step, ON_DISK)
            fresh.append((marked[0][0], tag2))
        fresh_anchor, tag2 = fresh[-1]

        step = "4 retry"
        request = {"tool": "edit", "args": {"path": NAME, "snapshot": tag2,
                                            "edits": [{"set_line": {"anchor": fresh_anchor, "new_text": "BETA again"}}]}}
        r = await self.call(step, **request)
        self.expect(not r.is_error, step, "the retry with the refusal's anchor and tag was refused", request, r)
        self.expect(r.text.startswith(f"Edited {NAME} "), step, f"the text does not open with `Edited {NAME}`", request, r)
        self.expect(ADDED.search(r.text) is not None, step, "the text names no `Anchors of the added lines: …`", request, r)
        id2 = self.change_id(r.text)
        self.expect(id2 is not None and id2 != id1, step, "no new change line", request, r)
        self.bytes_are(step, AFTER_RETRY)

        step = "5 revert"
        request = {"tool": "edit", "args": {"revert": id2}}
        r = await self.call(step, **request)
        self.expect(not r.is_error, step, "the revert was refused", request, r)
        self.expect(r.text.startswith(f"Reverted {NAME} to its content before {id2} "), step,
                    f"the text does not open with `Reverted {NAME} to its content before {id2}`", request, r)
        self.bytes_are(step, ON_DISK)


# --------------------------------------------------------------------------------------------
# The clients


@dataclass
class Target:
    transport: str
    command: list[str] = field(default_factory=list)  # stdio: the server command
    url: str = ""  # http
    work: Path = Path()
    env: dict[str, str] = field(default_factory=dict)


class Driver:
    name = ""
    version = ""
    revision: str | None = None

    async def open(self, target: Target) -> None:
        raise NotImplementedError

    async def call(self, tool: str, args: dict) -> Result:
        raise NotImplementedError

    async def close(self) -> None:
        pass


def text_of(content: list) -> str:
    return "\n".join(block.get("text", "") for block in content if block.get("type") == "text")


class FastMCP(Driver):
    """FastMCP's `Client`, in process: `Client(StdioTransport(...))` or `Client(url)`."""

    name = "fastmcp"

    def __init__(self) -> None:
        import fastmcp  # noqa: PLC0415 (an ImportError makes the client SKIPPED)

        self.version = fastmcp.__version__
        self.client = None
        self.transport = None

    async def open(self, target: Target) -> None:
        from fastmcp import Client  # noqa: PLC0415
        from fastmcp.client.transports import StdioTransport  # noqa: PLC0415

        if target.transport == "stdio":
            self.transport = StdioTransport(command=target.command[0], args=target.command[1:],
                                            cwd=str(target.work), log_file=target.work / "server.stderr")
            self.client = Client(self.transport)
        else:
            self.client = Client(target.url)
        await self.client.__aenter__()
        self.revision = self.client.protocol_version

    async def call(self, tool: str, args: dict) -> Result:
        r = await self.client.call_tool(tool, args, raise_on_error=False)
        content = [block.model_dump(mode="json") for block in r.content]
        return Result(bool(r.is_error), text_of(content), r.structured_content, content)

    async def close(self) -> None:
        if self.client is not None:
            await self.client.__aexit__(None, None, None)
        if self.transport is not None:
            # keep_alive is on by default: end the server process now.
            await self.transport.close()


class Subprocesses:
    """Runs the Node clients with their own HOME and our Node first on PATH."""

    def __init__(self, node: str, target: Target) -> None:
        self.node = node
        home = target.work / "home"
        home.mkdir(exist_ok=True)
        self.env = dict(os.environ, **target.env)
        self.env.update({
            "HOME": str(home),
            "PATH": f"{Path(node).parent}{os.pathsep}{os.environ.get('PATH', '')}",
            # The Inspector keeps secrets in a file in that HOME (no keychain, no D-Bus here).
            "MCP_INSPECTOR_SECRET_STORE": "file",
            "NO_COLOR": "1",
        })
        self.cwd = str(target.work)
        self.log = target.work / "client.log"

    async def run(self, *args: str, timeout: float = CALL_TIMEOUT) -> tuple[int, str, str]:
        proc = await asyncio.create_subprocess_exec(self.node, *args, cwd=self.cwd, env=self.env,
                                                    stdin=asyncio.subprocess.DEVNULL,
                                                    stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        try:
            out, err = await asyncio.wait_for(proc.communicate(), timeout)
        except asyncio.TimeoutError:
            proc.kill()
            await proc.wait()
            raise
        stdout, stderr = out.decode(errors="replace"), err.decode(errors="replace")
        with self.log.open("a") as log:
            log.write(f"$ node {' '.join(args)}\n-- exit {proc.returncode}\n-- stdout\n{stdout}\n-- stderr\n{stderr}\n")
        return proc.returncode, stdout, stderr


def inspector_bin(modules: Path, name: str) -> str:
    package = modules / "node_modules" / "@modelcontextprotocol" / "inspector"
    bins = json.loads((package / "package.json").read_text())["bin"]
    return str(package / bins[name])


def parse_json_output(step: str, code: int, stdout: str, stderr: str) -> dict:
    try:
        value = json.loads(stdout)
    except json.JSONDecodeError:
        raise Failure(step, f"the client printed no JSON result (exit {code})\n  stdout: {stdout.strip()[:2000]}\n"
                            f"  stderr: {stderr.strip()[-2000:]}")
    if isinstance(value, dict) and "result" in value and "content" not in value:
        value = value["result"]
    if not isinstance(value, dict) or "error" in value and "content" not in value:
        raise Failure(step, f"the client answered an error (exit {code}): {stdout.strip()[:2000]}\n"
                            f"  stderr: {stderr.strip()[-2000:]}")
    return value


def result_of(value: dict) -> Result:
    content = value.get("content") or []
    return Result(value.get("isError") is True, text_of(content), value.get("structuredContent"), value)


class InspectorCli(Driver):
    """`mcp-inspector --cli`: one process, one connection and one server (over stdio) per call."""

    name = "inspector-cli"

    def __init__(self, node: str, modules: Path) -> None:
        self.node = node
        self.launcher = inspector_bin(modules, "mcp-inspector")
        self.version = json.loads((Path(self.launcher).parents[3] / "package.json").read_text())["version"]
        self.proc: Subprocesses | None = None
        self.target_args: list[str] = []

    async def open(self, target: Target) -> None:
        self.proc = Subprocesses(self.node, target)
        self.target_args = ["--", *target.command] if target.transport == "stdio" else [target.url]
        # What each of its connections negotiates: its `initialize` method connects as a call does.
        code, out, err = await self.proc.run(self.launcher, "--cli", "--format", "json", "--method", "initialize",
                                             *self.target_args)
        self.revision = parse_json_output("connect", code, out, err).get("protocolVersion")

    async def call(self, tool: str, args: dict) -> Result:
        code, out, err = await self.proc.run(self.launcher, "--cli", "--format", "json", "--method", "tools/call",
                                             "--tool-name", tool, "--tool-args-json", json.dumps(args),
                                             *self.target_args)
        return result_of(parse_json_output(tool, code, out, err))


class Mcpdo(Driver):
    """`mcpdo` (shipped in the Inspector's package): one connection held by its daemon."""

    name = "mcpdo"

    def __init__(self, node: str, modules: Path) -> None:
        self.node = node
        self.bin = inspector_bin(modules, "mcpdo")
        self.version = json.loads((Path(self.bin).parents[3] / "package.json").read_text())["version"]
        self.proc: Subprocesses | None = None

    async def open(self, target: Target) -> None:
        # HOME is the run's own: the daemon's socket, lock and catalog go to $HOME/.mcp-inspector.
        self.proc = Subprocesses(self.node, target)
        where = ["--", *target.command] if target.transport == "stdio" else [target.url]
        code, out, err = await self.proc.run(self.bin, "--format", "json", "connect", "@hashline", *where)
        parse_json_output("connect", code, out, err)
        code, out, err = await self.proc.run(self.bin, "--format", "json", "connections/show", "@hashline")
        self.revision = parse_json_output("connect", code, out, err).get("protocolVersion")

    async def call(self, tool: str, args: dict) -> Result:
        code, out, err = await self.proc.run(self.bin, "--format", "json", "--connection", "hashline", "tools/call",
                                             "--tool-args-json", json.dumps(args), tool)
        return result_of(parse_json_output(tool, code, out, err))

    async def close(self) -> None:
        if self.proc is not None:
            await self.proc.run(self.bin, "daemon", "stop")


class AiSdk(Driver):
    """`createMCPClient` of `@ai-sdk/mcp`, held open in a Node process (ai-sdk.mjs)."""

    name = "ai-sdk"

    def __init__(self, node: str, modules: Path) -> None:
        self.node = node
        self.modules = modules
        package = modules / "node_modules" / "@ai-sdk" / "mcp" / "package.json"
        self.version = json.loads(package.read_text())["version"]
        self.process: asyncio.subprocess.Process | None = None
        self.next_id = 0
        self.stderr = None

    async def open(self, target: Target) -> None:
        proc = Subprocesses(self.node, target)
        where = ["stdio", *target.command] if target.transport == "stdio" else ["http", target.url]
        self.stderr = (target.work / "client.log").open("ab")
        self.process = await asyncio.create_subprocess_exec(
            self.node, str(HERE / "ai-sdk.mjs"), str(self.modules), *where, cwd=proc.cwd, env=proc.env,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=self.stderr)
        ready = await self.read_line("connect")
        self.revision = ready.get("protocolVersion")

    async def read_line(self, step: str) -> dict:
        line = await self.process.stdout.readline()
        if not line:
            code = await self.process.wait()
            raise Failure(step, f"the AI SDK's process ended (exit {code}); its stderr is in client.log")
        return json.loads(line)

    async def call(self, tool: str, args: dict) -> Result:
        self.next_id += 1
        self.process.stdin.write((json.dumps({"id": self.next_id, "tool": tool, "args": args}) + "\n").encode())
        await self.process.stdin.drain()
        answer = await self.read_line(tool)
        if "error" in answer:
            raise Failure(tool, f"the AI SDK's callTool threw: {answer['error']}",
                          request={"tool": tool, "args": args})
        result = answer["result"]
        return Result(result["isError"], text_of(result["content"]), result["structuredContent"], result)

    async def close(self) -> None:
        if self.process is not None and self.process.returncode is None:
            self.process.stdin.close()
            try:
                await asyncio.wait_for(self.process.wait(), 10)
            except asyncio.TimeoutError:
                self.process.kill()
                await self.process.wait()
        if self.stderr is not None:
            self.stderr.close()


# --------------------------------------------------------------------------------------------
# The servers and the runs


class HttpServer:
    def __init__(self, binary: str, root: Path, work: Path) -> None:
        self.binary, self.root, self.log = binary, root, work / "server.stderr"
        self.process: asyncio.subprocess.Process | None = None
        self.url = ""

    async def start(self) -> None:
        with self.log.open("wb") as log:
            self.process = await asyncio.create_subprocess_exec(
                self.binary, "mcp", "--http", "127.0.0.1:0", "--root", str(self.root),
                stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL, stderr=log)
        for _ in range(200):
            found = re.search(r"listening on (http://\S+)", self.log.read_text(errors="replace"))
            if found:
                self.url = found[1]
                return
            if self.process.returncode is not None:
                break
            await asyncio.sleep(0.05)
        raise Failure("server", f"hashline mcp --http did not start: {self.log.read_text(errors='replace')}")

    async def stop(self) -> int | None:
        """SIGTERM; the exit status (0 expected: docs/protocol.md §10.2, Shutdown)."""
        if self.process is None or self.process.returncode is not None:
            return self.process.returncode if self.process else None
        self.process.send_signal(signal.SIGTERM)
        try:
            return await asyncio.wait_for(self.process.wait(), 35)
        except asyncio.TimeoutError:
            self.process.kill()
            await self.process.wait()
            return None


def leftover_servers(work: Path) -> list[int]:
    """Processes still running whose command line names this run's directory (its servers)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if str(work).encode() in b" ".join(cmdline) and b"mcp" in cmdline:
            pids.append(int(entry.name))
    return pids


# Clients whose own design fails a step, with why: a FAIL of theirs that one of the
# DIAGNOSES explains is reported KNOWN (it fails nothing; a pass is reported XPASS, so the
# entry can go). Anything else they answer wrongly stays a FAIL.
KNOWN = {
    "inspector-cli": "the Inspector's CLI opens a new connection for every call (over stdio a new "
    "hashline process, over HTTP a new session by initialize): the read gate and snapshot store of "
    "a stdio connection, and the changes a session keeps for revert, last one call. mcpdo, the same "
    "package's way of holding one connection, passes every step.",
}


@dataclass
class Outcome:
    client: str
    transport: str
    status: str  # PASS, FAIL, SKIPPED, KNOWN, XPASS
    version: str = ""
    revision: str | None = None
    seconds: float = 0.0
    detail: str = ""
    transcript: list = field(default_factory=list)


async def run_one(make, client: str, transport: str, binary: str, keep: bool) -> Outcome:
    started = time.monotonic()
    work = Path(tempfile.mkdtemp(prefix=f"hashline-clients-{client}-{transport}-"))
    root = work / "root"
    root.mkdir()
    (root / NAME).write_bytes(INITIAL)
    outcome = Outcome(client, transport, "FAIL")
    server: HttpServer | None = None
    driver: Driver | None = None
    notes = []
    try:
        driver = make()
        outcome.version = driver.version
        if transport == "http":
            server = HttpServer(binary, root, work)
            await server.start()
            target = Target("http", url=server.url, work=work)
        else:
            target = Target("stdio", command=[binary, "mcp", "--root", str(root)], work=work)
        try:
            await asyncio.wait_for(driver.open(target), CALL_TIMEOUT)
        except Failure:
            raise
        except Exception as err:
            raise Failure("connect", f"the client could not connect: {type(err).__name__}: {err}")
        outcome.revision = driver.revision
        await asyncio.wait_for(Scenario(driver, root, outcome.transcript).run(), RUN_TIMEOUT)
        outcome.status = "PASS"
    except Failure as failure:
        outcome.detail = failure.describe()
    except asyncio.TimeoutError:
        outcome.detail = f"the run took over {RUN_TIMEOUT} s"
    except Exception as err:  # a defect of this script or of a client: show it whole
        import traceback  # noqa: PLC0415

        outcome.detail = "".join(traceback.format_exception(err)).rstrip()
    finally:
        if driver is not None:
            try:
                await asyncio.wait_for(driver.close(), 20)
            except Exception as err:
                notes.append(f"closing the client failed: {type(err).__name__}: {err}")
        if server is not None:
            status = await server.stop()
            if status != 0 and outcome.status == "PASS":
                outcome.status = "FAIL"
                outcome.detail = f"hashline mcp --http exited {status} on SIGTERM (0 expected, docs/protocol.md §10.2)"
        await asyncio.sleep(0.2)
        for pid in leftover_servers(work):
            notes.append(f"a server process outlived its client and was killed: pid {pid}")
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    if outcome.status == "FAIL":
        for name in ("server.stderr", "client.log"):
            log = work / name
            if log.exists() and log.stat().st_size:
                tail = log.read_text(errors="replace").strip().split("\n")[-15:]
                outcome.detail += f"\n  {name} (last lines):\n" + "\n".join(f"    | {line}" for line in tail)
    if notes:
        outcome.detail = "\n".join(filter(None, [outcome.detail, *(f"note: {n}" for n in notes)]))
    if client in KNOWN:
        explained = any(why in outcome.detail for _, why in DIAGNOSES)
        if outcome.status == "FAIL" and explained:
            outcome.status = "KNOWN"
            outcome.detail = f"known: {KNOWN[client]}\n{outcome.detail}"
        elif outcome.status == "PASS":
            outcome.status = "XPASS"
            outcome.detail = f"passed, though listed as known to fail ({KNOWN[client]}): remove it from KNOWN"
    outcome.seconds = time.monotonic() - started
    if keep:
        outcome.detail += f"\n  kept: {work}"
    else:
        shutil.rmtree(work, ignore_errors=True)
    return outcome


def factories(args) -> dict:
    node, modules = args.node, Path(args.modules) if args.modules else None

    def needs_node(make):
        def checked():
            if not node or not Path(node).exists():
                raise Skip(f"no Node.js >= 22.19 at {node!r}")
            if modules is None or not (modules / "node_modules").is_dir():
                raise Skip(f"the npm clients are not installed in {modules}")
            return make()
        return checked

    def fastmcp():
        try:
            return FastMCP()
        except ImportError as err:
            raise Skip(f"fastmcp cannot be imported by {sys.executable}: {err}")

    return {
        "fastmcp": fastmcp,
        "ai-sdk": needs_node(lambda: AiSdk(node, modules)),
        "inspector-cli": needs_node(lambda: InspectorCli(node, modules)),
        "mcpdo": needs_node(lambda: Mcpdo(node, modules)),
    }


class Skip(Exception):
    pass


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", required=True, help="the hashline binary")
    parser.add_argument("--node", default=shutil.which("node"), help="Node.js >= 22.19 for the npm clients")
    parser.add_argument("--modules", help="the directory whose node_modules holds the npm clients")
    parser.add_argument("--only", default=os.environ.get("HASHLINE_CLIENTS", ""),
                        help="comma-separated clients to run (default: all)")
    parser.add_argument("--skip", action="append", default=[], metavar="CLIENT=REASON",
                        help="report CLIENT as SKIPPED with REASON (it could not be installed)")
    parser.add_argument("--out", default=os.environ.get("HASHLINE_CLIENTS_OUT"),
                        help="write summary.json (every request and answer) here")
    parser.add_argument("--keep", action="store_true", default=bool(os.environ.get("HASHLINE_CLIENTS_KEEP")),
                        help="keep each run's directory (root, logs)")
    args = parser.parse_args()

    binary = str(Path(args.binary).resolve())
    skips = dict(item.split("=", 1) for item in args.skip)
    chosen = [c for c in CLIENTS if not args.only or c in args.only.split(",")]
    makers = factories(args)
    outcomes: list[Outcome] = []
    for client in chosen:
        for transport in TRANSPORTS:
            if client in skips:
                outcome = Outcome(client, transport, "SKIPPED", detail=skips[client])
            else:
                try:
                    makers[client]()  # can it be made here at all?
                    outcome = await run_one(makers[client], client, transport, binary, args.keep)
                except Skip as skip:
                    outcome = Outcome(client, transport, "SKIPPED", detail=str(skip))
            outcomes.append(outcome)
            report(outcome)

    print()
    print(f"{'client':<14} {'version':<8} {'transport':<9} {'protocol':<11} {'result':<8} seconds")
    for o in outcomes:
        print(f"{o.client:<14} {o.version or '-':<8} {o.transport:<9} {o.revision or '-':<11} {o.status:<8} {o.seconds:.1f}")
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "summary.json").write_text(json.dumps([o.__dict__ for o in outcomes], indent=2, ensure_ascii=False))
        print(f"every request and answer: {out / 'summary.json'}")
    passed = sum(o.status == "PASS" for o in outcomes)
    failed = sum(o.status == "FAIL" for o in outcomes)
    skipped = sum(o.status == "SKIPPED" for o in outcomes)
    known = sum(o.status in ("KNOWN", "XPASS") for o in outcomes)
    print(f"clients: {passed} passed, {failed} failed, {skipped} skipped, {known} known (the client's own design)")
    return 1 if failed else 0


def report(o: Outcome) -> None:
    if o.status == "SKIPPED":
        print(f"SKIPPED {o.client} {o.transport}: {o.detail}", flush=True)
        return
    print(f"{o.status} {o.client} {o.version} {o.transport} (protocol {o.revision or 'unknown'}, {o.seconds:.1f} s)",
          flush=True)
    if o.detail:
        print("\n".join(f"    {line}" for line in o.detail.split("\n")), flush=True)


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
