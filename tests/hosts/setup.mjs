// `hashline setup` proven with the hosts' own programs (README.md, the section of that name):
// run by tests/hosts/run after the model-view run, offline. `node setup.mjs`; the last line is
// `setup: N passed, N failed, N skipped` (checks), exit 1 when a check failed.
//
// 1. Claude Code, Codex CLI, Gemini CLI, opencode, each scope (project; --user): seed the
//    host's files with content of their own, let the host's listing run once (hosts migrate
//    and add state files on a first start), record every byte under the temporary HOME and
//    project, `hashline setup <host> --command BIN`; the host's own listing must show hashline
//    connected beside the seeded servers, a one-request headless probe must see hashline's
//    seven tools in the model's tool list, and `--remove` must leave every file as recorded.
// 2. Claude Code configured only by `hashline setup claude-code --replace-builtins` (project
//    scope), tool search at its default, against the stand-in model: hashline's tools are in
//    the first request, a built-in Edit is denied by the hook with hashline's reason, and
//    mcp__hashline__read then mcp__hashline__edit change the file.
// 3. Cursor and VS Code (no CLI on npm): SKIPPED for the listing; their files are checked to
//    parse, name a command that starts a server listing seven tools, and round-trip.
//
// HASHLINE_SETUP_FAULT breaks one thing on purpose, to see the checks fail: skip-remove,
// corrupt (a byte of a seeded file after --remove), wrong-command (setup --command names a
// program that is not hashline), no-hook (part 2 without --replace-builtins), no-always-load
// (part 2 with `alwaysLoad` taken out of .mcp.json).
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";

import { installedVersion } from "./lib/install.mjs";
import { baseName, parseRows } from "./lib/script.mjs";
import { startStandin } from "./lib/standin/server.mjs";
import { FILE_HOSTS, SETUP_HOSTS, parseJsonc } from "./lib/setup-hosts.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const PROTOCOLS = {
  anthropic: await import("./lib/standin/anthropic.mjs"),
  responses: await import("./lib/standin/responses.mjs"),
  gemini: await import("./lib/standin/gemini.mjs"),
  chat: await import("./lib/standin/chat.mjs"),
};
const TOOLS = ["read", "grep", "ast_search", "edit", "write", "ls", "find"];

const hostsDir = resolve(process.env.HASHLINE_HOSTS_DIR || join(homedir(), ".cache", "hashline-ci", "hosts"));
const outDir = resolve(process.env.HASHLINE_HOSTS_OUT || join(HERE, "out"), "setup");
const keepTmp = !!process.env.HASHLINE_HOSTS_KEEP;
const FAULT = process.env.HASHLINE_SETUP_FAULT || "";
const BIN = process.env.HASHLINE_BIN ? resolve(process.env.HASHLINE_BIN) : null;
const WANT = (process.env.HASHLINE_SETUP_HOSTS || process.env.HASHLINE_HOSTS || "")
  .split(",")
  .map((s) => s.trim())
  .filter(Boolean);
const wanted = (id) => WANT.length === 0 || WANT.includes(id);

// ---- checks -------------------------------------------------------------------------------

const results = []; // { group, name, ok, detail }
const skipped = []; // { id, reason }

function check(group, name, ok, detail = "") {
  results.push({ group, name, ok: !!ok, detail });
  console.log(`  ${ok ? "ok  " : "FAIL"} ${group}: ${name}${!ok && detail ? `\n         ${detail.replace(/\n/g, "\n         ")}` : ""}`);
  return !!ok;
}

function skip(id, reason) {
  skipped.push({ id, reason });
  console.log(`${id}: SKIPPED (the reason is in the summary below)`);
}

// ---- processes ----------------------------------------------------------------------------

// Runs a program in its own process group; whatever it leaves running (MCP servers) is killed
// when it exits. -> { code, signal, stdout, stderr, secs, timedOut }
function run(cmd, args, { cwd, env, timeout = 60, input = null } = {}) {
  return new Promise((done) => {
    const t0 = Date.now();
    const child = spawn(cmd, args, { cwd, env, stdio: [input === null ? "ignore" : "pipe", "pipe", "pipe"], detached: true });
    const out = [];
    const err = [];
    child.stdout.on("data", (c) => out.push(c));
    child.stderr.on("data", (c) => err.push(c));
    if (input !== null) child.stdin.end(input);
    let timedOut = false;
    let exit = null;
    const kill = (sig) => {
      try {
        process.kill(-child.pid, sig);
      } catch {}
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill("SIGTERM");
      setTimeout(() => kill("SIGKILL"), 3000).unref();
    }, timeout * 1000);
    const finish = () => {
      clearTimeout(timer);
      done({
        code: exit?.code ?? null,
        signal: exit?.signal ?? null,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
        secs: (Date.now() - t0) / 1000,
        timedOut,
        error: exit?.error,
      });
    };
    child.on("error", (e) => {
      exit = { code: null, signal: null, error: String(e) };
      finish();
    });
    child.on("exit", (code, signal) => {
      exit = { code, signal };
      // The group's leftovers hold the pipes open: end them, then read what is left.
      kill("SIGTERM");
      setTimeout(() => kill("SIGKILL"), 500).unref();
    });
    child.on("close", finish);
  });
}

