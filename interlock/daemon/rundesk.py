"""The daemon's side of runs: the shell wrapper's `attempt` and `complete`, served warm (by
interlock.monitor.desk: the run's gate, then the run monitor).

Each request has a journal connection of its own (SQLite serialises the writers, so a long
validator completion never holds up another command's verdict), taken from a small pool of
idle ones (opening one costs ~0.35 ms a request) and given back after, unless it holds a
transaction, a warning, or a journal file set aside since. One more connection stays open for
the daemon's life: closing the last connection to a database checkpoints its write-ahead log
with an fsync, ~15 ms on every command otherwise. Snapshots go through the
daemon's own fed path (only the dirty paths are re-read), facts are the warm ones, and the
watcher counts edited files for the verification-tier nudges. The journal is checked for
damage once, on the first run request, and pruned at most once an hour. While a run is live
the daemon does not exit for being idle.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from interlock import constants
from interlock.memory.catalog import SnapshotInfo
from interlock.run.tiers import EditStreak

if TYPE_CHECKING:
    from interlock.daemon.ops import Operations
    from interlock.journal import Journal
    from interlock.run.session import Worktree

_LIVE_CHECK_EVERY = 60.0  # seconds between looks at the journal for a live run
_POOL = 4  # idle journal connections kept between requests
QUIET_NICE = 10  # how far a quiet completion's thread steps back (see _step_back)


class RunDesk:
    """Serves the wrapper's requests for one worktree's daemon."""

    def __init__(self, ops: Operations) -> None:
        self.ops = ops
        self.streak = EditStreak()
        self._anchor: Journal | None = None
        self._idle: list[Journal] = []  # connections between requests (see _open)
        self._lock = threading.Lock()
        self._pruned_at = 0.0
        self._live_at = 0.0
        self._live = False

    def _open(self) -> Journal:
        """A journal connection for one request: an idle one from the pool, else a new one."""
        from interlock.journal import Journal

        with self._lock:
            if self._anchor is None:  # the first use also checks the file for damage
                self._anchor = Journal(self.ops.loc, verify=True)
                warning = self._anchor.warning
                journal = Journal(self.ops.loc, shared=True)
                journal.warning = warning
                return journal
            while self._idle:
                journal = self._idle.pop()
                if journal.reusable():
                    return journal
                journal.close()
        return Journal(self.ops.loc, shared=True)

    def _release(self, journal: Journal) -> None:
        """Back to the pool when it is fit to serve another request, else closed."""
        if journal.reusable():
            with self._lock:
                if self._anchor is not None and len(self._idle) < _POOL:
                    self._idle.append(journal)
                    return
        journal.close()

    def close(self) -> None:
        with self._lock:
            for journal in self._idle:
                journal.close()
            self._idle.clear()
            if self._anchor is not None:
                self._anchor.close()
                self._anchor = None

    def _snapshot(self, kind: str, meta: dict[str, Any]) -> SnapshotInfo:
        return _from_json(self.ops.snapshot({"kind": kind, **meta})["snapshot"])

    def _worktree(self, journal: Journal) -> Worktree:
        from interlock.run.session import Worktree

        ops = self.ops

        def facts() -> Any:
            ops.facts.want()
            return ops.facts.valid(ops.barrier)

        return Worktree(ops.loc, journal, self._snapshot, facts, ops.tree_now, self.streak)

    def _serve(self, step: str, req: dict[str, Any]) -> dict[str, Any]:
        from interlock.journal import prune
        from interlock.monitor import desk

        journal = self._open()
        try:
            wt = self._worktree(journal)
            warm = {**req, "warm": True}
            reply = desk.begin(wt, warm) if step == "begin" else desk.complete(wt, warm)
            if journal.warning:
                note = f"interlock: warning: {journal.warning}"
                reply["messages"] = "\n".join(m for m in (note, reply.get("messages")) if m)
            now = time.time()
            if now - self._pruned_at > constants.JOURNAL_PRUNE_EVERY:
                self._pruned_at = now
                prune(journal)
            self._live, self._live_at = True, time.monotonic()
            return reply
        finally:
            self._release(journal)

    @contextlib.contextmanager
    def worktree(self) -> Iterator[Worktree]:
        """A warm Worktree for one request of another door (the agent adapters), on its own
        journal connection; the live-run note is kept as for the wrapper's requests."""
        journal = self._open()
        try:
            yield self._worktree(journal)
            self._live, self._live_at = True, time.monotonic()
        finally:
            self._release(journal)

    def begin(self, req: dict[str, Any]) -> dict[str, Any]:
        return self._serve("begin", req)

    def complete(self, req: dict[str, Any]) -> dict[str, Any]:
        if req.get("waiting") is False:  # a quiet completion: the wrapper is exiting
            _step_back()
        return self._serve("complete", req)

    def has_live_run(self) -> bool:
        """A run of this worktree is live (keeps an idle daemon up); looked up once a minute."""
        if time.monotonic() - self._live_at < _LIVE_CHECK_EVERY:
            return self._live
        from interlock.journal import opened
        from interlock.run import records
        from interlock.run.inforce import is_live

        try:
            with opened(self.ops.loc) as journal:
                self._live = any(is_live(journal, r) for r in records.open_runs(journal))
        except Exception:  # a journal that cannot be read keeps no daemon alive
            self._live = False
        self._live_at = time.monotonic()
        return self._live


def _step_back() -> None:
    """Lower this thread's priority (nice + QUIET_NICE) for a completion nobody waits for. On a
    busy machine, the wrapper's send wakes this thread, which would otherwise journal on the
    wrapper's CPU before the wrapper got to exit (1-2 ms measured on every command); lowered,
    it yields at once and journals in its turn. Its thread ends with the connection."""
    try:
        tid = threading.get_native_id()
        now = os.getpriority(os.PRIO_PROCESS, tid)
        os.setpriority(os.PRIO_PROCESS, tid, min(19, now + QUIET_NICE))
    except (OSError, AttributeError):
        pass  # not Linux, or not allowed: the completion is journaled all the same


def _from_json(snap: dict[str, Any]) -> SnapshotInfo:
    """A SnapshotInfo back from the snapshot op's JSON."""
    return SnapshotInfo(
        id=snap["id"],
        oid=snap["oid"],
        tree=snap["tree"],
        time=float(snap["timestamp"]),
        kind=snap["kind"],
        message=snap.get("message"),
        run=snap.get("run"),
        command=snap.get("command"),
        head=snap.get("head"),
        worktree=snap.get("worktree"),
        ref=snap.get("ref"),
        skipped=snap.get("skipped") or {},
        scope=tuple(snap["scope"]) if snap.get("scope") is not None else None,
        base=snap.get("base"),
        how=snap.get("how"),
    )
