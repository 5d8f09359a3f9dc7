"""Progress, stalls and the turn budget.

Progress events: an objective closed (the outstanding count went down; adding objectives is
planning), a file mutated for the first time in the run (editing one file again is flat),
verification turning green (the latched verification state: a green point after a failing
check or none; not the tier-aware "is this tree verified" flag, which edits reset: staleness
asks "verify again?", progress asks "did the run reach a new state?").

`[stall]` (`progress_stall_threshold` set): after that many barren turns (a turn is a command
of the run, or `interlock turn` from a harness), at most STALL_CEILING times a run, counting
a full threshold again after each notice; armed only once the run made its first progress.
`[budget]` (`max_turns` set): at 60% and at 85% of the turns, once each.
"""

from __future__ import annotations

import math

from interlock.monitor.say import message
from interlock.monitor.state import MonitorState
from interlock.monitor.todo import Item

STALL_CEILING = 2
BUDGET_MARKS = (60, 85)  # percent of max_turns


def note_progress(st: MonitorState, what: str) -> None:
    """A progress event at this turn: the stall count starts again (and is armed)."""
    st.last_progress = st.turns
    st.stall_from = st.turns
    st.progress_what = what


def first_mutations(st: MonitorState, changed: list[str]) -> list[str]:
    """Paths changed now that the run had not mutated before (remembered from now on)."""
    seen = set(st.touched)
    new = [p for p in changed if p not in seen]
    st.touched.extend(new)
    return new


def barren(st: MonitorState) -> int:
    """Turns since the last progress event or stall notice (0 while not armed)."""
    if st.stall_from is None:
        return 0
    return st.turns - st.stall_from


def stall_notice(st: MonitorState, threshold: int | None) -> str | None:
    """The `[stall]` message due at this turn, or None (and spends it)."""
    if threshold is None or st.last_progress is None or st.stalls >= STALL_CEILING:
        return None
    if barren(st) < threshold:
        return None
    st.stalls += 1
    st.stall_from = st.turns
    last = st.progress_what or "the run's last progress"
    left = STALL_CEILING - st.stalls
    return message(
        "stall",
        f"{threshold} turns without progress: no objective closed, no new file changed, "
        "no new green",
        (
            ("last", f"progress at turn {st.last_progress}: {last}"),
            (
                "why",
                "a run that keeps busy without reaching a new state is burning its turns"
                + (f" ({left} more stall notice this run)" if left else " (the last stall notice)"),
            ),
            (
                "instead",
                "name the next concrete objective (interlock todo add ...) and make the one "
                "change that moves it",
            ),
        ),
    )


def budget_marks_due(st: MonitorState, max_turns: int | None) -> list[int]:
    """Budget marks (percent) this turn reached that were not announced yet."""
    if max_turns is None:
        return []
    return [
        mark
        for mark in BUDGET_MARKS
        if mark not in st.budget and st.turns >= math.ceil(max_turns * mark / 100)
    ]


def budget_notice(st: MonitorState, max_turns: int | None, outstanding: list[Item]) -> str | None:
    """The `[budget]` message due at this turn, or None (and spends the marks reached)."""
    due = budget_marks_due(st, max_turns)
    if not due or max_turns is None:
        return None
    st.budget.extend(due)
    mark = max(due)
    left = max_turns - st.turns
    open_text = (
        f"{len(outstanding)} objective(s) open: "
        + "; ".join(f"#{i.id} {i.text}" for i in outstanding[:3])
        + (" ..." if len(outstanding) > 3 else "")
        if outstanding
        else "no objective open on the board"
    )
    return message(
        "budget",
        f"{st.turns} of {max_turns} turns used ({mark}%): {left} left before the run stops",
        (
            ("open", open_text),
            ("why", "at max_turns the run stops and hands off, finished or not"),
            (
                "instead",
                "finish the objective in hand and verify it (the full suite) before starting "
                "another",
            ),
        ),
    )
