#!/usr/bin/env node
// Builds hashline's MCP Bundle (.mcpb, for Claude Desktop) for one platform, with the official
// CLI (`@anthropic-ai/mcpb`, pinned in this directory's package.json; `npm ci` here first):
//
//   node packaging/mcpb/build.mjs --version 0.1.0 --out DIR --binary linux-x64=PATH [--binary …]
//
// For each --binary, a bundle directory DIR/stage/<platform>/ with manifest.json (this
// directory's, narrowed to that platform) and server/hashline (server/hashline.exe on
// Windows), then:
//   - `mcpb validate` of that manifest and `mcpb pack` into DIR/hashline-<version>-<platform>.mcpb;
//   - the packed file's entries read from its zip directory (what `unzip -l` lists): exactly
//     manifest.json and the binary, the binary byte-identical to the one given and, except on
//     Windows, with its executable bits (the CLI keeps Unix modes when it packs on Unix);
//   - `mcpb unpack` into a fresh directory (what Claude Desktop does), the binary executable
//     there, and `mcpb info` and `mcpb verify` (the bundle is unsigned: verify must say so);
//   - for the platform this runs on: the server started as Claude Desktop would start it (the
//     manifest's mcp_config with its variables replaced by the CLI's own function, a temporary
//     directory as the user's `root`), over MCP on stdio: initialize, then tools/list must list
//     exactly the manifest's seven tools.
// The version given must be the manifest's (.ci/packages passes the workspace's).
import { execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { homedir, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const { PLATFORMS } = createRequire(import.meta.url)("../npm/hashline-mcp/lib/platforms.js");
const CLI = join(HERE, "node_modules", "@anthropic-ai", "mcpb", "dist", "cli", "cli.js");
const TOOLS = ["read", "grep", "ast_search", "edit", "write", "ls", "find"];

function usage(message) {
  console.error(`build.mjs: ${message}\nusage: node build.mjs --version V --out DIR --binary PLATFORM=PATH …`);
  process.exit(2);
}

function fail(message) {
  console.error(`mcpb: ${message}`);
  process.exit(1);
}

function options(argv) {
  const out = { binaries: {} };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (value === undefined) usage(`${flag} needs a value`);
    if (flag === "--version") out.version = value;
    else if (flag === "--out") out.out = resolve(value);
    else if (flag === "--binary") {
      const [key, path] = value.split(/=(.*)/s);
      if (!PLATFORMS.includes(key)) usage(`unknown platform ${key} (there are: ${PLATFORMS.join(", ")})`);
      out.binaries[key] = resolve(path);
    } else usage(`unknown option ${flag}`);
  }
  if (!out.version || !out.out || Object.keys(out.binaries).length === 0) usage("--version, --out and a --binary are required");
  return out;
}

/** Runs the mcpb CLI; returns its output, or fails with it. */
function mcpb(args, { mayFail = false } = {}) {
  try {
    const text = execFileSync(process.execPath, [CLI, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    return { ok: true, text };
  } catch (error) {
    const text = `${error.stdout ?? ""}${error.stderr ?? ""}`;
    if (mayFail) return { ok: false, text };
    fail(`mcpb ${args.join(" ")} failed:\n${text}`);
  }
}

/** The entries of a zip file from its central directory: name, size, Unix mode (or null). */
function zipEntries(file) {
  const data = readFileSync(file);
  let end = -1;
  for (let i = data.length - 22; i >= Math.max(0, data.length - 22 - 65535); i--) {
    if (data.readUInt32LE(i) === 0x06054b50) {
      end = i;
      break;
    }
  }
  if (end < 0) fail(`${file}: not a zip file (no end of central directory)`);
  const count = data.readUInt16LE(end + 10);
  let at = data.readUInt32LE(end + 16);
  const entries = [];
  for (let n = 0; n < count; n++) {
    if (data.readUInt32LE(at) !== 0x02014b50) fail(`${file}: a broken central directory`);
    const madeBy = data.readUInt16LE(at + 4) >> 8;
    const size = data.readUInt32LE(at + 24);
    const nameLength = data.readUInt16LE(at + 28);
    const extraLength = data.readUInt16LE(at + 30);
    const commentLength = data.readUInt16LE(at + 32);
    const external = data.readUInt32LE(at + 38);
    const name = data.toString("utf8", at + 46, at + 46 + nameLength);
    entries.push({ name, size, mode: madeBy === 3 ? (external >>> 16) & 0o7777 : null });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

function sha256(file) {
  return createHash("sha256").update(readFileSync(file)).digest("hex");
}

/** Starts the unpacked server as Claude Desktop would and returns the names tools/list gives. */
async function listTools(unpacked, manifest) {
  const { getMcpConfigForManifest } = await import(pathToFileURL(join(HERE, "node_modules", "@anthropic-ai", "mcpb", "dist", "index.js")));
  const root = mkdtempSync(join(tmpdir(), "hashline-mcpb-root-"));
  const config = await getMcpConfigForManifest({
    manifest,
    extensionPath: unpacked,
    systemDirs: { HOME: homedir(), DESKTOP: join(homedir(), "Desktop"), DOCUMENTS: join(homedir(), "Documents"), DOWNLOADS: join(homedir(), "Downloads") },
    userConfig: { root },
    pathSeparator: process.platform === "win32" ? "\\" : "/",
  });
  if (!config) fail("getMcpConfigForManifest gave no configuration (a required user_config unset?)");
  const expected = ["mcp", "--root", root];
  if (JSON.stringify(config.args) !== JSON.stringify(expected)) fail(`the server's arguments are ${JSON.stringify(config.args)}, not ${JSON.stringify(expected)}`);
  console.log(`started as Claude Desktop would: ${config.command} ${config.args.join(" ")}`);
  const child = spawn(config.command, config.args, { stdio: ["pipe", "pipe", "inherit"], cwd: tmpdir() });
  const replies = new Map();
  let buffer = "";
  const waiting = new Map();
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk) => {
    buffer += chunk;
    let newline;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      if (!line) continue;
      const message = JSON.parse(line);
      if (message.id !== undefined) {
        replies.set(message.id, message);
        waiting.get(message.id)?.(message);
      }
    }
  });
  const exited = new Promise((done) => child.on("exit", (code, signal) => done({ code, signal })));
  const send = (message) => child.stdin.write(`${JSON.stringify(message)}\n`);
  const request = (id, method, params) =>
    new Promise((done, reject) => {
      const timer = setTimeout(() => reject(new Error(`no reply to ${method} in 20 s`)), 20000);
      waiting.set(id, (reply) => {
        clearTimeout(timer);
        done(reply);
      });
      send({ jsonrpc: "2.0", id, method, params });
    });
  try {
    const init = await request(1, "initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "hashline-mcpb-check", version: "0" },
    });
    if (init.error) fail(`initialize: ${JSON.stringify(init.error)}`);
    console.log(`initialize: ${init.result.serverInfo.name} ${init.result.serverInfo.version}, protocol ${init.result.protocolVersion}`);
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    const list = await request(2, "tools/list", {});
    if (list.error) fail(`tools/list: ${JSON.stringify(list.error)}`);
    return { names: list.result.tools.map((tool) => tool.name), version: init.result.serverInfo.version };
  } finally {
    child.stdin.end();
    const timer = setTimeout(() => child.kill(), 5000);
    await exited;
    clearTimeout(timer);
    rmSync(root, { recursive: true, force: true });
  }
}

const { version, out, binaries } = options(process.argv.slice(2));
if (!existsSync(CLI)) fail(`${CLI} is missing: run \`npm ci\` in ${HERE}`);
const cliVersion = JSON.parse(readFileSync(join(HERE, "node_modules", "@anthropic-ai", "mcpb", "package.json"), "utf8")).version;
const pinned = JSON.parse(readFileSync(join(HERE, "package.json"), "utf8")).devDependencies["@anthropic-ai/mcpb"];
if (cliVersion !== pinned) fail(`node_modules holds @anthropic-ai/mcpb ${cliVersion}, package.json pins ${pinned}: run \`npm ci\` in ${HERE}`);
console.log(`@anthropic-ai/mcpb ${cliVersion}`);

const template = JSON.parse(readFileSync(join(HERE, "manifest.json"), "utf8"));
if (template.version !== version) fail(`packaging/mcpb/manifest.json has version ${template.version}, the workspace ${version}: change the manifest's`);
const listed = (template.tools ?? []).map((tool) => tool.name);
if (JSON.stringify([...listed].sort()) !== JSON.stringify([...TOOLS].sort())) fail(`the manifest lists the tools ${listed.join(", ")}, not ${TOOLS.join(", ")}`);
for (const tool of template.tools) {
  if (!tool.description || tool.description.includes("\n")) fail(`the manifest's tool ${tool.name} needs a one-line description`);
}
console.log("-- mcpb validate packaging/mcpb/manifest.json");
process.stdout.write(mcpb(["validate", join(HERE, "manifest.json")]).text);

mkdirSync(out, { recursive: true });
const host = `${process.platform}-${process.arch}`;
for (const [key, binary] of Object.entries(binaries)) {
  const os = key.split("-")[0];
  const exe = os === "win32" ? "hashline.exe" : "hashline";
  const stage = join(out, "stage", key);
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(join(stage, "server"), { recursive: true });
  copyFileSync(binary, join(stage, "server", exe));
  chmodSync(join(stage, "server", exe), 0o755);
  const manifest = structuredClone(template);
  manifest.server.entry_point = `server/${exe}`;
  manifest.server.mcp_config.command = `\${__dirname}/server/${exe}`;
  delete manifest.server.mcp_config.platform_overrides;
  manifest.compatibility = { ...manifest.compatibility, platforms: [os] };
  writeFileSync(join(stage, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  if (!existsSync(join(stage, manifest.server.entry_point))) fail(`${key}: the entry point ${manifest.server.entry_point} is not in the bundle`);

  console.log(`-- ${key}: mcpb validate, mcpb pack`);
  process.stdout.write(mcpb(["validate", join(stage, "manifest.json")]).text);
  const file = join(out, `hashline-${version}-${key}.mcpb`);
  rmSync(file, { force: true });
  const packed = mcpb(["pack", stage, file]).text;
  process.stdout.write(packed.split("\n").filter((line) => /^(name|version|package size|unpacked size|total files|Output):/.test(line)).join("\n") + "\n");

  const entries = zipEntries(file);
  console.log(`${file}:`);
  for (const entry of entries) console.log(`  ${entry.mode === null ? "----" : entry.mode.toString(8).padStart(4, "0")} ${String(entry.size).padStart(10)} ${entry.name}`);
  const names = entries.map((entry) => entry.name).sort();
  const wanted = ["manifest.json", `server/${exe}`].sort();
  if (JSON.stringify(names) !== JSON.stringify(wanted)) fail(`${key}: the bundle holds ${names.join(", ")}, not ${wanted.join(", ")}`);
  const server = entries.find((entry) => entry.name === `server/${exe}`);
  if (server.size !== statSync(binary).size) fail(`${key}: server/${exe} is ${server.size} bytes in the bundle, the binary ${statSync(binary).size}`);
  if (os !== "win32" && (server.mode === null || (server.mode & 0o111) !== 0o111)) {
    fail(`${key}: server/${exe} is not executable in the bundle (mode ${server.mode?.toString(8)})`);
  }

  console.log(`-- ${key}: mcpb unpack, info, verify`);
  const unpacked = join(out, "unpacked", key);
  rmSync(unpacked, { recursive: true, force: true });
  mcpb(["unpack", file, unpacked]);
  if (sha256(join(unpacked, "server", exe)) !== sha256(binary)) fail(`${key}: the unpacked server/${exe} differs from the binary`);
  if (JSON.stringify(JSON.parse(readFileSync(join(unpacked, "manifest.json"), "utf8"))) !== JSON.stringify(manifest)) fail(`${key}: the unpacked manifest.json differs`);
  if (os !== "win32" && (statSync(join(unpacked, "server", exe)).mode & 0o111) !== 0o111) fail(`${key}: server/${exe} is not executable once unpacked`);
  console.log(`unpacked: server/${exe} the binary's bytes${os === "win32" ? "" : ", executable"}; manifest.json as staged`);
  const info = mcpb(["info", file]).text;
  process.stdout.write(info);
  if (!/not signed|unsigned/i.test(info)) fail(`${key}: mcpb info does not say the bundle is unsigned`);
  const verify = mcpb(["verify", file], { mayFail: true });
  console.log(`mcpb verify (an unsigned bundle: its refusal is expected): ${verify.text.trim().split("\n").pop()}`);
  if (verify.ok || !/not signed|unsigned/i.test(verify.text)) fail(`${key}: mcpb verify should refuse this unsigned bundle as unsigned`);

  if (key === host) {
    console.log(`-- ${key}: the bundle's server over MCP`);
    const { names: served, version: served_version } = await listTools(unpacked, manifest);
    if (served_version !== version) fail(`${key}: the server says version ${served_version}, not ${version}`);
    if (JSON.stringify([...served].sort()) !== JSON.stringify([...listed].sort())) fail(`${key}: tools/list gives ${served.join(", ")}, the manifest lists ${listed.join(", ")}`);
    console.log(`tools/list: ${served.join(", ")} (the manifest's seven)`);
  } else {
    console.log(`(${key}: not this machine's platform, ${host}: its server is not started)`);
  }
  console.log(`mcpb: ${file}`);
}
