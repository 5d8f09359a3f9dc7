"""Runs: which run a command belongs to, starting one (its baseline and frozen config), ending.

Which run a wrapper's command belongs to, in order:
1. `INTERLOCK_RUN` names it (a person launched the agent with it, or an outer wrapper passed
   it to a nested one); a run of that name that was ended is followed by `<name>.2`, `.3`...
2. else the run a person pinned with `interlock run start`, while it is open;
3. else the run of the agent process (the wrapper's nearest ancestor that is not a shell),
   started on its first command.

What ends a run: `interlock run start` (it ends every open run of the worktree and pins the
new one), `interlock run end`, and, for a run named by its agent, that agent exiting (noticed
on the next command). Two agents in one worktree without a pinned run get a run each; while
another run is live, a discard cannot tell whose work is whose, so no content counts as this
run's own (see `discards`), and a new run takes the strictest of its config and the live
runs' configs, so starting a new run never relaxes the rules.

A run's baseline is a snapshot taken when it starts; the config in force for the whole run is
the one resolved at that moment (`.interlock.toml`, `[tool.interlock]`, `INTERLOCK_MODE`),
stored with the run: editing or deleting the file mid-run changes nothing.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from interlock import constants
from interlock.config import Config, config_from_json, config_to_json, load_config
from interlock.engine.facts import TreeFacts
from interlock.git import RepoLocation, open_repo, read_commit
from interlock.journal import Journal, prune
from interlock.memory.catalog import SnapshotInfo
from interlock.memory.scan import display_path
from interlock.memory.trees import diff_trees
from interlock.run import agent, records
from interlock.run.records import Run
from interlock.state import file_lock, repo_state_dir

# kind, metadata (message, run, command, scope) -> the snapshot taken
Snapper = Callable[[str, dict[str, Any]], SnapshotInfo]
_STRICTNESS = {
    "mode": ("off", "advisory", "blocking"),
    "verification_tiers": ("off", "advisory", "blocking"),
    "discards": ("by-owner", "refuse"),
}


class Streak(Protocol):
    """Files edited since the last validator (the daemon's watcher counts them)."""

    def validator_began(self) -> None: ...

    def take_nudge(self, not_work: Callable[[str], bool]) -> int | None: ...


@dataclass
class Worktree:
    """What the judging of a run's command needs from where it runs: the daemon passes its
    warm versions, the inline path the cold ones (no edit count: no mid-run nudges)."""

    loc: RepoLocation
    journal: Journal
    snapshot: Snapper
    facts: Callable[[], TreeFacts | None]  # warm tree facts, or None: collect them inline
    tree_now: Callable[[], str]  # the worktree's tree id now
    streak: Streak | None = None


def new_run_id(now: float | None = None) -> str:
    """`r-20261201-101500-3fa2`: UTC start time and 4 random hex digits."""
    when = time.time() if now is None else now
    return "r-" + time.strftime("%Y%m%d-%H%M%S", time.gmtime(when)) + "-" + os.urandom(2).hex()


def run_config(run: Run) -> Config:
    """The config in force for a run: the one resolved at its baseline."""
    return config_from_json(run.config, f"run {run.id} baseline")


def is_live(journal: Journal, run: Run, now: float | None = None) -> bool:
    """Open, and its agent still runs (or, without one, a command came in the last 30 min)."""
    if not run.is_open:
        return False
    if run.origin == "agent" and run.agent:
        pid, _, started = run.agent.partition(":")
        return agent.is_running(int(pid), int(started) if started else None)
    last = records.run_activity(journal, run.id)[1] or run.started
    return (time.time() if now is None else now) - last < constants.RUN_LIVE_SECONDS


def _strictest(mine: dict[str, Any], others: list[Run]) -> dict[str, Any]:
    """`mine`, with each ranked key raised to the strictest value a live run uses."""
    merged = dict(mine)
    for key, order in _STRICTNESS.items():
        values = [merged.get(key)] + [r.config.get(key) for r in others]
        ranked = [order.index(v) for v in values if v in order]
        if ranked:
            merged[key] = order[max(ranked)]
    return merged


def _take_baseline(
    wt: Worktree, run_id: str, environ: Mapping[str, str], live: list[Run]
) -> tuple[SnapshotInfo, dict[str, Any]]:
    config = config_to_json(load_config(wt.loc.worktree, environ=environ))
    if live:
        config = _strictest(config, live)
    info = wt.snapshot("baseline", {"message": f"baseline of run {run_id}", "run": run_id})
    return info, config


def create_run(
    wt: Worktree,
    run_id: str,
    origin: str,
    environ: Mapping[str, str],
    *,
    agent_info: tuple[int, int, str] | None = None,
    pinned: bool = False,
) -> Run:
    """Take the baseline and journal a new open run (call with the run lock held)."""
    live = [r for r in records.open_runs(wt.journal) if is_live(wt.journal, r)]
    info, config = _take_baseline(wt, run_id, environ, [] if pinned else live)
    data: dict[str, Any] = {"baseline_id": info.id}
    if agent_info is not None:
        data["agent_pid"], data["agent_name"] = agent_info[0], agent_info[2]
    run = Run(
        id=run_id,
        started=time.time(),
        ended=None,
        end_reason=None,
        origin=origin,
        agent=agent.agent_key(agent_info) if agent_info else None,
        pinned=pinned,
        baseline=info.oid,
        head=info.head,
        config=config,
        data=data,
    )
    records.insert_run(wt.journal, run)
    prune(wt.journal)  # a new run is rare: the moment to keep the journal within its bounds
    return run


def _successor(journal: Journal, run_id: str) -> str:
    for number in range(2, 10_000):
        candidate = f"{run_id}.{number}"
        found = records.get_run(journal, candidate)
        if found is None or found.is_open:
            return candidate
    return new_run_id()


def _end_departed_agents(journal: Journal) -> None:
    for run in records.open_runs(journal):
        if run.origin == "agent" and not is_live(journal, run):
            records.end_run(journal, run.id, "its agent process exited")


def find_run(
    journal: Journal, explicit: str | None, agent_info: tuple[int, int, str] | None
) -> tuple[Run | None, str | None]:
    """(the open run a command would join, None when it would start one; the id a run named
    by INTERLOCK_RUN would start under). Starts nothing: `resolve_run` does, and a door asks
    this first when new runs may not start (`interlock pause`)."""
    if explicit:
        found = records.get_run(journal, explicit)
        if found is not None and found.is_open:
            return found, None
        run_id = explicit if found is None else _successor(journal, explicit)
        return records.get_run(journal, run_id), run_id
    opened = records.open_runs(journal)
    pinned = [r for r in opened if r.pinned]
    if pinned:
        return pinned[0], None
    key = agent.agent_key(agent_info) if agent_info else None
    for run in opened:
        if key is not None and run.agent == key:
            return run, None
    return None, None


def resolve_run(
    wt: Worktree,
    explicit: str | None,
    agent_info: tuple[int, int, str] | None,
    environ: Mapping[str, str],
) -> tuple[Run, bool]:
    """The run a command belongs to (see the module docstring), started if need be.
    Returns (run, started now)."""
    with file_lock(repo_state_dir(wt.loc) / constants.RUN_LOCK_FILE):
        found, run_id = find_run(wt.journal, explicit, agent_info)
        if found is not None:
            return found, False
        if run_id is not None:
            return create_run(wt, run_id, "env", environ), True
        _end_departed_agents(wt.journal)
        return create_run(wt, new_run_id(), "agent", environ, agent_info=agent_info), True


def start_run(wt: Worktree, run_id: str | None, environ: Mapping[str, str]) -> Run:
    """`interlock run start`: end every open run, then start a pinned one."""
    with file_lock(repo_state_dir(wt.loc) / constants.RUN_LOCK_FILE):
        new_id = run_id or new_run_id()
        if records.get_run(wt.journal, new_id) is not None:
            from interlock.errors import InterlockError

            raise InterlockError(
                f"a run named {new_id!r} already exists in this worktree",
                hint="pick another --id, or leave it out for a fresh one",
            )
        for run in records.open_runs(wt.journal):
            records.end_run(wt.journal, run.id, f"a person started run {new_id}")
        return create_run(wt, new_id, "start", environ, pinned=True)


def end_runs(journal: Journal, reason: str, run_id: str | None = None) -> list[str]:
    """End one open run (or all of them); the ids ended."""
    ended = []
    for run in records.open_runs(journal):
        if run_id is None or run.id == run_id:
            records.end_run(journal, run.id, reason)
            ended.append(run.id)
    return ended


def current_run(
    journal: Journal, environ: Mapping[str, str] | None = None, *, latest: bool = False
) -> Run | None:
    """The run a CLI command means: INTERLOCK_RUN, else the pinned run, else the open run of
    the calling agent, else the most recently active open run (or, with latest, the newest
    run even if it ended)."""
    env = os.environ if environ is None else environ
    named = env.get(constants.ENV_RUN)
    if named:
        found = records.get_run(journal, named)
        if found is not None:
            return found
    opened = records.open_runs(journal)
    for run in opened:
        if run.pinned:
            return run
    key = agent.agent_key(agent.agent_process())
    for run in opened:
        if run.agent == key:
            return run
    if opened:
        return max(opened, key=lambda r: records.run_activity(journal, r.id)[1] or r.started)
    if latest:
        newest = records.list_runs(journal, limit=1)
        return newest[0] if newest else None
    return None


_PRERUN_CACHE: dict[str, frozenset[str]] = {}


def prerun_paths(loc: RepoLocation, run: Run) -> frozenset[str]:
    """Paths holding pre-run work: unsaved at the baseline (they differ between HEAD at the
    baseline and the baseline snapshot: changed, staged, untracked, hand-made ignored)."""
    if run.baseline is None:
        return frozenset()
    cached = _PRERUN_CACHE.get(run.baseline)
    if cached is not None:
        return cached
    repo = open_repo(loc)
    snap = read_commit(repo, run.baseline)
    head = read_commit(repo, run.head) if run.head else None
    if snap is None:
        raise FileNotFoundError(f"the baseline snapshot {run.baseline[:12]} is gone")
    changes = diff_trees(repo, head[0] if head else None, snap[0])
    paths = frozenset(display_path(c.path) for c in changes)
    _PRERUN_CACHE[run.baseline] = paths
    return paths


def inside_run(environ: Mapping[str, str] | None = None) -> str | None:
    """Why this process runs inside a run's command (so a person is not the one asking), or
    None: the variables the wrapper sets for its command, or an ancestor that is the wrapper.
    (INTERLOCK_RUN alone is not a sign: a person may set it in their own shell.)"""
    env = os.environ if environ is None else environ
    for name in (constants.ENV_WRAPPED, constants.ENV_ATTEMPT):
        if env.get(name):
            return f"{name} is set"
    from interlock import procinfo

    pid = procinfo.parent_pid()
    for _ in range(32):
        if pid is None or pid <= 1:
            return None
        cmdline = procinfo.process_cmdline(pid) or ()
        if any(
            "interlock.run.wrapper" in part or os.path.basename(part) == "interlock-sh"
            for part in cmdline
        ):
            return f"process {pid} above this one is interlock's shell wrapper"
        pid = procinfo.parent_pid(pid)
    return None


def run_snapshot(loc: RepoLocation, kind: str) -> str | None:
    """The current open run's snapshot of a kind, as a commit id: `baseline` is its baseline,
    `green` its newest green point (else its baseline, the last state known to be the run's
    start). None without an open run."""
    from interlock.journal import opened
    from interlock.memory.snapshot import list_snapshots

    with opened(loc) as journal:
        run = current_run(journal)
    if run is None:
        return None
    if kind == "green":
        greens = [s for s in list_snapshots(loc, kind="green") if s.run == run.id]
        if greens:
            return greens[0].oid
    return run.baseline
