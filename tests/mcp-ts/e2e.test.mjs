// `hashline mcp --structured-content full` driven end to end by the official MCP TypeScript
// SDK (`@modelcontextprotocol/sdk`, the client library most agent hosts are built on). The
// default mode (the text alone, no outputSchema) is text.test.mjs's.
//
// After `listTools()` the SDK validates every result's `structuredContent` against the
// tool's `outputSchema` with Ajv, error results included: a result the schema does not
// describe becomes a protocol exception instead of a tool result. Ajv also logs a warning
// for every schema keyword or format it does not know; any such line fails the last test.
//
// Run: `cargo build -p hashline-cli`, then in this folder `npm ci && node --test e2e.test.mjs`;
// HASHLINE_BIN overrides the binary; HASHLINE_COMMAND, a JSON array, overrides the whole
// command that runs `hashline` (e.g. `["npx", "hashline-mcp"]`, the npm package as installed).

import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const HERE = dirname(fileURLToPath(import.meta.url));
const BINARY = process.env.HASHLINE_BIN ?? resolve(HERE, "../../target/debug/hashline");
// The program and the arguments before hashline's own.
const [PROGRAM, ...PREFIX] = process.env.HASHLINE_COMMAND ? JSON.parse(process.env.HASHLINE_COMMAND) : [BINARY];
const CONCURRENT_READS = 500;

// Everything the SDK (or anything else in this process) prints to stderr: Ajv's schema
// warnings go through console.warn, which writes here.
const printed = [];
const stderrWrite = process.stderr.write.bind(process.stderr);
process.stderr.write = (chunk, ...rest) => {
  printed.push(String(chunk));
  return stderrWrite(chunk, ...rest);
};

// A row of a tool's text: an optional diff/refusal mark, then `LINE:HASH|`.
const ROW = /^(?<mark>>>>|[ +-])?\s*(?<anchor>\d+:[0-9a-f]{3})\|/gm;

/** The anchors of the text's rows (optionally only rows with one of `marks`). */
function rows(text, marks) {
  return [...text.matchAll(ROW)]
    .filter((m) => marks === undefined || marks.includes(m.groups.mark))
    .map((m) => m.groups.anchor);
}

const anchors = (lines) => lines.map((line) => line.anchor);

function textOf(result) {
  return result.content
    .filter((block) => block.type === "text")
    .map((block) => block.text)
    .join("\n\n");
}

let workspace;
let transport;
let client;
let serverStderr = "";

/** Calls a tool through the SDK (which validates the structured value) and checks the envelope. */
async function call(name, args) {
  const result = await client.callTool({ name, arguments: args });
  const value = result.structuredContent;
  assert.ok(value, `${name}: no structuredContent`);
  assert.equal(value.tool, name);
  assert.equal(value.ok, !result.isError);
  return { result, text: textOf(result), value };
}

/** An error result, received as a result (never a protocol exception), with its code. */
async function refused(name, args, code) {
  const { result, text, value } = await call(name, args);
  assert.equal(result.isError, true, text);
  assert.equal(value.error.code, code, text);
  assert.equal(typeof value.error.message, "string");
  assert.ok(text.startsWith(value.error.message), text);
  return { text, value };
}

before(async () => {
  workspace = mkdtempSync(join(tmpdir(), "hashline-mcp-ts-"));
  writeFileSync(join(workspace, "notes.txt"), "alpha\nbeta\ngamma\n");
  writeFileSync(join(workspace, "unread.txt"), "one\ntwo\n");
  mkdirSync(join(workspace, "folder"));
  for (let i = 0; i < 20; i++) {
    writeFileSync(join(workspace, `small-${i}.txt`), `file ${i}\nline two\n`);
  }
  transport = new StdioClientTransport({
    command: PROGRAM,
    args: [...PREFIX, "mcp", "--structured-content", "full", "--root", workspace],
    stderr: "pipe",
  });
  transport.stderr?.on("data", (chunk) => {
    serverStderr += chunk;
  });
  client = new Client({ name: "hashline-e2e", version: "0.0.0" });
  await client.connect(transport);
});

