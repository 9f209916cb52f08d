// Host-in-the-loop test: see README.md. `node harness.mjs install` installs the selected hosts;
// `node harness.mjs run` runs them (tests/hosts/run does both, the second offline).
import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, openSync, closeSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { HOSTS } from "./lib/hosts.mjs";
import { install, installedVersion } from "./lib/install.mjs";
import { findFixture, describeFixture } from "./lib/fixture.mjs";
import { Conversation } from "./lib/script.mjs";
import { startStandin } from "./lib/standin/server.mjs";
import { checkStep, readTee, hostAdditions } from "./lib/check.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const PROTOCOLS = {
  anthropic: await import("./lib/standin/anthropic.mjs"),
  responses: await import("./lib/standin/responses.mjs"),
  gemini: await import("./lib/standin/gemini.mjs"),
  chat: await import("./lib/standin/chat.mjs"),
};

const hostsDir = resolve(process.env.HASHLINE_HOSTS_DIR || join(homedir(), ".cache", "hashline-ci", "hosts"));
const outDir = resolve(process.env.HASHLINE_HOSTS_OUT || join(HERE, "out"));
const timeoutSecs = Number(process.env.HASHLINE_HOSTS_TIMEOUT || 180);
const keepTmp = !!process.env.HASHLINE_HOSTS_KEEP;

function selected() {
  const want = (process.env.HASHLINE_HOSTS || "").split(",").map((s) => s.trim()).filter(Boolean);
  if (want.length === 0) return HOSTS;
  const unknown = want.filter((w) => !HOSTS.some((h) => h.id === w));
  if (unknown.length) {
    console.error(`HASHLINE_HOSTS: unknown host(s) ${unknown.join(", ")}; known: ${HOSTS.map((h) => h.id).join(", ")}`);
    process.exit(2);
  }
  return HOSTS.filter((h) => want.includes(h.id));
}

async function cmdInstall() {
  const t0 = Date.now();
  const skipped = [];
  for (const h of selected()) {
    try {
      const r = install(h, hostsDir);
      console.log(`install: ${h.id} ${h.pkg}@${h.version}: ${r.installed ? `installed in ${r.secs.toFixed(1)} s` : "already installed"}`);
    } catch (e) {
      skipped.push(h.id);
      console.log(`SKIPPED: ${h.id}: npm install of ${h.pkg}@${h.version} failed: ${String(e.message ?? e).split("\n")[0]}`);
    }
  }
  console.log(`install: ${((Date.now() - t0) / 1000).toFixed(1)} s (${hostsDir})`);
}

function killGroup(pid, sig) {
  try {
    process.kill(-pid, sig);
  } catch {}
}

