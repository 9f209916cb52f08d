// `hashline setup` with the hosts' own programs (setup.mjs): for each host, its environment,
// the config files seeded before setup (another MCP server, a comment where the format allows
// one, an instructions file with text of its own), its own listing command and how its output
// reads, and a headless probe (one model request to the stand-in, whose tool list shows which
// MCP tools the host loaded). Cursor and VS Code have no CLI here: only their files are checked.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { HOSTS } from "./hosts.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
export const OTHER_MCP = join(HERE, "other-mcp.mjs");
export const PROBE_PROMPT = "Say hello.";

function put(path, text) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

// The other server, as each format spells a stdio server.
const other = () => ({ command: process.execPath, args: [OTHER_MCP] });
const q = JSON.stringify;

// Lines as a host prints them, without colour codes.
const lines = (text) => text.replace(/\x1b\[[0-9;]*m/g, "").split(/\r?\n/);

const host = (id) => HOSTS.find((h) => h.id === id);

// Each: { id, pkg, version, bin, protocol (of the probe), dirs(home) -> the config directories
// the host is pointed at, env({home, project, dirs, port}), seed({home, project, dirs}),
// listArgs, parseList(stdout, stderr) -> [{ name, status, connected: bool|null }],
// probe({ port, tmp }) -> { args, env } }.
export const SETUP_HOSTS = [
  {
    ...host("claude-code"),
    dirs: (home) => ({ claude: join(home, ".claude"), claudeJson: join(home, ".claude.json") }),
    env: ({ port }) => ({
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_AUTOUPDATER: "1",
      DISABLE_TELEMETRY: "1",
      DISABLE_ERROR_REPORTING: "1",
      CLAUDE_CODE_ENABLE_TELEMETRY: "0",
      ...(port ? { ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`, ANTHROPIC_API_KEY: "sk-ant-stand-in" } : {}),
      // ENABLE_TOOL_SEARCH is left at its default: setup's `alwaysLoad` must load the tools.
    }),
    seed({ project, dirs }) {
      // The user has run Claude Code in this project and trusted it (a project's
      // .claude/settings.local.json approvals count only in a trusted folder).
      put(
        dirs.claudeJson,
        JSON.stringify(
          {
            projects: { [project]: { hasTrustDialogAccepted: true, allowedTools: [] } },
            mcpServers: { "seeded-user": { type: "stdio", ...other() } },
          },
          null,
          2,
        ) + "\n",
      );
      put(join(dirs.claude, "settings.json"), `{\n  "permissions": {\n    "deny": ["Bash(rm -rf:*)"]\n  }\n}\n`);
      put(join(dirs.claude, "CLAUDE.md"), "I like short answers."); // no final newline
      put(join(project, ".mcp.json"), JSON.stringify({ mcpServers: { "seeded-project": other() } }, null, 4) + "\n");
      put(join(project, ".claude", "settings.local.json"), `{\n  "enabledMcpjsonServers": ["seeded-project"]\n}\n`);
      put(
        join(project, ".claude", "settings.json"),
        JSON.stringify(
          {
            permissions: { allow: ["Bash(make:*)"] },
            hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "true" }] }] },
          },
          null,
          2,
        ) + "\n",
      );
      put(join(project, "CLAUDE.md"), "# Project notes\n\nBuild with `make`; run the tests before committing.\n");
    },
    listArgs: ["mcp", "list"],
    // `name: command args - ✔ Connected` | `✗ Failed to connect` | `⏸ Pending approval …`
    parseList(out) {
      const found = [];
      for (const l of lines(out)) {
        const m = /^([A-Za-z0-9_.-]+): (.*) - (.+)$/.exec(l.trim());
        if (m) found.push({ name: m[1], status: m[3].trim(), connected: /Connected/.test(m[3]) && !/Failed/.test(m[3]) });
      }
      return found;
    },
    probe: () => ({ args: ["-p", PROBE_PROMPT, "--output-format", "json"], env: {} }),
  },
  {
    ...host("codex"),
    // CODEX_HOME away from its default, so that setup --user is seen to follow it.
    dirs: (home) => ({ codexHome: join(home, ".codex-home") }),
    env: ({ dirs, port }) => ({ CODEX_HOME: dirs.codexHome, ...(port ? { STANDIN_API_KEY: "stand-in" } : {}) }),
    seed({ project, dirs }) {
      const o = other();
      put(
        join(dirs.codexHome, "config.toml"),
        [
          `# My Codex settings: hashline setup must leave these lines as they are.`,
          `model = "o5"`,
          `check_for_update_on_startup = false`,
          ``,
          `[mcp_servers.seeded-user]`,
          `command = ${q(o.command)}`,
          `args = [${o.args.map(q).join(", ")}]  # the other server`,
          ``,
          `# The user trusted this project (Codex reads a project's .codex/ only then).`,
          `[projects.${q(project)}]`,
          `trust_level = "trusted"`,
          ``,
          `[analytics]`,
          `enabled = false`,
          ``,
          `[otel]`,
          `exporter = "none"`,
          ``,
        ].join("\n"),
      );
      put(join(dirs.codexHome, "AGENTS.md"), "Answer in plain English.\n");
      put(
        join(project, ".codex", "config.toml"),
        `# project settings\n[mcp_servers.seeded-project]\ncommand = ${q(o.command)}\nargs = [${o.args.map(q).join(", ")}]\n`,
      );
      put(join(project, "AGENTS.md"), "# Agents\n\nRun `cargo test` before you finish.\n");
    },
    listArgs: ["mcp", "list", "--json"],
    // JSON: [{ name, enabled, transport: { command, args } }]. Codex's listing starts no
    // server, so `connected` is unknown here (the probe shows whether the tools load).
    parseList(out) {
      const start = out.indexOf("[");
      const list = JSON.parse(out.slice(start));
      return list.map((s) => ({
        name: s.name,
        status: s.enabled ? "enabled" : `disabled${s.disabled_reason ? ` (${s.disabled_reason})` : ""}`,
        connected: null,
        enabled: !!s.enabled,
        command: s.transport?.command ?? null,
        args: s.transport?.args ?? null,
      }));
    },
    probe: ({ port }) => ({
      args: [
        "exec",
        "--skip-git-repo-check",
        "--json",
        "-c",
        `model="stand-in"`,
        "-c",
        `model_provider="standin"`,
        "-c",
        `model_providers.standin={ name = "stand-in", base_url = "http://127.0.0.1:${port}/v1", wire_api = "responses", env_key = "STANDIN_API_KEY", request_max_retries = 0, stream_max_retries = 0 }`,
        PROBE_PROMPT,
      ],
      env: {},
    }),
  },
  {
    ...host("gemini"),
    dirs: (home) => ({ gemini: join(home, ".gemini") }),
    env: ({ port }) => ({
      GEMINI_CLI_NO_RELAUNCH: "true",
      ...(port ? { GEMINI_API_KEY: "stand-in", GOOGLE_GEMINI_BASE_URL: `http://127.0.0.1:${port}` } : {}),
    }),
    seed({ project, dirs }) {
      const o = other();
      put(
        join(dirs.gemini, "settings.json"),
        [
          `{`,
          `  // My Gemini CLI settings`,
          `  "general": { "enableAutoUpdate": false, "enableAutoUpdateNotification": false },`,
          `  "privacy": { "usageStatisticsEnabled": false },`,
          `  "telemetry": { "enabled": false },`,
          `  "security": { "auth": { "selectedType": "gemini-api-key" } },`,
          `  "mcpServers": {`,
          `    "seeded-user": { "command": ${q(o.command)}, "args": [${o.args.map(q).join(", ")}] }`,
          `  }`,
          `}`,
          ``,
        ].join("\n"),
      );
      // The user trusted this folder (Gemini CLI starts no MCP server in an untrusted one).
      put(join(dirs.gemini, "trustedFolders.json"), JSON.stringify({ [project]: "TRUST_FOLDER" }, null, 2) + "\n");
      put(join(dirs.gemini, "GEMINI.md"), "Prefer small diffs.\n");
      put(
        join(project, ".gemini", "settings.json"),
        `{\n  // this project's servers\n  "mcpServers": {\n    "seeded-project": ${JSON.stringify(o)}\n  }\n}\n`,
      );
      put(join(project, "GEMINI.md"), "# Project\n\nA test project.\n");
    },
    listArgs: ["mcp", "list"],
    // `✓ name: command (stdio) - Connected` | `✗ … - Disconnected` | `○ … - Disabled`
    parseList(out, err) {
      const found = [];
      for (const l of lines(out + "\n" + err)) {
        const m = /^\s*\S+\s+([A-Za-z0-9_.-]+): (.*) - (\w[\w ]*)$/.exec(l);
        if (m) found.push({ name: m[1], status: m[3].trim(), connected: m[3].trim() === "Connected" });
      }
      return found;
    },
    // Headless, Gemini CLI offers the model only the tools that need no confirmation; an MCP
    // server's need one unless the entry says `trust: true` (which setup does not write), so
    // the probe runs in yolo mode, as an unattended run would.
    probe: () => ({ args: ["-p", PROBE_PROMPT, "--approval-mode", "yolo", "--output-format", "json"], env: {} }),
  },
  {
    ...host("opencode"),
    // XDG_CONFIG_HOME away from its default, so that setup --user is seen to follow it.
    dirs: (home) => ({ xdgConfig: join(home, ".xdg-config") }),
    env: ({ dirs }) => ({
      XDG_CONFIG_HOME: dirs.xdgConfig,
      OPENCODE_DISABLE_AUTOUPDATE: "true",
      OPENCODE_DISABLE_MODELS_FETCH: "true",
      OPENCODE_DISABLE_LSP_DOWNLOAD: "true",
      OPENCODE_DISABLE_SHARE: "true",
    }),
    seed({ project, dirs }) {
      const o = other();
      put(
        join(dirs.xdgConfig, "opencode", "opencode.jsonc"),
        [
          `{`,
          `  // My opencode settings`,
          `  "$schema": "https://opencode.ai/config.json",`,
          `  "autoupdate": false,`,
          `  "share": "disabled",`,
          `  "mcp": {`,
          `    "seeded-user": { "type": "local", "command": ${q([o.command, ...o.args])}, "enabled": true }, // trailing comma`,
          `  },`,
          `}`,
          ``,
        ].join("\n"),
      );
      put(join(dirs.xdgConfig, "opencode", "AGENTS.md"), "Be concise.\n");
      put(
        join(project, "opencode.json"),
        JSON.stringify(
          { $schema: "https://opencode.ai/config.json", mcp: { "seeded-project": { type: "local", command: [o.command, ...o.args] } } },
          null,
          "\t",
        ) + "\n",
      );
      put(join(project, "AGENTS.md"), "# Agents\n\nRun `cargo test` before you finish.\n");
    },
    listArgs: ["mcp", "list"],
    // `●  ✓ name connected` then the command on the next line; `●  ✗ name failed`.
    parseList(out) {
      const found = [];
      for (const l of lines(out)) {
        const m = /^●\s+(\S+)\s+([A-Za-z0-9_.-]+)\s+(.+)$/.exec(l.trim());
        if (m) found.push({ name: m[2], status: m[3].trim(), connected: m[3].trim() === "connected" });
      }
      return found;
    },
    // The stand-in provider comes from a file of its own (OPENCODE_CONFIG), outside the home and
    // the project, so that the files under test are the seeded ones.
    probe: ({ port, tmp }) => {
      const cfg = join(tmp, "probe-opencode.json");
      writeFileSync(
        cfg,
        JSON.stringify({
          model: "standin/stand-in",
          small_model: "standin/stand-in",
          provider: {
            standin: {
              npm: "@ai-sdk/openai-compatible",
              name: "stand-in",
              options: { baseURL: `http://127.0.0.1:${port}/v1`, apiKey: "stand-in" },
              models: { "stand-in": { name: "stand-in", tool_call: true, limit: { context: 200000, output: 8192 } } },
            },
          },
        }),
      );
      return { args: ["run", "--model", "standin/stand-in", PROBE_PROMPT], env: { OPENCODE_CONFIG: cfg } };
    },
  },
];

// Cursor and VS Code: files only (no CLI on npm lists their MCP servers offline).
export const FILE_HOSTS = [
  {
    id: "cursor",
    skipped:
      "no Cursor program on npm: Cursor's CLI (`cursor-agent`, which has `mcp list`) installs from cursor.com with its own installer, not from the npm registry " +
      "(npm's `cursor-agent` 1.0.3 is an unrelated third-party \"Task sequence creator\" with no bin; @anysphere/* on npm are libraries), and it needs a Cursor login",
    dirs: () => ({}),
    env: () => ({}),
    seed({ home, project }) {
      const o = other();
      put(join(project, ".cursor", "mcp.json"), JSON.stringify({ mcpServers: { "seeded-project": o } }, null, 2) + "\n");
      put(join(project, ".cursor", "rules", "style.mdc"), "---\ndescription: House style\nalwaysApply: true\n---\n\nTwo-space indents.\n");
      put(join(home, ".cursor", "mcp.json"), JSON.stringify({ mcpServers: { "seeded-user": o } }) + "\n");
    },
    // The server entries and rules setup writes, per scope.
    expect: {
      project: { servers: [{ file: "project:.cursor/mcp.json", key: "mcpServers", seeded: "seeded-project" }], own: ["project:.cursor/rules/hashline.mdc"] },
      user: { servers: [{ file: "home:.cursor/mcp.json", key: "mcpServers", seeded: "seeded-user" }], own: [] },
    },
  },
  {
    id: "vscode",
    skipped:
      "no VS Code program on npm that lists MCP servers: `code` is not published there (@vscode/test-electron downloads VS Code from Microsoft's update server at run time, " +
      "which this offline run cannot reach), and `code` has `--add-mcp` but no command that lists or starts MCP servers headless",
    dirs: (home) => ({ vscodeUser: join(home, ".config", "Code", "User") }),
    env: () => ({}),
    seed({ project, dirs }) {
      const o = other();
      put(
        join(project, ".vscode", "mcp.json"),
        `{\n  // this workspace's servers\n  "servers": {\n    "seeded-project": { "type": "stdio", "command": ${q(o.command)}, "args": ${q(o.args)} },\n  },\n  "inputs": []\n}\n`,
      );
      put(join(project, ".github", "copilot-instructions.md"), "# Copilot\n\nUse the project's Makefile.\n");
      put(join(dirs.vscodeUser, "mcp.json"), `{\n\t"servers": {\n\t\t"seeded-user": ${JSON.stringify({ type: "stdio", ...o })}\n\t}\n}\n`);
      put(join(dirs.vscodeUser, "settings.json"), `{\n  // my editor\n  "editor.fontSize": 13\n}\n`);
    },
    expect: {
      project: { servers: [{ file: "project:.vscode/mcp.json", key: "servers", seeded: "seeded-project" }], own: [] },
      user: { servers: [{ file: "home:.config/Code/User/mcp.json", key: "servers", seeded: "seeded-user" }], own: ["home:.config/Code/User/prompts/hashline.instructions.md"] },
    },
  },
];

// JSON with comments and trailing commas (JSONC: VS Code's, opencode's and Gemini CLI's files)
// -> value. Comments go first, then each comma that only a `}` or `]` follows; strings are
// copied as they are.
export function parseJsonc(text) {
  const scan = (src, other) => {
    let out = "";
    for (let i = 0; i < src.length; ) {
      if (src[i] === '"') {
        let j = i + 1;
        while (j < src.length && src[j] !== '"') j += src[j] === "\\" ? 2 : 1;
        out += src.slice(i, j + 1);
        i = j + 1;
      } else {
        const r = other(src, i);
        out += r.text;
        i = r.next;
      }
    }
    return out;
  };
  const noComments = scan(text, (src, i) => {
    if (src.startsWith("//", i)) {
      const end = src.indexOf("\n", i);
      return { text: "", next: end < 0 ? src.length : end };
    }
    if (src.startsWith("/*", i)) {
      const end = src.indexOf("*/", i + 2);
      return { text: " ", next: end < 0 ? src.length : end + 2 };
    }
    return { text: src[i], next: i + 1 };
  });
  const noTrailing = scan(noComments, (src, i) =>
    src[i] === "," && /^\s*[}\]]/.test(src.slice(i + 1)) ? { text: "", next: i + 1 } : { text: src[i], next: i + 1 },
  );
  return JSON.parse(noTrailing);
}
