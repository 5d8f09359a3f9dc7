"""Run every benchmark with its defaults, then print each target on one line: its figure and
met or missed. `.venv/bin/python benchmarks/run_all.py [SCRIPT...]`

Each script prints its medians and ratios against git's own tools, plain bash or a bare
Python start, measured in the same run (interleaved), on a normal install of this checkout
(benchmarks/common.py). Generated repositories are kept in benchmarks/.work/ (ignored).
Exit status 1 when a target was missed.
"""

from __future__ import annotations

import platform
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCRIPTS = [
    "bench_check.py",
    "bench_hooks.py",
    "bench_recorder.py",
    "bench_snapshot.py",
    "bench_audit.py",
    "bench_daemon.py",
    "bench_wrapper.py",
    "bench_adapters.py",
]


def main() -> int:
    chosen = sys.argv[1:] or SCRIPTS
    targets: list[str] = []
    for script in chosen:
        print(f"\n=== {script} ===", flush=True)
        proc = subprocess.Popen(
            [sys.executable, str(HERE / script)], stdout=subprocess.PIPE, text=True
        )
        assert proc.stdout is not None
        for line in proc.stdout:
            print(line, end="", flush=True)
            if line.startswith("target: "):
                targets.append(line.removeprefix("target: ").rstrip("\n"))
        proc.wait()
    load = ", ".join(f"{x:.1f}" for x in __import__("os").getloadavg())
    print(f"\n=== targets ({time.strftime('%Y-%m-%d')}, {platform.node()}, load {load}) ===")
    for line in targets:
        print(line)
    return 0 if targets and all(line.endswith(": met") for line in targets) else 1


if __name__ == "__main__":
    sys.exit(main())
