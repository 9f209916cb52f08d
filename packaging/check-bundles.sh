#!/usr/bin/env bash
# The host bundles of issue 50, checked with the hosts' own tools (called from .ci/packages;
# runs alone too):
#
#   packaging/check-bundles.sh HASHLINE [--wheel WHEEL] [--npm-tarball TGZ]
#
# HASHLINE is a hashline binary for this machine (CI passes the one it packs for npm).
# - The MCP Bundle for Claude Desktop: packaging/mcpb/build.mjs with the official CLI
#   `@anthropic-ai/mcpb` (pinned in packaging/mcpb, `npm ci`): validate, pack, the packed
#   file's entries and modes, unpack, info, verify, and the unpacked server over MCP.
# - The Claude Code plugin (packaging/claude-plugin) and the marketplace at the repository's
#   root (.claude-plugin/marketplace.json): Claude Code's `claude plugin validate --strict`;
#   the version in both is the workspace's; installed from the marketplace into a temporary
#   home, `claude plugin list --json` shows the server entry with `alwaysLoad` and
#   `claude mcp list` shows it connected; then a headless session
#   (packaging/check-claude-plugin.mjs). Claude Code is the one tests/hosts pins and installs
#   (tests/hosts/lib/hosts.mjs, install.mjs), in ${HASHLINE_HOSTS_DIR:-~/.cache/hashline-ci/hosts}.
# - The MCP Registry's server.json: packaging/registry/check.py (the published schema, the
#   versions, the packages' ownership markers; --wheel and --npm-tarball are passed to it).
# Everything after the installs runs offline. Built files go to target/bundles/.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
[ $# -ge 1 ] || { echo "usage: packaging/check-bundles.sh HASHLINE [--wheel WHEEL] [--npm-tarball TGZ]" >&2; exit 2; }
binary=$(realpath "$1")
shift
[ -x "$binary" ] || { echo "bundles: $binary is not an executable" >&2; exit 2; }
out="$root/target/bundles"
rm -rf "$out"
mkdir -p "$out"
started=$SECONDS
version=$(python3 -c 'import tomllib; print(tomllib.load(open("Cargo.toml", "rb"))["workspace"]["package"]["version"])')
platform=$(node -p 'process.platform + "-" + process.arch')
echo "bundles: version $version, $binary ($platform)"

echo "-- the MCP Bundle (.mcpb) for Claude Desktop"
(cd packaging/mcpb && npm ci --no-audit --no-fund --loglevel=error)
node packaging/mcpb/build.mjs --version "$version" --out "$out/mcpb" --binary "$platform=$binary"

echo "-- the Claude Code plugin and its marketplace"
hosts_dir="${HASHLINE_HOSTS_DIR:-$HOME/.cache/hashline-ci/hosts}"
claude=$(node --input-type=module -e '
import { HOSTS } from "./tests/hosts/lib/hosts.mjs";
import { install } from "./tests/hosts/lib/install.mjs";
const host = HOSTS.find((h) => h.id === "claude-code");
const { dir, installed } = install(host, process.argv[1]);
if (installed) console.error(`installed ${host.pkg}@${host.version} into ${dir}`);
console.log(`${dir}/${host.bin}`);
' "$hosts_dir" | tail -n 1)
echo "Claude Code $("$claude" --version)"
claude_home=$(mktemp -d)
claude_project=$(mktemp -d)
claude_bin=$(mktemp -d)
trap 'rm -rf "$claude_home" "$claude_project" "$claude_bin"' EXIT
ln -s "$binary" "$claude_bin/hashline"
run_claude() {
    (cd "$claude_project" && env HOME="$claude_home" PATH="$claude_bin:$PATH" DISABLE_AUTOUPDATER=1 \
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1 DISABLE_ERROR_REPORTING=1 "$claude" "$@")
}
run_claude plugin validate --strict "$root/packaging/claude-plugin"
run_claude plugin validate --strict "$root"
run_claude plugin validate --json "$root/packaging/claude-plugin" >"$out/plugin-validate.json"
run_claude plugin marketplace add "$root"
run_claude plugin install hashline@hashline
run_claude plugin list --json >"$out/plugin-list.json"
run_claude mcp list | tee "$out/mcp-list.txt"
python3 - "$version" "$out" <<'PY'
import json, sys
from pathlib import Path
version, out = sys.argv[1], Path(sys.argv[2])
findings = []
plugin = json.load(open("packaging/claude-plugin/.claude-plugin/plugin.json"))
market = json.load(open(".claude-plugin/marketplace.json"))
entry = next((p for p in market["plugins"] if p["name"] == "hashline"), None)
if plugin["name"] != "hashline":
    findings.append(f"plugin.json: name {plugin['name']}")
if plugin.get("version") != version:
    findings.append(f"packaging/claude-plugin/.claude-plugin/plugin.json: version {plugin.get('version')}, the workspace's is {version}")
if entry is None or entry.get("version") != version or entry.get("source") != "./packaging/claude-plugin":
    findings.append(f".claude-plugin/marketplace.json: the hashline entry is {entry}; want version {version}, source ./packaging/claude-plugin")
# What Claude Code itself read from the plugin (`plugin validate --json`, `plugin list --json`).
provides = json.load(open(out / "plugin-validate.json"))["provides"]
hooks = [(h["event"], h.get("matcher"), h.get("type"), h.get("command")) for h in provides["hooks"]]
if hooks != [("PreToolUse", "Edit|Write|MultiEdit|NotebookEdit", "command", "hashline hook claude-code --tool-prefix mcp__plugin_hashline_hashline__")]:
    findings.append(f"the plugin's hooks as Claude Code reads them: {hooks}")
servers = [(s["name"], s["type"], s["target"], s["args"]) for s in provides["mcpServers"]]
if servers != [("hashline", "stdio", "hashline", ["mcp"])]:
    findings.append(f"the plugin's MCP servers as Claude Code reads them: {servers}")
installed = [p for p in json.load(open(out / "plugin-list.json")) if p["id"] == "hashline@hashline"]
if len(installed) != 1 or not installed[0].get("enabled") or installed[0].get("version") != version:
    findings.append(f"claude plugin list: {installed}")
elif installed[0].get("mcpServers", {}).get("hashline", {}).get("alwaysLoad") is not True:
    findings.append(f"the installed plugin's server entry lacks alwaysLoad: true: {installed[0].get('mcpServers')}")
if "plugin:hashline:hashline: hashline mcp - ✔ Connected" not in (out / "mcp-list.txt").read_text():
    findings.append("claude mcp list does not show plugin:hashline:hashline connected")
for finding in findings:
    print(f"claude-plugin: {finding}", file=sys.stderr)
if findings:
    sys.exit(1)
print(f"claude-plugin: hashline {version} installed from the marketplace, enabled, its server (alwaysLoad) connected, the hook on Edit|Write|MultiEdit|NotebookEdit")
PY
node packaging/check-claude-plugin.mjs "$claude" "$binary"

echo "-- the MCP Registry's server.json"
python3 packaging/registry/check.py "$@"
echo "bundles: the .mcpb, the Claude Code plugin and server.json check out ($((SECONDS - started)) s)"
