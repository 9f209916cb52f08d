// Installs each selected host from npm at its pinned version into
// ${HASHLINE_HOSTS_DIR:-~/.cache/hashline-ci/hosts}/<host>/, unless it is there already.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export function installedVersion(dir, pkg) {
  try {
    return JSON.parse(readFileSync(join(dir, "node_modules", pkg, "package.json"), "utf8")).version;
  } catch {
    return null;
  }
}

export function install(host, hostsDir) {
  const dir = join(hostsDir, host.id);
  const have = installedVersion(dir, host.pkg);
  if (have === host.version && existsSync(join(dir, host.bin))) return { dir, installed: false };
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ private: true, name: `hashline-hosts-${host.id}` }) + "\n");
  const t0 = Date.now();
  execFileSync(
    "npm",
    ["install", "--no-audit", "--no-fund", "--loglevel=error", "--save-exact", `${host.pkg}@${host.version}`],
    { cwd: dir, stdio: ["ignore", "inherit", "inherit"], env: { ...process.env, npm_config_update_notifier: "false" } },
  );
  const got = installedVersion(dir, host.pkg);
  if (got !== host.version) throw new Error(`${host.pkg}: installed ${got}, wanted ${host.version}`);
  return { dir, installed: true, secs: (Date.now() - t0) / 1000 };
}
