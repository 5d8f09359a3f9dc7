"""The dirty set: worktree paths changed since the daemon's last snapshot, or "unknown".

A snapshot drains it (`drain()`) and passes the paths to the snapshot as `changed`; when the
set is unknown the snapshot must be status-driven instead. The watcher fills it; see
interlock/watcher.py for when it becomes unknown.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass

log = logging.getLogger("interlock.daemon.watcher")


@dataclass(frozen=True)
class Drained:
    """What a snapshot takes from the dirty set: the paths, or why they are not known."""

    paths: frozenset[bytes]
    unknown: str | None


class DirtySet:
    """Paths changed since the last snapshot; thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._paths: set[bytes] = set()
        self._unknown: str | None = "the daemon has not taken a snapshot yet"
        self._ready = False

    def add(self, path: bytes) -> None:
        with self._lock:
            self._paths.add(path)

    def mark_unknown(self, reason: str) -> None:
        with self._lock:
            if self._unknown is None:
                self._unknown = reason
                log.warning("dirty set unknown: %s", reason)

    def set_ready(self, ready: bool, reason: str = "the watcher stopped") -> None:
        """Ready: every change is being seen. Not ready also makes the set unknown."""
        with self._lock:
            self._ready = ready
        if not ready:
            self.mark_unknown(reason)

    def drain(self) -> Drained:
        """Take the paths for a snapshot; changes from now on collect in a fresh set.

        After a cold snapshot the set becomes known - but only if the watcher was already
        watching, so nothing that happened before this moment can be missing from it."""
        with self._lock:
            taken = Drained(frozenset(self._paths), self._unknown)
            self._paths = set()
            self._unknown = None if self._ready else "the watcher is not running"
            return taken

    def put_back(self, drained: Drained) -> None:
        """Undo a drain whose snapshot failed."""
        with self._lock:
            self._paths |= drained.paths
            if drained.unknown and self._unknown is None:
                self._unknown = drained.unknown

    def peek(self) -> Drained:
        """The paths and state now, without draining (for a diff)."""
        with self._lock:
            return Drained(frozenset(self._paths), self._unknown)

    def state(self) -> tuple[int, str | None]:
        """(number of dirty paths, why unknown or None)."""
        with self._lock:
            return len(self._paths), self._unknown
