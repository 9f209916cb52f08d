// Vercel AI SDK's MCP client (`@ai-sdk/mcp`, `createMCPClient`) held open for run.py, which
// drives the scenario: one client, in its default mode (no protocol pinning; it probes
// `server/discover` and falls back to `initialize`), over stdio or Streamable HTTP.
//
//   node ai-sdk.mjs MODULES_DIR stdio COMMAND [ARG...]
//   node ai-sdk.mjs MODULES_DIR http URL
//
// MODULES_DIR is the directory whose node_modules holds the installed clients (.ci/clients
// installs them outside the repository). Prints one JSON line once connected:
// {"ready": true, "protocolVersion", "client"}; then reads JSON lines
// {"id", "tool", "args"} on standard input and answers each with
// {"id", "result": {"isError", "content", "structuredContent"}} or {"id", "error"}. Closes the
// client at the end of its input.
import { createRequire } from 'node:module';
import path from 'node:path';
import readline from 'node:readline';
import { pathToFileURL } from 'node:url';

const [modulesDir, transportKind, ...rest] = process.argv.slice(2);
const require = createRequire(path.join(path.resolve(modulesDir), 'package.json'));
const load = (name) => import(pathToFileURL(require.resolve(name)).href);
const { createMCPClient } = await load('@ai-sdk/mcp');
const version = require('@ai-sdk/mcp/package.json').version;

let transport;
if (transportKind === 'stdio') {
  const { Experimental_StdioMCPTransport } = await load('@ai-sdk/mcp/mcp-stdio');
  const [command, ...args] = rest;
  transport = new Experimental_StdioMCPTransport({ command, args, stderr: 'inherit' });
} else if (transportKind === 'http') {
  transport = { type: 'http', url: rest[0] };
} else {
  throw new Error(`unknown transport ${transportKind}`);
}

const write = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);
const client = await createMCPClient({ transport });
write({
  ready: true,
  protocolVersion: client.initializeResult?.protocolVersion ?? null,
  client: `@ai-sdk/mcp ${version}`,
});

const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (!line.trim()) continue;
  const { id, tool, args } = JSON.parse(line);
  try {
    const result = await client.callTool({ name: tool, arguments: args });
    write({
      id,
      result: {
        isError: result.isError === true,
        content: result.content ?? [],
        structuredContent: result.structuredContent ?? null,
      },
    });
  } catch (error) {
    write({ id, error: String(error?.stack ?? error) });
  }
}
await client.close();
