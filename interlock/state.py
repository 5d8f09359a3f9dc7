"""State directories, atomic writes and file locks.

Per-worktree state lives in `<git-dir>/interlock/` (socket, pid file, journal); per-user state
in `$INTERLOCK_HOME` (default `~/.local/state/interlock`). Each state dir holds a README that
says what owns it.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

from interlock import constants
from interlock.git import RepoLocation

_README = """\
This directory belongs to interlock (https://example.invalid/interlock).
It holds the per-worktree daemon's socket and pid file, and journal.db: the record of
checks, snapshots and verdicts for this worktree. Snapshots themselves are git objects
kept alive by refs under refs/interlock/. Deleting this directory loses the journal only;
interlock rebuilds it on next use.
"""


def user_dir() -> Path:
    """Per-user state: $INTERLOCK_HOME, else $XDG_STATE_HOME/interlock, else ~/.local/state."""
    home = os.environ.get(constants.ENV_HOME)
    if home:
        path = Path(home)
    else:
        base = os.environ.get("XDG_STATE_HOME") or os.path.join(Path.home(), ".local", "state")
        path = Path(base) / "interlock"
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    return path


def repo_state_dir(loc: RepoLocation) -> Path:
    """`<git-dir>/interlock`, created with a README on first use (mode 0700)."""
    path = loc.state_dir
    if not path.is_dir():
        path.mkdir(parents=True, exist_ok=True, mode=0o700)
    readme = path / constants.STATE_README
    if not readme.exists():
        atomic_write(readme, _README.encode())
    return path


def atomic_write(path: Path, data: bytes, mode: int = 0o644) -> None:
    """Write via a temp file in the same directory, fsync, chmod, rename."""
    import tempfile  # here: a cold snapshot loads this module, and tempfile costs ~5 ms

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def file_lock(path: Path, *, blocking: bool = True) -> Iterator[bool]:
    """Hold an exclusive flock on `path` (created if missing). Yields False if not acquired
    when blocking is False."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
