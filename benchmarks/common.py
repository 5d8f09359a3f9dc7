"""What the benchmarks share: a normal (non-editable) install to measure, interleaved medians,
and one line per target.

    from common import installed, interleaved, target

`installed()` installs this checkout with ./install.sh into benchmarks/.work/install (a venv,
the `interlock` launcher, as a user gets them), again only when the source changed. Every
process figure is measured on that install, never on the editable dev venv (whose import
finder costs milliseconds). `interleaved()` runs the commands in turn, so load from other work
on the machine hits them alike, and returns medians in ms. `target()` prints
`target: NAME: FIGURE (LIMIT): met|missed`, which run_all.py collects.

Wall time on a loaded machine measures the load as much as interlock, so every process step
also reports CPU: `run()` returns a `Sample` of wall ms and the user+sys ms of the process and
every child it waited for (os.wait4's rusage: git's hooks, the Python they start), and
`DaemonCpu` adds the CPU a warm daemon spent meanwhile (its process CPU clock, in ns).
`measure()` is `interleaved()` for such steps: the median wall and the median CPU of each.
Instruction counts (`perf stat -e instructions`) are not available on the development VM
(the counter is "not supported" there), so CPU time is the load-independent figure.
"""

from __future__ import annotations

import hashlib
import os
import statistics
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

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


class Sample(NamedTuple):
    """One timed step: wall-clock ms and CPU ms (user + sys, the process and its children)."""

    wall: float
    cpu: float


def run(
    argv: list[str],
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    check: bool = False,
) -> Sample:
    """Run `argv` to completion, output discarded: its wall time and CPU time."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = (time.perf_counter() - started) * 1000
    proc.returncode = os.waitstatus_to_exitcode(status)
    if check and proc.returncode != 0:
        raise subprocess.CalledProcessError(proc.returncode, argv)
    return Sample(wall, (usage.ru_utime + usage.ru_stime) * 1000)


def run_ms(argv: list[str], cwd: Path | None = None, env: dict[str, str] | None = None) -> float:
    return run(argv, cwd, env).wall


def process_cpu_ns(pid: int) -> int:
    """CPU time a live process has used so far, in ns, every thread counted, also those that
    ended (the daemon serves each connection on a thread of its own): the process's CPU clock,
    Linux's MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED). 0 when the process is gone."""
    try:
        return time.clock_gettime_ns(((~pid) << 3) | 2)
    except OSError:
        return 0


def daemon_pid(repo: Path) -> int | None:
    try:
        text = (repo / ".git" / "interlock" / "daemon.pid").read_text().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


class DaemonCpu:
    """Adds the CPU the repository's daemon spends during a step to the step's own CPU: the
    warm doors move work into the daemon, and that work still costs the machine."""

    def __init__(self, repo: Path) -> None:
        self.repo = repo

    def around(self, step: Callable[[], Sample]) -> Sample:
        pid = daemon_pid(self.repo)
        before = process_cpu_ns(pid) if pid else 0
        got = step()
        after = process_cpu_ns(pid) if pid else 0
        return Sample(got.wall, got.cpu + max(0, after - before) / 1e6)


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


def measure(steps: dict[str, Callable[[], Sample]], repeat: int) -> dict[str, Sample]:
    """`interleaved()` for steps that return a Sample: the median wall and median CPU of each."""
    for step in steps.values():
        step()
    samples: dict[str, list[Sample]] = {name: [] for name in steps}
    for _ in range(repeat):
        for name, step in steps.items():
            samples[name].append(step())
    return {
        name: Sample(
            statistics.median(s.wall for s in values), statistics.median(s.cpu for s in values)
        )
        for name, values in samples.items()
    }


def target(name: str, figure: str, limit: str, met: bool, cpu: str = "") -> bool:
    """One target line: judged on wall time (the target's definition); `cpu`, when given, is
    the same figure in CPU time and its own verdict, e.g. "cpu 61 ms = 6.2x: met"."""
    extra = f"; {cpu}" if cpu else ""
    verdict = "met" if met else "MISSED"
    print(f"target: {name}: {figure} (target {limit}){extra}: {verdict}", flush=True)
    return met


def cpu_note(figure: str, met: bool) -> str:
    return f"cpu {figure} [{'met' if met else 'missed'}]"
