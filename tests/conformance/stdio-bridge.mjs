// An HTTP front for `hashline mcp` over stdio, so that the official MCP conformance suite,
// which reaches a server only by URL, can test the stdio server. It adds no protocol of its
// own: every JSON-RPC message is written to a `hashline mcp` process as one line and the
// process's answer is returned as it is (its id restored); only the HTTP around it is the
// bridge's.
//
// - A POST of an `initialize` that names its protocol version in its params (2025-11-25 and
//   earlier) starts a `hashline mcp` process of its own: the session, named by a fresh
//   `Mcp-Session-Id`. POSTs with that id go to it; DELETE ends it (stdin closed); an unknown
//   id gets 404. A process is a session as a stdio client's is.
// - Any other POST without a session id (protocol 2026-07-28: the revision in each request's
//   `_meta`) goes to one shared process. An error answer to it gets the HTTP status
//   2026-07-28 gives that error (-32601: 404; -32020, -32021, -32022, and -32602 for a
//   request without its required `_meta`: 400), as hashline's own HTTP server does; every
//   other answer 200.
// - Answers are `application/json`, or `text/event-stream` when notifications (progress) came
//   before the answer; a notification POST gets 202; GET gets 405 (no stream of the server's
//   own). The bridge compares no header with the body and checks no Host or Origin: over
//   stdio there are none, and hashline's HTTP server is tested for them directly.
//
// Usage: node stdio-bridge.mjs HASHLINE_BINARY [hashline mcp's arguments...]
// Prints `listening on http://127.0.0.1:PORT/mcp` on stdout once ready (PORT from
// BRIDGE_PORT, else any free one); SIGTERM ends every process and exits.

import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { createInterface } from "node:readline";

const [binary, ...mcpArgs] = process.argv.slice(2);
if (!binary) {
  console.error("usage: node stdio-bridge.mjs HASHLINE_BINARY [ARGS...]");
  process.exit(2);
}
const ANSWER_TIMEOUT_MS = 30_000;

/** One `hashline mcp` process and the requests waiting for its answers. */
class Stdio {
  constructor(label) {
    this.label = label;
    this.nextId = 1;
    this.waiting = new Map(); // bridge id -> {resolve, notes, progressToken}
    this.unread = []; // requests whose id could not be rewritten, answered with id null
    this.child = spawn(binary, ["mcp", ...mcpArgs], { stdio: ["pipe", "pipe", "inherit"] });
    this.exited = new Promise((resolve) => this.child.on("exit", resolve));
    this.child.on("exit", () => {
      for (const pending of [...this.waiting.values(), ...this.unread]) pending.resolve(null);
      this.waiting.clear();
      this.unread = [];
    });
    this.child.stdin.on("error", () => {});
    createInterface({ input: this.child.stdout }).on("line", (line) => this.read(line));
  }

  read(line) {
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      console.error(`stdio-bridge (${this.label}): not JSON from hashline: ${line.slice(0, 200)}`);
      return;
    }
    if (message.method !== undefined && message.id !== undefined) {
      // A request of the server's own (with --root it asks for nothing): refused.
      console.error(`stdio-bridge (${this.label}): hashline asked ${message.method}; refused`);
      this.write({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "not over this bridge" } });
      return;
    }
    if (message.method !== undefined) {
      // A notification: to the request it names (progress), else to the one waiting.
      const token = message.params?.progressToken;
      const owner = [...this.waiting.values()].find((p) => token !== undefined && p.progressToken === token)
        ?? (this.waiting.size === 1 ? [...this.waiting.values()][0] : undefined);
      owner?.notes.push(message);
      return;
    }
    const pending = message.id === null ? this.unread.shift() : this.waiting.get(message.id);
    if (!pending) {
      console.error(`stdio-bridge (${this.label}): an answer no one waits for: ${line.slice(0, 200)}`);
      return;
    }
    this.waiting.delete(message.id);
    pending.resolve({ answer: message, notes: pending.notes });
  }

  write(message) {
    this.child.stdin.write(`${typeof message === "string" ? message : JSON.stringify(message)}\n`);
  }

  /** Sends a notification (no answer), or a request and waits for its answer. */
  send(message, raw) {
    const isRequest = message && typeof message === "object" && !Array.isArray(message) && "id" in message
      && message.method !== undefined;
    if (!isRequest) {
      if (message && typeof message === "object" && !Array.isArray(message) && message.method !== undefined) {
        this.write(raw);
        return Promise.resolve(null);
      }
      // Not a message hashline can take as one: it answers with id null.
      return this.await(raw, (pending) => this.unread.push(pending));
    }
    const original = message.id;
    if (typeof original !== "string" && typeof original !== "number") {
      return this.await(raw, (pending) => this.unread.push(pending));
    }
    const id = this.nextId++;
    const progressToken = message.params?._meta?.progressToken;
    return this.await({ ...message, id }, (pending) => this.waiting.set(id, { ...pending, progressToken }))
      .then((got) => got && { ...got, answer: { ...got.answer, id: original } });
  }

  await(line, register) {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(null), ANSWER_TIMEOUT_MS);
      register({ resolve: (got) => { clearTimeout(timer); resolve(got); }, notes: [] });
      this.write(line);
    });
  }

  async end() {
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 5_000);
    await this.exited;
    clearTimeout(timer);
  }
}

