#!/usr/bin/env node
// The other MCP server seeded into each host's config before `hashline setup` (setup.mjs): a
// minimal stdio server with one tool, `ping`, so that a host's listing shows it connected
// beside hashline and the merge is seen to keep it. Newline-delimited JSON-RPC.
import { createInterface } from "node:readline";

const reply = (id, result) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id, result }) + "\n");
const fail = (id, code, message) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } }) + "\n");

createInterface({ input: process.stdin }).on("line", (line) => {
  let m;
  try {
    m = JSON.parse(line);
  } catch {
    return;
  }
  if (m.id === undefined || m.id === null) return; // a notification
  switch (m.method) {
    case "initialize":
      return reply(m.id, {
        protocolVersion: m.params?.protocolVersion ?? "2025-06-18",
        capabilities: { tools: {} },
        serverInfo: { name: "seeded", version: "1.0.0" },
      });
    case "tools/list":
      return reply(m.id, {
        tools: [{ name: "ping", description: "Answers pong.", inputSchema: { type: "object", properties: {} } }],
      });
    case "tools/call":
      return reply(m.id, { content: [{ type: "text", text: "pong" }] });
    case "ping":
      return reply(m.id, {});
    case "resources/list":
      return reply(m.id, { resources: [] });
    case "resources/templates/list":
      return reply(m.id, { resourceTemplates: [] });
    case "prompts/list":
      return reply(m.id, { prompts: [] });
    default:
      return fail(m.id, -32601, `method not found: ${m.method}`);
  }
});
process.stdin.on("end", () => process.exit(0));
