#!/usr/bin/env node
"use strict";
// `hashline ARGS`: the command-line tool and MCP server (`hashline mcp`).
require("../lib/run.js").run(process.argv.slice(2));