async function runHost(h, fx, bin) {
  const hostOut = join(outDir, h.id);
  rmSync(hostOut, { recursive: true, force: true });
  mkdirSync(hostOut, { recursive: true });
  const dir = join(hostsDir, h.id);
  const version = installedVersion(dir, h.pkg);
  const base = { id: h.id, pkg: h.pkg, version, ran: false };
  if (version !== h.version || !existsSync(join(dir, h.bin))) {
    return { ...base, skipped: `${h.pkg}@${h.version} is not installed in ${dir} (run tests/hosts/run, which installs it)` };
  }
  const tmp = mkdtempSync(join(tmpdir(), `hashline-hosts-${h.id}-`));
  const home = join(tmp, "home");
  const project = join(tmp, "project");
  mkdirSync(home, { recursive: true });
  mkdirSync(project, { recursive: true });
  const file = join(project, fx.name);
  copyFileSync(fx.path, file);

  const teeLog = join(hostOut, "mcp.jsonl");
  const mcp = { command: process.execPath, args: [join(HERE, "lib", "mcp-tee.mjs"), teeLog, bin, "mcp"] };
  const conversation = new Conversation(fx, { teeLog });
  const standin = await startStandin(PROTOCOLS[h.protocol], conversation, join(hostOut, "requests"));
  const { args, env } = h.setup({ home, project, port: standin.port, mcp, fx });
  const hostEnv = {
    PATH: `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
    HOME: home,
    USER: process.env.USER || "root",
    LANG: "C.UTF-8",
    TERM: "dumb",
    NO_COLOR: "1",
    TMPDIR: tmp,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local", "share"),
    XDG_STATE_HOME: join(home, ".local", "state"),
    XDG_CACHE_HOME: join(home, ".cache"),
    ...env,
  };
  writeFileSync(join(hostOut, "command.json"), JSON.stringify({ cwd: project, bin: join(dir, h.bin), args, env: hostEnv, port: standin.port }, null, 2));

  const stdout = openSync(join(hostOut, "host.stdout.txt"), "w");
  const stderr = openSync(join(hostOut, "host.stderr.txt"), "w");
  const t0 = Date.now();
  const child = spawn(join(dir, h.bin), args, { cwd: project, env: hostEnv, stdio: ["ignore", stdout, stderr], detached: true });
  let timedOut = false;
  const exit = await new Promise((resolveExit) => {
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid, "SIGTERM");
      setTimeout(() => killGroup(child.pid, "SIGKILL"), 5000).unref();
    }, timeoutSecs * 1000);
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      resolveExit({ code, signal });
    });
    child.on("error", (e) => {
      clearTimeout(timer);
      resolveExit({ code: null, signal: null, error: String(e) });
    });
  });
  const secs = (Date.now() - t0) / 1000;
  // Whatever the host left running (its MCP server among them).
  killGroup(child.pid, "SIGTERM");
  await new Promise((r) => setTimeout(r, 300));
  killGroup(child.pid, "SIGKILL");
  closeSync(stdout);
  closeSync(stderr);
  await standin.close();

  const tee = readTee(teeLog);
  const steps = conversation.steps.map((s) => checkStep(h.id, s, tee, file));
  for (const st of steps) {
    const stem = `step${st.n}-${st.id}`;
    if (st.shown !== null) writeFileSync(join(hostOut, `${stem}.shown.txt`), st.shown);
    if (st.own !== null) writeFileSync(join(hostOut, `${stem}.hashline.txt`), st.own);
  }
  const init = tee.inits[0] ?? null;
  const result = {
    ...base,
    ran: true,
    secs,
    exit,
    timedOut,
    toolNames: conversation.toolNames,
    requests: { main: conversation.mainRequests, side: conversation.sideRequests },
    problems: conversation.problems,
    mcpServers: tee.servers.size,
    clientInfo: init?.clientInfo ?? null,
    clientInfoVia: init?.via ?? null,
    protocolVersion: init?.protocolVersion ?? null,
    negotiatedProtocolVersion: init?.negotiated ?? null,
    inits: tee.inits.map((i) => ({ via: i.via, clientInfo: i.clientInfo, protocolVersion: i.protocolVersion, negotiated: i.negotiated })),
    steps: steps.map(({ own, shown, ...rest }) => ({ ...rest, hostText: hostAdditions(shown, own) })),
  };
  if (conversation.mainRequests === 0 && (conversation.requests > 0 || tee.inits.length > 0)) {
    result.problems.push(`the host offered the model no hashline tool (${conversation.requests} model requests, ${tee.inits.length} MCP sessions; see host.stderr.txt, mcp.jsonl)`);
  }
  // A host that never got as far as asking its model or starting the MCP server could not
  // run here (a broken hashline server still shows as MCP traffic, and so fails).
  if (conversation.requests === 0 && tee.inits.length === 0 && tee.calls.length === 0) {
    const err = readFileSync(join(hostOut, "host.stderr.txt"), "utf8").trim().split("\n").slice(-3).join(" | ");
    const outTail = readFileSync(join(hostOut, "host.stdout.txt"), "utf8").trim().split("\n").slice(-2).join(" | ");
    result.skipped = `${timedOut ? `timed out after ${timeoutSecs} s` : `exited ${exit.code ?? exit.signal}`} without asking the model for a hashline tool` +
      ` (${conversation.requests} model requests, ${tee.inits.length} MCP initialize); stderr: ${err.slice(0, 400) || "(empty)"}; stdout: ${outTail.slice(0, 300) || "(empty)"}`;
  }
  writeFileSync(join(hostOut, "summary.json"), JSON.stringify(result, null, 2));
  if (!keepTmp) rmSync(tmp, { recursive: true, force: true });
  else result.tmp = tmp;
  return result;
}

function pad(s, n) {
  s = String(s ?? "");
  return s.length >= n ? s : s + " ".repeat(n - s.length);
}

async function cmdRun() {
  const bin = process.env.HASHLINE_BIN;
  if (!bin || !existsSync(bin)) {
    console.error(`HASHLINE_BIN must name the hashline binary (got ${bin ?? "nothing"})`);
    process.exit(2);
  }
  const fx = describeFixture(findFixture());
  console.log(`fixture: ${fx.path} (${fx.lines} lines, ${fx.chars} chars); grep ${JSON.stringify(fx.grepWord)}, ast_search ${JSON.stringify(fx.astPattern)}`);
  mkdirSync(outDir, { recursive: true });
  const t0 = Date.now();
  const results = [];
  for (const h of selected()) {
    process.stdout.write(`run: ${h.id} ... `);
    let r;
    try {
      r = await runHost(h, fx, resolve(bin));
    } catch (e) {
      r = { id: h.id, pkg: h.pkg, version: h.version, ran: false, skipped: `harness error: ${e?.stack ?? e}` };
    }
    results.push(r);
    console.log(r.skipped ? "skipped" : `${r.secs.toFixed(1)} s, exit ${r.exit?.code ?? r.exit?.signal}${r.timedOut ? " (timed out)" : ""}`);
  }
  const secs = (Date.now() - t0) / 1000;
  writeFileSync(join(outDir, "summary.json"), JSON.stringify({ fixture: fx, secs, results }, null, 2));

  // Report.
  console.log("");
  for (const r of results.filter((r) => r.skipped)) console.log(`SKIPPED: ${r.id}: ${r.skipped}`);
  const ran = results.filter((r) => !r.skipped);
  console.log("");
  console.log(
    [pad("host", 12), pad("version", 9), pad("clientInfo.name", 26), pad("clientInfo.version", 19), pad("protocol", 11), pad("steps", 6), "chars shown/hashline per step: read edit refusal grep ast_search long_read"].join(" "),
  );
  for (const r of ran) {
    const passed = r.steps.filter((s) => s.checks.every((c) => c.ok) && s.checks.length > 0).length;
    const sizes = r.steps.map((s) => `${s.shownChars ?? "-"}/${s.ownChars ?? "-"}`).join(" ");
    console.log(
      [pad(r.id, 12), pad(r.version, 9), pad(r.clientInfo?.name, 26), pad(r.clientInfo?.version, 19), pad(r.protocolVersion, 11), pad(`${passed}/${r.steps.length}`, 6), sizes].join(" "),
    );
  }
  console.log("");
  let failed = 0;
  for (const r of ran) {
    const bad = [];
    for (const s of r.steps) for (const c of s.checks) if (!c.ok) bad.push(`  step ${s.n} ${s.id}: ${c.name}: ${c.detail || "failed"}`);
    for (const p of r.problems) bad.push(`  script: ${p}`);
    if (bad.length) {
      failed++;
      console.log(`FAILED: ${r.id}:`);
      for (const b of bad) console.log(b);
      const lr = r.steps.find((s) => s.id === "long_read");
      if (lr?.hostText?.length) console.log(`  long_read, lines the host added: ${lr.hostText.map((l) => JSON.stringify(l)).join(" ")}`);
    } else console.log(`PASSED: ${r.id}: ${r.steps.length} steps`);
    for (const s of r.steps) for (const c of s.checks) if (c.known) console.log(`  step ${s.n} ${s.id}: ${c.name}: ${c.known}`);
  }
  const skippedN = results.length - ran.length;
  console.log("");
  console.log(`run: ${secs.toFixed(1)} s; records in ${outDir}`);
  console.log(`hosts: ${ran.length - failed} passed, ${failed} failed, ${skippedN} skipped`);
  process.exit(failed ? 1 : 0);
}

const cmd = process.argv[2];
if (cmd === "install") await cmdInstall();
else if (cmd === "run") await cmdRun();
else {
  console.error("usage: node harness.mjs install|run");
  process.exit(2);
}
