"""The flight recorder: every changed file is written as a blob as it changes, and indexed.

Content later destroyed by anything - even `git checkout -- .` typed in another terminal -
stays in the repository's object store and is found by `interlock recover`. The index is
described in interlock/memory/recindex.py; what it keeps, and for how long, in
interlock/memory/rechistory.py. `is_recorded(loc, path)` (there) answers "is this path's
latest content recorded?".

What is recorded: regular files up to `recorder_max_file_size` (config), symlinks (as their
target); not ignored files or regenerable output unless tracked, directories or special files.
Blobs go into packs as snapshots' do (interlock/memory/store.py: one pack per batch, large
files streamed); the pack is written before the rows that name its blobs.

Events can be lost: the kernel's inotify queue overflows under a burst, the watcher dies and is
restarted, or the daemon was not running. Then `rescan(reason)` re-reads every path whose stat
(mtime, ctime, size, inode) moved since it was last read - every path `git status` lists and
every path the recorder ever recorded - so the newest content is recorded all the same. The
daemon's start is such a rescan (the baseline).
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from interlock import constants, git
from interlock.config import load_config
from interlock.errors import write_failure
from interlock.git import RepoLocation
from interlock.memory import recindex
from interlock.memory.rechistory import Policy, Version, prune, recorded_versions, write_anchor
from interlock.memory.rechistory import is_recorded as is_recorded
from interlock.memory.rechistory import recorder_ref as recorder_ref
from interlock.memory.recqueue import WorkQueue
from interlock.memory.recread import Reader
from interlock.memory.store import ObjectStore

if TYPE_CHECKING:
    import pygit2

__all__ = ["Recorder", "Version", "is_recorded", "open_db", "recorded_versions", "recorder_ref"]

log = logging.getLogger("interlock.memory.recorder")

open_db = recindex.open_db
_BATCH_BYTES = 16 << 20  # queued pack bytes after which a batch is written out
_HEARTBEAT = 10.0  # seconds between the recorder's signs of life in the index
_PRUNE_EVERY = 3600.0
_RETRY_FIRST, _RETRY_MAX = 1.0, 30.0  # seconds before retrying a failed write: doubling


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


@contextlib.contextmanager
def _transaction(conn: sqlite3.Connection) -> Iterator[None]:
    conn.execute("BEGIN")
    try:
        yield
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


@dataclass
class RecorderStats:
    """What `daemon status` shows of the recorder."""

    versions: int = 0
    commits: int = 0
    last_version: float | None = None
    last_commit: float | None = None
    pending: int = 0
    warning: str | None = None
    rescans: int = 0
    last_rescan: dict[str, Any] | None = None
    caught_up: float | None = None  # every change before this moment is recorded
    too_large: set[bytes] = field(default_factory=set)
    max_file_size: int = 0
    policy: str = ""
    last_prune: dict[str, Any] | None = None


@dataclass
class _Batch:
    """Versions read and queued in one pack, written to the index after the pack."""

    store: ObjectStore
    rows: list[tuple[Any, ...]] = field(default_factory=list)
    seen: list[tuple[bytes, recindex.Stat | None]] = field(default_factory=list)
    oids: set[str] = field(default_factory=set)


class Recorder:
    """Records changed paths on its own thread; `note()` is cheap and called per event."""

    def __init__(self, loc: RepoLocation, *, debounce: float = constants.WATCH_DEBOUNCE) -> None:
        self.loc = loc
        self.stats = RecorderStats()
        self._root = os.fsencode(loc.worktree)
        self._debounce = debounce
        self._queue = WorkQueue(debounce)
        self._thread: threading.Thread | None = None
        self._last: dict[bytes, tuple[str | None, int | None]] = {}  # newest (oid, mode)
        self._seen: dict[bytes, recindex.Stat] = {}
        self._unanchored: set[str] = set()
        self._reader = Reader(loc, 0, self.stats.too_large)
        self._paused_by: str | None = None  # the warning a failed write set
        self._retry = _RETRY_FIRST
        self.ready = threading.Event()  # set once the baseline is recorded

    # --- called from the watcher's thread ---

    def note(self, rel: bytes, kind: str, is_dir: bool) -> None:
        if not is_dir:
            self._queue.put(rel, closed=kind == "closed")
        elif kind in ("deleted", "moved-from"):
            prefix = rel + b"/"
            with self._queue.lock:
                self._queue.put_now([p for p in self._last if p.startswith(prefix)])

    def rescan(self, reason: str) -> None:
        """Events may have been lost (queue overflow, watcher restart): re-read every path
        whose stat moved since it was last read. Cheap to call; rescans coalesce."""
        self._queue.want_rescan(reason)

    # --- lifecycle ---

    def start(self, baseline: bool = True) -> None:
        self._thread = threading.Thread(
            target=self._run, args=(baseline,), name="interlock-recorder", daemon=True
        )
        self._thread.start()

    def stop(self, timeout: float = 30.0) -> None:
        """Record what is pending, write the commit that keeps it alive, stop."""
        self._queue.stop()
        if self._thread is not None:
            self._thread.join(timeout)

    def is_alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def is_idle(self) -> bool:
        """Nothing pending and no rescan wanted: caught up with every event seen."""
        return self._queue.is_idle() and self.ready.is_set()

    # --- the recorder thread ---

    def _run(self, baseline: bool) -> None:
        try:
            self._work(baseline)
        except Exception as exc:  # the thread's end: say why in the log and in status
            log.exception("recorder stopped")
            self.stats.warning = f"recorder stopped: {type(exc).__name__}: {exc}"

    def _work(self, baseline: bool) -> None:
        repo = git.open_repo(self.loc)
        conn, warning = recindex.open_db(self.loc)
        if warning:
            log.warning("%s", warning)
            self.stats.warning = warning
        config = load_config(self.loc.worktree)
        self._reader.max_size = self.stats.max_file_size = config.recorder_max_file_size
        policy = Policy(config.recorder_keep_days, config.recorder_max_bytes)
        self.stats.policy = policy.describe()
        try:
            self._load(repo, conn)
            session = recindex.begin_session(conn, time.time())
            if baseline:
                self._rescan(repo, conn, "the daemon started", baseline=True)
            self.ready.set()
            self._loop(repo, conn, session, policy)
            recindex.touch_session(conn, session, time.time(), ended=True)
        finally:
            conn.close()

    def _loop(
        self, repo: pygit2.Repository, conn: sqlite3.Connection, session: int, policy: Policy
    ) -> None:
        last_commit = last_beat = time.monotonic()
        next_prune = time.monotonic()
        while (work := self._queue.next_work(self._caught_up)) is not None:
            self.stats.pending = self._queue.pending()
            self._do(repo, conn, work)
            self._queue.done()
            now = time.monotonic()
            if self._unanchored and (now - last_commit >= constants.RECORDER_COMMIT_EVERY):
                self._do(repo, conn, lambda: self._anchor(repo, conn))
                last_commit = now
            if now - last_beat >= _HEARTBEAT:
                self._do(repo, conn, lambda: recindex.touch_session(conn, session, time.time()))
                last_beat = now
            if now >= next_prune and self.is_idle():
                self._do(repo, conn, lambda: self._prune(repo, conn, policy))
                next_prune = now + _PRUNE_EVERY
        self._record_paths(repo, conn, self._queue.take_all())
        self._anchor(repo, conn)

    def _do(
        self,
        repo: pygit2.Repository,
        conn: sqlite3.Connection,
        work: str | list[bytes] | Callable[[], object],
    ) -> None:
        """One unit of work (a rescan, paths to record, or a step such as an anchor); a full
        or read-only disk pauses recording instead of ending it."""
        try:
            if isinstance(work, str):
                self._rescan(repo, conn, work)
            elif isinstance(work, list):
                if work:
                    self._record_paths(repo, conn, work)
            else:
                work()
        except Exception as exc:
            failure = write_failure(exc, "record changed files", where=self.loc.common_dir)
            if failure is None:
                raise
            self._pause(str(failure))
            return
        recorded = isinstance(work, str) or (isinstance(work, list) and bool(work))
        if recorded and self._paused_by is not None and self.stats.warning == self._paused_by:
            log.info("recording resumed")
            self.stats.warning = self._paused_by = None
            self._retry = _RETRY_FIRST

    def _pause(self, why: str) -> None:
        """Wait, then rescan: the paths whose versions were not written have not moved their
        last known point, so the rescan reads them again once there is room."""
        self._paused_by = self.stats.warning = f"recording paused until it can write: {why}"
        log.warning("%s (retrying in %.0f s)", self._paused_by, self._retry)
        self._queue.wait_for_stop(self._retry)
        self._retry = min(self._retry * 2, _RETRY_MAX)
        self.rescan("retrying after a failed write")

    def _caught_up(self) -> None:
        self.stats.caught_up = time.time()

    def _load(self, repo: pygit2.Repository, conn: sqlite3.Connection) -> None:
        last = recindex.newest_by_path(conn)
        with self._queue.lock:
            self._last = last
        self._seen = recindex.seen_stats(conn)
        self._unanchored = {o for o in recindex.unanchored_oids(conn) if git.has_object(repo, o)}

    # --- rescans ---

    def _rescan(
        self, repo: pygit2.Repository, conn: sqlite3.Connection, reason: str, baseline: bool = False
    ) -> None:
        started = time.monotonic()
        with self._queue.lock:
            known = [p for p, (oid, _) in self._last.items() if oid is not None]
        candidates = dict.fromkeys([*status_paths(self.loc), *known, *self._seen])
        changed = []
        for rel in candidates:
            try:
                st = os.lstat(os.path.join(self._root, rel))
            except OSError:
                st = None
            seen = self._seen.get(rel)
            if st is None or seen is None or not seen.matches(st):
                changed.append(rel)
        before = self.stats.versions
        self._record_paths(repo, conn, changed, baseline=baseline)
        self.stats.rescans += 1
        self.stats.last_rescan = {
            "reason": reason,
            "time": time.time(),
            "checked": len(candidates),
            "reread": len(changed),
            "recorded": self.stats.versions - before,
            "ms": round((time.monotonic() - started) * 1000, 1),
        }
        log.info("recorder rescan (%s): %s", reason, self.stats.last_rescan)

    # --- recording ---

    def _record_paths(
        self,
        repo: pygit2.Repository,
        conn: sqlite3.Connection,
        paths: list[bytes],
        *,
        baseline: bool = False,
    ) -> None:
        batch = _Batch(ObjectStore(repo))
        for rel in paths:
            try:
                self._record_one(repo, batch, rel, baseline)
            except OSError as exc:
                if write_failure(exc, "") is not None:
                    raise  # the object store cannot take it: pause, not skip
                log.warning("cannot record %r: %s", rel, exc)
            if batch.store.pending_bytes > _BATCH_BYTES:
                self._write(conn, batch)
        self._write(conn, batch)

    def _write(self, conn: sqlite3.Connection, batch: _Batch) -> None:
        """The pack first, then the rows naming its blobs: a row never names a missing blob."""
        if not batch.rows and not batch.seen:
            return
        batch.store.flush()
        with _transaction(conn):
            recindex.insert_versions(conn, batch.rows)
            recindex.put_seen(conn, batch.seen)
        for rel, seen in batch.seen:
            if seen is None:
                self._seen.pop(rel, None)
            else:
                self._seen[rel] = seen
        if batch.rows:
            # Only now, with the rows written: a batch that failed (a full disk) must not
            # count as recorded, or its paths would not be read again.
            with self._queue.lock:  # the watcher's thread reads it (a directory removed)
                for rel, _, _, oid, mode, _ in batch.rows:
                    self._last[rel] = (oid, mode)
            self.stats.versions += len(batch.rows)
            self.stats.last_version = batch.rows[-1][1]
        self._unanchored |= batch.oids
        batch.rows.clear()
        batch.seen.clear()
        batch.oids.clear()

    def _record_one(
        self, repo: pygit2.Repository, batch: _Batch, rel: bytes, baseline: bool
    ) -> None:
        full = os.path.join(self._root, rel)
        previous = self._last.get(rel, (None, None))
        try:
            st = os.lstat(full)
        except (FileNotFoundError, NotADirectoryError):
            if previous[0] is not None:
                self._add(batch, rel, "deleted", None, None, None)
            batch.seen.append((rel, None))
            return
        content = self._reader.read(repo, batch.store, rel, st)
        if content is None:
            return
        oid, mode, size, seen = content
        batch.seen.append((rel, seen))
        if previous == (oid, mode):
            return
        event = "baseline" if baseline else ("modified" if previous[0] else "created")
        self._add(batch, rel, event, oid, mode, size)
        batch.oids.add(oid)

    def _add(
        self,
        batch: _Batch,
        rel: bytes,
        event: str,
        oid: str | None,
        mode: int | None,
        size: int | None,
    ) -> None:
        batch.rows.append((rel, time.time(), event, oid, mode, size))

    # --- anchors and pruning ---

    def _anchor(self, repo: pygit2.Repository, conn: sqlite3.Connection) -> None:
        if not self._unanchored:
            return
        with _transaction(conn):
            commit = write_anchor(repo, self.loc, conn, self._unanchored)
        log.info("recorder commit %s (%d blobs)", (commit or "")[:12], len(self._unanchored))
        self._unanchored.clear()
        self.stats.commits += 1
        self.stats.last_commit = time.time()

    def _prune(self, repo: pygit2.Repository, conn: sqlite3.Connection, policy: Policy) -> None:
        self._anchor(repo, conn)
        with _transaction(conn):
            done = prune(repo, self.loc, conn, policy)
        self.stats.last_prune = {
            "time": time.time(),
            "versions": done.versions,
            "refs": done.refs,
            "kept_bytes": done.kept_bytes,
        }
