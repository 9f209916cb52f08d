#!/usr/bin/env node
// The MCP server command each host is given: runs `CMD ARGS...` (hashline mcp) with the
// host's stdin and stdout, and appends every JSON-RPC line of both directions to LOG as
// {"pid", "t", "dir": "c2s"|"s2c", "line"}. Usage: node mcp-tee.mjs LOG CMD [ARGS...]
import { spawn } from "node:child_process";
import { appendFileSync } from "node:fs";

const [log, cmd, ...args] = process.argv.slice(2);
if (!log || !cmd) {
  process.stderr.write("usage: mcp-tee.mjs LOG CMD [ARGS...]\n");
  process.exit(2);
}

const child = spawn(cmd, args, { stdio: ["pipe", "pipe", "inherit"] });
const record = (dir, line) => {
  if (line.trim() === "") return;
  appendFileSync(log, JSON.stringify({ pid: process.pid, t: Date.now(), dir, line }) + "\n");
};

function splitter(dir) {
  let buf = "";
  return (chunk) => {
    buf += chunk.toString("utf8");
    let i;
    while ((i = buf.indexOf("\n")) >= 0) {
      record(dir, buf.slice(0, i));
      buf = buf.slice(i + 1);
    }
  };
}

const fromHost = splitter("c2s");
const fromServer = splitter("s2c");
process.stdin.on("data", (chunk) => {
  fromHost(chunk);
  child.stdin.write(chunk);
});
process.stdin.on("end", () => child.stdin.end());
child.stdin.on("error", () => {});
child.stdout.on("data", (chunk) => {
  fromServer(chunk);
  process.stdout.write(chunk);
});
for (const sig of ["SIGTERM", "SIGINT", "SIGHUP"]) {
  process.on(sig, () => child.kill(sig));
}
child.on("exit", (code, signal) => {
  record("note", JSON.stringify({ exit: code, signal }));
  process.exitCode = code ?? 1;
  // Let stdout drain, then leave.
  process.stdout.end(() => process.exit(code ?? 1));
});
child.on("error", (e) => {
  record("note", JSON.stringify({ spawnError: String(e) }));
  process.exit(127);
});
