"""The flight recorder's work queue: changed paths waiting to be read, and rescans wanted.

The watcher's thread puts paths in (`put`, cheap: one dict entry and one heap push per
event); the recorder's thread takes work out (`next_work`). A path falls due once it has been
quiet for the debounce (at once after close-after-write; at least every MAX_LATENCY seconds
for a file written without pause). Once a path is due, whatever falls due in the next GATHER
seconds joins its batch: the recorder writes one pack and one index transaction per batch,
so a burst of a thousand files costs a few batches, not a thousand (each batch's pack and
transaction cost milliseconds). Due times sit in a heap, so taking work costs O(log n) per
path, not a scan of everything pending on every event.
"""

from __future__ import annotations

import heapq
import threading
import time
from collections.abc import Callable, Iterable

MAX_LATENCY = 1.0  # a file written without pause is still recorded at least this often
GATHER = 0.02  # seconds: what falls due this soon after a due path joins its batch


class WorkQueue:
    """Pending paths with due times, and rescan reasons; `lock` also guards the recorder's
    own shared state (the watcher's thread reads it)."""

    def __init__(self, debounce: float) -> None:
        self.lock = threading.Condition()
        self._debounce = debounce
        self._pending: dict[bytes, tuple[float, float]] = {}  # path -> (first seen, due)
        self._due: list[tuple[float, bytes]] = []  # heap of (due, path); stale entries skipped
        self._rescans: list[str] = []  # why a rescan is wanted
        self._gathering = False
        self._gather_end = 0.0
        self.stopping = False
        self.working = False  # between taking work and finishing it

    # --- the watcher's side ---

    def put(self, rel: bytes, closed: bool) -> None:
        now = time.monotonic()
        due = now if closed else now + self._debounce
        with self.lock:
            first, _ = self._pending.get(rel, (now, now))
            self._schedule(rel, first, min(due, first + MAX_LATENCY))

    def put_now(self, paths: Iterable[bytes]) -> None:
        """(Holding `lock`.) Paths due at once (the files of a removed directory)."""
        now = time.monotonic()
        for rel in paths:
            self._schedule(rel, now, now)

    def _schedule(self, rel: bytes, first: float, due: float) -> None:
        self._pending[rel] = (first, due)
        heapq.heappush(self._due, (due, rel))
        if not self._gathering:  # it wakes at the end of its gathering anyway
            self.lock.notify()

    def want_rescan(self, reason: str) -> None:
        with self.lock:
            if reason not in self._rescans:
                self._rescans.append(reason)
            self.lock.notify()

    def stop(self) -> None:
        with self.lock:
            self.stopping = True
            self.lock.notify()

    # --- the recorder's side ---

    def is_idle(self) -> bool:
        with self.lock:
            return not (self._pending or self._rescans or self.working)

    def pending(self) -> int:
        return len(self._pending)

    def next_work(self, caught_up: Callable[[], None]) -> str | list[bytes] | None:
        """Why to rescan, or the paths due now ([] in a quiet moment: time to commit or
        prune), or None once stopping. `caught_up` is called whenever nothing is pending."""
        with self.lock:
            while not self.stopping:
                if self._rescans:
                    reason = "; ".join(self._rescans)
                    self._rescans.clear()
                    self.working = True
                    return reason
                now = time.monotonic()
                earliest = self._earliest()
                if earliest is not None and earliest <= now:
                    if not self._gathering:
                        self._gathering, self._gather_end = True, now + GATHER
                    if now < self._gather_end:
                        self.lock.wait(timeout=self._gather_end - now)
                        continue
                    self._gathering = False
                    self.working = True
                    return self._take_due(now)
                if not self._pending:
                    caught_up()
                wake = earliest if earliest is not None else now + 1.0
                self.lock.wait(timeout=max(0.001, min(wake - now, 1.0)))
                if not self._pending and not self._rescans:
                    return []
            return None

    def done(self) -> None:
        with self.lock:
            self.working = False

    def take_all(self) -> list[bytes]:
        with self.lock:
            paths = list(self._pending)
            self._pending.clear()
            self._due.clear()
            return paths

    def wait_for_stop(self, timeout: float) -> None:
        with self.lock:
            self.lock.wait_for(lambda: self.stopping, timeout=timeout)

    def _earliest(self) -> float | None:
        while self._due:
            due, rel = self._due[0]
            if self._pending.get(rel, (0.0, None))[1] == due:
                return due
            heapq.heappop(self._due)
        return None

    def _take_due(self, now: float) -> list[bytes]:
        taken = []
        while (earliest := self._earliest()) is not None and earliest <= now:
            _, rel = heapq.heappop(self._due)
            del self._pending[rel]
            taken.append(rel)
        return taken
