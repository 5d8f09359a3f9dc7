"""What the daemon does for a request: ping, status, check, facts, snapshot, diff, restore,
recover (interlock.daemon.recoverop), audit, hook (a git hook run warm), attempt and complete
(a run's command before and after it runs, for the shell wrapper: interlock.run.gate), stop.

The engine and snapshot modules are imported inside the operations (and warmed once at
start-up), so they load once per daemon instead of once per command. Snapshots and restores
are serialised here (the snapshot module also holds a file lock, for other processes).

A daemon-fed snapshot passes the dirty set as `changed` with the daemon's previous snapshot as
`base`; when the dirty set is unknown, or there is no base yet, the snapshot is status-driven.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from typing import TYPE_CHECKING, Any

from interlock import constants, procinfo
from interlock.daemon import reqenv
from interlock.daemon.client import check_env
from interlock.daemon.rundesk import RunDesk
from interlock.daemon.server import Handler, UsageProblem, field
from interlock.daemon.warmfacts import WarmFacts
from interlock.daemon.watcher import TreeWatcher, watch_count
from interlock.git import open_repo
from interlock.memory.recorder import Recorder
from interlock.output import captured_output

if TYPE_CHECKING:
    from interlock.engine.facts import TreeFacts
    from interlock.git import RepoLocation
    from interlock.journal import Journal

log = logging.getLogger("interlock.daemon.process")

_WATCHER_START_WAIT = 10.0  # seconds a snapshot waits for a starting watcher


def is_check_variable(key: str) -> bool:
    """A variable that can change a check's answer (what the client sends along)."""
    return bool(check_env({key: ""}))


