"""Verification tiers: nudges toward checking the work, and the end-of-task question.

- Mid-run: after three edited files with no validator run since, one `[verify-before-done]`
  nudge toward a fast check (the daemon counts edits from its watcher; without the daemon
  there is no count and no nudge: the signal errs toward silence).
- At the end (`interlock done`, or the pre-commit hook inside a run): the tree is verified
  green when a green snapshot holds exactly the tree now. Else, when only fast checks passed
  on this tree, one escalation asks for the full suite; when nothing passed on it, the
  unverified message. In blocking mode (`verification_tiers = "blocking"`) the end-of-task
  check fails when the tree is not verified green.
- Budgets: each run may get at most 1, 2 or 3 messages of each kind (`verification_tiers`
  off, advisory, blocking); the unverified nudge and the tier escalation count apart. With
  `off` there are no mid-run nudges and the end-of-task check never fails.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass

from interlock import exitcodes
from interlock.config import Config
from interlock.journal import Journal, append_event
from interlock.memory.snapshot import list_snapshots
from interlock.regenerable import is_regenerable
from interlock.run import records
from interlock.run.records import Attempt, Run
from interlock.run.session import Worktree

TAG = "verify-before-done"
CEILINGS = {"off": 1, "advisory": 2, "blocking": 3}
EDITS_BEFORE_NUDGE = 3


class EditStreak:
    """Files edited since the last validator began (fed by the daemon's watcher)."""

    def __init__(self) -> None:
        self._paths: set[str] = set()
        self._nudged = False
        self._lock = threading.Lock()

    def note(self, rel: str) -> None:
        if rel and not is_regenerable(rel) and not rel.startswith(".git/"):
            with self._lock:
                if len(self._paths) < 64:
                    self._paths.add(rel)

    def validator_began(self) -> None:
        with self._lock:
            self._paths.clear()
            self._nudged = False

    def take_nudge(self, not_work: Callable[[str], bool]) -> int | None:
        """How many files were edited, once per streak of three or more; else None."""
        with self._lock:
            if self._nudged:
                return None
            edited = [p for p in self._paths if not not_work(p)]
            if len(edited) < EDITS_BEFORE_NUDGE:
                return None
            self._nudged = True
            logging.getLogger("interlock.run.tiers").info(
                "edited since the last check: %s", sorted(edited)
            )
            return len(edited)


def spend(journal: Journal, run: Run, config: Config, budget: str) -> bool:
    """Take one message of `budget` from the run's ceiling; False when it is spent."""
    key = f"{TAG}:{budget}"
    if records.count_events(journal, run.id, "message", key) >= CEILINGS.get(
        config.verification_tiers, 2
    ):
        return False
    append_event(journal, "message", {"key": key}, run=run.id)
    return True


def _validator_texts(attempts: list[Attempt], tier: str) -> list[str]:
    seen: list[str] = []
    for attempt in attempts:
        for v in attempt.data.get("validators") or []:
            if v.get("tier") == tier and not v.get("masked") and v.get("text") not in seen:
                seen.append(str(v.get("text")))
    return seen


def full_suite(config: Config, attempts: list[Attempt]) -> str:
    """The full suite to suggest: `the command`, or a description when none is known."""
    if config.validators:
        return f"`{config.validators[0]}`"
    slow = _validator_texts(attempts, "slow")
    return f"`{slow[-1]}`" if slow else "the project's full test suite"


def midrun_nudge(wt: Worktree, run: Run, config: Config, edited: int) -> str | None:
    if config.verification_tiers == "off" or not spend(wt.journal, run, config, "unverified"):
        return None
    fast = _validator_texts(records.attempts_of(wt.journal, run.id, limit=200), "fast")
    check = f"`{fast[-1]}`" if fast else "a fast check (the linter, or the tests of that code)"
    return (
        f"interlock: [{TAG}] {edited} files changed since the last check, and nothing has "
        f"verified them; run {check} before going further"
    )


def _passes_on(attempts: list[Attempt], tree: str) -> list[Attempt]:
    return [
        a
        for a in attempts
        if a.parent is None
        and a.completion is not None
        and a.completion.exit == 0
        and a.completion.data.get("tree") == tree
        and a.completion.data.get("passed_tier")
    ]


@dataclass(frozen=True)
class EndOfTask:
    """The answer to "is this run's work verified?": exit status, messages, and whether a
    green snapshot holds the tree now."""

    code: int
    lines: list[str]
    verified: bool
    spent: bool = True  # False: the run's budget for this message was spent (a short line)


def end_of_task(wt: Worktree, run: Run, config: Config) -> EndOfTask:
    """The end-of-task check of `interlock done` (see the module docstring)."""
    tree = wt.tree_now()
    greens = [s for s in list_snapshots(wt.loc, kind="green") if s.tree == tree]
    if greens:
        newest = greens[0]
        line = (
            f"interlock: [green] tree verified green: snapshot {newest.id} "
            f"({newest.message or 'passed'}, `{newest.command or '?'}`) holds the tree now"
        )
        return EndOfTask(exitcodes.OK, [line], True)
    attempts = records.attempts_of(wt.journal, run.id)
    passes = _passes_on(attempts, tree)
    suite = full_suite(config, attempts)
    failing = exitcodes.BLOCKED if config.verification_tiers == "blocking" else exitcodes.OK
    refused = [a.completion.data.get("why_not_green") for a in passes if a.completion]
    why = next((r for r in reversed(refused) if r), None)
    if passes:
        budget = "escalation"
        texts = sorted({str(v.get("text")) for a in passes for v in a.data.get("validators", [])})
        if why:
            seen = f"the full suite passed on this tree but was not credited: {why}"
        else:
            seen = f"only fast checks passed on this tree ({', '.join(texts)})"
        message = f"interlock: [{TAG}] {seen}; run {suite} and let it pass before you finish"
    else:
        budget = "unverified"
        message = (
            f"interlock: [{TAG}] nothing verified this tree: no check passed since the last "
            f"edit; run {suite} and let it pass before you finish"
        )
    if not spend(wt.journal, run, config, budget):
        return EndOfTask(failing, [f"interlock: [{TAG}] not verified green"], False, False)
    return EndOfTask(failing, [message], False)
