"""Watch a worktree (watchdog over inotify) and keep the dirty set. watchdog is imported only here.

The **dirty set** holds the worktree-relative paths (bytes) changed since the daemon's last
snapshot, so the next snapshot re-reads only those. It is *unknown* - and the next snapshot
must be status-driven (cold) - when the daemon has just started, the inotify queue overflowed,
the observer died or was restarted, or the watch limit was reached. It is never silently wrong.

Events are filtered at the source (create, modify, attribute, delete, move, close-after-write:
no opens or reads, which flood large trees), and no `.git` directory is watched at all: the
object writes of every snapshot would otherwise flood the watcher with events of its own.
One watch group covers the tree and the daemon's barrier directory, so events arrive in the
order they happened. A **barrier** makes "every change made before now is in the dirty set"
true before a snapshot drains it: it creates a file in the barrier directory and waits until
the dispatcher has delivered that event.

The pruned watch subclasses watchdog's inotify emitter (watchdog >= 7); with an older
watchdog the watcher still feeds the recorder, but without a barrier every snapshot is cold.
"""

from __future__ import annotations

import logging
import os
import threading
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from watchdog.events import (
    DirAttribEvent,
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
    FileAttribEvent,
    FileClosedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
    FileSystemMovedEvent,
)
from watchdog.observers import inotify as _inotify
from watchdog.observers.api import BaseObserver
from watchdog.observers.inotify import InotifyEmitter, InotifyObserver
from watchdog.observers.inotify_c import InotifyFD

from interlock.daemon.dirtyset import DirtySet
from interlock.regenerable import REGENERABLE_DIRS

# watchdog >= 7; None before: no pruned watch, no barrier (snapshots stay cold).
_WatchGroup: Any = getattr(_inotify, "InotifyWatchGroup", None)

log = logging.getLogger("interlock.daemon.watcher")

EVENT_FILTER: list[type[FileSystemEvent]] = [
    FileCreatedEvent,
    FileModifiedEvent,
    FileAttribEvent,
    FileDeletedEvent,
    FileMovedEvent,
    FileClosedEvent,
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
    DirAttribEvent,
]

# A path change as the recorder sees it: (worktree-relative path, kind, is_directory).
PathCallback = Callable[[bytes, str, bool], None]
# Events may have been lost, for this reason: whoever keeps state from events must rescan.
LostCallback = Callable[[str], None]


class _OverflowLog(logging.Handler):
    """watchdog reports a kernel queue overflow only in its log: turn that into 'unknown'."""

    def __init__(self, dirty: DirtySet) -> None:
        super().__init__(level=logging.WARNING)
        self._dirty = dirty

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage().lower()
        if "overflow" in text or "unable to rebuild" in text:
            self._dirty.mark_unknown(f"watchdog: {record.getMessage()}")


class _Handler(FileSystemEventHandler):
    def __init__(self, watcher: TreeWatcher) -> None:
        self._watcher = watcher

    def dispatch(self, event: FileSystemEvent) -> None:
        self._watcher.on_event(event)


_KINDS = {
    FileCreatedEvent: "created",
    DirCreatedEvent: "created",
    FileModifiedEvent: "modified",
    FileAttribEvent: "attrib",
    DirAttribEvent: "attrib",
    FileClosedEvent: "closed",
    FileDeletedEvent: "deleted",
    DirDeletedEvent: "deleted",
    FileMovedEvent: "moved-from",
    DirMovedEvent: "moved-from",
}


_REGENERABLE = frozenset(os.fsencode(d) for d in REGENERABLE_DIRS)


def _regenerable_prefix(parts: list[bytes]) -> bytes | None:
    """`node_modules/a/b.js` -> `node_modules`: build output churns by the thousand, so the
    dirty set names its directory once (a snapshot rescans it whole) instead of each file."""
    for i, part in enumerate(parts[:-1]):
        if part in _REGENERABLE or part.endswith(b".egg-info"):
            return b"/".join(parts[: i + 1])
    return None


def _is_git_dir(path: bytes) -> bool:
    return os.path.basename(path) == b".git" or b"/.git/" in path


