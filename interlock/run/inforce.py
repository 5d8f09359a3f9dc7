"""The config in force: a run's, frozen at its baseline, and what a hook applies while runs
are live.

A run keeps the config resolved when it started (`.interlock.toml`, `[tool.interlock]`,
INTERLOCK_MODE), so editing or deleting the file mid-run changes nothing until a person starts
a new run (DESIGN.md). The wrapper judges each command with its run's config (`run_config`).
The git hooks cannot always tell which run a commit belongs to (INTERLOCK_RUN is only a hint:
the command may unset it), so while any run is live they apply `config_in_force`: the file's
config raised, key by ranked key, to the strictest of every live run's. A run started beside
live ones gets the same merge (`strictest`), so starting a run never relaxes the rules either.

A run is live while it is open and its agent process runs (a run started by a person or named
by INTERLOCK_RUN: while a command came in the last RUN_LIVE_SECONDS).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from interlock import constants
from interlock.config import Config, config_from_json, config_to_json, load_config
from interlock.git import RepoLocation
from interlock.journal import Journal, journal_path, opened
from interlock.run import agent, records
from interlock.run.records import Run

# Ranked keys, laxest first: a merge takes the strictest value any source has.
STRICTNESS = {
    "mode": ("off", "advisory", "blocking"),
    "verification_tiers": ("off", "advisory", "blocking"),
    "discards": ("by-owner", "refuse"),
}


# Resolved run configs by run id, with the stored text they came from: the daemon resolves a
# run's config two or three times a command (~0.1 ms each); a hit must match the stored data.
_RESOLVED: dict[str, tuple[dict[str, Any], Config]] = {}
_RESOLVED_KEPT = 64


def run_config(run: Run) -> Config:
    """The config in force for a run: the one resolved at its baseline."""
    held = _RESOLVED.get(run.id)
    if held is not None and held[0] == run.config:
        return held[1]
    config = config_from_json(run.config, f"run {run.id} baseline")
    if len(_RESOLVED) >= _RESOLVED_KEPT:
        _RESOLVED.clear()
    _RESOLVED[run.id] = (dict(run.config), config)
    return config


def is_live(journal: Journal, run: Run, now: float | None = None) -> bool:
    """Open, and its agent still runs (or, without one, a command came in the last 30 min)."""
    if not run.is_open:
        return False
    if run.origin == "agent" and run.agent:
        pid, _, started = run.agent.partition(":")
        return agent.is_running(int(pid), int(started) if started else None)
    last = records.run_activity(journal, run.id)[1] or run.started
    return (time.time() if now is None else now) - last < constants.RUN_LIVE_SECONDS


def strictest(mine: Mapping[str, Any], others: list[Run]) -> dict[str, Any]:
    """`mine`, with each ranked key raised to the strictest value a run in `others` uses."""
    merged = dict(mine)
    for key, order in STRICTNESS.items():
        values = [merged.get(key)] + [r.config.get(key) for r in others]
        ranked = [order.index(v) for v in values if v in order]
        if ranked:
            merged[key] = order[max(ranked)]
    return merged


def live_runs(journal: Journal) -> list[Run]:
    return [r for r in records.open_runs(journal) if is_live(journal, r)]


def config_in_force(loc: RepoLocation, environ: Mapping[str, str] | None = None) -> Config:
    """What a hook applies in this worktree: the file's config (and INTERLOCK_MODE from
    `environ`), raised to the strictest of every live run's frozen config."""
    config = load_config(loc.worktree, environ=environ)
    with opened(loc) as journal:
        live = live_runs(journal)
    if not live:
        return config
    merged = strictest(config_to_json(config), live)
    if merged == config_to_json(config):
        return config
    names = ", ".join(r.id for r in live)
    return config_from_json(merged, f"the live run(s) {names}, frozen at their baselines")


def frozen_elsewhere(loc: RepoLocation, config: Config) -> list[tuple[Run, list[str]]]:
    """Each live run whose frozen config differs from `config` (the file's, as resolved now),
    with the keys that differ: what `config show` and `doctor` tell a person who edited the file
    mid-run, since the run keeps its baseline's values until a new run starts."""
    if not journal_path(loc).exists():
        return []  # no run ever started here; opening the journal would create it
    mine = config_to_json(config)
    with opened(loc) as journal:
        live = live_runs(journal)
    found = []
    for run in live:
        keys = [k for k in mine if k in run.config and run.config[k] != mine[k]]
        if keys:
            found.append((run, keys))
    return found
