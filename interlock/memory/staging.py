"""The filesystem half of a restore: stage every file first, then delete and rename, roll
back when a step fails midway, and check that the worktree holds the intended bytes.

Staging writes each file (or symlink) under a temp name in the nearest existing directory
above its target, so the final rename never crosses a filesystem. Nothing in the worktree
changes until every temp file exists: a read-only directory or a full disk stops the restore
before it starts.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from interlock.git import EXEC_MODE, LINK_MODE, Entry, hash_blob, read_blob
from interlock.memory.leftovers import worktree_temp_prefix
from interlock.memory.trees import ancestors

if TYPE_CHECKING:
    import pygit2

_TEMP_KIND = b".interlock-restore-"  # + "<pid>-<random>": the next lock holder knows whose


@dataclass
class FsPlan:
    """What to change: files to write, files to delete, and what every touched path held
    before (None: nothing), which is what a rollback puts back."""

    root: bytes
    writes: dict[bytes, Entry] = field(default_factory=dict)
    deletes: list[bytes] = field(default_factory=list)
    before: dict[bytes, Entry | None] = field(default_factory=dict)

    def abs(self, rel: bytes) -> bytes:
        return self.root + b"/" + rel


class MidwayError(Exception):
    """A step of the commit phase failed; `done` lists the steps taken, in order."""

    def __init__(self, rel: bytes, done: list[tuple[str, bytes]], cause: OSError) -> None:
        super().__init__(str(cause))
        self.rel, self.done, self.cause = rel, done, cause


def describe(exc: OSError) -> str:
    """An OSError in words a person can act on."""
    reasons = {
        errno.EROFS: "the filesystem is read-only",
        errno.EACCES: "permission denied",
        errno.EPERM: "operation not permitted (read-only or immutable)",
        errno.ENOSPC: "no space left on the device",
        errno.EDQUOT: "disk quota exceeded",
        errno.EFBIG: "file too large for the filesystem or the process's size limit",
    }
    where = os.fsdecode(exc.filename) if isinstance(exc.filename, str | bytes) else ""
    text = reasons.get(exc.errno or 0, exc.strerror or str(exc))
    return f"{text}: {where}" if where else text


def _is_real_dir(path: bytes) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def _stage_dir(plan: FsPlan, rel: bytes) -> bytes:
    """The nearest existing real directory above rel (the worktree root at worst)."""
    for parent in reversed(ancestors(rel)):
        if _is_real_dir(plan.abs(parent)):
            return plan.abs(parent)
    return plan.root


def stage_dirs(plan: FsPlan) -> list[bytes]:
    """The directories (worktree-relative, b"" for the top) where stage() writes temp files."""
    found = {_stage_dir(plan, rel) for rel in plan.writes}
    return sorted(os.path.relpath(d, plan.root) if d != plan.root else b"" for d in found)


def _permissions(path: bytes, mode: int) -> int | None:
    """Keep an existing file's permission bits (a private 0600 stays private), with the exec
    bits set or cleared as the snapshot says; None: a new file, let the umask decide."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    perm = stat.S_IMODE(st.st_mode)
    return perm | ((perm & 0o444) >> 2) if mode == EXEC_MODE else perm & ~0o111


def _write_temp(repo: pygit2.Repository, plan: FsPlan, rel: bytes, entry: Entry) -> bytes:
    data = read_blob(repo, entry[1])
    tmp = (
        _stage_dir(plan, rel)
        + b"/"
        + worktree_temp_prefix(_TEMP_KIND)
        + secrets.token_hex(8).encode()
    )
    if entry[0] == LINK_MODE:
        os.symlink(data, tmp)
        return tmp
    perm = _permissions(plan.abs(rel), entry[0])
    default = 0o777 if entry[0] == EXEC_MODE else 0o666
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, default)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            if perm is not None:
                os.fchmod(handle.fileno(), perm)
    except OSError:
        _unlink_quietly(tmp)
        raise
    return tmp


