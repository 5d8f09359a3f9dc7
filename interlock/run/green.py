"""Verified green: when a validator's pass makes the tree a green point.

A command makes the tree green when all of these hold:
- it exited 0, and a slow-tier validator in it ran unmasked (its failure would have failed
  the command; not narrowed to some tests);
- its output shows more than 0 tests ran and none failed (a runner whose output cannot be
  read counts only when the project declares it in `validators`);
- the count did not fall sharply against the last full run of the same command (fewer than
  COUNT_DROP_RATIO of it): a suite that shrank is flagged, not credited;
- no validator definition was weakened since the run's baseline (`interlock audit` against
  the baseline: a test the run edited until it agrees, a conftest that forges outcomes, a
  check script the run wrote itself);
- the validator was not read from a script file (`./ci.sh` running `pytest`) that the run
  wrote or changed: a file absent from the baseline, different from it, or outside the
  worktree is the run's own exam.
Then a `green` snapshot is taken (or the run's newest one is named again when it holds the
very same tree). Green means *seen passing*: a fast-tier pass (a linter, one
targeted test) is recorded as a fast pass of that tree, never as green.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from interlock import constants
from interlock.audit import TAMPERED, audit_worktree
from interlock.journal import Journal
from interlock.memory.catalog import SnapshotInfo
from interlock.memory.snapshot import list_snapshots
from interlock.run import records
from interlock.run.outcome import Outcome, parse_outcome
from interlock.run.records import Attempt, Run
from interlock.run.session import Worktree


@dataclass
class GreenCall:
    """What the completion of a validator command decided."""

    tier: str | None  # the tier seen passing: slow | fast | None
    green: str | None = None  # the green snapshot's id
    why_not: str | None = None
    outcome: Outcome | None = None
    tree: str | None = None
    messages: list[str] = field(default_factory=list)

    def data(self) -> dict[str, Any]:
        return {
            "passed_tier": self.tier,
            "why_not_green": self.why_not,
            "outcome": self.outcome.to_json() if self.outcome is not None else None,
            "tree": self.tree,
        }


def _primary(validators: Sequence[dict[str, Any]]) -> dict[str, Any]:
    unmasked = [v for v in validators if not v.get("masked")]
    slow = [v for v in unmasked if v.get("tier") == "slow"]
    return (slow or unmasked or list(validators))[0]


def _last_full_run(journal: Journal, run: str, text: str, before: int) -> int | None:
    """Tests run by the last completed, unmasked run of the same validator command."""
    for attempt in reversed(records.attempts_of(journal, run)):
        if attempt.id >= before or attempt.completion is None:
            continue
        validators = attempt.data.get("validators") or []
        if not any(v.get("text") == text and not v.get("masked") for v in validators):
            continue
        outcome = attempt.completion.data.get("outcome") or {}
        if isinstance(outcome.get("ran"), int) and outcome["ran"] > 0:
            return int(outcome["ran"])
    return None


def _count_problem(outcome: Outcome, declared: bool, tool: str) -> str | None:
    if outcome.no_tests:
        return "no tests ran"
    if not outcome.parsed:
        if declared:
            return None
        return f"interlock could not read how many tests {tool} ran (only its exit status)"
    if outcome.failed is None:  # two summaries that disagree (an echoed one?): no count at all
        return f"interlock could not tell how many tests {tool} ran (its summaries disagree)"
    if outcome.failed > 0:
        return f"{outcome.failed} test(s) failed although the command exited 0"
    if outcome.ran == 0:
        return "no tests ran"
    return None  # ran > 0, or a runner that names no count when all pass (plain `go test`)


def audit_problem(wt: Worktree, run: Run) -> str | None:
    try:
        report = audit_worktree(wt.loc, run.baseline)
    except Exception as exc:  # an audit that cannot run proves nothing: no credit
        return f"the validator audit failed ({type(exc).__name__}: {exc})"
    if report.verdict != TAMPERED:
        return None
    shown = "; ".join(
        f"{f.location()}: {f.detail}" for f in report.findings if f.severity == TAMPERED
    )
    return f"validator definitions were weakened since the baseline: {shown}"


def script_problem(wt: Worktree, run: Run, validator: dict[str, Any]) -> str | None:
    """Why the script files a validator was read from make its pass self-authored, or None."""
    scripts = [str(p) for p in validator.get("scripts") or ()]
    if not scripts or run.baseline is None:
        return None
    from interlock.git import hash_file
    from interlock.memory.snapshot import snapshot_tree_files

    root = os.path.realpath(wt.loc.worktree)
    baseline = snapshot_tree_files(wt.loc, run.baseline)
    for path in scripts:
        real = os.path.realpath(path)
        if not real.startswith(root + os.sep):
            return f"{path}, which runs {validator.get('text')}, is outside the worktree"
        rel = os.path.relpath(real, root)
        entry = baseline.get(os.fsencode(rel))
        if entry is None:
            return f"{rel}, which runs {validator.get('text')}, did not exist at the baseline"
        try:
            changed = hash_file(os.fsencode(real)) != entry[1]
        except OSError:
            changed = True
        if changed:
            return f"{rel}, which runs {validator.get('text')}, was changed by this run"
    return None


def decide_green(
    wt: Worktree, run: Run, attempt: Attempt, exit_code: int | None, tail: str | None
) -> GreenCall:
    """Judge one finished top-level validator command (see the module docstring)."""
    validators = attempt.data.get("validators") or []
    primary = _primary(validators)
    tool = str(primary.get("tool") or primary.get("text") or "")
    outcome = parse_outcome(tool, tail or "", exit_code if exit_code is not None else 1)
    call = GreenCall(tier=None, outcome=outcome)
    if exit_code != 0:
        return call
    if primary.get("masked"):
        call.why_not = f"{primary.get('text')} was masked: {primary.get('masked_by')}"
        return call
    call.tree = wt.tree_now()
    call.tier = str(primary.get("tier"))
    if call.tier != "slow":
        return call  # a fast pass: recorded, never green
    problem = script_problem(wt, run, primary) or audit_problem(wt, run)
    if problem is not None:
        call.why_not = problem
        call.messages.append(f"interlock: [self-authored] not credited as green: {problem}")
        return call
    call.why_not = _count_problem(outcome, bool(primary.get("declared")), tool)
    if call.why_not is None and outcome.ran:
        before = _last_full_run(wt.journal, run.id, str(primary.get("text")), attempt.id)
        if before is not None and outcome.ran < before * constants.COUNT_DROP_RATIO:
            call.why_not = (
                f"{outcome.ran} tests ran, against {before} in the last full run of "
                f"`{primary.get('text')}`: a suite that shrank this much is not credited"
            )
    if call.why_not is not None:
        call.messages.append(f"interlock: [green] not credited: {call.why_not}")
        return call
    info = _same_green(wt, run, call.tree) or wt.snapshot(
        "green", {"message": _summary(outcome), "run": run.id, "command": attempt.command}
    )
    call.green, call.tree = info.id, info.tree
    call.messages.append(
        f"interlock: [green] {_summary(outcome)} · snapshot {info.id} · tree verified green"
    )
    return call


def _same_green(wt: Worktree, run: Run, tree: str) -> SnapshotInfo | None:
    """The run's newest green snapshot when it holds this very tree (no second snapshot)."""
    for snap in list_snapshots(wt.loc, kind="green"):
        if snap.run == run.id:
            return snap if snap.tree == tree else None
    return None


def _summary(outcome: Outcome) -> str:
    if outcome.passed is not None and outcome.parsed:
        skipped = f", {outcome.skipped} skipped" if outcome.skipped else ""
        return f"{outcome.passed} passed{skipped}"
    return "passed (exit status 0)"
