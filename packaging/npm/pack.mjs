#!/usr/bin/env node
// Makes the npm packages of a release and packs them with `npm pack`:
//
//   node packaging/npm/pack.mjs --version 0.1.0 --out DIR --binary linux-x64=PATH [--binary …]
//
// For each --binary, the platform package hashline-mcp-<platform>-<arch> (its `os` and `cpu`
// set, so that npm installs it only there) holding that `hashline`; and the launcher package
// hashline-mcp, whose optional dependencies are every platform's package at this version
// (the esbuild / biome / ast-grep pattern). The tarballs are written to DIR; their names and
// sizes are printed.
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, cpSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const { PLATFORMS, TARGETS } = createRequire(import.meta.url)("./hashline-mcp/lib/platforms.js");

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
  if (!out.version || !out.out) usage("--version and --out are required");
  if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(out.version)) usage(`not a version: ${out.version}`);
  return out;
}

function usage(message) {
  console.error(`pack.mjs: ${message}\nusage: node pack.mjs --version V --out DIR --binary PLATFORM=PATH …`);
  process.exit(2);
}

function pack(dir, out) {
  const name = execFileSync("npm", ["pack", "--silent", "--pack-destination", out], { cwd: dir, encoding: "utf8" })
    .trim()
    .split("\n")
    .pop();
  const size = statSync(join(out, name)).size;
  console.log(`${name}\t${(size / 1048576).toFixed(1)} MiB`);
}

const { version, out, binaries } = options(process.argv.slice(2));
const license = "MIT OR Apache-2.0";
const stage = join(out, "stage");
rmSync(stage, { recursive: true, force: true });
mkdirSync(stage, { recursive: true });

for (const [key, binary] of Object.entries(binaries)) {
  const [os, cpu] = key.split("-");
  const name = `hashline-mcp-${key}`;
  const dir = join(stage, name);
  mkdirSync(join(dir, "bin"), { recursive: true });
  const file = join(dir, "bin", os === "win32" ? "hashline.exe" : "hashline");
  copyFileSync(binary, file);
  chmodSync(file, 0o755);
  const manifest = {
    name,
    version,
    description: `The prebuilt hashline for ${key} (${TARGETS[key]}), installed by the hashline-mcp package.`,
    license,
    os: [os],
    cpu: [cpu],
    files: ["bin/"],
    preferUnplugged: true,
  };
  writeFileSync(join(dir, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  writeFileSync(join(dir, "README.md"), `# ${name}\n\nThe \`hashline\` binary for ${key}. Install \`hashline-mcp\` instead: it picks this package.\n`);
  pack(dir, out);
}

const launcher = join(stage, "hashline-mcp");
cpSync(join(HERE, "hashline-mcp"), launcher, { recursive: true });
const manifest = JSON.parse(readFileSync(join(launcher, "package.json"), "utf8"));
manifest.version = version;
manifest.optionalDependencies = Object.fromEntries(PLATFORMS.map((key) => [`hashline-mcp-${key}`, version]));
writeFileSync(join(launcher, "package.json"), `${JSON.stringify(manifest, null, 2)}\n`);
pack(launcher, out);
