// The five hosts: npm package and pinned version, the wire protocol of their model API, and
// how each is configured and started headless against the stand-in on 127.0.0.1:PORT with
// `hashline mcp` (wrapped in mcp-tee.mjs) as a stdio MCP server. Everything a host writes goes
// under the per-run HOME; the project directory is its working directory.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const PROMPT = "Work on the C file in this directory with the hashline tools.";

// `mcp` = { command, args } of the MCP server.
export const HOSTS = [
  {
    id: "claude-code",
    pkg: "@anthropic-ai/claude-code",
    version: "2.1.328",
    bin: "node_modules/.bin/claude",
    protocol: "anthropic",
    setup({ home, port, mcp }) {
      const cfg = join(home, "mcp.json");
      writeFileSync(cfg, JSON.stringify({ mcpServers: { hashline: { type: "stdio", ...mcp } } }, null, 2));
      const allowed = ["read", "edit", "grep", "ast_search"].map((t) => `mcp__hashline__${t}`).join(",");
      return {
        args: ["-p", PROMPT, "--mcp-config", cfg, "--strict-mcp-config", "--allowedTools", allowed, "--output-format", "json"],
        env: {
          ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`,
          ANTHROPIC_API_KEY: "sk-ant-stand-in",
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
          ENABLE_TOOL_SEARCH: "false", // else MCP tools hide behind ToolSearch
          DISABLE_AUTOUPDATER: "1",
          DISABLE_TELEMETRY: "1",
          DISABLE_ERROR_REPORTING: "1",
          CLAUDE_CODE_ENABLE_TELEMETRY: "0",
        },
      };
    },
  },
  {
    id: "codex",
    pkg: "@openai/codex",
    version: "0.171.0",
    bin: "node_modules/.bin/codex",
    protocol: "responses",
    setup({ home, port, mcp }) {
      const codexHome = join(home, ".codex");
      mkdirSync(codexHome, { recursive: true });
      const q = (s) => JSON.stringify(s);
      writeFileSync(
        join(codexHome, "config.toml"),
        [
          `model = "stand-in"`,
          `model_provider = "standin"`,
          `check_for_update_on_startup = false`,
          ``,
          `[model_providers.standin]`,
          `name = "stand-in"`,
          `base_url = "http://127.0.0.1:${port}/v1"`,
          `wire_api = "responses"`,
          `env_key = "STANDIN_API_KEY"`,
          `request_max_retries = 0`,
          `stream_max_retries = 0`,
          ``,
          `[mcp_servers.hashline]`,
          `command = ${q(mcp.command)}`,
          `args = [${mcp.args.map(q).join(", ")}]`,
          ``,
          `[analytics]`,
          `enabled = false`,
          ``,
          `[otel]`,
          `exporter = "none"`,
          ``,
        ].join("\n"),
      );
      return {
        args: ["exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "--json", PROMPT],
        env: { CODEX_HOME: codexHome, STANDIN_API_KEY: "stand-in" },
      };
    },
  },
  {
    id: "gemini",
    pkg: "@google/gemini-cli",
    version: "0.61.0",
    bin: "node_modules/.bin/gemini",
    protocol: "gemini",
    setup({ home, port, mcp }) {
      const dir = join(home, ".gemini");
      mkdirSync(dir, { recursive: true });
      writeFileSync(
        join(dir, "settings.json"),
        JSON.stringify(
          {
            security: { auth: { selectedType: "gemini-api-key" }, folderTrust: { enabled: false } },
            general: { disableAutoUpdate: true, disableUpdateNag: true },
            privacy: { usageStatisticsEnabled: false },
            telemetry: { enabled: false },
            mcpServers: { hashline: { ...mcp, trust: true } },
          },
          null,
          2,
        ),
      );
      return {
        args: ["-p", PROMPT, "--approval-mode", "yolo", "--output-format", "json"],
        env: {
          GEMINI_API_KEY: "stand-in",
          GOOGLE_GEMINI_BASE_URL: `http://127.0.0.1:${port}`,
          GEMINI_CLI_NO_RELAUNCH: "true",
        },
      };
    },
  },
  {
    id: "opencode",
    pkg: "opencode-ai",
    version: "1.18.33",
    bin: "node_modules/.bin/opencode",
    protocol: "chat",
    setup({ home, port, mcp }) {
      const cfg = join(home, "opencode.json");
      writeFileSync(
        cfg,
        JSON.stringify(
          {
            $schema: "https://opencode.ai/config.json",
            autoupdate: false,
            share: "disabled",
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
            mcp: { hashline: { type: "local", command: [mcp.command, ...mcp.args], enabled: true } },
            permission: { "*": "allow" },
          },
          null,
          2,
        ),
      );
      return {
        args: ["run", "--auto", "--model", "standin/stand-in", PROMPT],
        env: {
          OPENCODE_CONFIG: cfg,
          OPENCODE_DISABLE_AUTOUPDATE: "true",
          OPENCODE_DISABLE_MODELS_FETCH: "true",
          OPENCODE_DISABLE_LSP_DOWNLOAD: "true",
          OPENCODE_DISABLE_SHARE: "true",
        },
      };
    },
  },
  {
    id: "copilot",
    pkg: "@github/copilot",
    version: "1.0.102",
    bin: "node_modules/.bin/copilot",
    protocol: "chat",
    setup({ port, mcp }) {
      const servers = { mcpServers: { hashline: { type: "local", ...mcp, tools: ["*"] } } };
      return {
        args: ["-p", PROMPT, "--allow-all", "--no-auto-update", "--additional-mcp-config", JSON.stringify(servers)],
        env: {
          COPILOT_OFFLINE: "true",
          COPILOT_PROVIDER_BASE_URL: `http://127.0.0.1:${port}/v1`,
          COPILOT_PROVIDER_API_KEY: "stand-in",
          COPILOT_MODEL: "stand-in",
          COPILOT_AUTO_UPDATE: "false",
          COPILOT_ALLOW_ALL: "true",
        },
      };
    },
  },
];
