// The long source file every host works on, and the words the script uses on it.
//
// A real, hand-written C file: tree-sitter's runtime `src/parser.c` (MIT, 2,315 lines in
// tree-sitter 0.27.1), copied at run time from the cargo registry, where building this
// workspace puts it (the `tree-sitter` crate is a dependency of hashline-syntax). Another
// file can be named with HASHLINE_HOSTS_FIXTURE. Nothing is copied into the repository.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { basename, join } from "node:path";

export function findFixture() {
  const explicit = process.env.HASHLINE_HOSTS_FIXTURE;
  if (explicit) {
    if (!existsSync(explicit)) throw new Error(`HASHLINE_HOSTS_FIXTURE=${explicit}: no such file`);
    return explicit;
  }
  const cargoHome = process.env.CARGO_HOME || join(homedir(), ".cargo");
  const src = join(cargoHome, "registry", "src");
  const found = [];
  if (existsSync(src)) {
    for (const index of readdirSync(src)) {
      let crates = [];
      try {
        crates = readdirSync(join(src, index));
      } catch {
        continue;
      }
      for (const c of crates) {
        const m = /^tree-sitter-(\d+)\.(\d+)\.(\d+)$/.exec(c);
        const p = join(src, index, c, "src", "parser.c");
        if (m && existsSync(p)) found.push({ p, v: m.slice(1).map(Number) });
      }
    }
  }
  if (found.length === 0) {
    throw new Error(
      `no tree-sitter runtime parser.c under ${src}/*/tree-sitter-*/src/ ` +
        "(build the workspace once so cargo fetches it, or set HASHLINE_HOSTS_FIXTURE to a long C file)",
    );
  }
  // The newest version: deterministic for a given lockfile.
  found.sort((a, b) => b.v[0] - a.v[0] || b.v[1] - a.v[1] || b.v[2] - a.v[2]);
  return found[0].p;
}

const LANG_BY_EXT = { c: "c", h: "c", rs: "rust", py: "python", js: "javascript", ts: "typescript", go: "go" };

// Everything the script needs to know about the file, decided from its text alone.
export function describeFixture(path) {
  const text = readFileSync(path, "utf8");
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const name = basename(path);
  const ext = name.split(".").pop();
  const lang = LANG_BY_EXT[ext] ?? "c";

  // Read window: 30 lines from line 101 (or the middle of a shorter file).
  const readOffset = lines.length > 400 ? 101 : Math.max(1, Math.floor(lines.length / 3));
  const readLimit = 30;

  // grep / ast_search word: the first function name (by first occurrence) written as
  // `name(` whose literal matches fall on 3 to 8 lines; ast_search looks for its calls with
  // one metavariable per argument (the arity of its first occurrence).
  const firstSeen = new Map();
  const re = /\b([A-Za-z_][A-Za-z0-9_]{9,})\s*\(/g;
  lines.forEach((l, i) => {
    for (const m of l.matchAll(re)) if (!firstSeen.has(m[1])) firstSeen.set(m[1], i);
  });
  const keywords = new Set(["sizeof", "defined"]);
  let word = null;
  for (const [w] of [...firstSeen.entries()].sort((a, b) => a[1] - b[1])) {
    if (keywords.has(w)) continue;
    const n = lines.filter((l) => l.includes(w)).length;
    // calls in code, not in a macro body (no syntax tree there) nor the definition
    const calls = lines.filter((l) => /^\s/.test(l) && l.includes(w + "(") && !/\\\s*$/.test(l)).length;
    if (n >= 3 && n <= 8 && calls >= 2 && arity(text, w) !== null) {
      word = w;
      break;
    }
  }
  if (!word) throw new Error(`${path}: no function name found on 3 to 8 lines`);
  const n = arity(text, word);
  const metas = Array.from({ length: n }, (_, i) => `$A${i + 1}`).join(", ");
  return {
    path,
    name,
    lang,
    lines: lines.length,
    chars: text.length,
    readOffset,
    readLimit,
    grepWord: word,
    astPattern: `${word}(${metas})`,
  };
}

// The number of arguments at the first `word(`: commas at depth 0 up to the closing paren.
function arity(text, word) {
  const at = text.indexOf(word + "(");
  if (at < 0) return null;
  let depth = 0;
  let commas = 0;
  let empty = true;
  for (let i = at + word.length; i < text.length; i++) {
    const c = text[i];
    if (c === "(" || c === "[" || c === "{") depth++;
    else if (c === ")" || c === "]" || c === "}") {
      depth--;
      if (depth === 0) return empty ? 0 : commas + 1;
    } else if (c === "," && depth === 1) commas++;
    else if (depth === 1 && !/\s/.test(c)) empty = false;
  }
  return null;
}
