"""The flight recorder: every changed file is written as a blob as it changes, and indexed.

Content later destroyed by anything - even `git checkout -- .` typed in another terminal -
stays in the repository's object store and is found by `interlock recover`. The index is
SQLite, `<git-dir>/interlock/recorder.db`, one row per recorded version: path (bytes), time,
event (`baseline`, `created`, `modified`, `deleted`), blob id, mode, size. Files over the size
cap, ignored files and regenerable output (unless tracked), directories and special files are
not recorded; symlinks are recorded as their target.

Blobs are kept alive against `git gc` by commits of kind `recorder` whose flat tree names each
blob by its id, chained per hour under `refs/interlock/<worktree>/recorder/<YYYYmmddTHH>`
(retention prunes those refs by age). Rows of a crashed daemon whose blobs were not yet in
such a commit are anchored by the next one.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sqlite3
import stat
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from interlock import constants, git, sqlitedb
from interlock.git import RepoLocation
from interlock.regenerable import is_regenerable
from interlock.state import repo_state_dir

if TYPE_CHECKING:
    import pygit2

log = logging.getLogger("interlock.memory.recorder")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS versions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    path BLOB NOT NULL,
    time REAL NOT NULL,
    event TEXT NOT NULL,
    oid TEXT,
    mode INTEGER,
    size INTEGER,
    anchored INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS versions_path ON versions(path, id);
CREATE INDEX IF NOT EXISTS versions_unanchored ON versions(anchored) WHERE anchored = 0;
"""
_MAX_LATENCY = 1.0  # a file written without pause is still recorded at least this often


@dataclass(frozen=True)
class Version:
    """One earlier version of a file: from the recorder or from a snapshot.

    oid is None for a deletion. snapshot names the snapshot id when source is "snapshot"."""

    path: bytes
    time: float
    source: str
    event: str
    oid: str | None
    mode: int | None
    size: int | None
    snapshot: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "path": os.fsdecode(self.path),
            "time": self.time,
            "source": self.source,
            "event": self.event,
            "blob": self.oid,
            "mode": f"{self.mode:06o}" if self.mode is not None else None,
            "size": self.size,
            "snapshot": self.snapshot,
        }


def recorder_db_path(loc: RepoLocation) -> Path:
    return repo_state_dir(loc) / constants.RECORDER_FILE


def open_db(loc: RepoLocation) -> tuple[sqlite3.Connection, str | None]:
    """Open (creating) the index; a corrupt file is moved aside, never deleted."""
    return sqlitedb.open_db(recorder_db_path(loc), _SCHEMA, 1, "recorder index")


def recorded_versions(loc: RepoLocation, path: bytes) -> list[Version]:
    """Every recorded version of a worktree-relative path, newest first (no daemon needed)."""
    if not (loc.state_dir / constants.RECORDER_FILE).exists():
        return []
    conn, _ = open_db(loc)
    try:
        rows = conn.execute(
            "SELECT time, event, oid, mode, size FROM versions WHERE path = ? ORDER BY id DESC",
            (path,),
        ).fetchall()
    finally:
        conn.close()
    return [Version(path, r[0], "recorder", r[1], r[2], r[3], r[4]) for r in rows]


@contextlib.contextmanager
def _transaction(conn: sqlite3.Connection) -> Iterator[None]:
    conn.execute("BEGIN")
    try:
        yield
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def recorder_ref(loc: RepoLocation, when: float) -> str:
    hour = time.strftime("%Y%m%dT%H", time.gmtime(when))
    return f"{constants.REF_PREFIX}{loc.worktree_id}/recorder/{hour}"


def status_paths(loc: RepoLocation) -> Iterator[bytes]:
    """Worktree files that differ from the index or are untracked (not ignored)."""
    args = ["--no-optional-locks", "status", "--porcelain=v2", "-z", "--untracked-files=all"]
    args += ["--no-renames", "--ignore-submodules=all"]
    _, out, _ = git.run(args, loc.worktree, check=True)
    for entry in out.split(b"\0"):
        if entry.startswith(b"1 "):
            yield entry.split(b" ", 8)[8]
        elif entry.startswith(b"u "):
            yield entry.split(b" ", 10)[10]
        elif entry.startswith(b"? "):
            yield entry[2:]


@dataclass
class RecorderStats:
    versions: int = 0
    commits: int = 0
    last_version: float | None = None
    last_commit: float | None = None
    pending: int = 0
    warning: str | None = None