// An MCP server started as an entry says: initialize, then tools/list -> tool names.
async function serverTools(command, args, { cwd, env }) {
  const input =
    [
      { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "setup-check", version: "1" } } },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
    ]
      .map((m) => JSON.stringify(m))
      .join("\n") + "\n";
  // stdin stays open until the answer to tools/list is in: a server may stop reading at EOF.
  return new Promise((done) => {
    const child = spawn(command, args, { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
    let buf = "";
    let stderr = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      finish({ tools: null, error: `no tools/list answer in 20 s; stderr: ${stderr.slice(0, 300)}` });
    }, 20000);
    let answered = false;
    const finish = (value) => {
      if (answered) return;
      answered = true;
      clearTimeout(timer);
      done(value);
    };
    child.on("error", (e) => finish({ tools: null, error: String(e) }));
    child.on("close", (code, signal) => finish({ tools: null, error: `it exited (${code ?? signal}) without answering tools/list; stderr: ${stderr.slice(0, 300)}` }));
    child.stdin.on("error", () => {}); // a server that exits at once: its exit says so
    child.stderr.on("data", (c) => (stderr += c));
    child.stdout.on("data", (c) => {
      buf += c;
      for (const line of buf.split("\n")) {
        try {
          const m = JSON.parse(line);
          if (m.id === 2 && ("result" in m || "error" in m)) {
            finish({ tools: (m.result?.tools ?? []).map((t) => t.name), error: m.error ? JSON.stringify(m.error) : null });
            child.stdin.end();
            child.kill("SIGTERM");
          }
        } catch {}
      }
    });
    child.stdin.write(input);
  });
}

// ---- files --------------------------------------------------------------------------------

// Every file under the temporary HOME and project, as "home:REL" / "project:REL" -> bytes.
function snapshot(roots) {
  const files = new Map();
  for (const [name, root] of Object.entries(roots)) {
    const walk = (dir) => {
      let entries;
      try {
        entries = readdirSync(dir, { withFileTypes: true });
      } catch {
        return;
      }
      for (const e of entries) {
        const p = join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.isFile() || e.isSymbolicLink()) {
          try {
            files.set(`${name}:${relative(root, p)}`, e.isSymbolicLink() ? Buffer.from(`-> ${p}`) : readFileSync(p));
          } catch {}
        }
      }
    };
    walk(root);
  }
  return files;
}

// Paths whose bytes differ between two snapshots (added, removed or changed).
function changedPaths(a, b) {
  const out = [];
  for (const k of new Set([...a.keys(), ...b.keys()])) {
    const x = a.get(k);
    const y = b.get(k);
    if (!x || !y || !x.equals(y)) out.push(k);
  }
  return out.sort();
}

function describeChange(k, a, b) {
  const x = a.get(k);
  const y = b.get(k);
  if (!x) return `${k}: added (${y.length} bytes)`;
  if (!y) return `${k}: gone (was ${x.length} bytes)`;
  let i = 0;
  while (i < x.length && i < y.length && x[i] === y[i]) i++;
  const ctx = (buf) => JSON.stringify(buf.subarray(Math.max(0, i - 20), i + 40).toString("utf8"));
  return `${k}: differs from byte ${i} (${x.length} -> ${y.length} bytes): was ${ctx(x)}, now ${ctx(y)}`;
}

// `setup`'s report: `created   PATH  (role)` lines -> { verb, key }.
function reported(stdout, roots) {
  const out = [];
  for (const l of stdout.split("\n")) {
    const m = /^(created|updated|removed|unchanged)\s+(.+?)\s+\(.*\)$/.exec(l.trim());
    if (!m) continue;
    let p = m[2];
    if (p.startsWith("~/")) p = join(roots.home, p.slice(2));
    else if (!p.startsWith("/")) p = join(roots.project, p);
    out.push({ verb: m[1], key: keyOf(p, roots) });
  }
  return out;
}

