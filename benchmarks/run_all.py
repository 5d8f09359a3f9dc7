"""Run every benchmark with its defaults, one after the other: `.venv/bin/python benchmarks/run_all.py`.

Each script prints its medians and ratios against git's own tools or plain bash, measured in
the same run. Generated repositories are kept in benchmarks/.work/ (ignored) between runs.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCRIPTS = [
    "bench_check.py",
    "bench_snapshot.py",
    "bench_daemon.py",
    "bench_audit.py",
    "bench_hooks.py",
    "bench_wrapper.py",
]


def main() -> int:
    worst = 0
    for script in SCRIPTS:
        print(f"\n=== {script} ===", flush=True)
        worst = max(worst, subprocess.run([sys.executable, str(HERE / script)]).returncode)
    return worst


if __name__ == "__main__":
    sys.exit(main())
