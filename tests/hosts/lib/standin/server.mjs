// One HTTP server on 127.0.0.1 for a host's model API; `protocol` is one of the modules
// beside this file. Every request is written to `dir` (NNN-<path>.json) for inspection.
import { createServer } from "node:http";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export async function startStandin(protocol, conversation, dir) {
  mkdirSync(dir, { recursive: true });
  let seq = 0;
  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", async () => {
      const n = String(++seq).padStart(3, "0");
      const url = new URL(req.url, "http://127.0.0.1");
      const raw = Buffer.concat(chunks).toString("utf8");
      let body = null;
      try {
        body = raw ? JSON.parse(raw) : null;
      } catch {}
      const slug = (req.method + url.pathname).replace(/[^A-Za-z0-9]+/g, "_").slice(0, 80);
      const record = { method: req.method, url: req.url, headers: req.headers, body: body ?? raw };
      try {
        const out = await protocol.handle({ req, res, url, body, conversation });
        record.answered = out ?? null;
      } catch (e) {
        record.error = String(e?.stack ?? e);
        if (!res.headersSent) {
          res.writeHead(500, { "content-type": "application/json" });
          res.end(JSON.stringify({ error: { message: String(e) } }));
        } else res.end();
      }
      writeFileSync(join(dir, `${n}-${slug}.json`), JSON.stringify(record, null, 1));
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: server.address().port, close: () => new Promise((r) => server.close(r)) };
}

export function sse(res, status = 200) {
  res.writeHead(status, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
  });
  return {
    event(name, data) {
      res.write((name ? `event: ${name}\n` : "") + `data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`);
    },
    end() {
      res.end();
    },
  };
}

export function json(res, status, value) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(value));
}

// The text a model is shown from a tool result's content: a string, or blocks of text.
export function contentText(c) {
  if (c == null) return "";
  if (typeof c === "string") return c;
  if (Array.isArray(c)) {
    return c
      .map((b) => (typeof b === "string" ? b : b?.text ?? (b?.type ? `[${b.type} block]` : JSON.stringify(b))))
      .join("\n");
  }
  return JSON.stringify(c);
}