if _WatchGroup is not None:

    @dataclass
    class _PrunedGroup(_WatchGroup):
        """A recursive watch that never enters a `.git` directory, plus one extra directory;
        it reports a queue overflow once its watches are rebuilt."""

        extra: bytes = b""
        on_lost: LostCallback | None = None

        def on_queue_overflow(self) -> None:
            super().on_queue_overflow()  # rebuilds the watches first: nothing after is missed
            if self.on_lost is not None:
                self.on_lost("the inotify queue overflowed (a burst of changes)")

        def _add_all_callbacks(self, path: bytes) -> None:
            if _is_git_dir(path):
                return
            self._add_callback(path)
            if self.is_recursive and os.path.isdir(path):
                for root, dirnames, _ in os.walk(path):
                    dirnames[:] = [
                        d
                        for d in dirnames
                        if d != b".git" and not os.path.islink(os.path.join(root, d))
                    ]
                    for name in dirnames:
                        self._add_callback(os.path.join(root, name))
            if path == self.path and self.extra:
                self._add_callback(self.extra)


class _PrunedEmitter(InotifyEmitter):
    def __init__(
        self, *args: Any, extra: bytes = b"", on_lost: LostCallback | None = None, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self._extra = extra
        self._on_lost = on_lost

    def on_thread_start(self) -> None:
        self._inotify = _PrunedGroup(
            self._inotify_fd,
            os.fsencode(self.watch.path),
            is_recursive=self.watch.is_recursive,
            event_mask=self.get_event_mask_from_filter(),
            follow_symlink=self.watch.follow_symlink,
            extra=self._extra,
            on_lost=self._on_lost,
        )


class _PrunedObserver(BaseObserver):
    """watchdog's InotifyObserver, with the pruned emitter."""

    def __init__(self, extra: bytes, on_lost: LostCallback | None) -> None:
        self._inotify_fd = InotifyFD()
        self._inotify_fd.start()
        super().__init__(_PrunedEmitter, inotify_fd=self._inotify_fd, extra=extra, on_lost=on_lost)

    def on_thread_stop(self) -> None:
        super().on_thread_stop()
        self._inotify_fd.stop()
        self._inotify_fd.join()


def _has_pruned_watch() -> bool:
    return _WatchGroup is not None and all(
        hasattr(_WatchGroup, name) for name in ("_add_all_callbacks", "_add_callback")
    )


class TreeWatcher:
    """Watches one worktree recursively and feeds the dirty set and a path callback."""

    def __init__(
        self,
        worktree: Path,
        state_dir: Path,
        on_path: PathCallback,
        on_lost: LostCallback | None = None,
    ) -> None:
        self.root = os.fsencode(os.path.realpath(worktree))
        self._prefix = self.root + b"/"
        self.dirty = DirtySet()
        self._on_path = on_path
        self._on_lost = on_lost
        self._observer: BaseObserver | None = None
        self._overflow = _OverflowLog(self.dirty)
        self._barrier_dir = os.path.join(os.fsencode(os.path.realpath(state_dir)), b"barrier")
        self._barrier_cond = threading.Condition()
        self._barrier_lock = threading.Lock()
        self._barrier_seen: set[bytes] = set()
        self._barrier_n = 0
        self.pruned = _has_pruned_watch()
        self.degraded: str | None = None

    # --- lifecycle ---

    def start(self) -> None:
        """Watch the whole tree; on return every directory is watched."""
        # watchdog warns when `mkdir -p` races its own recursive watch setup; it is harmless.
        warnings.filterwarnings("ignore", "Callback with id", RuntimeWarning, "watchdog")
        logging.getLogger("watchdog.observers").addHandler(self._overflow)
        observer: BaseObserver
        if self.pruned:
            os.makedirs(self._barrier_dir, mode=0o700, exist_ok=True)
            observer = _PrunedObserver(self._barrier_dir, self._lost)
        else:
            observer = InotifyObserver()
        observer.schedule(
            _Handler(self), os.fsdecode(self.root), recursive=True, event_filter=EVENT_FILTER
        )
        observer.start()
        self._observer = observer
        self.degraded = _watch_limit_problem()
        if not self.pruned:
            self.degraded = (
                "watchdog lacks the pruned inotify watch (needs >= 7): snapshots are cold"
            )
        if self.degraded:
            self.dirty.set_ready(False, self.degraded)
        else:
            self.dirty.set_ready(True)
        log.info("watching %s (%d directories)", os.fsdecode(self.root), watch_count())

    def stop(self) -> None:
        self.dirty.set_ready(False)
        logging.getLogger("watchdog.observers").removeHandler(self._overflow)
        observer, self._observer = self._observer, None
        if observer is not None:
            observer.stop()
            observer.join(timeout=5)

    def is_healthy(self) -> bool:
        """False when the observer or one of its emitters has died."""
        observer = self._observer
        if observer is None or not observer.is_alive():
            return False
        return all(emitter.is_alive() for emitter in observer.emitters) and bool(observer.emitters)

    def restart(self, reason: str) -> None:
        """Replace a dead observer; what happened meanwhile is unknown (and rescanned)."""
        self.dirty.mark_unknown(reason)
        self.stop()
        self.start()
        self._lost(reason)

    def _lost(self, reason: str) -> None:
        self.dirty.mark_unknown(reason)
        if self._on_lost is not None:
            self._on_lost(reason)

    # --- events ---

    def on_event(self, event: FileSystemEvent) -> None:
        src = os.fsencode(event.src_path)
        if os.path.dirname(src) == self._barrier_dir:
            self._barrier_event(src, event)
            return
        kind = _KINDS.get(type(event), "modified")
        self._note(src, kind, event.is_directory)
        if isinstance(event, FileSystemMovedEvent) and event.dest_path:
            self._note(os.fsencode(event.dest_path), "moved-to", event.is_directory)

    def _note(self, path: bytes, kind: str, is_dir: bool) -> None:
        if not path.startswith(self._prefix):
            return
        rel = path[len(self._prefix) :]
        parts = rel.split(b"/")
        if b".git" in parts:
            return
        self.dirty.add(_regenerable_prefix(parts) or rel)
        self._on_path(rel, kind, is_dir)

    # --- barrier ---

    def _barrier_event(self, src: bytes, event: FileSystemEvent) -> None:
        if isinstance(event, FileCreatedEvent):
            with self._barrier_cond:
                self._barrier_seen.add(src)
                self._barrier_cond.notify_all()

    def barrier(self, timeout: float = 2.0) -> bool:
        """Return once every change made before this call has reached the dirty set.

        False when that could not be established in time (the caller then treats the
        dirty set as unknown)."""
        if self._observer is None or not self.pruned:
            return False
        with self._barrier_lock:
            self._barrier_n += 1
            path = os.path.join(self._barrier_dir, b"%d-%d" % (os.getpid(), self._barrier_n))
            try:
                os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
            except OSError as exc:
                log.warning("barrier: cannot create %r: %s", path, exc)
                return False
            try:
                with self._barrier_cond:
                    return self._barrier_cond.wait_for(
                        lambda: path in self._barrier_seen, timeout=timeout
                    )
            finally:
                with self._barrier_cond:
                    self._barrier_seen.discard(path)
                os.unlink(path)


def watch_count() -> int:
    """How many inotify watches this process holds (read from /proc/self/fdinfo)."""
    total = 0
    try:
        fds = os.listdir("/proc/self/fd")
    except OSError:
        return 0
    for fd in fds:
        try:
            if os.readlink(f"/proc/self/fd/{fd}") != "anon_inode:inotify":
                continue
            with open(f"/proc/self/fdinfo/{fd}", "rb") as handle:
                total += sum(1 for line in handle if line.startswith(b"inotify wd:"))
        except OSError:
            continue
    return total


def _watch_limit_problem() -> str | None:
    """A reason when the watches likely hit the kernel limit (watchdog skips such dirs quietly)."""
    try:
        with open("/proc/sys/fs/inotify/max_user_watches", "rb") as handle:
            limit = int(handle.read().strip())
    except (OSError, ValueError):
        return None
    used = watch_count()
    if used >= limit * 0.98:
        return f"inotify watch limit reached ({used} of {limit}: fs.inotify.max_user_watches)"
    return None