after(async () => {
  await client?.close();
  if (workspace) rmSync(workspace, { recursive: true, force: true });
});

test("listTools: every registry tool, with its schemas (output too) and hints", async () => {
  const { tools } = await client.listTools();
  const registry = JSON.parse(execFileSync(PROGRAM, [...PREFIX, "tools"], { encoding: "utf8" }));
  assert.deepEqual(
    tools.map((tool) => tool.name),
    registry.map((entry) => entry.name),
  );
  for (const [i, tool] of tools.entries()) {
    const entry = registry[i];
    assert.equal(tool.description, entry.description);
    assert.deepEqual(tool.inputSchema, entry.inputSchema);
    assert.deepEqual(tool.outputSchema, entry.outputSchema);
    assert.equal(tool.outputSchema.type, "object");
    assert.equal(tool.annotations.readOnlyHint, entry.annotations.readOnlyHint);
    assert.equal(tool.annotations.destructiveHint, entry.annotations.destructiveHint);
  }
  assert.ok(["read", "edit", "write", "ls", "find"].every((name) => tools.some((t) => t.name === name)));
});

test("read: rows in the text, the same anchors in the structured value", async () => {
  const { result, text, value } = await call("read", { path: "notes.txt" });
  assert.equal(result.isError, false);
  assert.match(text, /^snapshot: s[0-9a-z]{8}\n1:3c8\|alpha\n2:589\|beta\n3:56d\|gamma$/);
  assert.deepEqual(rows(text), ["1:3c8", "2:589", "3:56d"]);
  assert.deepEqual(anchors(value.lines), rows(text));
});

let fresh;

test("edit by anchor lands: its text names the added lines' anchors, its value's diff rows are the fresh anchors", async () => {
  const edit = { set_line: { anchor: "2:589", new_text: "BETA" } };
  const { result, text, value } = await call("edit", { path: "notes.txt", edits: [edit] });
  assert.equal(result.isError, false, text);
  assert.equal(readFileSync(join(workspace, "notes.txt"), "utf8"), "alpha\nBETA\ngamma\n");
  assert.match(text, /^Anchors of the added lines: 2:a21$/m);
  assert.deepEqual(rows(text), []);
  assert.deepEqual(rows(value.diff, [" ", "+"]), anchors(value.anchors));
  assert.ok(rows(value.diff, ["-"]).includes("2:589"));
  fresh = value.anchors;
});

test("a stale anchor is an isError result with hash-mismatch and fresh rows; the retry lands", async () => {
  writeFileSync(join(workspace, "notes.txt"), "alpha\nBETA (changed outside)\ngamma\n");
  const stale = { set_line: { anchor: fresh[1].anchor, new_text: "Beta" } };
  const { text, value } = await refused("edit", { path: "notes.txt", edits: [stale] }, "hash-mismatch");
  assert.match(text, /nothing was written/);
  // Every row the text shows (the marked one and its context) is in updatedAnchors.
  const updated = value.error.details.updatedAnchors;
  assert.deepEqual(rows(text), anchors(updated));
  // The targets (the rows the text marks >>>) are in the value: the anchor as sent and its
  // line's fresh one; no need to parse the text for them.
  const [aimed] = value.error.details.targets;
  assert.equal(aimed.sent, stale.set_line.anchor);
  assert.deepEqual(rows(text, [">>>"]), [aimed.anchor]);
  const target = updated.find((row) => row.anchor === aimed.anchor);
  assert.equal(target.raw, "BETA (changed outside)");
  assert.equal(readFileSync(join(workspace, "notes.txt"), "utf8"), "alpha\nBETA (changed outside)\ngamma\n");

  const retry = { set_line: { anchor: target.anchor, new_text: "Beta" } };
  const { result, text: retried, value: done } = await call("edit", { path: "notes.txt", edits: [retry] });
  assert.equal(result.isError, false, retried);
  assert.deepEqual(rows(retried, ["+"]), rows(retried));
  assert.ok(rows(retried).every((anchor) => anchors(done.anchors).includes(anchor)));
  assert.deepEqual(rows(done.diff, [" ", "+"]), anchors(done.anchors));
  assert.equal(readFileSync(join(workspace, "notes.txt"), "utf8"), "alpha\nBeta\ngamma\n");
});

