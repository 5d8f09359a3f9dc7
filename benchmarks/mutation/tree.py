"""Temporary copies of the worktree, in which mutants are applied and tests run.

The worktree itself is never written: each worker gets its own copy (the files git would
snapshot: tracked and untracked-not-ignored, as they are on disk now), removed when the tool
exits, however it exits. Compiled bytecode goes to a cache inside the copy, and the mutated
module's cached bytecode is deleted before each run, so a mutant of the same size written in
the same second as the last one can never be served from a stale .pyc.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path

HERE = Path(__file__).resolve().parent
INJECT = HERE / "inject"


def tree_files(root: Path) -> list[str]:
    """Worktree-relative paths of every file a copy needs (tracked or untracked, not ignored)."""
    out = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=root,
        capture_output=True,
        check=True,
    ).stdout
    names = sorted({os.fsdecode(p) for p in out.split(b"\0") if p})
    return [n for n in names if os.path.isfile(root / n) or os.path.islink(root / n)]


def make_copy(root: Path, files: Iterable[str], parent: Path) -> Path:
    """Copy the files into a new directory under parent; its real path (tracebacks and the
    tracer see real paths)."""
    dest = Path(tempfile.mkdtemp(prefix="t", dir=parent)).resolve()
    for name in files:
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / name, target, follow_symlinks=False)
    return dest


def digest(root: Path, names: Iterable[str]) -> str:
    h = hashlib.sha256()
    for name in sorted(names):
        h.update(name.encode() + b"\0")
        path = root / name
        h.update(os.readlink(path).encode() if path.is_symlink() else path.read_bytes())
        h.update(b"\0")
    return h.hexdigest()


def run_env(copy: Path, trace_dir: Path | None = None) -> dict[str, str]:
    """The environment of a test run in a copy: the copy's interlock comes first on the path
    (ahead of the editable install), for pytest and for every `python` the tests start."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MUTATION_")}
    env["PYTHONPATH"] = os.pathsep.join([str(copy), str(INJECT)])
    env["PYTHONPYCACHEPREFIX"] = str(copy / ".pycache")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if trace_dir is not None:
        env["MUTATION_TRACE_DIR"] = str(trace_dir)
    return env


def pytest_argv(copy: Path, extra: list[str]) -> list[str]:
    """pytest with the project's own options minus xdist (the tool runs its jobs itself)."""
    return [
        sys.executable,
        "-m",
        "pytest",
        "-o",
        "addopts=",
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        "mutation_plugin",
        "-m",
        "not slow",
        "--import-mode=importlib",
        f"--basetemp={copy / '.tmp'}",
        *extra,
    ]


def forget_bytecode(copy: Path, module: str) -> None:
    """Delete the cached bytecode of one module of the copy."""
    cache = copy / ".pycache" / str(copy).lstrip("/") / Path(module).parent
    stem = Path(module).stem
    for pyc in cache.glob(f"{stem}.*.pyc"):
        pyc.unlink(missing_ok=True)


def stop_group(proc: subprocess.Popen[bytes], grace: float = 10.0) -> None:
    """Interrupt a test run like Ctrl-C (pytest then tears its fixtures down, which kills the
    daemons the tests started), then kill its process group if it does not end."""
    for sig, wait in ((signal.SIGINT, grace), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


def sweep(copy: Path) -> list[int]:
    """Kill, by pid, processes left running from a copy (a daemon started by a test that was
    stopped before its teardown): those whose working directory or command line is inside it."""
    mine = str(copy)
    killed: list[int] = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        pid = int(entry)
        try:
            cwd = os.readlink(f"/proc/{pid}/cwd")
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                cmdline = handle.read().decode(errors="replace")
        except OSError:
            continue
        if cwd == mine or cwd.startswith(mine + "/") or mine + "/" in cmdline:
            try:
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
            except ProcessLookupError:
                pass
    if killed:
        time.sleep(0.1)
    return killed
