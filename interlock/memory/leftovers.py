"""What a process killed midway leaves behind, and how the next one clears it.

Every write interlock makes is a temp file renamed into place, and every temp file names the
process that wrote it:
- packs: `<objects>/pack/tmp_pack_interlock-<pid>-*` (interlock/memory/pack.py; a large
  file's pack is as large as the file);
- restored and recovered files: `.interlock-restore-<pid>-*` and `.interlock-recover-<pid>-*`
  beside their target in the worktree (interlock/memory/staging.py, recovery.py).
`kill -9`, the OOM killer or a crash leaves them where they are.

The snapshot lock (`<git-dir>/interlock/snapshot.lock`) is an flock, so the kernel releases it
when its holder dies and it never blocks anyone. While held, it also holds a record of its
holder: pid, start time, what it does, and the directories where it stages files; the holder
empties it when done. A lock that is free but still holds a record is the trace of a holder
that died midway: the next holder (`LockHolder.acquire`) removes that process's temp files,
by their exact names in those directories, and says what was interrupted.

`sweep_objects()` (at every daemon start, and after an interrupted holder) clears the object
store: interlock's pack temp files whose process is gone, at once; and the anonymous temp files
of libgit2 and git (`tmp_object_git2_*`, `streamed_git2_*` from an older interlock's libgit2
streaming or another libgit2 program, `tmp_obj_*`, `tmp_pack_*`, `tmp_idx_*` from a killed
git), but only when our user owns them, no process has them open, and nothing has written to
them for STALE_AFTER seconds (`git gc` would remove them after two weeks).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path

from interlock import constants
from interlock.git import RepoLocation
from interlock.memory.pack import TEMP_PREFIX, temp_prefix

TYPE_CHECKING = False  # not `typing` (~3 ms to import): a cold snapshot process loads this
if TYPE_CHECKING:
    import logging
    from typing import Any


def _log() -> logging.Logger:
    """The module's logger; `logging` (with traceback, string, threading: ~5 ms) is imported
    only when there is something to log, not by every cold snapshot."""
    import logging

    return logging.getLogger("interlock.memory.leftovers")


STALE_AFTER = 3600.0  # seconds without a write after which a foreign temp file is abandoned
WORKTREE_TEMPS = (b".interlock-restore-", b".interlock-recover-")
_FOREIGN_TEMPS = (b"tmp_object_git2_", b"streamed_git2_", b"tmp_obj_", b"tmp_pack_", b"tmp_idx_")


def worktree_temp_prefix(kind: bytes, pid: int | None = None) -> bytes:
    """`.interlock-restore-<pid>-` (kind: one of WORKTREE_TEMPS) for this process or `pid`."""
    return kind + b"%d-" % (os.getpid() if pid is None else pid)


@dataclass
class Cleared:
    """What a clean-up removed, and the interrupted operation it found (if any)."""

    files: list[str] = field(default_factory=list)
    bytes: int = 0
    interrupted: dict[str, Any] | None = None

    def describe(self) -> str:
        """`removed 2 leftover temp files (24.0 MB)`, or that there were none."""
        if not self.files:
            return "it left no temp files behind"
        size = f"{self.bytes / (1 << 20):.1f} MB" if self.bytes >= 1 << 20 else f"{self.bytes} B"
        noun = "file" if len(self.files) == 1 else "files"
        return f"removed {len(self.files)} leftover temp {noun} ({size})"


class LockHolder:
    """The snapshot lock, held, with the record of what its holder does."""

    def __init__(self, fd: int, stale: dict[str, Any] | None) -> None:
        self.fd = fd
        self.stale = stale  # the record a holder that died midway left
        self._record: dict[str, Any] = {}

    @classmethod
    def acquire(cls, path: Path, *, blocking: bool = True) -> LockHolder | None:
        """Take the lock (None when not blocking and someone holds it). OSError as open."""
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
        except BlockingIOError:
            os.close(fd)
            return None
        except BaseException:
            os.close(fd)
            raise
        return cls(fd, _read_record(fd))

    def claim(self, op: str, **fields: Any) -> None:
        """Say what this holder does (read by the next holder if this one dies)."""
        started = alive_since(os.getpid())
        self._record = {"pid": os.getpid(), "started": started, "op": op, "time": time.time()}
        self.note(**fields)

    def note(self, **fields: Any) -> None:
        """Add to the record, e.g. dirs=[...] before staging files there."""
        self._record.update(fields)
        data = json.dumps(self._record, ensure_ascii=True).encode() + b"\n"
        try:  # an aid to the next holder: a full disk must not stop the operation for it
            os.ftruncate(self.fd, 0)
            os.pwrite(self.fd, data, 0)
        except OSError as exc:
            _log().warning("cannot write the snapshot lock's record: %s", exc)

    def release(self) -> None:
        with contextlib.suppress(OSError):
            os.ftruncate(self.fd, 0)
        fcntl.flock(self.fd, fcntl.LOCK_UN)
        os.close(self.fd)


def _read_record(fd: int) -> dict[str, Any] | None:
    try:
        raw = os.pread(fd, 1 << 16, 0)
    except OSError:
        return None
    if not raw.strip():
        return None
    try:
        record = json.loads(raw)
    except ValueError:
        return {"op": "an interlock operation", "pid": None}
    if not isinstance(record, dict):
        return {"op": "an interlock operation", "pid": None}
    if _still_running(record):  # cannot be (it would hold the lock), but never clear a live one
        return None
    return record


def _still_running(record: dict[str, Any]) -> bool:
    pid, started = record.get("pid"), record.get("started")
    if not isinstance(pid, int) or pid == os.getpid():
        return False
    return isinstance(started, int) and alive_since(pid) == started


def alive_since(pid: int) -> int | None:
    """When `pid` started (clock ticks since boot: with the pid, a process's identity), or
    None when it is not running (a zombie is not); -1 when alive but this system has no
    /proc to say since when. Read from /proc directly: every snapshot records it, and psutil
    would cost each one its import."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[1].split()
        return None if fields[0] == b"Z" else int(fields[19])
    except FileNotFoundError:
        return None
    except (OSError, IndexError, ValueError):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        except PermissionError:
            pass
        return -1


def clear_interrupted(loc: RepoLocation, record: dict[str, Any]) -> Cleared:
    """Remove the temp files of the holder that left `record`, then sweep the object store."""
    done = Cleared(interrupted=record)
    pid = record.get("pid")
    if isinstance(pid, int):
        root = os.fsencode(loc.worktree)
        dirs = [d for d in record.get("dirs") or [] if _is_inside(d)]
        for rel in dict.fromkeys(["", *dirs]):
            directory = os.path.join(root, os.fsencode(rel)) if rel else root
            names = tuple(worktree_temp_prefix(kind, pid) for kind in WORKTREE_TEMPS)
            _remove_matching(directory, names, done)
    swept = sweep_objects(loc)
    done.files += swept.files
    done.bytes += swept.bytes
    return done


def tidy_at_start(loc: RepoLocation) -> Cleared | None:
    """What the daemon does when it starts: clear after an interrupted lock holder (when the
    lock is free), and sweep the object store. None when another process holds the lock now
    (a snapshot in progress): the caller tries again once it is free, since that holder may
    be killed before it finishes."""
    path = loc.state_dir / constants.SNAPSHOT_LOCK_FILE
    if not path.exists():
        return sweep_objects(loc)
    try:
        holder = LockHolder.acquire(path, blocking=False)
    except OSError:
        holder = None
    if holder is None:
        return None
    try:
        if holder.stale is None:
            return sweep_objects(loc)
        done = clear_interrupted(loc, holder.stale)
        _log().warning("%s; %s", describe_interrupted(holder.stale), done.describe())
        return done
    finally:
        holder.release()


def _is_inside(rel: object) -> bool:
    """A worktree-relative folder: the record is a file anyone can write, so it never names
    a place outside the worktree."""
    return isinstance(rel, str) and not rel.startswith("/") and ".." not in rel.split("/")


def sweep_objects(loc: RepoLocation, now: float | None = None) -> Cleared:
    """Remove abandoned temp files from the object store (see the module docstring)."""
    now = time.time() if now is None else now
    done = Cleared()
    objects = loc.common_dir / "objects"
    foreign: list[bytes] = []
    for directory in _object_dirs(objects):
        for entry in _scan(directory):
            name = entry.name
            if name.startswith(TEMP_PREFIX.encode()) and _owner_is_gone(name):
                _remove(entry.path, done)
            elif name.startswith(_FOREIGN_TEMPS) and _is_abandoned(entry, now):
                foreign.append(entry.path)  # (also ours, when its pid was reused since)
    if foreign:
        from interlock import procinfo  # psutil's module: only when there is something to ask

        held = procinfo.open_files_among({os.fsdecode(os.path.realpath(p)) for p in foreign})
        for path in foreign:
            if held is not None and os.fsdecode(os.path.realpath(path)) not in held:
                _remove(path, done)
    if done.files:
        _log().info("%s in %s", done.describe(), objects)
    return done


def _object_dirs(objects: Path) -> list[bytes]:
    """objects/, objects/pack/ and the loose-object fan-out directories that exist."""
    top = os.fsencode(objects)
    found = [top, os.path.join(top, b"pack")]
    for entry in _scan(top):
        if len(entry.name) == 2 and entry.is_dir(follow_symlinks=False):
            found.append(entry.path)
    return found


def _scan(directory: bytes) -> list[os.DirEntry[bytes]]:
    try:
        with os.scandir(directory) as entries:
            return list(entries)
    except OSError:
        return []


def _owner_is_gone(name: bytes) -> bool:
    """True when the pid in `tmp_pack_interlock-<pid>-*` is not a running process."""
    pid_text = name[len(TEMP_PREFIX) :].split(b"-", 1)[0]
    if not pid_text.isdigit():
        return False
    pid = int(pid_text)
    return pid != os.getpid() and alive_since(pid) is None


def _is_abandoned(entry: os.DirEntry[bytes], now: float) -> bool:
    try:
        st = entry.stat(follow_symlinks=False)
    except OSError:
        return False
    mine = st.st_uid == os.getuid()
    return stat.S_ISREG(st.st_mode) and mine and now - st.st_mtime > STALE_AFTER


def _remove_matching(directory: bytes, prefixes: tuple[bytes, ...], done: Cleared) -> None:
    for entry in _scan(directory):
        if entry.name.startswith(prefixes) and not entry.is_dir(follow_symlinks=False):
            _remove(entry.path, done)


def _remove(path: bytes, done: Cleared) -> None:
    try:
        size = os.lstat(path).st_size
        os.unlink(path)
    except OSError:
        return
    done.files.append(os.fsdecode(path))
    done.bytes += size


def describe_interrupted(record: dict[str, Any]) -> str:
    """One sentence about the operation a dead holder left unfinished."""
    pid = record.get("pid")
    when = record.get("time")
    at = time.strftime(" at %H:%M:%S", time.localtime(when)) if isinstance(when, float) else ""
    who = f" (process {pid}{at})" if pid else ""
    text = f"{record.get('op') or 'an interlock operation'}{who} was interrupted"
    undo = record.get("undo")
    if isinstance(undo, str):
        text += (
            f"; files it had not reached yet are as they were, and the state before it is "
            f"snapshot {undo} (put it back: interlock restore {undo}; or run it again)"
        )
    return text


__all__ = [
    "STALE_AFTER",
    "WORKTREE_TEMPS",
    "Cleared",
    "LockHolder",
    "clear_interrupted",
    "describe_interrupted",
    "sweep_objects",
    "tidy_at_start",
    "temp_prefix",
    "worktree_temp_prefix",
]