class Recorder:
    """Records changed paths on its own thread; `note()` is cheap and called per event."""

    def __init__(self, loc: RepoLocation, *, debounce: float = constants.WATCH_DEBOUNCE) -> None:
        self.loc = loc
        self.stats = RecorderStats()
        self._root = os.fsencode(loc.worktree)
        self._debounce = debounce
        self._cond = threading.Condition()
        self._pending: dict[bytes, tuple[float, float]] = {}  # path -> (first seen, due)
        self._stopping = False
        self._thread: threading.Thread | None = None
        self._last: dict[bytes, tuple[str | None, int | None]] = {}  # newest (oid, mode) by path
        self._unanchored: set[str] = set()
        self._last_commit = time.monotonic()
        self.ready = threading.Event()  # set once the baseline is recorded

    # --- called from the watcher's thread ---

    def note(self, rel: bytes, kind: str, is_dir: bool) -> None:
        now = time.monotonic()
        if is_dir:
            if kind in ("deleted", "moved-from"):
                self._note_tree_gone(rel, now)
            return
        due = now if kind == "closed" else now + self._debounce
        with self._cond:
            first, _ = self._pending.get(rel, (now, now))
            self._pending[rel] = (first, min(due, first + _MAX_LATENCY))
            self._cond.notify()

    def _note_tree_gone(self, rel: bytes, now: float) -> None:
        prefix = rel + b"/"
        with self._cond:
            for path in [p for p in self._last if p.startswith(prefix)]:
                self._pending[path] = (now, now)
            self._cond.notify()

    # --- lifecycle ---

    def start(self, baseline: bool = True) -> None:
        self._thread = threading.Thread(
            target=self._run, args=(baseline,), name="interlock-recorder", daemon=True
        )
        self._thread.start()

    def stop(self, timeout: float = 30.0) -> None:
        """Record what is pending, write the commit that keeps it alive, stop."""
        with self._cond:
            self._stopping = True
            self._cond.notify()
        if self._thread is not None:
            self._thread.join(timeout)

    def is_alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    # --- the recorder thread ---

    def _run(self, baseline: bool) -> None:
        try:
            self._work(baseline)
        except Exception as exc:  # the thread's end: say why in the log and in status
            log.exception("recorder stopped")
            self.stats.warning = f"recorder stopped: {type(exc).__name__}: {exc}"

    def _work(self, baseline: bool) -> None:
        repo = git.open_repo(self.loc)
        conn, warning = open_db(self.loc)
        if warning:
            log.warning("%s", warning)
            self.stats.warning = warning
        try:
            self._load(repo, conn)
            if baseline:
                with _transaction(conn):
                    for rel in status_paths(self.loc):
                        self._record(repo, conn, rel, baseline=True)
            self.ready.set()
            while (batch := self._next_batch()) is not None:
                with _transaction(conn):
                    for rel in batch:
                        self._record(repo, conn, rel)
                if self._unanchored and time.monotonic() - self._last_commit >= (
                    constants.RECORDER_COMMIT_EVERY
                ):
                    self._commit(repo, conn)
            with _transaction(conn):
                for rel in self._take_all():
                    self._record(repo, conn, rel)
            if self._unanchored:
                self._commit(repo, conn)
        finally:
            conn.close()

    def _next_batch(self) -> list[bytes] | None:
        """Paths whose debounce has run out; None once stopping."""
        with self._cond:
            while not self._stopping:
                now = time.monotonic()
                due = [p for p, (_, at) in self._pending.items() if at <= now]
                if due:
                    for path in due:
                        del self._pending[path]
                    self.stats.pending = len(self._pending)
                    return due
                wake = min((at for _, at in self._pending.values()), default=now + 1.0)
                self._cond.wait(timeout=max(0.001, min(wake - now, 1.0)))
                if not self._pending and self._unanchored:
                    return []  # a quiet moment: let the caller commit if it is time
            return None

    def _take_all(self) -> list[bytes]:
        with self._cond:
            paths = list(self._pending)
            self._pending.clear()
            return paths

    def _load(self, repo: pygit2.Repository, conn: sqlite3.Connection) -> None:
        rows = conn.execute(
            "SELECT path, oid, mode FROM versions WHERE id IN "
            "(SELECT MAX(id) FROM versions GROUP BY path)"
        ).fetchall()
        last = {bytes(r[0]): (r[1], r[2]) for r in rows}
        with self._cond:
            self._last = last
        for (oid,) in conn.execute(
            "SELECT DISTINCT oid FROM versions WHERE anchored = 0 AND oid IS NOT NULL"
        ):
            if git.has_object(repo, oid):
                self._unanchored.add(oid)

    def _is_skipped(self, repo: pygit2.Repository, rel: bytes) -> bool:
        if not (is_regenerable(os.fsdecode(rel)) or git.is_ignored(repo, self.loc, rel)):
            return False
        return not git.index_has(repo, rel)

    def _read(self, rel: bytes) -> tuple[bytes, int] | None:
        """(content, mode) of a regular file or symlink; None when absent, too big or other."""
        full = os.path.join(self._root, rel)
        try:
            st = os.lstat(full)
            if stat.S_ISLNK(st.st_mode):
                return os.readlink(full), git.LINK_MODE
            if not stat.S_ISREG(st.st_mode) or st.st_size > constants.RECORDER_MAX_BLOB:
                return None
            fd = os.open(full, os.O_RDONLY | os.O_NOFOLLOW)
            with os.fdopen(fd, "rb") as handle:
                data = handle.read(constants.RECORDER_MAX_BLOB + 1)
        except (FileNotFoundError, NotADirectoryError):
            return None
        if len(data) > constants.RECORDER_MAX_BLOB:
            return None
        return data, git.EXEC_MODE if st.st_mode & 0o111 else git.FILE_MODE

    def _record(
        self, repo: pygit2.Repository, conn: sqlite3.Connection, rel: bytes, baseline: bool = False
    ) -> None:
        try:
            if not os.path.lexists(os.path.join(self._root, rel)):
                if self._last.get(rel, (None, None))[0] is not None:
                    self._insert(conn, rel, "deleted", None, None, None)
                return
            if self._is_skipped(repo, rel):
                return
            content = self._read(rel)
            if content is None:
                return
        except OSError as exc:
            log.warning("cannot record %r: %s", rel, exc)
            return
        data, mode = content
        oid = git.write_blob(repo, data)
        if self._last.get(rel) == (oid, mode):
            return
        previous = self._last.get(rel, (None, None))[0]
        event = "baseline" if baseline else ("modified" if previous else "created")
        self._insert(conn, rel, event, oid, mode, len(data))
        self._unanchored.add(oid)

    def _insert(
        self,
        conn: sqlite3.Connection,
        rel: bytes,
        event: str,
        oid: str | None,
        mode: int | None,
        size: int | None,
    ) -> None:
        now = time.time()
        conn.execute(
            "INSERT INTO versions(path, time, event, oid, mode, size) VALUES (?, ?, ?, ?, ?, ?)",
            (rel, now, event, oid, mode, size),
        )
        with self._cond:  # the watcher's thread reads it (a directory removed)
            self._last[rel] = (oid, mode)
        self.stats.versions += 1
        self.stats.last_version = now

    def _commit(self, repo: pygit2.Repository, conn: sqlite3.Connection) -> None:
        """One commit of kind `recorder` holding every blob not yet kept alive."""
        now = time.time()
        oids = sorted(self._unanchored)
        tree = git.write_tree(repo, {oid.encode(): (git.FILE_MODE, oid) for oid in oids})
        ref = recorder_ref(self.loc, now)
        parent = git.ref_target(repo, ref)
        message = recorder_message(self.loc, now, len(oids))
        commit = git.write_commit(repo, tree, [parent] if parent else [], message, now)
        git.set_ref(repo, ref, commit)
        conn.execute("UPDATE versions SET anchored = 1 WHERE anchored = 0")
        self._unanchored.clear()
        self._last_commit = time.monotonic()
        self.stats.commits += 1
        self.stats.last_commit = now
        log.info("recorder commit %s (%d blobs) on %s", commit[:12], len(oids), ref)


def recorder_message(loc: RepoLocation, when: float, blobs: int) -> str:
    """A recorder commit's message, in the snapshot format (summary, blank line, JSON) so that
    retention reads its kind and time. Its empty scope says: restores nothing."""
    meta = {
        "kind": "recorder",
        "time": when,
        "worktree": loc.worktree_id,
        "message": f"{blobs} recorded blobs",
        "run": None,
        "command": None,
        "head": None,
        "skipped": {},
        "scope": [],
        "base": None,
        "how": "recorder",
        "version": constants.VERSION,
    }
    body = json.dumps(meta, sort_keys=True, ensure_ascii=True)
    return f"interlock recorder snapshot: {blobs} blobs\n\n{body}\n"