function keyOf(path, roots) {
  for (const [name, root] of Object.entries(roots)) {
    const rel = relative(root, path);
    if (!rel.startsWith("..") && !rel.startsWith("/")) return `${name}:${rel}`;
  }
  return `outside:${path}`;
}

function pathOf(key, roots) {
  const i = key.indexOf(":");
  return join(roots[key.slice(0, i)], key.slice(i + 1));
}

// ---- one temporary HOME and project per run ------------------------------------------------

function makePlace(id) {
  const tmp = mkdtempSync(join(tmpdir(), `hashline-setup-${id}-`));
  const home = join(tmp, "home");
  const project = join(tmp, "project");
  mkdirSync(home, { recursive: true });
  mkdirSync(project, { recursive: true });
  return { tmp, home, project, roots: { home, project } };
}

function baseEnv(place) {
  const { home, tmp } = place;
  return {
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
  };
}

function done(place) {
  if (keepTmp) console.log(`  (kept ${place.tmp})`);
  else rmSync(place.tmp, { recursive: true, force: true });
}

function record(dir, name, r) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${name}.txt`), `exit ${r.code ?? r.signal}${r.timedOut ? " (timed out)" : ""}, ${r.secs.toFixed(2)} s\n--- stdout\n${r.stdout}--- stderr\n${r.stderr}`);
}

const setupCommand = () => (FAULT === "wrong-command" ? "/bin/cat" : BIN);

async function hashline(args, place, env, dir, name) {
  const r = await run(BIN, args, { cwd: place.project, env, timeout: 60 });
  record(dir, name, r);
  return r;
}

// ---- the stand-in model, for one request ---------------------------------------------------

// Records the tools of every model request and answers each with a short text.
class Probe {
  constructor() {
    this.requests = 0;
    this.sideRequests = 0;
    this.toolLists = [];
  }
  next({ tools }) {
    this.requests++;
    this.toolLists.push(tools.map((t) => ({ name: t.name, namespace: t.namespace ?? null })));
    return { kind: "text", text: "Hello." };
  }
}

// The hashline tools (base names) a tool list holds.
const hashlineTools = (list) => [...new Set(list.map((t) => baseName(t.name, t.namespace)).filter(Boolean))].sort();

// ---- 1. a host with a listing command ------------------------------------------------------

async function roundTrip(h, scope, variant = {}) {
  const label = `${h.id} ${scope}${variant.label ? ` (${variant.label})` : ""}`;
  const group = label;
  const dir = join(outDir, `${h.id}-${scope}${variant.label ? `-${variant.tag}` : ""}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  console.log(`${label}:`);
  const place = makePlace(h.id);
  const { home, project, roots } = place;
  const dirs = { ...h.dirs(home), ...(variant.dirs?.(home) ?? {}) };
  const env = { ...baseEnv(place), ...h.env({ home, project, dirs }), ...(variant.env?.(dirs) ?? {}) };
  const hostBin = join(hostsDir, h.id, h.bin);
  const scopeArgs = scope === "user" ? ["--user"] : [];
  h.seed({ home, project, dirs });
  const listing = async (name) => {
    const r = await run(hostBin, h.listArgs, { cwd: project, env, timeout: 60 });
    record(dir, name, r);
    let parsed = null;
    let error = null;
    try {
      parsed = h.parseList(r.stdout, r.stderr);
    } catch (e) {
      error = String(e);
    }
    return { r, parsed, error };
  };
  const show = (l) => (l.parsed ?? []).map((s) => `${s.name}=${s.status}`).join(", ") || `(nothing parsed: ${l.error ?? ""} ${(l.r.stdout + l.r.stderr).trim().slice(0, 300)})`;
  const seededNames = ["seeded-user", "seeded-project"];

  // The host's first start: it may migrate or add to its files; recorded bytes come after it.
  const before = await listing("list-0-before");
  const cmdline = `${h.bin.split("/").pop()} ${h.listArgs.join(" ")}`;
  console.log(`  ${cmdline} (before setup): ${show(before)}`);
  if (!before.parsed || before.parsed.length === 0) {
    skip(label, `\`${cmdline}\` listed nothing before setup (exit ${before.r.code ?? before.r.signal}): ${(before.r.stdout + before.r.stderr).trim().slice(0, 300)}`);
    done(place);
    return;
  }
  check(group, "before setup, the listing shows both seeded servers and no hashline", seededNames.every((n) => before.parsed.some((s) => s.name === n)) && !before.parsed.some((s) => s.name === "hashline"), show(before));

  const s0 = snapshot(roots);
  const dry = await hashline(["setup", h.id, ...scopeArgs, "--dry-run", "--command", setupCommand()], place, env, dir, "setup-0-dry-run");
  const sDry = snapshot(roots);
  check(group, "--dry-run prints a diff and writes nothing", dry.code === 0 && /^\+\+\+ /m.test(dry.stdout) && changedPaths(s0, sDry).length === 0, `exit ${dry.code}; changed: ${changedPaths(s0, sDry).join(", ") || "none"}; ${dry.stderr.trim()}`);

  const first = await hashline(["setup", h.id, ...scopeArgs, "--command", setupCommand()], place, env, dir, "setup-1");
  const s1 = snapshot(roots);
  const written = changedPaths(s0, s1);
  const said = reported(first.stdout, roots).filter((x) => x.verb === "created" || x.verb === "updated").map((x) => x.key).sort();
  check(
    group,
    "setup writes exactly the files it reports, inside the project and HOME",
    first.code === 0 && written.length > 0 && JSON.stringify(written) === JSON.stringify(said),
    `exit ${first.code}; written: ${written.join(", ") || "none"}; reported: ${said.join(", ") || "none"}; ${first.stderr.trim()}`,
  );
  for (const k of written) writeFileSync(join(dir, `written-${k.replace(/[:/]/g, "_")}`), s1.get(k) ?? "(removed)");
  const again = await hashline(["setup", h.id, ...scopeArgs, "--command", setupCommand()], place, env, dir, "setup-2-again");
  const s1b = snapshot(roots);
  check(group, "a second setup changes no byte", again.code === 0 && changedPaths(s1, s1b).length === 0, changedPaths(s1, s1b).map((k) => describeChange(k, s1, s1b)).join("\n"));

  const doctor = await hashline(["doctor"], place, env, dir, "doctor");
  const doctorSays = new RegExp(`^${h.id} \\(${scope}\\):`, "m").test(doctor.stdout);
  const doctorWrote = changedPaths(s1b, snapshot(roots));
  check(
    group,
    "`hashline doctor` finds the setup, no problem, and writes nothing",
    doctor.code === 0 && doctorSays && doctorWrote.length === 0,
    `exit ${doctor.code}; wrote: ${doctorWrote.join(", ") || "nothing"}:\n${doctor.stdout.trim()}\n${doctor.stderr.trim()}`,
  );

  // The host's own listing.
  const after = await listing("list-1-after-setup");
  console.log(`  ${cmdline} (after setup): ${show(after)}`);
  const hl = after.parsed?.find((s) => s.name === "hashline");
  if (h.id === "codex") {
    // Codex's listing names the command and whether it is enabled; it starts no server.
    check(group, `\`${cmdline}\` lists hashline enabled, running \`${setupCommand()} mcp\``, hl && hl.enabled && hl.command === setupCommand() && JSON.stringify(hl.args) === '["mcp"]', show(after));
  } else {
    check(group, `\`${cmdline}\` shows hashline connected`, hl && hl.connected, show(after));
  }
  const seededAfter = seededNames.map((n) => after.parsed?.find((s) => s.name === n));
  check(
    group,
    "the seeded servers are still listed" + (h.id === "codex" ? " (enabled)" : " (connected)"),
    seededAfter.every((s) => s && (h.id === "codex" ? s.enabled : s.connected)),
    show(after),
  );

  // Take it back: every file as recorded.
  const s2 = snapshot(roots);
  const hostWrote = changedPaths(s1b, s2);
  if (hostWrote.length) writeFileSync(join(dir, "host-wrote-listing.txt"), hostWrote.join("\n") + "\n");
  await remove(h, scopeArgs, place, env, dir, "setup-3-remove", group, s0, written);
  const s3 = snapshot(roots);
  roundTripChecks(group, { s0, s3, written, hostWrote });

  // Again, with one model request in between: which MCP tools the host loads from the setup.
  // A host may rewrite its own file here (Claude Code keeps its state in ~/.claude.json, which
  // holds the user's servers too); such a file must come back as the host left it, less
  // hashline's entry.
  await hashline(["setup", h.id, ...scopeArgs, "--command", setupCommand()], place, env, dir, "setup-4-for-probe");
  const s4 = snapshot(roots);
  const conv = new Probe();
  const standin = await startStandin(PROTOCOLS[h.protocol], conv, join(dir, "probe-requests"));
  const p = h.probe({ port: standin.port, tmp: place.tmp });
  const probeEnv = { ...env, ...h.env({ home, project, dirs, port: standin.port }), ...(variant.env?.(dirs) ?? {}), ...p.env };
  const pr = await run(hostBin, p.args, { cwd: project, env: probeEnv, timeout: 90 });
  record(dir, "probe", pr);
  await standin.close();
  const firstWithTools = conv.toolLists.find((l) => l.length > 0) ?? [];
  const got = hashlineTools(firstWithTools);
  console.log(`  probe: ${conv.requests} model request(s), ${pr.secs.toFixed(1)} s; hashline tools in the first tool list: ${got.join(", ") || "none"}`);
  check(group, "headless, the model's tool list holds hashline's seven tools", TOOLS.every((t) => got.includes(t)), `requests: ${conv.requests}; tools: ${JSON.stringify(firstWithTools.map((t) => (t.namespace ? `${t.namespace}.${t.name}` : t.name)))}; host exit ${pr.code ?? pr.signal}; stderr: ${pr.stderr.trim().slice(-400)}`);
  const s5 = snapshot(roots);
  const probeWrote = changedPaths(s4, s5);
  if (probeWrote.length) writeFileSync(join(dir, "host-wrote-probe.txt"), probeWrote.join("\n") + "\n");
  await remove(h, scopeArgs, place, env, dir, "setup-5-remove", group, s0, written);
  const s6 = snapshot(roots);
  const both = written.filter((k) => probeWrote.includes(k));
  for (const k of both) {
    let ok = false;
    let detail = "";
    try {
      const left = withoutHashline(parseJsonc(s5.get(k).toString("utf8")));
      const now = parseJsonc(s6.get(k).toString("utf8"));
      ok = isDeepStrictEqual(now, left);
      if (!ok) detail = `after --remove: ${s6.get(k).toString("utf8").slice(0, 600)}`;
    } catch (e) {
      detail = String(e);
    }
    check(group, `${k} (the host rewrote it during the probe): --remove leaves it as the host left it, less hashline's entry`, ok, detail);
  }
  roundTripChecks(`${group}, after the probe`, { s0, s3: s6, written: written.filter((k) => !both.includes(k)), hostWrote: [...hostWrote, ...probeWrote] });
  done(place);
}

