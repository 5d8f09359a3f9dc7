"""What the benchmarks share: a normal (non-editable) install to measure, interleaved medians,
and one line per target.

    from common import installed, interleaved, target

`installed()` installs this checkout with ./install.sh into benchmarks/.work/install (a venv,
the `interlock` launcher, as a user gets them), again only when the source changed. Every
process figure is measured on that install, never on the editable dev venv (whose import
finder costs milliseconds). `interleaved()` runs the commands in turn, so load from other work
on the machine hits them alike, and returns medians in ms. `target()` prints
`target: NAME: FIGURE (LIMIT): met|missed`, which run_all.py collects.
"""

from __future__ import annotations

import hashlib
import os
import statistics
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "benchmarks" / ".work"
INSTALL = WORK / "install"


def _source_stamp() -> str:
    digest = hashlib.sha256()
    for path in sorted((ROOT / "interlock").rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes())
    for name in ("install.sh", "pyproject.toml"):
        digest.update((ROOT / name).read_bytes())
    return digest.hexdigest()


def installed() -> tuple[Path, Path]:
    """(the install's python, its `interlock` launcher), installing first when needed."""
    python, launcher = INSTALL / "venv" / "bin" / "python", INSTALL / "bin" / "interlock"
    stamp_file = INSTALL / "stamp"
    stamp = _source_stamp()
    if launcher.exists() and stamp_file.exists() and stamp_file.read_text() == stamp:
        return python, launcher
    INSTALL.mkdir(parents=True, exist_ok=True)
    env = {
        **os.environ,
        "INTERLOCK_VENV": str(INSTALL / "venv"),
        "INTERLOCK_BIN": str(INSTALL / "bin"),
        "HOME": str(INSTALL / "home"),
    }
    print("installing this checkout (non-editable) into benchmarks/.work/install ...", flush=True)
    subprocess.run([str(ROOT / "install.sh")], cwd=INSTALL, env=env, check=True)
    stamp_file.write_text(stamp)
    return python, launcher


def bench_env(**extra: str) -> dict[str, str]:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "bench",
        "GIT_AUTHOR_EMAIL": "bench@example.com",
        "GIT_COMMITTER_NAME": "bench",
        "GIT_COMMITTER_EMAIL": "bench@example.com",
        "GIT_CONFIG_NOSYSTEM": "1",
        "INTERLOCK_DAEMON_IDLE": "900",
    }
    env.pop("INTERLOCK_NO_DAEMON", None)
    env.update(extra)
    return env


def run_ms(argv: list[str], cwd: Path | None = None, env: dict[str, str] | None = None) -> float:
    started = time.perf_counter()
    subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (time.perf_counter() - started) * 1000


def interleaved(steps: dict[str, Callable[[], float]], repeat: int) -> dict[str, float]:
    """Each step returns the ms it took; run them in turn `repeat` times (after one warm-up
    round); the median of each."""
    for step in steps.values():
        step()
    samples: dict[str, list[float]] = {name: [] for name in steps}
    for _ in range(repeat):
        for name, step in steps.items():
            samples[name].append(step())
    return {name: statistics.median(values) for name, values in samples.items()}


def target(name: str, figure: str, limit: str, met: bool) -> bool:
    print(f"target: {name}: {figure} (target {limit}): {'met' if met else 'MISSED'}", flush=True)
    return met
