"""The minimum Rust version stated in Cargo.toml, checked.

Builds with that toolchain when rustup has it. Without it (toolchains come only from
rustup's servers, which CI cannot reach), checks what decides whether it would build: the
rust-version of every package in the resolved dependency graph (Cargo.lock) must not be
newer than ours, and every workspace member must state ours.
"""

import json
import subprocess
import sys


def version(text):
    parts = [int(part) for part in text.split(".")]
    return tuple(parts + [0] * (3 - len(parts)))  # "1.90" is "1.90.0"


def main():
    meta = json.loads(subprocess.run(["cargo", "metadata", "--format-version", "1", "--locked"],
                                     check=True, capture_output=True, text=True).stdout)
    members = set(meta["workspace_members"])
    ours = {p["rust_version"] for p in meta["packages"] if p["id"] in members}
    if len(ours) != 1 or None in ours:
        sys.exit(f"every workspace member must state one rust-version, found {sorted(map(str, ours))}")
    msrv = ours.pop()
    toolchains = subprocess.run(["rustup", "toolchain", "list"], capture_output=True, text=True).stdout
    if any(line.startswith(msrv) for line in toolchains.splitlines()):
        print(f"building with Rust {msrv}")
        subprocess.run(["cargo", f"+{msrv}", "check", "--workspace", "--all-targets", "--locked"], check=True)
        return
    newer, unstated = [], 0
    for package in meta["packages"]:
        if package["id"] in members:
            continue
        if package["rust_version"] is None:
            unstated += 1
        elif version(package["rust_version"]) > version(msrv):
            newer.append(f"{package['name']} {package['version']} needs Rust {package['rust_version']}")
    if newer:
        sys.exit(f"dependencies newer than rust-version {msrv}:\n" + "\n".join(newer))
    deps = len(meta["packages"]) - len(members)
    print(f"rust-version {msrv}: no toolchain {msrv} here; all {deps - unstated} of {deps} dependencies "
          f"that state a rust-version accept it ({unstated} state none)")


if __name__ == "__main__":
    main()