async function remove(h, scopeArgs, place, env, dir, name, group, s0, written) {
  if (FAULT !== "skip-remove") {
    const rm = await hashline(["setup", h.id, ...scopeArgs, "--remove"], place, env, dir, name);
    check(group, `--remove exits 0 (${name})`, rm.code === 0, rm.stderr.trim());
  }
  if (FAULT === "corrupt") {
    // One byte of a seeded file that setup wrote, flipped.
    const victim = [...s0.keys()].find((k) => written.includes(k));
    if (victim) {
      const b = readFileSync(pathOf(victim, place.roots));
      b[b.length - 2] ^= 1;
      writeFileSync(pathOf(victim, place.roots), b);
    }
  }
}

// A JSON value less every `hashline` member and every "hashline" item.
function withoutHashline(v) {
  if (Array.isArray(v)) return v.filter((x) => x !== "hashline").map(withoutHashline);
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).filter(([k]) => k !== "hashline").map(([k, x]) => [k, withoutHashline(x)]));
  return v;
}

// After --remove: each file setup wrote is as recorded before setup (or gone again), and no
// other file differs but those the host itself wrote while it ran (its logs and state).
function roundTripChecks(group, { s0, s3, written, hostWrote }) {
  const bad = written.filter((k) => !(s0.get(k) ? s3.get(k)?.equals(s0.get(k)) : !s3.has(k)));
  check(group, `--remove leaves the ${written.length} file(s) setup wrote byte-identical to before (or gone)`, written.length > 0 && bad.length === 0, bad.map((k) => describeChange(k, s0, s3)).join("\n"));
  const stray = changedPaths(s0, s3).filter((k) => !written.includes(k) && !hostWrote.includes(k));
  const added = stray.filter((k) => !s0.has(k));
  check(group, "no other file added or changed", stray.length === 0, stray.map((k) => describeChange(k, s0, s3)).join("\n") + (added.length ? `\nadded: ${added.join(", ")}` : ""));
}