const sessions = new Map(); // Mcp-Session-Id -> Stdio
let shared = null; // the process for requests without a session

/** Whether a request's `_meta` lacks a field 2026-07-28 requires. */
function metaMalformed(message) {
  const meta = message?.params?._meta;
  return typeof meta?.["io.modelcontextprotocol/protocolVersion"] !== "string"
    || typeof meta?.["io.modelcontextprotocol/clientCapabilities"] !== "object"
    || meta["io.modelcontextprotocol/clientCapabilities"] === null;
}

/** The status 2026-07-28 gives an answer to a request without a session. */
function sessionlessStatus(message, answer) {
  switch (answer.error?.code) {
    case undefined: return 200;
    case -32601: return 404;
    case -32020: case -32021: case -32022: return 400;
    case -32602: return metaMalformed(message) ? 400 : 200;
    default: return 200;
  }
}

function reply(res, status, body, headers = {}) {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(body === undefined ? undefined : JSON.stringify(body));
}

async function handle(req, res) {
  const sessionId = req.headers["mcp-session-id"];
  if (req.method === "GET") return reply(res, 405, undefined, { allow: "POST, DELETE" });
  if (req.method === "DELETE") {
    const session = sessions.get(sessionId);
    if (!session) return reply(res, 404, { jsonrpc: "2.0", id: null, error: { code: -32600, message: "no such session" } });
    sessions.delete(sessionId);
    await session.end();
    return reply(res, 200);
  }
  if (req.method !== "POST") return reply(res, 405, undefined, { allow: "POST, DELETE" });
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const raw = Buffer.concat(chunks).toString("utf8").replace(/\r?\n/g, " ");
  let message = null;
  try {
    message = JSON.parse(raw);
  } catch {
    // hashline answers a line that is not JSON.
  }
  if (Array.isArray(message)) {
    return reply(res, 400, { jsonrpc: "2.0", id: null, error: { code: -32600, message: "the bridge takes no batches" } });
  }
  let target;
  let opened = null;
  if (sessionId !== undefined) {
    target = sessions.get(sessionId);
    if (!target) return reply(res, 404, { jsonrpc: "2.0", id: null, error: { code: -32600, message: "no such session" } });
  } else if (message?.method === "initialize" && typeof message.params?.protocolVersion === "string") {
    opened = randomUUID();
    target = new Stdio(`session ${opened}`);
  } else {
    shared ??= new Stdio("sessionless");
    target = shared;
  }
  const got = await target.send(message, raw);
  if (got === null && message?.id === undefined && message?.method !== undefined) return reply(res, 202);
  if (got === null) {
    opened && target.end();
    return reply(res, 502, { jsonrpc: "2.0", id: message?.id ?? null, error: { code: -32603, message: "hashline gave no answer" } });
  }
  const headers = {};
  if (opened && got.answer.result !== undefined) {
    sessions.set(opened, target);
    headers["mcp-session-id"] = opened;
  } else if (opened) {
    target.end();
  }
  const status = target === shared ? sessionlessStatus(message, got.answer) : 200;
  if (got.notes.length === 0 || status !== 200) return reply(res, status, got.answer, headers);
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", ...headers });
  for (const event of [...got.notes, got.answer]) res.write(`event: message\ndata: ${JSON.stringify(event)}\n\n`);
  res.end();
}

const server = createServer((req, res) => {
  handle(req, res).catch((err) => {
    console.error(`stdio-bridge: ${err.stack ?? err}`);
    if (!res.headersSent) reply(res, 500, { jsonrpc: "2.0", id: null, error: { code: -32603, message: String(err) } });
  });
});
server.listen(Number(process.env.BRIDGE_PORT ?? 0), "127.0.0.1", () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}/mcp`);
});
process.on("SIGTERM", async () => {
  server.close();
  await Promise.all([...sessions.values(), ...(shared ? [shared] : [])].map((stdio) => stdio.end()));
  process.exit(0);
});
