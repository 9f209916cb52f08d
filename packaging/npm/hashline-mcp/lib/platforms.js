"use strict";
// The platforms a release builds hashline for: `${process.platform}-${process.arch}` as Node
// names them, and the Rust target each binary is built for. Each has its npm package,
// hashline-mcp-<platform>-<arch>, holding bin/hashline (bin/hashline.exe on Windows).
const TARGETS = {
  "linux-x64": "x86_64-unknown-linux-gnu",
  "linux-arm64": "aarch64-unknown-linux-gnu",
  "darwin-x64": "x86_64-apple-darwin",
  "darwin-arm64": "aarch64-apple-darwin",
  "win32-x64": "x86_64-pc-windows-msvc",
};
const PLATFORMS = Object.keys(TARGETS);

module.exports = { PLATFORMS, TARGETS };