// ---- 2. Claude Code, headless, set up only by `hashline setup --replace-builtins` ----------

// The scripted model: built-in Read, built-in Edit (must be denied by the hook), then
// mcp__hashline__read and mcp__hashline__edit, then a final text.
class ReplaceBuiltins {
  constructor(file) {
    this.file = file;
    this.requests = 0;
    this.sideRequests = 0;
    this.firstTools = null;
    this.toolLists = [];
    this.results = {};
    this.step = 0;
    this.problems = [];
  }
  next({ tools, results }) {
    this.requests++;
    this.toolLists.push(tools.map((t) => t.name));
    if (this.firstTools === null) this.firstTools = tools.map((t) => t.name);
    for (const r of results) if (!(r.callId in this.results)) this.results[r.callId] = r;
    const names = tools.map((t) => t.name);
    const call = (id, name, args) => {
      if (!names.includes(name)) {
        this.problems.push(`no ${name} tool in request ${this.requests}'s tool list`);
        return { kind: "text", text: `Stopping: no ${name}.` };
      }
      return { kind: "tool", callId: id, name, args };
    };
    if (tools.length === 0) {
      this.sideRequests++;
      return { kind: "text", text: "Setup test." };
    }
    const has = (id) => id in this.results;
    if (!has("toolu_read_builtin")) return call("toolu_read_builtin", "Read", { file_path: this.file });
    if (!has("toolu_edit_builtin")) return call("toolu_edit_builtin", "Edit", { file_path: this.file, old_string: "beta = 2", new_string: "beta = 20  # by the built-in Edit" });
    if (!has("toolu_hl_read")) return call("toolu_hl_read", "mcp__hashline__read", { path: this.file });
    if (!has("toolu_hl_edit")) {
      const row = parseRows(this.results.toolu_hl_read.text).find((r) => r.text === "gamma = 3");
      if (!row) {
        this.problems.push(`no row for "gamma = 3" in mcp__hashline__read's result: ${this.results.toolu_hl_read.text.slice(0, 300)}`);
        return { kind: "text", text: "Stopping: no row." };
      }
      return call("toolu_hl_edit", "mcp__hashline__edit", { path: this.file, edits: [{ set_line: { anchor: `${row.line}:${row.hash}`, new_text: "gamma = 30  # by hashline" } }] });
    }
    return { kind: "text", text: "Done." };
  }
}

