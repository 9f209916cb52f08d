#!/usr/bin/env node
"use strict";
// `hashline-mcp`: `hashline mcp` (MCP on stdio, the working directory as the root) when
// given no arguments, else `hashline ARGS`; so `npx -y hashline-mcp` serves MCP.
const args = process.argv.slice(2);
require("../lib/run.js").run(args.length === 0 ? ["mcp"] : args);
