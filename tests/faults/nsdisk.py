"""Run steps on a small filesystem of our own: `unshare -rm python nsdisk.py DIR SIZE STEPS`.

Inside a private user and mount namespace (no privileges needed), mount a tmpfs of SIZE at DIR
(a real filesystem: filling it gives a real ENOSPC, remounting it read-only a real EROFS), run
each step of the JSON file STEPS in order and print one JSON list of results. A step is
{"sh": "bash script", "cwd": "path below DIR"} or {"remount": "ro" | "rw"}; each result is
{"rc", "out", "err"}. The mount disappears with the namespace when this process exits.
"""

from __future__ import annotations

import json
import subprocess
import sys


def _mount(args: list[str]) -> dict[str, object]:
    proc = subprocess.run(["mount", *args], capture_output=True, text=True)
    return {"rc": proc.returncode, "out": proc.stdout, "err": proc.stderr}


def main() -> int:
    where, size, steps_file = sys.argv[1:4]
    mounted = _mount(["-t", "tmpfs", "-o", f"size={size}", "tmpfs", where])
    if mounted["rc"] != 0:
        print(json.dumps([mounted]))
        return 1
    with open(steps_file, encoding="utf-8") as handle:
        steps = json.load(handle)
    results = []
    for step in steps:
        if "remount" in step:
            results.append(_mount(["-o", f"remount,{step['remount']}", where]))
            continue
        proc = subprocess.run(
            ["bash", "-c", step["sh"]],
            cwd=f"{where}/{step.get('cwd', '')}",
            capture_output=True,
            text=True,
        )
        results.append({"rc": proc.returncode, "out": proc.stdout, "err": proc.stderr})
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