async function claudeReplaceBuiltins(h) {
  const group = "claude-code headless (setup --replace-builtins, project scope)";
  const dir = join(outDir, "claude-code-headless");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  console.log(`${group}:`);
  const place = makePlace("claude-headless");
  const { home, project, roots } = place;
  const dirs = h.dirs(home);
  const env = { ...baseEnv(place), ...h.env({ home, project, dirs }) };
  h.seed({ home, project, dirs });
  const fileText = "alpha = 1\nbeta = 2\ngamma = 3\ndelta = 4\n";
  const file = join(project, "values.py");
  writeFileSync(file, fileText);

  // hashline's reason, from the hook itself.
  const hook = await run(BIN, ["hook", "claude-code"], {
    cwd: project,
    env,
    input: JSON.stringify({ hook_event_name: "PreToolUse", tool_name: "Edit", tool_input: { file_path: file } }),
  });
  let reason = null;
  try {
    reason = JSON.parse(hook.stdout).hookSpecificOutput.permissionDecisionReason;
  } catch {}
  check(group, "`hashline hook claude-code` denies Edit with a reason", hook.code === 0 && reason && /mcp__hashline__edit/.test(reason), `exit ${hook.code}: ${hook.stdout}${hook.stderr}`);

  const s0 = snapshot(roots);
  const args = ["setup", "claude-code", "--command", BIN];
  if (FAULT !== "no-hook") args.push("--replace-builtins");
  const su = await hashline(args, place, env, dir, "setup");
  check(group, "setup --replace-builtins exits 0", su.code === 0, su.stdout + su.stderr);
  const s1 = snapshot(roots);
  const written = changedPaths(s0, s1).filter((k) => k !== "project:values.py");
  for (const k of written) writeFileSync(join(dir, `written-${k.replace(/[:/]/g, "_")}`), s1.get(k) ?? "(removed)");
  if (FAULT === "no-always-load") {
    const p = join(project, ".mcp.json");
    writeFileSync(p, readFileSync(p, "utf8").replace(/,\s*"alwaysLoad": true/, ""));
  }

  const conv = new ReplaceBuiltins(file);
  const standin = await startStandin(PROTOCOLS.anthropic, conv, join(dir, "requests"));
  // No --mcp-config and no ENABLE_TOOL_SEARCH: the setup's files alone. Edit is allowed, so
  // that only the hook can deny it.
  const allowed = ["Read", "Edit", "mcp__hashline__read", "mcp__hashline__edit"].join(",");
  const runEnv = { ...env, ...h.env({ home, project, dirs, port: standin.port }) };
  delete runEnv.ENABLE_TOOL_SEARCH;
  const cr = await run(join(hostsDir, h.id, h.bin), ["-p", "Edit values.py.", "--allowedTools", allowed, "--output-format", "json"], { cwd: project, env: runEnv, timeout: 120 });
  record(dir, "claude", cr);
  await standin.close();
  writeFileSync(join(dir, "conversation.json"), JSON.stringify({ firstTools: conv.firstTools, toolLists: conv.toolLists, results: conv.results, problems: conv.problems }, null, 2));
  console.log(`  claude -p: ${conv.requests} model request(s), exit ${cr.code ?? cr.signal}, ${cr.secs.toFixed(1)} s`);

  const first = conv.toolLists[0] ?? [];
  const firstHl = first.filter((n) => n.startsWith("mcp__hashline__")).map((n) => n.slice("mcp__hashline__".length)).sort();
  check(group, "(a) the first model request's tool list holds mcp__hashline__{read,grep,ast_search,edit,write,ls,find}", TOOLS.every((t) => firstHl.includes(t)), `first request's tools: ${JSON.stringify(first)}`);
  const denied = conv.results.toolu_edit_builtin;
  const after = readFileSync(file, "utf8");
  check(
    group,
    "(b) the built-in Edit is denied, and the result the model gets holds hashline's reason",
    denied && reason && denied.text.includes(reason) && !after.includes("by the built-in Edit"),
    `Edit's result: ${denied ? JSON.stringify(denied.text) : "none"}; expected it to hold ${JSON.stringify(reason)}; file now ${JSON.stringify(after)}`,
  );
  const hlEdit = conv.results.toolu_hl_edit;
  check(
    group,
    "(c) mcp__hashline__read then mcp__hashline__edit go through: the file changes on disk",
    conv.results.toolu_hl_read && hlEdit && !hlEdit.raw?.is_error && after === fileText.replace("gamma = 3\n", "gamma = 30  # by hashline\n"),
    `read: ${JSON.stringify(conv.results.toolu_hl_read?.text?.slice(0, 200))}; edit: ${JSON.stringify(hlEdit?.text?.slice(0, 300))}; file: ${JSON.stringify(after)}; ${conv.problems.join("; ")}`,
  );

  const s2 = snapshot(roots);
  const hostWrote = changedPaths(s1, s2).filter((k) => k !== "project:values.py");
  await remove(h, [], place, env, dir, "remove", group, s0, written);
  const s3 = snapshot(roots);
  s0.delete("project:values.py");
  s3.delete("project:values.py");
  roundTripChecks(group, { s0, s3, written, hostWrote });
  done(place);
}

