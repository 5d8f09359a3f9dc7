"""The fault-injection suite's tools: a seeded RNG (the seed is printed, so a failure can be
replayed with FAULT_SEED=N), the worktree as bytes, what the object store can still give back,
and killing a process (or every process below one) at a random moment.

Rounds: a few per operation in the default run; `-m slow` runs the `*_many_times` variants.
"""

from __future__ import annotations

import hashlib
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import psutil
import pytest

Tree = dict[str, bytes]  # worktree-relative path -> content (a symlink: b"-> " + target)


@pytest.fixture
def rng(request: pytest.FixtureRequest) -> random.Random:
    """A seeded random.Random; the seed is printed (shown with a failure) for a replay."""
    seed = int(os.environ.get("FAULT_SEED") or random.randrange(1 << 32))
    print(f"fault seed: {seed}  (replay: FAULT_SEED={seed} pytest {request.node.nodeid})")
    request.node.user_properties.append(("fault_seed", seed))
    return random.Random(seed)


def tree_of(root: Path) -> Tree:
    """Every file below root except .git, as bytes (interlock's temp files included)."""
    found: Tree = {}
    for top, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not (top == str(root) and d == ".git")]
        for name in files:
            path = Path(top) / name
            rel = str(path.relative_to(root))
            if path.is_symlink():
                found[rel] = b"-> " + os.fsencode(os.readlink(path))
            else:
                found[rel] = path.read_bytes()
    return found


def blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def reachable_blobs(repo: Path) -> set[str]:
    """Every object id reachable from any ref (interlock's refs/interlock/* included)."""
    out = subprocess.run(
        ["git", "rev-list", "--objects", "--all"], cwd=repo, capture_output=True, check=True
    ).stdout
    return {line.split(b" ", 1)[0].decode() for line in out.splitlines() if line}


def fsck(repo: Path) -> None:
    proc = subprocess.run(
        ["git", "fsck", "--strict", "--no-progress", "--no-dangling"],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, f"git fsck failed:\n{proc.stdout}{proc.stderr}"


def temp_files(repo: Path) -> list[str]:
    """interlock's and git's temp files in the worktree and the object store."""
    found = [p for p in tree_of(repo) if os.path.basename(p).startswith(".interlock-")]
    objects = repo / ".git" / "objects"
    for directory in (objects, objects / "pack"):
        if directory.is_dir():
            found += [p.name for p in directory.iterdir() if p.name.startswith("tmp_")]
    return found


def lock_record(repo: Path) -> str:
    path = repo / ".git" / "interlock" / "snapshot.lock"
    return path.read_text() if path.exists() else ""


def write_tree(root: Path, files: Tree) -> None:
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_symlink() or path.exists():
            path.unlink()
        if data.startswith(b"-> "):
            os.symlink(os.fsdecode(data[3:]), path)
        else:
            path.write_bytes(data)


def interlock_proc(repo: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "interlock", *args],
        cwd=repo,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def run_interlock(repo: Path, *args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "interlock", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return proc


def timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def kill_after(proc: subprocess.Popen[str], delay: float) -> bool:
    """SIGKILL proc after `delay` seconds; True when it was still running (killed midway)."""
    try:
        proc.wait(timeout=delay)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGKILL)
    proc.communicate()
    return proc.returncode == -signal.SIGKILL


def kill_descendants_after(parent: subprocess.Popen[bytes], delay: float) -> bool:
    """SIGKILL every process below `parent` (not parent itself: git, whose hook it is) after
    `delay` seconds; True when one was running then."""
    try:
        parent.wait(timeout=delay)
        return False
    except subprocess.TimeoutExpired:
        pass
    try:
        below = psutil.Process(parent.pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return False
    for child in below:
        try:
            child.send_signal(signal.SIGKILL)
        except psutil.NoSuchProcess:
            continue
    return bool(below)


class Kit:
    """The helpers above, for tests (a fixture: tests cannot import a conftest)."""

    tree_of = staticmethod(tree_of)
    blob_id = staticmethod(blob_id)
    reachable_blobs = staticmethod(reachable_blobs)
    fsck = staticmethod(fsck)
    temp_files = staticmethod(temp_files)
    lock_record = staticmethod(lock_record)
    write_tree = staticmethod(write_tree)
    interlock_proc = staticmethod(interlock_proc)
    run_interlock = staticmethod(run_interlock)
    timed = staticmethod(timed)
    kill_after = staticmethod(kill_after)
    kill_descendants_after = staticmethod(kill_descendants_after)


@pytest.fixture(scope="session")
def kit() -> type[Kit]:
    return Kit
