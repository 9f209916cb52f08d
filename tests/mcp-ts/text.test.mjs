// `hashline mcp` in its default mode, driven by the official MCP TypeScript SDK: no tool
// lists an outputSchema and no result carries structuredContent, because agent hosts built
// on this SDK (Claude Code, Codex) show their model `JSON.stringify(structuredContent)`
// when a result has one, instead of its text (issue 47). So everything here works from the
// text alone, as a model does: anchors copied from rows, a refusal's fresh rows, grep's
// matched lines. The SDK still validates what it can (the tool list, every result's
// shape), and any warning it prints fails the last test.
//
// Run as e2e.test.mjs is (HASHLINE_BIN, HASHLINE_COMMAND).

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
const [PROGRAM, ...PREFIX] = process.env.HASHLINE_COMMAND ? JSON.parse(process.env.HASHLINE_COMMAND) : [BINARY];

const printed = [];
const stderrWrite = process.stderr.write.bind(process.stderr);
process.stderr.write = (chunk, ...rest) => {
  printed.push(String(chunk));
  return stderrWrite(chunk, ...rest);
};

// A row: an optional diff/refusal mark, then `LINE:HASH|`; grep's rows start with the path.
const ROW = /^(?<mark>>>>|[ +-])?\s*(?<anchor>\d+:[0-9a-f]{3})\|(?<text>.*)$/gm;
const GREP_ROW = /^(?<path>.+?):(?<mark>>>|  )(?<anchor>\d+:[0-9a-f]{3})\|(?<text>.*)$/gm;

const rows = (text, marks) =>
  [...text.matchAll(ROW)].filter((m) => marks === undefined || marks.includes(m.groups.mark)).map((m) => m.groups);

let workspace;
let client;
let serverStderr = "";

/** A default-mode call: content only, never structuredContent. */
async function call(name, args) {
  const result = await client.callTool({ name, arguments: args });
  assert.equal(result.structuredContent, undefined, `${name}: structuredContent in the default mode`);
  assert.ok(result.content.length > 0, `${name}: no content`);
  const text = result.content
    .filter((block) => block.type === "text")
    .map((block) => block.text)
    .join("\n\n");
  return { isError: result.isError === true, text };
}

before(async () => {
  workspace = mkdtempSync(join(tmpdir(), "hashline-mcp-ts-text-"));
  writeFileSync(join(workspace, "notes.txt"), "alpha\nbeta\ngamma\n");
  mkdirSync(join(workspace, "src"));
  writeFileSync(join(workspace, "src", "a.py"), "def alpha():\n    return 1\n");
  const transport = new StdioClientTransport({
    command: PROGRAM,
    args: [...PREFIX, "mcp", "--root", workspace],
    stderr: "pipe",
  });
  transport.stderr?.on("data", (chunk) => {
    serverStderr += chunk;
  });
  client = new Client({ name: "hashline-e2e-text", version: "0.0.0" });
  await client.connect(transport);
});

after(async () => {
  await client?.close();
  if (workspace) rmSync(workspace, { recursive: true, force: true });
});

test("listTools: every registry tool with its input schema and hints, and no outputSchema", async () => {
  const { tools } = await client.listTools();
  const registry = JSON.parse(execFileSync(PROGRAM, [...PREFIX, "tools"], { encoding: "utf8" }));
  assert.deepEqual(
    tools.map((tool) => tool.name),
    registry.map((entry) => entry.name),
  );
  for (const [i, tool] of tools.entries()) {
    assert.equal(tool.description, registry[i].description);
    assert.deepEqual(tool.inputSchema, registry[i].inputSchema);
    assert.equal(tool.outputSchema, undefined, `${tool.name} lists an outputSchema`);
    assert.equal(tool.annotations.readOnlyHint, registry[i].annotations.readOnlyHint);
  }
});

test("read, edit by a copied anchor, a stale edit refused with fresh rows, the retry lands", async () => {
  const read = await call("read", { path: "notes.txt" });
  assert.equal(read.isError, false, read.text);
  assert.match(read.text, /^snapshot: s[0-9a-z]{8}\n1:3c8\|alpha\n2:589\|beta\n3:56d\|gamma$/);

  const beta = rows(read.text)[1].anchor;
  const edited = await call("edit", { path: "notes.txt", edits: [{ set_line: { anchor: beta, new_text: "BETA" } }] });
  assert.equal(edited.isError, false, edited.text);
  assert.equal(readFileSync(join(workspace, "notes.txt"), "utf8"), "alpha\nBETA\ngamma\n");
  // The result names the added line's new anchor (not its content: the model wrote it).
  const added = { anchor: edited.text.match(/^Anchors of the added lines: (\d+:[0-9a-f]{3})$/m)?.[1] };
  assert.equal(added.anchor, "2:a21", edited.text);

  writeFileSync(join(workspace, "notes.txt"), "alpha\nBETA (changed outside)\ngamma\n");
  const stale = await call("edit", { path: "notes.txt", edits: [{ set_line: { anchor: added.anchor, new_text: "Beta" } }] });
  assert.equal(stale.isError, true, stale.text);
  assert.match(stale.text, /^Edit rejected — nothing was written\./);
  const [aimed] = rows(stale.text, [">>>"]);
  assert.equal(aimed.text, "BETA (changed outside)");
  assert.equal(readFileSync(join(workspace, "notes.txt"), "utf8"), "alpha\nBETA (changed outside)\ngamma\n");

  const retry = await call("edit", { path: "notes.txt", edits: [{ set_line: { anchor: aimed.anchor, new_text: "Beta" } }] });
  assert.equal(retry.isError, false, retry.text);
  assert.equal(readFileSync(join(workspace, "notes.txt"), "utf8"), "alpha\nBeta\ngamma\n");
});

test("grep: the matched line's text in its row", async () => {
  const found = await call("grep", { pattern: "return" });
  assert.equal(found.isError, false, found.text);
  const matches = [...found.text.matchAll(GREP_ROW)].filter((m) => m.groups.mark === ">>");
  assert.deepEqual(
    matches.map((m) => m.groups.text),
    ["    return 1"],
  );
});

test("an error is an isError result whose text says what happened", async () => {
  const missing = await call("read", { path: "missing.txt" });
  assert.equal(missing.isError, true);
  assert.equal(missing.text, "File not found: missing.txt");
  const wrongType = await call("read", { path: 7 });
  assert.equal(wrongType.isError, true);
  assert.match(wrongType.text, /^Invalid path/);
});

test("no warning was printed", () => {
  assert.equal(printed.join(""), "");
  assert.doesNotMatch(serverStderr, /./, `the server wrote to stderr: ${serverStderr}`);
});