// ---- 3. Cursor and VS Code: the files ------------------------------------------------------

async function fileRoundTrip(h, scope) {
  const group = `${h.id} ${scope} (files)`;
  const dir = join(outDir, `${h.id}-${scope}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  console.log(`${group}:`);
  const place = makePlace(h.id);
  const { home, project, roots } = place;
  const dirs = h.dirs(home);
  const env = { ...baseEnv(place), ...h.env({ home, project, dirs }) };
  const scopeArgs = scope === "user" ? ["--user"] : [];
  h.seed({ home, project, dirs });
  const s0 = snapshot(roots);
  const first = await hashline(["setup", h.id, ...scopeArgs, "--command", setupCommand()], place, env, dir, "setup-1");
  const s1 = snapshot(roots);
  const written = changedPaths(s0, s1);
  const said = reported(first.stdout, roots).filter((x) => x.verb === "created" || x.verb === "updated").map((x) => x.key).sort();
  check(group, "setup writes exactly the files it reports", first.code === 0 && written.length > 0 && JSON.stringify(written) === JSON.stringify(said), `exit ${first.code}; written: ${written.join(", ")}; reported: ${said.join(", ")}; ${first.stderr.trim()}`);
  for (const k of written) writeFileSync(join(dir, `written-${k.replace(/[:/]/g, "_")}`), s1.get(k) ?? "(removed)");
  const again = await hashline(["setup", h.id, ...scopeArgs, "--command", setupCommand()], place, env, dir, "setup-2-again");
  check(group, "a second setup changes no byte", again.code === 0 && changedPaths(s1, snapshot(roots)).length === 0, again.stderr);

  const exp = h.expect[scope];
  for (const sv of exp.servers) {
    const text = s1.get(sv.file)?.toString("utf8");
    let value = null;
    let err = null;
    try {
      value = parseJsonc(text ?? "");
    } catch (e) {
      err = String(e);
    }
    const entry = value?.[sv.key]?.hashline;
    check(
      group,
      `${sv.file.replace(/^\w+:/, scope === "user" ? "~/" : "")} parses, keeps ${sv.seeded} and holds hashline running \`${setupCommand()} mcp\``,
      entry && entry.command === setupCommand() && JSON.stringify(entry.args) === '["mcp"]' && value[sv.key][sv.seeded],
      err ?? `${sv.key}: ${JSON.stringify(value?.[sv.key])}`,
    );
    const seededText = s0.get(sv.file)?.toString("utf8") ?? "";
    const comments = seededText.split("\n").filter((l) => /\/\//.test(l));
    if (comments.length) check(group, `${sv.file} keeps its comment lines`, comments.every((c) => text.includes(c)), `missing: ${comments.filter((c) => !text.includes(c)).join(" | ")}`);
    if (entry) {
      const st = await serverTools(entry.command, entry.args ?? [], { cwd: project, env });
      check(group, "the entry's command starts a server that lists hashline's seven tools", st.tools && TOOLS.every((t) => st.tools.includes(t)), `${st.error ?? ""} tools: ${JSON.stringify(st.tools)}`);
    }
  }
  for (const f of exp.own) {
    const text = s1.get(f)?.toString("utf8");
    check(group, `${f} is written, with front matter and the rule`, text && /^---\n[\s\S]*?\n---\n/.test(text) && /hashline/.test(text), JSON.stringify(text));
  }
  await remove(h, scopeArgs, place, env, dir, "setup-3-remove", group, s0, written);
  roundTripChecks(group, { s0, s3: snapshot(roots), written, hostWrote: [] });
  done(place);
}

