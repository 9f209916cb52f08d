"use strict";
// Runs the prebuilt `hashline` of this platform's package (hashline-mcp-<platform>-<arch>,
// an optional dependency: npm installs the one whose `os` and `cpu` match) with the given
// arguments, its standard streams the launcher's own, and exits as it exits.
const { spawn } = require("node:child_process");
const path = require("node:path");
const { PLATFORMS } = require("./platforms.js");

function binary() {
  const key = `${process.platform}-${process.arch}`;
  if (!PLATFORMS.includes(key)) {
    fail(`no prebuilt hashline for ${key} (there are: ${PLATFORMS.join(", ")})`);
  }
  const name = `hashline-mcp-${key}`;
  let manifest;
  try {
    manifest = require.resolve(`${name}/package.json`);
  } catch {
    fail(`the package ${name} is not installed (npm leaves optional dependencies out with --omit=optional or --no-optional)`);
  }
  return path.join(path.dirname(manifest), "bin", process.platform === "win32" ? "hashline.exe" : "hashline");
}

function fail(message) {
  process.stderr.write(`hashline-mcp: ${message}. Or build it from source: cargo install hashline-cli\n`);
  process.exit(1);
}

function run(args) {
  const child = spawn(binary(), args, { stdio: "inherit", windowsHide: true });
  // Stop signals go on to hashline, which ends the way it ends for them; the launcher
  // then ends as it did.
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
    process.on(signal, () => child.kill(signal));
  }
  child.on("error", (err) => fail(`cannot run ${err.path ?? "hashline"}: ${err.message}`));
  child.on("exit", (code, signal) => {
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    } else {
      process.exit(code ?? 1);
    }
  });
}

module.exports = { run };