def _unlink_quietly(path: bytes) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def stage(repo: pygit2.Repository, plan: FsPlan) -> dict[bytes, bytes]:
    """Write every file to its temp name; on failure remove them all and re-raise."""
    staged: dict[bytes, bytes] = {}
    try:
        for rel in sorted(plan.writes):
            staged[rel] = _write_temp(repo, plan, rel, plan.writes[rel])
    except OSError:
        discard(staged)
        raise
    return staged


def discard(staged: dict[bytes, bytes]) -> None:
    for tmp in staged.values():
        _unlink_quietly(tmp)
    staged.clear()


def commit(plan: FsPlan, staged: dict[bytes, bytes]) -> None:
    """Delete, create directories, rename the staged files into place; then drop directories
    the deletions left empty. MidwayError says how far it got."""
    done: list[tuple[str, bytes]] = []
    current = b""
    try:
        for current in sorted(plan.deletes, reverse=True):
            _unlink_quietly(plan.abs(current))
            done.append(("delete", current))
        for current in sorted(plan.writes):
            for parent in ancestors(current):
                if not os.path.lexists(plan.abs(parent)):
                    os.mkdir(plan.abs(parent))
                    done.append(("mkdir", parent))
            if _is_real_dir(plan.abs(current)):  # emptied by the deletions
                _remove_empty_tree(plan.abs(current))
                done.append(("rmdir", current))
            os.replace(staged[current], plan.abs(current))
            del staged[current]
            done.append(("write", current))
    except OSError as exc:
        raise MidwayError(current, done, exc) from exc
    _prune_empty_dirs(plan)


def _remove_empty_tree(path: bytes) -> None:
    """Remove a directory holding only (empty) directories; OSError if a file is left."""
    for top, _, _ in os.walk(path, topdown=False):
        os.rmdir(top)


def _prune_empty_dirs(plan: FsPlan) -> None:
    for rel in sorted(plan.deletes, reverse=True):
        for parent in reversed(ancestors(rel)):
            try:
                os.rmdir(plan.abs(parent))
            except OSError:  # not empty (or not ours to remove): stop climbing
                break


def put_back(repo: pygit2.Repository, plan: FsPlan, rel: bytes, entry: Entry | None) -> None:
    """Make rel hold entry again (None: remove it), via a temp file and a rename."""
    if entry is None:
        _unlink_quietly(plan.abs(rel))
        return
    tmp = _write_temp(repo, plan, rel, entry)
    try:
        os.replace(tmp, plan.abs(rel))
    except OSError:
        _unlink_quietly(tmp)
        raise


def rollback(repo: pygit2.Repository, plan: FsPlan, done: list[tuple[str, bytes]]) -> list[bytes]:
    """Undo the steps taken, newest first; returns the paths that could not be put back."""
    failed: list[bytes] = []
    for step, rel in reversed(done):
        try:
            if step == "mkdir":
                os.rmdir(plan.abs(rel))
            elif step == "rmdir":
                os.mkdir(plan.abs(rel))
            else:
                put_back(repo, plan, rel, plan.before.get(rel))
        except OSError:
            failed.append(rel)
    return failed


def verify(plan: FsPlan) -> list[bytes]:
    """Paths whose bytes, mode or presence differ from the plan after the commit phase."""
    bad: list[bytes] = []
    for rel, (mode, oid) in sorted(plan.writes.items()):
        path = plan.abs(rel)
        try:
            st = os.lstat(path)
            if mode == LINK_MODE:
                ok = stat.S_ISLNK(st.st_mode) and hash_blob(os.readlink(path)) == oid
            else:
                is_exec = bool(st.st_mode & stat.S_IXUSR)
                ok = stat.S_ISREG(st.st_mode) and is_exec == (mode == EXEC_MODE)
                if ok:
                    with open(path, "rb") as handle:
                        ok = hash_blob(handle.read()) == oid
        except OSError:
            ok = False
        if not ok:
            bad.append(rel)
    for rel in plan.deletes:
        if os.path.lexists(plan.abs(rel)) and not _is_real_dir(plan.abs(rel)):
            bad.append(rel)
    return bad