// ---- main ---------------------------------------------------------------------------------

async function main() {
  if (!BIN || !existsSync(BIN)) {
    console.error(`HASHLINE_BIN must name the hashline binary (got ${process.env.HASHLINE_BIN ?? "nothing"})`);
    process.exit(2);
  }
  mkdirSync(outDir, { recursive: true });
  if (FAULT) console.log(`setup: HASHLINE_SETUP_FAULT=${FAULT}: a fault on purpose, checks are expected to fail`);
  const t0 = Date.now();
  const timing = {};
  for (const h of SETUP_HOSTS) {
    if (!wanted(h.id)) continue;
    const version = installedVersion(join(hostsDir, h.id), h.pkg);
    if (version !== h.version || !existsSync(join(hostsDir, h.id, h.bin))) {
      skip(h.id, `${h.pkg}@${h.version} is not installed in ${join(hostsDir, h.id)} (tests/hosts/run installs it)`);
      continue;
    }
    const th = Date.now();
    for (const scope of ["project", "user"]) {
      try {
        await roundTrip(h, scope);
      } catch (e) {
        check(`${h.id} ${scope}`, "the run went through", false, String(e?.stack ?? e));
      }
    }
    if (h.id === "claude-code") {
      // The user scope again with CLAUDE_CONFIG_DIR: setup and Claude Code both follow it.
      try {
        await roundTrip(h, "user", {
          label: "CLAUDE_CONFIG_DIR",
          tag: "config-dir",
          dirs: (home) => ({ claude: join(home, "claude-config"), claudeJson: join(home, "claude-config", ".claude.json") }),
          env: (dirs) => ({ CLAUDE_CONFIG_DIR: dirs.claude }),
        });
      } catch (e) {
        check("claude-code user (CLAUDE_CONFIG_DIR)", "the run went through", false, String(e?.stack ?? e));
      }
      try {
        await claudeReplaceBuiltins(h);
      } catch (e) {
        check("claude-code headless", "the run went through", false, String(e?.stack ?? e));
      }
    }
    timing[h.id] = (Date.now() - th) / 1000;
  }
  for (const h of FILE_HOSTS) {
    if (!wanted(h.id)) continue;
    skip(h.id, h.skipped);
    const th = Date.now();
    for (const scope of ["project", "user"]) {
      try {
        await fileRoundTrip(h, scope);
      } catch (e) {
        check(`${h.id} ${scope}`, "the run went through", false, String(e?.stack ?? e));
      }
    }
    timing[h.id] = (Date.now() - th) / 1000;
  }
  const secs = (Date.now() - t0) / 1000;
  const passed = results.filter((r) => r.ok).length;
  const failed = results.length - passed;
  writeFileSync(join(outDir, "summary.json"), JSON.stringify({ secs, timing, fault: FAULT || null, results, skipped }, null, 2));
  console.log("");
  for (const s of skipped) console.log(`SKIPPED: ${s.id}: ${s.reason}`);
  for (const r of results.filter((r) => !r.ok)) console.log(`FAILED: ${r.group}: ${r.name}`);
  console.log(`setup: ${secs.toFixed(1)} s (${Object.entries(timing).map(([k, v]) => `${k} ${v.toFixed(1)} s`).join(", ")}); records in ${outDir}`);
  console.log(`setup: ${passed} passed, ${failed} failed, ${skipped.length} skipped`);
  process.exit(failed ? 1 : 0);
}

await main();
