// What a host sent back (recorded by the stand-in) against what hashline answered (recorded
// by mcp-tee): the assertions of each step.
import { existsSync, readFileSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";
import { EDIT_MARK } from "./script.mjs";

export const SIZE_FACTOR = 1.1;

// What a host wraps around every result, whatever its size (characters, measured): Codex
// `Wall time: 0.0012 seconds\nOutput:\n` (34), Gemini CLI `<untrusted_context>` tags (41),
// Copilot CLI's `MCP server 'hashline': ` before an error (23). The size check allows it on
// top of 1.10× hashline's text, so that a one-line result is not failed for the wrapper.
export const HOST_WRAPPER = { codex: 40, gemini: 48, copilot: 24, "claude-code": 0, opencode: 0 };

// Checks a host is known to fail whatever the server does, each with the reason. They are
// reported as KNOWN HOST LIMITATION and do not fail the run; one that passes is reported as
// XPASS and fails it, so that this list is kept true.
export const KNOWN = {
  gemini: {
    // Gemini CLI 0.61.0 shows an `isError` result as `MCP tool 'edit' reported tool error
    // for function call: {…} with response: [{"functionResponse": …}]`: the whole result
    // as one escaped JSON string. The refusal's rows are there, escaped (`\n`-joined).
    refusal: {
      rows: "Gemini CLI shows an error result as one escaped JSON string (the rows only escaped)",
      size: "Gemini CLI shows an error result as one escaped JSON string (escapes and the call's JSON)",
    },
  },
};

// Signs that a host cut a result or moved it to a file, as each showed them for an oversized
// result (a sign counts only when the host's text has more of it than hashline's own).
export const HOST_MARKERS = {
  // <persisted-output>\nOutput too large (57KB). Full output saved to: …\n\nPreview (first 2KB):
  "claude-code": [/<persisted-output>/, /Output too large \(/, /Full output saved to/],
  // first and last parts kept, `…N tokens truncated…` between
  codex: [/…\d+ tokens truncated…/, /tokens truncated/, /chars truncated/],
  // Output too large. Showing first 8,000 and last 32,000 characters. For full output see: …
  // and `... [16,929 characters omitted] ...` between
  gemini: [/Output too large\. Showing first/, /\[[\d,]+ characters omitted\]/],
  // `...6087 bytes truncated...` then `The tool call succeeded but the output was truncated. Full output saved to: …`
  opencode: [/\.\.\.\d+ bytes truncated\.\.\./, /output was truncated/],
  // Output too large to read at once (55.9 KB). Saved to: …\nPreview (first 500 chars):
  copilot: [/Output too large to read at once/, /Preview \(first \d+ chars\)/],
};
const GENERIC_MARKERS = [/truncat/i, /omitted/i, /saved to/i, /too large/i, /too long/i];

const count = (re, s) => (s.match(new RegExp(re.source, re.flags.includes("g") ? re.flags : re.flags + "g")) ?? []).length;

// The MCP traffic: initialize (clientInfo, protocolVersion) and each tools/call with its result.
export function readTee(path) {
  const out = { inits: [], calls: [], servers: new Set() };
  if (!existsSync(path)) return out;
  const pending = new Map();
  for (const l of readFileSync(path, "utf8").split("\n")) {
    if (!l) continue;
    let e, m;
    try {
      e = JSON.parse(l);
      if (e.dir === "note") continue;
      m = JSON.parse(e.line);
    } catch {
      continue;
    }
    out.servers.add(e.pid);
    const key = `${e.pid}/${JSON.stringify(m.id)}`;
    // Who the client is: `initialize` (MCP up to 2025-11-25), or the `_meta` every request
    // carries in the stateless protocol (2026-07-28: `server/discover`, no initialize).
    const meta = m.params?._meta ?? {};
    const metaInfo = meta["io.modelcontextprotocol/clientInfo"];
    if (e.dir === "c2s" && (m.method === "initialize" || (metaInfo && !out.inits.some((i) => i.pid === e.pid)))) {
      const init = {
        pid: e.pid,
        via: m.method === "initialize" ? "initialize" : `${m.method} _meta`,
        clientInfo: m.method === "initialize" ? m.params?.clientInfo ?? null : metaInfo,
        protocolVersion: m.method === "initialize" ? m.params?.protocolVersion ?? null : meta["io.modelcontextprotocol/protocolVersion"] ?? null,
        capabilities: m.method === "initialize" ? m.params?.capabilities ?? null : meta["io.modelcontextprotocol/clientCapabilities"] ?? null,
        negotiated: null,
      };
      out.inits.push(init);
      if (m.id !== undefined && !pending.has(key)) pending.set(key, { init });
    }
    if (e.dir === "c2s" && m.method === "initialize") {
      // recorded above
    } else if (e.dir === "c2s" && m.method === "tools/call") {
      const call = { pid: e.pid, t: e.t, name: m.params?.name, args: m.params?.arguments ?? {}, result: null, used: false };
      out.calls.push(call);
      pending.set(key, { call });
    } else if (e.dir === "s2c" && m.id !== undefined && pending.has(key)) {
      const p = pending.get(key);
      pending.delete(key);
      if (p.init) p.init.negotiated = m.result?.protocolVersion ?? (m.result?.supportedVersions ? `supported: ${m.result.supportedVersions.join(", ")}` : null);
      if (p.call) p.call.result = m.result ?? { isError: true, content: [{ type: "text", text: JSON.stringify(m.error) }] };
    }
  }
  return out;
}

export function ownText(result) {
  return (result?.content ?? [])
    .filter((b) => b.type === "text")
    .map((b) => b.text)
    .join("\n");
}

const ROW_LINE = /^.*?\d+:[0-9a-f]{3}\|.*$/;

// How much of hashline's text a cut result kept: its longest prefix and suffix found in it.
export function kept(shown, own) {
  const longest = (ok) => {
    let lo = 0, hi = own.length;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (ok(mid)) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  const first = longest((k) => shown.includes(own.slice(0, k)));
  const last = longest((k) => shown.includes(own.slice(own.length - k)));
  return {
    first,
    last,
    firstBytes: Buffer.byteLength(own.slice(0, first)),
    lastBytes: Buffer.byteLength(own.slice(own.length - last)),
  };
}

// The checks of one step. `s` is the conversation's step; `tee` from readTee; `file` the
// project's copy of the fixture after the run.
export function checkStep(hostId, s, tee, file) {
  const checks = [];
  const add = (name, ok, detail = "") => checks.push({ name, ok: !!ok, detail });
  let call = null;
  if (s.issued) {
    call = tee.calls.find((c) => !c.used && c.name === s.tool && isDeepStrictEqual(c.args, s.issued.args));
    if (!call) {
      call = tee.calls.find((c) => !c.used && c.name === s.tool);
      if (call) s.notes.push(`the host passed other arguments: ${JSON.stringify(call.args)}`);
    }
    if (call) call.used = true;
  }
  const own = call?.result ? ownText(call.result) : null;
  const shown = s.shown;
  const r = { n: s.n, id: s.id, what: s.what, shownChars: shown?.length ?? null, ownChars: own?.length ?? null, checks, notes: s.notes, own, shown };
  if (!s.issued) {
    add("issued", false, "the step was never reached");
    return r;
  }
  add("answered", shown !== null && own !== null, shown === null ? "the host sent no result back" : own === null ? "hashline got no call (or gave no answer)" : "");
  if (shown === null || own === null) return r;
  const isError = !!call.result?.isError;

  // Rows N:HHH| verbatim, each on a line of its own (not inside an escaped string); an
  // edit's result names its added lines' anchors on one line instead.
  const rows = own.split("\n").filter((l) => ROW_LINE.test(l) || l.startsWith("Anchors of the added lines: "));
  const shownLines = new Set(shown.split("\n").map((l) => l.replace(/\r$/, "")));
  const missing = rows.filter((l) => !shownLines.has(l));
  const escaped = missing.filter((l) => shown.includes(l) || shown.includes(JSON.stringify(l).slice(1, -1))).length;
  add("rows", rows.length > 0 && missing.length === 0,
    rows.length === 0
      ? "hashline's text has no rows"
      : `${rows.length - missing.length}/${rows.length} rows verbatim` +
          (escaped ? `; ${escaped} only inside an escaped string` : "") +
          (missing.length > escaped ? `; first missing: ${JSON.stringify(missing.find((l) => !shown.includes(l))?.slice(0, 80))}` : ""));

  // Not diverted or cut by the host.
  const markers = [...(HOST_MARKERS[hostId] ?? []), ...GENERIC_MARKERS]
    .filter((re) => count(re, shown) > count(re, own))
    .map((re) => String(re));
  const gone = missing.length - escaped;
  // Rows the host cut mid-line: a row cut at its start can show another anchor (`1971:07d|…` as `1:07d|…`).
  const ownLines = new Set(own.split("\n"));
  const mangled = [...shownLines].filter((l) => ROW_LINE.test(l) && !ownLines.has(l));
  const cut = markers.length > 0 || gone > 0;
  if (cut) r.kept = kept(shown, own);
  add("not-cut", !cut, cut
    ? [markers.length ? `host marker ${markers[0]}` : "", gone ? `${gone} rows not shown` : "",
       r.kept ? `kept the first ${r.kept.first} + last ${r.kept.last} of ${own.length} chars (${r.kept.firstBytes} + ${r.kept.lastBytes} of ${Buffer.byteLength(own)} bytes)` : "",
       mangled.length ? `${mangled.length} partial row(s) shown: ${mangled.slice(0, 2).map((l) => JSON.stringify(l.slice(0, 40))).join(", ")}` : ""].filter(Boolean).join("; ")
    : "");

  // Size.
  const wrapper = HOST_WRAPPER[hostId] ?? 0;
  const limit = Math.floor(own.length * SIZE_FACTOR) + wrapper;
  add("size", shown.length <= limit, `${shown.length} shown vs ${own.length} hashline (${(shown.length / own.length).toFixed(2)}x; allowed 1.10x + ${wrapper} for the host's wrapper)`);

  const lines = existsSync(file) ? readFileSync(file, "utf8").split("\n") : [];
  switch (s.id) {
    case "read":
    case "long_read":
    case "ast_search":
      add("ok", !isError, isError ? "hashline answered with an error" : "");
      break;
    case "edit": {
      const target = s.issued.args?.edits?.[0]?.set_line;
      const applied = target && lines.some((l) => l.endsWith(EDIT_MARK));
      add("applied", !isError && applied, isError ? "hashline refused the edit" : applied ? "" : "the file does not hold the edit");
      break;
    }
    case "refusal": {
      add("refused", isError && /did not match/.test(own), isError ? "" : "hashline did not refuse the stale anchor");
      const fresh = shown.split("\n").some((l) => /^>>> \d+:[0-9a-f]{3}\|/.test(l.replace(/^\s+/, "")) || (ROW_LINE.test(l) && l.includes(EDIT_MARK)));
      add("fresh-rows", fresh, fresh ? "" : "the refusal as shown has no fresh row of the changed line");
      break;
    }
    case "grep": {
      const word = s.issued.args.pattern;
      const matched = lines.filter((l) => l.includes(word));
      const absent = matched.filter((l) => !shown.includes("|" + l));
      add("line-text", matched.length > 0 && absent.length === 0, `${matched.length - absent.length}/${matched.length} matched lines shown with their text`);
      add("ok", !isError, isError ? "hashline answered with an error" : "");
      break;
    }
  }
  // A check the host is known to fail: reported apart; passing it is an XPASS.
  for (const c of checks) {
    const known = KNOWN[hostId]?.[s.id]?.[c.name];
    if (!known) continue;
    if (c.ok) {
      c.ok = false;
      c.detail = `XPASS: listed in KNOWN as a host limitation (${known}) but passed: take it off the list. ${c.detail}`;
    } else {
      c.ok = true;
      c.known = `KNOWN HOST LIMITATION: ${known}; ${c.detail}`;
    }
  }
  return r;
}

// The host's own truncation text, for the report: the lines of `shown` that are not in
// hashline's text (the first 3, shortened).
export function hostAdditions(shown, own) {
  if (shown == null || own == null) return [];
  const ownLines = new Set(own.split("\n"));
  return shown
    .split("\n")
    .filter((l) => l.trim() && !ownLines.has(l))
    .slice(0, 3)
    .map((l) => (l.length > 160 ? l.slice(0, 160) + "…" : l));
}
