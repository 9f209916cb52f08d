"""The test programs of the workspace crates that use hashline-fs, one per line as
`PROGRAM<TAB>CRATE FOLDER`, from `cargo test --no-run --message-format=json` on standard
input (and `cargo metadata` for the dependency graph). Used by .ci/run's portable lane."""

import json
import subprocess
import sys
from pathlib import Path


def fs_users() -> set[str]:
    """Workspace package ids whose dependency closure holds hashline-fs (and it)."""
    meta = json.loads(subprocess.run(
        ["cargo", "metadata", "--format-version", "1"], check=True, capture_output=True, text=True
    ).stdout)
    members = set(meta["workspace_members"])
    deps = {node["id"]: [d["pkg"] for d in node["deps"]] for node in meta["resolve"]["nodes"]}
    names = {p["id"]: p["name"] for p in meta["packages"]}
    memo: dict[str, bool] = {}

    def uses(pkg: str) -> bool:
        if pkg not in memo:
            memo[pkg] = False
            memo[pkg] = names[pkg] == "hashline-fs" or any(uses(d) for d in deps.get(pkg, []))
        return memo[pkg]

    return {pkg for pkg in members if uses(pkg)}


def main() -> None:
    users = fs_users()
    found = 0
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except json.JSONDecodeError:
            continue
        if message.get("reason") != "compiler-artifact" or not message.get("executable"):
            continue
        if not message["profile"]["test"] or message["package_id"] not in users:
            continue
        folder = Path(message["manifest_path"]).parent
        print(f"{message['executable']}\t{folder}")
        found += 1
    if found == 0:
        sys.exit("no test program of a crate using hashline-fs was found")


main()