def _request_env(req: dict[str, Any]) -> dict[str, str]:
    """The request's env, checked whole before any of it is used."""
    try:
        return reqenv.validate(req.get("env") or {}, is_check_variable)
    except reqenv.BadEnvironment as exc:
        raise UsageProblem(str(exc)) from None


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
        self.watcher = TreeWatcher(loc.worktree, loc.state_dir, self._on_path, self.recorder.rescan)
        self.last_activity = time.monotonic()
        self.requests = 0
        self.released = False  # caches dropped in this quiet spell
        self.last_snapshot: dict[str, Any] | None = None
        self._base: str | None = None
        self._base_tree: str | None = None
        self._snapshot_lock = threading.Lock()
        self._check_lock = threading.Lock()
        self.watcher_state = "starting"
        self.watcher_started = threading.Event()  # set once the watcher started (or failed)
        self.runs = RunDesk(self)
        self._journal_keepalive = self._open_journal()

    def _open_journal(self) -> Journal | None:
        """One idle connection to the journal for the daemon's life. Each journal write opens
        and closes its own; while another stays open, closing one does not checkpoint the WAL
        (an fsync): a hook's journal entry costs 0.2 ms instead of ~5 ms. (Damage is checked,
        and reported to the user, by the run desk's first request.)"""
        from interlock.journal import Journal

        try:
            return Journal(self.loc)
        except (OSError, sqlite3.Error) as exc:
            log.warning("journal not kept open: %s", exc)
            return None

    def close(self) -> None:
        """On shutdown: close the run desk, then let the journal's last connection checkpoint it."""
        self.runs.close()
        if self._journal_keepalive is not None:
            self._journal_keepalive.close()
            self._journal_keepalive = None

    def _on_path(self, rel: bytes, kind: str, is_dir: bool) -> None:
        self.last_activity = time.monotonic()
        self.released = False
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
            "recover": self.recover,
            "audit": self.audit,
            "hook": self.hook,
            "attempt": self.attempt,
            "complete": self.complete,
            "agent": self.agent,
            "advise": self.advise,
            "stop": self.stop,
        }
        return {op: self._counted(fn) for op, fn in table.items()}

    def _counted(self, fn: Handler) -> Handler:
        def run(req: dict[str, Any]) -> dict[str, Any]:
            self.requests += 1
            self.last_activity = time.monotonic()
            self.released = False
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
            "recorder": self.recorder_status(),
            "requests": self.requests,
            "idle_exit_after": self.idle,
        }

    def recorder_status(self) -> dict[str, Any]:
        stats = self.recorder.stats
        return {
            "versions": stats.versions,
            "commits": stats.commits,
            "pending": stats.pending,
            "last_version": stats.last_version,
            "last_commit": stats.last_commit,
            "warning": stats.warning,
            "running": self.recorder.is_alive(),
            "baseline_done": self.recorder.ready.is_set(),
            "idle": self.recorder.is_idle(),
            "caught_up": stats.caught_up,
            "rescans": stats.rescans,
            "last_rescan": stats.last_rescan,
            "max_file_size": stats.max_file_size,
            "too_large": sorted(os.fsdecode(p) for p in stats.too_large)[:20],
            "too_large_count": len(stats.too_large),
            "policy": stats.policy,
            "last_prune": stats.last_prune,
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
        env = _request_env(req)
        used: list[object] = []

        def warm_facts() -> TreeFacts | None:  # asked for only when a discard needs them
            self.facts.want()
            used.append(facts := self.facts.valid(self.barrier))
            return facts

        with self._check_lock, reqenv.applied(env), captured_output() as (out, err):
            outcome = check_command.evaluate(
                command,
                field(req, "cwd", str),
                mode=mode,
                assume_dirty=assume_dirty,
                facts=None if assume_dirty else warm_facts,
            )
            check_command.show(outcome, bool(field(req, "json", bool, False)))
        return {
            "stdout": out.getvalue(),
            "stderr": err.getvalue(),
            "exit_code": outcome.exit_code,
            "facts": "warm" if any(f is not None for f in used) else "inline",
        }

    def facts_op(self, req: dict[str, Any]) -> dict[str, Any]:
        self.facts.want()
        facts = self.facts.valid(self.barrier)
        warm = facts is not None
        if facts is None:
            facts = self.facts.refresh(self.barrier)[0]
        return {"facts": facts.to_json(), "warm": warm}

    def snapshot(self, req: dict[str, Any]) -> dict[str, Any]:
        """Take a snapshot, fed by the dirty set when it is known and small enough (a large
        set is cheaper through one `git status`). With "render": also what `interlock
        snapshot [--json]` prints, for the hot client."""
        from interlock.memory.snapshot import take_snapshot

        started = time.perf_counter()
        render = bool(field(req, "render", bool, False))
        if render:
            self._same_build(req)
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
            large = fed and len(drained.paths) > constants.DAEMON_FED_MAX_PATHS
            try:
                info = take_snapshot(
                    self.loc,
                    kind=kind,
                    changed=sorted(drained.paths) if fed and not large else None,
                    base=self._base if fed and not large else None,
                    **meta,
                )
            except BaseException:
                self.watcher.dirty.put_back(drained)
                raise
            changed = self._changed_count(drained.paths, self._base_tree)
            # The full id: found directly, where a 12-digit prefix made libgit2 search every
            # pack index and the loose objects (take_snapshot resolves it by prefix).
            self._base, self._base_tree = info.oid, info.tree
        self.last_snapshot = {"id": info.id, "kind": info.kind, "time": info.time}
        ms = round((time.perf_counter() - started) * 1000, 3)
        how = (
            "daemon-fed"
            if fed and not large
            else f"status-driven ({drained.unknown or ('a large dirty set' if large else 'no base yet')})"
        )
        log.info("snapshot %s %s in %.1f ms (%d changed)", info.id, how, ms, changed)
        reply: dict[str, Any] = {
            "snapshot": info.to_json(),
            "fed": fed and not large,
            "changed": changed,
            "ms": ms,
            "stderr": err.getvalue(),
        }
        if render:
            reply.update(self._rendered_snapshot(info, started, bool(field(req, "json", bool))))
        return reply

    def _changed_count(self, paths: frozenset[bytes], base_tree: str | None) -> int:
        """Dirty paths that are a change: on disk now, or gone but held by the base snapshot
        (an editor's temp file, written and removed since, is neither)."""
        from interlock.memory.trees import lookup

        top = os.fsencode(self.loc.worktree)
        gone = [p for p in paths if not os.path.lexists(os.path.join(top, p))]
        if not gone:
            return len(paths)
        repo = open_repo(self.loc)
        return len(paths) - sum(1 for p in gone if lookup(repo, base_tree, p) is None)

    def _rendered_snapshot(self, info: Any, started: float, as_json: bool) -> dict[str, Any]:
        from interlock.memory.snapshot import changed_vs_head
        from interlock.snapshotreport import snapshot_report

        vs_head = changed_vs_head(self.loc, info)
        ms = round((time.perf_counter() - started) * 1000, 1)
        text = snapshot_report(info.to_json(), vs_head, ms, as_json)
        return {"stdout": text, "exit_code": 0}

    def diff(self, req: dict[str, Any]) -> dict[str, Any]:
        """SNAP (default: the last green) against the tree now; only the dirty paths are
        re-read when the daemon knows them."""
        from interlock.memory import snapshot as snapshots
        from interlock.memory.trees import diff_trees

        self._same_build(req)
        ref = field(req, "ref", str, "green")
        with self._snapshot_lock, captured_output() as (_, err):
            repo = open_repo(self.loc)
            old = snapshots.resolve_snapshot(self.loc, ref)
            changes = diff_trees(repo, old.tree, self._tree_now())
        return {
            "snapshot": old.to_json(),
            "diff": [
                {"path": os.fsdecode(c.path), "old": _entry_json(c.old), "new": _entry_json(c.new)}
                for c in changes
            ],
            "stderr": err.getvalue(),
        }

    def _tree_now(self) -> str:
        """The worktree as a tree id, no ref kept: the last snapshot's tree with only the dirty
        paths re-read when the daemon knows them (and they are not too many), else a cold scan.
        The caller holds the snapshot lock."""
        from interlock.memory.snapshot import scan_worktree

        repo = open_repo(self.loc)
        known = self.barrier() and self._base_tree is not None
        dirty = self.watcher.dirty.peek()
        small = len(dirty.paths) <= constants.DAEMON_FED_MAX_PATHS
        if known and dirty.unknown is None and small:
            return scan_worktree(repo, self.loc, sorted(dirty.paths), self._base_tree)[0]
        return scan_worktree(repo, self.loc)[0]

    def audit(self, req: dict[str, Any]) -> dict[str, Any]:
        """`interlock audit` of the worktree as the daemon sees it (audit.repo.audit_tree): no
        pass over the worktree's files when the dirty set is known."""
        from interlock.audit.render import rendered
        from interlock.audit.repo import audit_tree

        self._same_build(req)
        with self._snapshot_lock, captured_output() as (_, err):
            report = audit_tree(self.loc, field(req, "since", str), self._tree_now())
        reply: dict[str, Any] = {"report": report.to_json(), "stderr": err.getvalue()}
        if field(req, "render", bool, False):
            out, text, code = rendered(report, bool(field(req, "json", bool, False)))
            reply.update(stdout=out, stderr=reply["stderr"] + text, exit_code=code)
        return reply

    def restore(self, req: dict[str, Any]) -> dict[str, Any]:
        from interlock.memory.restore import restore_snapshot

        self._same_build(req)
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
        return {
            "restore": result.to_json(),
            "kind": result.snapshot.kind,
            "stderr": err.getvalue(),
        }

    def recover(self, req: dict[str, Any]) -> dict[str, Any]:
        """`interlock recover` warm, for the launcher's door (see interlock.daemon.recoverop)."""
        from interlock.daemon import recoverop

        self._same_build(req)
        return recoverop.serve(self, req)

    def serialised(self) -> threading.Lock:
        """Held by snapshots, restores and recovers: one at a time (a `with` block)."""
        return self._snapshot_lock

    def hook(self, req: dict[str, Any]) -> dict[str, Any]:
        """A git hook run warm for interlock.daemon.hookclient (see hooks.dispatch.serve_hook)."""
        from interlock.hooks.dispatch import serve_hook

        self._same_build(req)
        with reqenv.applied(_request_env(req)):
            return serve_hook(self.loc, req)

    def attempt(self, req: dict[str, Any]) -> dict[str, Any]:
        """A run's command before it runs (see interlock.run.gate.begin)."""
        self._same_build(req)
        return self.runs.begin(req)

    def complete(self, req: dict[str, Any]) -> dict[str, Any]:
        """A run's command after it ran (see interlock.run.gate.complete)."""
        self._same_build(req)
        return self.runs.complete(req)

    def agent(self, req: dict[str, Any]) -> dict[str, Any]:
        """An agent's hook event (interlock.adapters.serve): the hook's stdout, stderr, exit."""
        from interlock.adapters.desk import Desk
        from interlock.adapters.serve import serve
        from interlock.daemon.agentop import opened

        self._same_build(req)
        req = opened(req, str(self.loc.worktree))  # an event forwarded as the agent wrote it
        with reqenv.applied(_request_env(req)), self.runs.worktree() as wt:
            reply = serve(Desk(wt, self._record_now, warm=True), req).to_json()
            if wt.journal.warning:
                reply["stderr"] = f"interlock: warning: {wt.journal.warning}\n" + reply["stderr"]
            return reply

    def _record_now(self, paths: list[bytes]) -> None:
        """Ask the recorder to read these paths now (an agent is about to edit them)."""
        for rel in paths:
            self.recorder.note(rel, "closed", False)

    def advise(self, req: dict[str, Any]) -> dict[str, Any]:
        """A person's interactive command (interlock.adapters.humanshell): the warning to
        print before it runs, after saving what it would discard."""
        from interlock.adapters.humanshell import advise

        self._same_build(req)
        with reqenv.applied(_request_env(req)):
            return advise(self.loc, req, self._advice_facts, self._advice_snapshot)

    def _advice_facts(self) -> TreeFacts | None:
        self.facts.want()
        return self.facts.valid(self.barrier)

    def _advice_snapshot(self, meta: dict[str, Any]) -> dict[str, Any]:
        return self.snapshot(meta)

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
