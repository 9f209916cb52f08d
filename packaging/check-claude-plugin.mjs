#!/usr/bin/env node
// The Claude Code plugin (packaging/claude-plugin) in a headless Claude Code session, offline:
//
//   node packaging/check-claude-plugin.mjs CLAUDE HASHLINE
//
// CLAUDE is Claude Code's program, HASHLINE the binary the plugin is to find on PATH (as
// `hashline`). Claude Code runs `-p` with `--plugin-dir packaging/claude-plugin` in a
// temporary home and project, tool search left at its default, against the scripted model
// API of tests/hosts (lib/standin: Anthropic Messages on 127.0.0.1), which answers:
//   1. a call of the built-in Edit on a file of the project: the plugin's PreToolUse hook
//      (`hashline hook claude-code`) must deny it: an error result, the file unchanged, and,
//      when the binary has the `hook` subcommand, its message (which must name hashline);
//   2. a call of the plugin server's `read` on that file: a row `1:HHH|…` of its text;
//   3. a final text.
// Checked: the first request's tool list holds the server's seven tools (the server entry's
// `alwaysLoad`: without it Claude Code shows only ToolSearch), under the names Claude Code
// gives a plugin's server (mcp__plugin_hashline_hashline__<tool>), and each step as above.
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import * as anthropic from "../tests/hosts/lib/standin/anthropic.mjs";
import { startStandin } from "../tests/hosts/lib/standin/server.mjs";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const PLUGIN = join(ROOT, "packaging", "claude-plugin");
const TOOLS = ["read", "grep", "ast_search", "edit", "write", "ls", "find"];
const PREFIX = "mcp__plugin_hashline_hashline__";
const [claude, hashline] = process.argv.slice(2).map((path) => path && resolve(path));
if (!claude || !hashline) {
  console.error("usage: node check-claude-plugin.mjs CLAUDE HASHLINE");
  process.exit(2);
}

const work = mkdtempSync(join(tmpdir(), "hashline-plugin-"));
const home = join(work, "home");
const project = join(work, "project");
const bin = join(work, "bin");
for (const dir of [home, project, bin]) mkdirSync(dir);
symlinkSync(hashline, join(bin, "hashline"));
const file = join(project, "notes.txt");
const original = "one\ntwo\n";
writeFileSync(file, original);

let hasHook = true;
try {
  execFileSync(hashline, ["hook", "--help"], { stdio: "ignore" });
} catch {
  hasHook = false;
}

const requests = [];
let step = 0;
const conversation = {
  next({ tools, results }) {
    const names = tools.map((tool) => tool.name);
    requests.push({ names, results });
    if (!names.some((name) => name === "Edit" || name.startsWith(PREFIX))) return { kind: "text", text: "ok" };
    step += 1;
    if (step === 1) return { kind: "tool", callId: "toolu_edit", name: "Edit", args: { file_path: file, old_string: "one", new_string: "ONE" } };
    if (step === 2) return { kind: "tool", callId: "toolu_read", name: `${PREFIX}read`, args: { path: "notes.txt" } };
    return { kind: "text", text: "done" };
  },
};
const standin = await startStandin(anthropic, conversation, join(work, "requests"));
const run = await new Promise((done) => {
  const child = spawn(
    claude,
    ["-p", "Change notes.txt.", "--plugin-dir", PLUGIN, "--allowedTools", `Edit,${PREFIX}read`, "--output-format", "json"],
    {
      cwd: project,
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        PATH: `${bin}:${process.env.PATH}`,
        HOME: home,
        TMPDIR: tmpdir(),
        ANTHROPIC_BASE_URL: `http://127.0.0.1:${standin.port}`,
        ANTHROPIC_API_KEY: "sk-ant-stand-in",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        DISABLE_AUTOUPDATER: "1",
        DISABLE_TELEMETRY: "1",
        DISABLE_ERROR_REPORTING: "1",
        CLAUDE_CODE_ENABLE_TELEMETRY: "0",
      },
    },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => (stdout += chunk));
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const timer = setTimeout(() => child.kill(), 120000);
  child.on("exit", (code, signal) => {
    clearTimeout(timer);
    done({ code, signal, stdout, stderr });
  });
});
await standin.close();

const failures = [];
const check = (ok, message) => {
  console.log(`${ok ? "ok  " : "FAIL"} ${message}`);
  if (!ok) failures.push(message);
};
check(run.code === 0, `claude -p --plugin-dir exited ${run.code ?? run.signal}${run.code === 0 ? "" : `: ${run.stderr.slice(0, 400)}`}`);
const first = requests.find((request) => request.names.some((name) => name === "Edit" || name.startsWith(PREFIX)));
const served = (first?.names ?? []).filter((name) => name.startsWith(PREFIX)).map((name) => name.slice(PREFIX.length));
check(
  TOOLS.every((tool) => served.includes(tool)) && served.length === TOOLS.length,
  `the first request lists the server's seven tools (alwaysLoad, tool search at its default): ${served.map((tool) => PREFIX + tool).join(", ") || "none"}`,
);
const results = requests.flatMap((request) => request.results);
const denied = results.find((result) => result.callId === "toolu_edit");
check(Boolean(denied?.raw?.is_error), `the built-in Edit came back as an error: ${JSON.stringify(denied?.text ?? null).slice(0, 300)}`);
check(readFileSync(file, "utf8") === original, "the file is unchanged after the Edit");
if (hasHook) {
  check(/PreToolUse/.test(denied?.text ?? "") || /hashline/.test(denied?.text ?? ""), "the Edit was refused by the hook");
  check(/hashline/.test(denied?.text ?? "") && /\bedit\b/.test(denied?.text ?? "") && !/unrecognized subcommand/.test(denied?.text ?? ""), "the hook's message names hashline's edit");
  check(denied?.text?.includes(`${PREFIX}edit`) ?? false, `the hook's message names ${PREFIX}edit, the name Claude Code gives the plugin's edit tool`);
} else {
  check(/PreToolUse/.test(denied?.text ?? ""), "the Edit was stopped by the plugin's PreToolUse hook");
  console.log(`SKIPPED: the hook's deny message: ${hashline} has no \`hook\` subcommand (the Edit was stopped by its usage error, exit 2)`);
}
const read = results.find((result) => result.callId === "toolu_read");
check(/\b1:[0-9a-f]{3}\|one\b/.test(read?.text ?? "") && !read?.raw?.is_error, `the plugin server's read answered with anchored rows: ${JSON.stringify(read?.text ?? null).slice(0, 120)}`);
check(step >= 3, `the session ran to its final text (${step} scripted steps, ${requests.length} model requests)`);

rmSync(work, { recursive: true, force: true });
if (failures.length > 0) {
  console.error(`claude-plugin: ${failures.length} check(s) failed`);
  process.exit(1);
}
console.log("claude-plugin: loaded by Claude Code headless, its tools on the first turn, the built-in Edit denied, read served");