test("an edit of a file never read is refused: file-not-read", async () => {
  const edit = { set_line: { anchor: "1:000", new_text: "x" } };
  await refused("edit", { path: "unread.txt", edits: [edit] }, "file-not-read");
  assert.equal(readFileSync(join(workspace, "unread.txt"), "utf8"), "one\ntwo\n");
});

test("a missing file: file-not-found", async () => {
  await refused("read", { path: "missing.txt" }, "file-not-found");
});

test("a wrong argument type: invalid-type", async () => {
  await refused("read", { path: 7 }, "invalid-type");
});

test("write to a directory: path-is-directory", async () => {
  await refused("write", { path: "folder", content: "x" }, "path-is-directory");
});

test("ls of a missing directory: path-not-found", async () => {
  await refused("ls", { path: "no-such-dir" }, "path-not-found");
});

test(`${CONCURRENT_READS} concurrent reads over one connection`, async () => {
  const started = process.hrtime.bigint();
  const results = await Promise.all(
    Array.from({ length: CONCURRENT_READS }, (_, i) => call("read", { path: `small-${i % 20}.txt` })),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  for (const [i, { result, text, value }] of results.entries()) {
    assert.equal(result.isError, false, text);
    assert.equal(value.lines[0].raw, `file ${i % 20}`);
    assert.deepEqual(anchors(value.lines), rows(text));
  }
  const rate = Math.round(CONCURRENT_READS / seconds);
  console.log(`${CONCURRENT_READS} concurrent reads in ${seconds.toFixed(3)} s: ${rate} reads/s`);
});

// The SDK's `StdioClientTransport.send` waits for `drain` with one listener per write that
// meets backpressure, and Node warns once more than ten wait: a host that writes many
// requests while the server is not running (a loaded machine; the test above on purpose)
// prints this. It is the client library's own bookkeeping, not a schema warning.
const BACKPRESSURE = /MaxListenersExceededWarning: Possible EventEmitter memory leak detected\. \d+ drain listeners added to \[Socket\]/;

test(`${CONCURRENT_READS} concurrent reads written while the server is stopped (backpressure)`, async () => {
  // SIGSTOP keeps the server from reading while every request is written, so the socket
  // fills and the SDK queues the rest; all must be answered once it runs again.
  process.kill(transport.pid, "SIGSTOP");
  const resume = new Promise((done) =>
    setTimeout(() => {
      process.kill(transport.pid, "SIGCONT");
      done();
    }, 200),
  );
  const results = await Promise.all(
    Array.from({ length: CONCURRENT_READS }, (_, i) => call("read", { path: `small-${i % 20}.txt` })),
  );
  await resume;
  for (const [i, { result, text, value }] of results.entries()) {
    assert.equal(result.isError, false, text);
    assert.equal(value.lines[0].raw, `file ${i % 20}`);
  }
});

test("no schema warning (or any other warning) was printed", () => {
  const warnings = printed.join("").replace(/\(node:\d+\) [^\n]*\n(\(Use `node --trace-warnings[^\n]*\n)?/g, (line) =>
    BACKPRESSURE.test(line) ? "" : line,
  );
  assert.equal(warnings, "");
  assert.doesNotMatch(serverStderr, /./, `the server wrote to stderr: ${serverStderr}`);
});
