"""The verdict on the conformance suite's runs (.ci/conformance): every check counted, and
the run fails on a check that fails (FAILURE or WARNING) without an expected-failure entry,
on an entry that excused nothing (it passes now, or no longer runs: remove it), and on a
run that left no results.

Usage: conformance_verdict.py RESULTS EXPECTED HTTP_ONLY
  RESULTS: a directory of runs, RESULTS/<transport>/<run>/<scenario dir>/checks.json
  EXPECTED: lines "<transport|any> <scenario>[:<check>] <reason>" (# comments, blank lines)
  HTTP_ONLY: scenarios that test HTTP alone; over stdio they test the bridge, so their
             checks are not counted there
"""

import json
import re
import sys
from collections import Counter
from pathlib import Path

FAILING = {"FAILURE", "WARNING"}


def expectations(path):
    entries = []
    for number, line in enumerate(Path(path).read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        transport, pattern, reason = (line.split(None, 2) + ["", ""])[:3]
        if transport not in ("any", "http", "stdio") or not reason:
            sys.exit(f"expected failures, line {number}: want '<any|http|stdio> <scenario[:check]> <reason>': {line}")
        entries.append({"transport": transport, "pattern": pattern, "reason": reason, "used": 0})
    return entries


def scenario_name(directory):
    # The suite names a scenario's directory `server-<scenario>-<timestamp>`.
    return re.sub(r"-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$", "", directory.name.removeprefix("server-"))


def matches(entry, transport, scenario, check):
    if entry["transport"] not in ("any", transport):
        return False
    return entry["pattern"] in (scenario, f"{scenario}:{check}")


def main():
    results, expected_path, http_only_path = sys.argv[1:4]
    entries = expectations(expected_path)
    http_only = set(Path(http_only_path).read_text().split())
    problems = []
    for transport_dir in sorted(Path(results).iterdir()):
        transport = transport_dir.name
        for run_dir in sorted(transport_dir.iterdir()):
            counts = Counter()
            scenarios = [d for d in sorted(run_dir.iterdir()) if d.is_dir()]
            if not scenarios:
                problems.append(f"{transport} {run_dir.name}: the suite left no results")
            for directory in scenarios:
                scenario = scenario_name(directory)
                checks_file = directory / "checks.json"
                if not checks_file.exists():
                    problems.append(f"{transport} {run_dir.name} {scenario}: no checks.json")
                    continue
                if transport == "stdio" and scenario in http_only:
                    counts["not counted (HTTP only)"] += 1
                    continue
                for check in json.loads(checks_file.read_text()):
                    status = check["status"]
                    if status not in FAILING:
                        counts[status.lower()] += 1
                        continue
                    excused = [e for e in entries if matches(e, transport, scenario, check["id"])]
                    for entry in excused:
                        entry["used"] += 1
                    if excused:
                        counts["expected failure"] += 1
                    else:
                        counts["UNEXPECTED FAILURE"] += 1
                        message = (check.get("errorMessage") or "").replace("\n", " ")[:300]
                        problems.append(f"{transport} {run_dir.name} {scenario}:{check['id']} {status}: {message}")
            summary = ", ".join(f"{n} {what}" for what, n in sorted(counts.items()))
            print(f"{transport:5} {run_dir.name:14} {summary}")
    for entry in entries:
        if entry["used"] == 0:
            problems.append(
                f"expected failure that did not fail in any run: {entry['transport']} {entry['pattern']} "
                "(it passes now, or no longer runs: remove it from .ci/conformance)"
            )
    for problem in problems:
        print(f"FAIL: {problem}")
    if problems:
        sys.exit(1)
    print(f"every check passes but the {len(entries)} expected failures listed in .ci/conformance")


if __name__ == "__main__":
    main()
