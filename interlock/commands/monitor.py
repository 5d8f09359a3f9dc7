"""`interlock monitor classify`, `interlock turn`, `interlock handoff`."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from typing import Any

from interlock import exitcodes, output
from interlock.errors import InterlockError
from interlock.git import require_repo
from interlock.journal import Journal
from interlock.monitor import desk, handoff, state
from interlock.monitor.handoff import Why
from interlock.monitor.settings import from_raw
from interlock.monitor.stuck import classify as classify_trace
from interlock.monitor.trace import TraceError, trace_from_json
from interlock.run import records, session
from interlock.run.link import inline_worktree
from interlock.run.records import Run


def _read_traces(path: str) -> list[Any]:
    """The trace objects of a file: one JSON object, or one per line (JSON Lines)."""
    try:
        text = sys.stdin.read() if path == "-" else open(path, encoding="utf-8").read()
    except OSError as exc:
        raise InterlockError(f"cannot read {path}: {exc.strerror}") from exc
    except UnicodeDecodeError as exc:
        raise InterlockError(f"{path} is not UTF-8 text ({exc.reason})") from exc
    try:
        return [json.loads(text)]
    except ValueError:
        pass
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            found.append(json.loads(line))
        except ValueError as exc:
            raise InterlockError(
                f"{path}: line {number} is not JSON ({exc})",
                hint='give one {"records": [...], "config": {...}} object, or one per line',
            ) from None
    if not found:
        raise InterlockError(f"{path} holds no trace", hint='{"records": [...], "config": {}}')
    return found


def _warner(prefix: str) -> Callable[[str], None]:
    return lambda text: output.warn(prefix + text)


def classify(path: str, as_json: bool) -> int:
    traces = _read_traces(path)
    for number, data in enumerate(traces, 1):
        where = f"{path}:{number}: " if len(traces) > 1 else f"{path}: "
        try:
            found, config = trace_from_json(data)
        except TraceError as exc:
            raise InterlockError(f"{where}{exc}") from None
        settings, warnings = from_raw(config)
        for warning in warnings:
            output.warn(f"{where}{warning}")
        verdict = classify_trace(found, settings, _warner(where))
        if as_json:
            output.write_json(verdict.to_json())
        else:
            name = f"{data.get('name')}: " if isinstance(data.get("name"), str) else ""
            output.write_out(f"{name}{verdict.status}: {verdict.reason}")
    return exitcodes.OK


def _current(journal: Journal, run_id: str | None, latest: bool) -> Run:
    run = (
        records.get_run(journal, run_id) if run_id else session.current_run(journal, latest=latest)
    )
    if run is None:
        raise InterlockError(
            f"no run {run_id!r} in this worktree" if run_id else "no open run in this worktree",
            hint="commands through interlock-sh start a run; so does: interlock run start",
        )
    return run


def _settings_pairs(pairs: tuple[str, ...]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for pair in pairs:
        key, eq, raw = pair.partition("=")
        if not eq or not key.strip():
            raise InterlockError(
                f"--set {pair!r}: expected KEY=VALUE", hint="--set repeat_threshold=6"
            )
        try:
            value: Any = json.loads(raw)
        except ValueError:
            value = raw  # a bare word: monotone_metric=remaining_sites
        found[key.strip()] = value
    return found


def turn(
    cwd: str | None,
    count: bool,
    failed: bool,
    step: str | None,
    sets: tuple[str, ...],
    experiment: bool,
) -> int:
    if (sets or experiment) and (why := session.inside_run()) is not None:
        raise InterlockError(
            f"--set and --experiment are for the harness, outside the run's commands ({why})",
            hint="a harness marks its agent's steps; the agent cannot relax its own detector",
        )
    overrides = _settings_pairs(sets)
    loc = require_repo(cwd)
    wt = inline_worktree(os.fspath(loc.worktree))
    try:
        run = _current(wt.journal, None, latest=False)
        code, said = desk.harness_turn(
            wt,
            run,
            count=count,
            failed=failed,
            step=step,
            overrides=overrides,
            experiment=experiment,
            warn=output.warn,
        )
    finally:
        wt.journal.close()
    for line in said:
        output.write_err(line)
    return code


def _on_demand(run: Run) -> Why:
    return Why(
        "asked",
        "a handoff was asked for (interlock handoff)" if run.is_open else "the run ended",
        "continue with the open objectives, after reading what changed since the last green point",
    )


def show_handoff(cwd: str | None, run_id: str | None, as_json: bool) -> int:
    loc = require_repo(cwd)
    wt = inline_worktree(os.fspath(loc.worktree))
    try:
        run = _current(wt.journal, run_id, latest=True)
        stopped = state.stop_of(wt.journal, run.id)
        data = handoff.read(loc, run.id) if stopped else None
        if data is None:
            turns = state.load(wt.journal, run.id).turns
            data = handoff.build(loc, wt.journal, run, _on_demand(run), turns, wt.tree_now())
            handoff.write(loc, data)
    finally:
        wt.journal.close()
    if as_json:
        output.write_json(data)
        return exitcodes.OK
    md, _ = handoff.handoff_paths(loc, run.id)
    output.write_out(handoff.render_markdown(data).rstrip("\n"))
    output.write_err(f"interlock: [handoff] written to {md} (and .json beside it)")
    return exitcodes.OK
