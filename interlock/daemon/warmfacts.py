"""Tree facts kept warm by the daemon, so a check of a discarding command skips `git status`.

The facts (interlock.engine.facts.TreeFacts) stay valid while neither the worktree changed (the
watcher's generation count, confirmed by a barrier) nor git's own state did (index, HEAD,
refs, stash: `git.state_fingerprint`). Recomputing them costs one `git status`, so the
daemon does it in the background only while someone uses them (a `facts` request or a check
that found a discard in the last ten minutes), once the tree has been quiet for a while, and
never more than a third of the time.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from interlock.git import RepoLocation, state_fingerprint

if TYPE_CHECKING:
    from interlock.engine.facts import TreeFacts

_QUIET = 0.3  # seconds without changes before a refresh, at least
_WANTED_FOR = 600.0  # seconds a use of the facts keeps them warm
_Cached = tuple[int, tuple[object, ...], "TreeFacts"]


class WarmFacts:
    """The cached facts of one worktree and when they were last wanted."""

    def __init__(self, loc: RepoLocation) -> None:
        self.loc = loc
        self._cond = threading.Condition()
        self._generation = 0
        self._changed_at = time.monotonic()
        self._wanted_at: float | None = None
        self._cost = 0.0  # seconds the last refresh took
        self._cached: _Cached | None = None

    def bump(self) -> None:
        """The worktree changed."""
        with self._cond:
            self._generation += 1
            self._changed_at = time.monotonic()
            self._cond.notify_all()

    def want(self) -> None:
        """Someone used the facts: keep them warm for a while."""
        with self._cond:
            self._wanted_at = time.monotonic()
            self._cond.notify_all()

    def _current(self, cached: _Cached | None) -> bool:
        return (
            cached is not None
            and cached[0] == self._generation
            and cached[1] == state_fingerprint(self.loc)
        )

    def valid(self, barrier: Callable[[], bool]) -> TreeFacts | None:
        """The cached facts if they still describe the tree, else None."""
        if self._cached is None or not barrier():
            return None
        with self._cond:
            cached = self._cached
            return cached[2] if cached is not None and self._current(cached) else None

    def refresh(self, barrier: Callable[[], bool]) -> tuple[TreeFacts, bool]:
        """Collect the facts now; keep them when the watcher vouches for the tree (True)."""
        from interlock.engine.facts import collect_facts

        fresh = barrier()
        with self._cond:
            generation = self._generation
        fingerprint = state_fingerprint(self.loc)
        started = time.monotonic()
        facts = collect_facts(self.loc)
        self._cost = time.monotonic() - started
        if fresh:
            with self._cond:
                self._cached = (generation, fingerprint, facts)
        return facts, fresh

    def _due(self) -> bool:
        now = time.monotonic()
        wanted = self._wanted_at is not None and now - self._wanted_at < _WANTED_FOR
        quiet = now - self._changed_at >= max(_QUIET, 2 * self._cost)
        return wanted and quiet and not self._current(self._cached)

    def wait_until_due(self, stop: threading.Event) -> bool:
        """Block until a background refresh is worth it; False once `stop` is set."""
        with self._cond:
            while not stop.is_set():
                if self._due():
                    return True
                self._cond.wait(timeout=max(_QUIET, self._cost))
        return False

    def rest(self, stop: threading.Event) -> None:
        """After a refresh: pause twice its cost, so refreshing takes at most a third."""
        stop.wait(2 * self._cost)
