// The scripted "model": six tool calls, each decided from what the host showed for the
// previous ones, then a final text. Protocol modules (standin/*.mjs) turn each model request
// into { tools, results } and the action returned here into their wire format.
import { randomBytes } from "node:crypto";
import { readFileSync, existsSync } from "node:fs";

// A row as a model sees it: `N:HHH|text`, maybe after a marker (`>>> `, `>>`, a path).
export const ROW = /(\d+):([0-9a-f]{3})\|/;
export const ROW_LINE = /^(?:.*?)(\d+):([0-9a-f]{3})\|(.*)$/;

export const STEPS = [
  { id: "read", tool: "read", what: "read of 30 lines" },
  { id: "edit", tool: "edit", what: "edit of one line by a copied anchor" },
  { id: "refusal", tool: "edit", what: "the same edit again (stale anchor)" },
  { id: "grep", tool: "grep", what: "grep for a word on a few lines" },
  { id: "ast_search", tool: "ast_search", what: "ast_search for its calls" },
  { id: "long_read", tool: "read", what: "read of the whole file" },
];

export const EDIT_MARK = " // hashline host test";

// The base tool name of a host's name for a hashline tool, or null:
// mcp__hashline__read, mcp_hashline_read, hashline_read, hashline-read -> read.
export function baseName(name, namespace) {
  if (namespace && /hashline/.test(namespace)) return name;
  const m = /hashline(?:__|_|-)([a-z_]+)$/.exec(name);
  return m ? m[1] : null;
}

export class Conversation {
  constructor(fx, { teeLog } = {}) {
    this.fx = fx;
    this.teeLog = teeLog;
    this.nonce = randomBytes(3).toString("hex");
    this.steps = STEPS.map((s, i) => ({ ...s, n: i + 1, issued: null, shown: null, raw: null, notes: [] }));
    this.requests = 0;
    this.mainRequests = 0;
    this.sideRequests = 0;
    this.problems = [];
    this.finished = false;
    this.toolNames = null;
  }

  callId(n) {
    return `call_hl${n}_${this.nonce}`;
  }

  stepOfCallId(id) {
    const m = /call_hl(\d+)_/.exec(id ?? "");
    return m ? Number(m[1]) : null;
  }

  // norm: { tools: [{name, namespace?}], results: [{callId, text, raw}] } ->
  // { kind: "tool", n, callId, name, namespace, base, args } | { kind: "text", text }
  next(norm) {
    this.requests++;
    const hl = norm.tools.filter((t) => baseName(t.name, t.namespace));
    if (hl.length === 0) {
      this.sideRequests++;
      return { kind: "text", text: "Hashline host test.", side: true };
    }
    this.mainRequests++;
    if (!this.toolNames) this.toolNames = hl.map((t) => (t.namespace ? `${t.namespace}.${t.name}` : t.name));
    // Record the results the host sent back, by our call ids (else by order).
    let order = 0;
    for (const r of norm.results) {
      order++;
      const n = this.stepOfCallId(r.callId) ?? order;
      const s = this.steps[n - 1];
      if (!s || !s.issued) continue;
      if (s.shown === null) {
        s.shown = r.text;
        s.raw = r.raw;
      }
    }
    if (this.mainRequests > 20) return this.final("too many requests; giving up");
    // The next step: the first one not answered yet.
    const s = this.steps.find((x) => x.shown === null);
    if (!s) return this.final();
    if (s.issued) {
      // Asked before and no result came back: a retried request gets the same call again,
      // a few times.
      s.tries = (s.tries ?? 1) + 1;
      if (s.tries > 3) {
        s.notes.push(`the host sent no result for the call after ${s.tries - 1} requests`);
        return this.final(`no result for step ${s.n}`);
      }
    }
    const tool = hl.find((t) => baseName(t.name, t.namespace) === s.tool);
    if (!tool) {
      s.notes.push(`no hashline ${s.tool} tool in the host's tool list`);
      return this.final(`no ${s.tool} tool`);
    }
    const args = this.argsFor(s);
    if (!args) return this.final(`cannot form step ${s.n}`);
    s.issued = { name: tool.name, namespace: tool.namespace ?? null, args };
    s.issuedAt = this.mainRequests;
    return {
      kind: "tool",
      n: s.n,
      callId: this.callId(s.n),
      name: tool.name,
      namespace: tool.namespace ?? null,
      base: s.tool,
      args,
    };
  }

  final(why) {
    if (why) this.problems.push(why);
    this.finished = true;
    return { kind: "text", text: why ? `Stopping: ${why}.` : "Done." };
  }

  argsFor(s) {
    const fx = this.fx;
    switch (s.id) {
      case "read":
        return { path: fx.name, offset: fx.readOffset, limit: fx.readLimit };
      case "edit": {
        const target = this.editTarget();
        if (!target) return null;
        this.edit = {
          path: fx.name,
          edits: [{ set_line: { anchor: `${target.line}:${target.hash}`, new_text: target.text + EDIT_MARK } }],
        };
        this.editLine = target;
        return this.edit;
      }
      case "refusal":
        return this.edit ?? null;
      case "grep":
        return { pattern: fx.grepWord, path: fx.name, literal: true };
      case "ast_search":
        return { pattern: fx.astPattern, lang: fx.lang, path: fx.name };
      case "long_read":
        return { path: fx.name };
    }
    return null;
  }

  // A line to edit, from the rows the host showed for step 1 (the model works from what it
  // was shown): the first row from the 6th on whose text ends with `;`.
  editTarget() {
    const read = this.steps[0];
    const rows = parseRows(read.shown ?? "");
    let pick = rows.slice(5).find((r) => /;\s*$/.test(r.text) && !/[\\"]/.test(r.text));
    if (pick) return pick;
    // The host showed no usable rows: say so, and take them from hashline's own answer so
    // that the later steps still run.
    read.notes.push("no row ending in `;` in what the host showed; the edit's anchor came from hashline's own text");
    const own = lastToolText(this.teeLog);
    pick = parseRows(own ?? "").slice(5).find((r) => /;\s*$/.test(r.text));
    return pick ?? null;
  }
}

export function parseRows(text) {
  const rows = [];
  for (const l of text.split("\n")) {
    const m = /^(\d+):([0-9a-f]{3})\|(.*)$/.exec(l);
    if (m) rows.push({ line: Number(m[1]), hash: m[2], text: m[3] });
  }
  return rows;
}

function lastToolText(teeLog) {
  if (!teeLog || !existsSync(teeLog)) return null;
  let text = null;
  for (const l of readFileSync(teeLog, "utf8").split("\n")) {
    if (!l) continue;
    try {
      const e = JSON.parse(l);
      if (e.dir !== "s2c") continue;
      const m = JSON.parse(e.line);
      const c = m?.result?.content;
      if (Array.isArray(c)) text = c.filter((b) => b.type === "text").map((b) => b.text).join("");
    } catch {}
  }
  return text;
}
