"""What the daemon does for a request: ping, status, check, facts, snapshot, diff, restore,
hook (a git hook run warm), attempt and complete (a run's command before and after it runs,
for the shell wrapper: interlock.run.gate), stop.

The engine and snapshot modules are imported inside the operations (and warmed once at
start-up), so they load once per daemon instead of once per command. Snapshots and restores
are serialised here (the snapshot module also holds a file lock, for other processes).

A daemon-fed snapshot passes the dirty set as `changed` with the daemon's previous snapshot as
`base`; when the dirty set is unknown, or there is no base yet, the snapshot is status-driven.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from interlock import constants, procinfo
from interlock.daemon.client import check_env
from interlock.daemon.rundesk import RunDesk
from interlock.daemon.server import Handler, UsageProblem, field
from interlock.daemon.warmfacts import WarmFacts
from interlock.daemon.watcher import TreeWatcher, watch_count
from interlock.git import open_repo
from interlock.memory.recorder import Recorder
from interlock.output import captured_output

if TYPE_CHECKING:
    from interlock.git import RepoLocation

log = logging.getLogger("interlock.daemon.process")

_WATCHER_START_WAIT = 10.0  # seconds a snapshot waits for a starting watcher


@contextlib.contextmanager
def _applied_env(env: dict[str, str]) -> Iterator[None]:
    keys = set(check_env(os.environ)) | set(check_env(env))
    saved = {k: os.environ.get(k) for k in keys}
    for key in keys:
        if key in env:
            os.environ[key] = str(env[key])
        else:
            os.environ.pop(key, None)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def _entry_json(entry: tuple[int, str] | None) -> dict[str, str] | None:
    return None if entry is None else {"mode": f"{entry[0]:06o}", "blob": entry[1]}


class Operations:
    """The daemon's warm state and the handlers of its socket operations."""

    def __init__(self, loc: RepoLocation, idle: float, socket_path: str) -> None:
        self.loc = loc
        self.idle = idle
        self.socket_path = socket_path
        self.started = time.time()
        self.build = constants.build_stamp()
        self.stop_event = threading.Event()
        self.facts = WarmFacts(loc)
        self.recorder = Recorder(loc)
        self.watcher = TreeWatcher(loc.worktree, loc.state_dir, self._on_path)
        self.last_activity = time.monotonic()
        self.requests = 0
        self.last_snapshot: dict[str, Any] | None = None
        self._base: str | None = None
        self._snapshot_lock = threading.Lock()
        self._check_lock = threading.Lock()
        self.watcher_state = "starting"
        self.watcher_started = threading.Event()  # set once the watcher started (or failed)
        self.runs = RunDesk(self)

    def _on_path(self, rel: bytes, kind: str, is_dir: bool) -> None:
        self.last_activity = time.monotonic()
        self.facts.bump()
        self.recorder.note(rel, kind, is_dir)
        if not is_dir:
            self.runs.streak.note(os.fsdecode(rel))

    def handlers(self) -> dict[str, Handler]:
        table: dict[str, Handler] = {
            "ping": self.ping,
            "status": self.status,
            "check": self.check,
            "facts": self.facts_op,
            "snapshot": self.snapshot,
            "diff": self.diff,
            "restore": self.restore,
            "hook": self.hook,
            "attempt": self.attempt,
            "complete": self.complete,
            "stop": self.stop,
        }
        return {op: self._counted(fn) for op, fn in table.items()}

    def _counted(self, fn: Handler) -> Handler:
        def run(req: dict[str, Any]) -> dict[str, Any]:
            self.requests += 1
            self.last_activity = time.monotonic()
            return fn(req)

        return run

    def barrier(self) -> bool:
        return self.watcher.barrier()

    # --- operations ---

    def ping(self, req: dict[str, Any]) -> dict[str, Any]:
        return {
            "pid": os.getpid(),
            "version": constants.VERSION,
            "worktree": str(self.loc.worktree),
        }

    def status(self, req: dict[str, Any]) -> dict[str, Any]:
        dirty, unknown = self.watcher.dirty.state()
        stats = self.recorder.stats
        return {
            "running": True,
            "pid": os.getpid(),
            "version": constants.VERSION,
            "uptime": round(time.time() - self.started, 3),
            "worktree": str(self.loc.worktree),
            "state_dir": str(self.loc.state_dir),
            "socket": self.socket_path,
            "watcher": self.watcher.degraded or self.watcher_state,
            "watched_dirs": watch_count(),
            "dirty_paths": dirty,
            "dirty_unknown": unknown,
            "rss": procinfo.current_rss(),
            "last_snapshot": self.last_snapshot,
            "recorder": {
                "versions": stats.versions,
                "commits": stats.commits,
                "pending": stats.pending,
                "last_version": stats.last_version,
                "last_commit": stats.last_commit,
                "warning": stats.warning,
                "running": self.recorder.is_alive(),
                "baseline_done": self.recorder.ready.is_set(),
            },
            "requests": self.requests,
            "idle_exit_after": self.idle,
        }

    def _same_build(self, req: dict[str, Any]) -> None:
        """Refuse (and stop) when the client runs another installed interlock than this daemon:
        after an upgrade, the old daemon must not answer with old code."""
        build = field(req, "build", str)
        if build is not None and build != self.build:
            log.info("a client runs interlock %s, this daemon %s: stopping", build, self.build)
            self.stop_event.set()
            raise UsageProblem("this daemon runs another build of interlock; it is stopping")

    def check(self, req: dict[str, Any]) -> dict[str, Any]:
        from interlock.config import MODES
        from interlock.engine import check as check_command

        self._same_build(req)
        command = field(req, "command", str)
        mode = field(req, "mode", str)
        if command is None or (mode is not None and mode not in MODES):
            raise UsageProblem(f"check needs a command string and a mode among {MODES}")
        assume_dirty = bool(field(req, "assume_dirty", bool, False))
        facts = None if assume_dirty else self.facts.valid(self.barrier)
        env = field(req, "env", dict, {})
        with self._check_lock, _applied_env(env), captured_output() as (out, err):
            outcome = check_command.evaluate(
                command, field(req, "cwd", str), mode=mode, assume_dirty=assume_dirty, facts=facts
            )
            check_command.show(outcome, bool(field(req, "json", bool, False)))
        if any(f.kind == "discard" for f in outcome.result.findings):
            self.facts.want()
        return {
            "stdout": out.getvalue(),
            "stderr": err.getvalue(),
            "exit_code": outcome.exit_code,
            "facts": "warm" if facts is not None else "inline",
        }

    def facts_op(self, req: dict[str, Any]) -> dict[str, Any]:
        self.facts.want()
        facts = self.facts.valid(self.barrier)
        warm = facts is not None
        if facts is None:
            facts = self.facts.refresh(self.barrier)[0]
        return {"facts": facts.to_json(), "warm": warm}

    def snapshot(self, req: dict[str, Any]) -> dict[str, Any]:
        from interlock.memory.snapshot import take_snapshot

        started = time.perf_counter()
        kind = field(req, "kind", str, "manual")
        meta = {k: field(req, k, str) for k in ("message", "run", "command")}
        meta["scope"] = field(req, "scope", list)
        # A snapshot taken before the watcher covers the tree could not be a base for the next.
        self.watcher_started.wait(timeout=_WATCHER_START_WAIT)
        with self._snapshot_lock, captured_output() as (_, err):
            if not self.barrier():
                self.watcher.dirty.mark_unknown("the watcher did not confirm it was up to date")
            drained = self.watcher.dirty.drain()
            fed = drained.unknown is None and self._base is not None
            try:
                info = take_snapshot(
                    self.loc,
                    kind=kind,
                    changed=sorted(drained.paths) if fed else None,
                    base=self._base if fed else None,
                    **meta,
                )
            except BaseException:
                self.watcher.dirty.put_back(drained)
                raise
            self._base = info.id
        self.last_snapshot = {"id": info.id, "kind": info.kind, "time": info.time}
        ms = round((time.perf_counter() - started) * 1000, 3)
        how = "daemon-fed" if fed else f"status-driven ({drained.unknown or 'no base yet'})"
        log.info("snapshot %s %s in %.1f ms (%d changed)", info.id, how, ms, len(drained.paths))
        return {
            "snapshot": info.to_json(),
            "fed": fed,
            "changed": len(drained.paths),
            "ms": ms,
            "stderr": err.getvalue(),
        }

    def diff(self, req: dict[str, Any]) -> dict[str, Any]:
        """SNAP (default: the last green) against the tree now; only the dirty paths are
        re-read when the daemon knows them."""
        from interlock.memory import snapshot as snapshots
        from interlock.memory.trees import diff_trees

        ref = field(req, "ref", str, "green")
        with self._snapshot_lock, captured_output() as (_, err):
            repo = open_repo(self.loc)
            old = snapshots.resolve_snapshot(self.loc, ref)
            known = self.barrier() and self._base is not None
            dirty = self.watcher.dirty.peek()
            if known and dirty.unknown is None and self._base is not None:
                base = snapshots.resolve_snapshot(self.loc, self._base)
                now = snapshots.scan_worktree(repo, self.loc, sorted(dirty.paths), base.tree)[0]
            else:
                now = snapshots.scan_worktree(repo, self.loc)[0]
            changes = diff_trees(repo, old.tree, now)
        return {
            "snapshot": old.to_json(),
            "diff": [
                {"path": os.fsdecode(c.path), "old": _entry_json(c.old), "new": _entry_json(c.new)}
                for c in changes
            ],
            "stderr": err.getvalue(),
        }

    def restore(self, req: dict[str, Any]) -> dict[str, Any]:
        from interlock.memory.restore import restore_snapshot

        paths = field(req, "paths", list)
        if paths is not None and not all(isinstance(p, str) for p in paths):
            raise UsageProblem("paths must be a list of strings")
        ref = field(req, "ref", str)
        if ref is None:
            raise UsageProblem("restore needs a snapshot ref")
        with self._snapshot_lock, captured_output() as (_, err):
            result = restore_snapshot(
                self.loc,
                ref,
                paths=paths,
                dry_run=bool(field(req, "dry_run", bool, False)),
                run=field(req, "run", str),
            )
        return {"restore": result.to_json(), "stderr": err.getvalue()}

    def hook(self, req: dict[str, Any]) -> dict[str, Any]:
        """A git hook run warm for interlock.daemon.hookclient (see hooks.dispatch.serve_hook)."""
        from interlock.hooks.dispatch import serve_hook

        self._same_build(req)
        return serve_hook(self.loc, req)

    def attempt(self, req: dict[str, Any]) -> dict[str, Any]:
        """A run's command before it runs (see interlock.run.gate.begin)."""
        self._same_build(req)
        return self.runs.begin(req)

    def complete(self, req: dict[str, Any]) -> dict[str, Any]:
        """A run's command after it ran (see interlock.run.gate.complete)."""
        self._same_build(req)
        return self.runs.complete(req)

    def tree_now(self) -> str:
        """The worktree's tree id now; only the dirty paths are re-read when they are known."""
        from interlock.memory import snapshot as snapshots

        with self._snapshot_lock:
            repo = open_repo(self.loc)
            dirty = self.watcher.dirty.peek()
            if self.barrier() and self._base is not None and dirty.unknown is None:
                base = snapshots.resolve_snapshot(self.loc, self._base)
                return snapshots.scan_worktree(repo, self.loc, sorted(dirty.paths), base.tree)[0]
            return snapshots.scan_worktree(repo, self.loc)[0]

    def stop(self, req: dict[str, Any]) -> dict[str, Any]:
        log.info("stop requested over the socket")
        self.stop_event.set()
        return {"stopping": True, "pid": os.getpid()}

    # --- background work ---

    def refresh_facts_forever(self) -> None:
        """Keep the facts warm while they are used (see interlock.daemon.warmfacts)."""
        while self.watcher.pruned and self.facts.wait_until_due(self.stop_event):
            try:
                kept = self.facts.refresh(self.barrier)[1]
            except Exception:  # logged; checks compute facts inline meanwhile
                log.exception("could not refresh tree facts")
                kept = False
            if kept:
                self.facts.rest(self.stop_event)
            else:
                self.stop_event.wait(5.0)

    def wait_for_snapshots(self, timeout: float) -> bool:
        """Let a snapshot or restore in progress finish (on shutdown)."""
        acquired = self._snapshot_lock.acquire(timeout=timeout)
        if acquired:
            self._snapshot_lock.release()
        return acquired
