"""One recovery of a stuck search, then stop.

On `stuck_search`: set the uncertified patch aside (a snapshot under the run's id, nothing
deleted), restore the tree to the run's last green point (else its baseline), and tell the
agent, with what the last attempts tried and how each failed, to narrow the step and try
exactly one new approach. The next material attempt decides: if it moves the failing set
(either way) the run goes on; if not, the run stops and hands off. A second recovery of the
same step needs something to have changed since the first: the failing set, or a person's
new objective on the board; and a run has RECOVERY_CEILING recoveries at most. When the restore cannot be proven, the tree is left as it is and
the same request is made (an advisory recovery): it still is the step's one recovery.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from interlock.git import RepoLocation
from interlock.monitor import evidence, todo
from interlock.monitor.rollback import Rollback, roll_back, rollback_point
from interlock.monitor.say import message
from interlock.monitor.state import MonitorState, Stored
from interlock.monitor.stuck import Verdict
from interlock.run.records import Run

SEARCH = "search"
CONTEXT = "context"  # a stuck_environment the world checks called a context problem
RECOVERY_CEILING = 3  # recoveries a run may have, whatever changed between them


def may_recover(loc: RepoLocation, st: MonitorState, step: str, failing: Sequence[str]) -> bool:
    """Whether this step may have a recovery now (see the module docstring)."""
    searches = [r for r in st.recoveries if r.get("kind") == SEARCH]
    if len(searches) + (st.recovery is not None) >= RECOVERY_CEILING:
        return False
    earlier = [r for r in searches if r.get("step") == step]
    if not earlier:
        return True
    last = earlier[-1]
    if sorted(last.get("set") or []) != sorted(failing):
        return True
    since = float(last.get("time") or 0)
    return any(i.person and i.added > since for i in todo.read_board(loc))


def start(
    loc: RepoLocation,
    run: Run,
    st: MonitorState,
    verdict: Verdict,
    stored: Sequence[Stored],
    before_tree: str | None,
) -> tuple[str, dict[str, Any], Rollback | None]:
    """Recover a stuck search: (message, the recovery as kept in the state, the rollback)."""
    last = stored[-1]
    flat = [stored[i] for i in verdict.evidence] or list(stored[-3:])
    rows = evidence.attempt_lines(loc, stored, before_tree)
    tried = [evidence.render_attempt(r) for r in rows if r["attempt"] in {s.attempt for s in flat}]
    point = rollback_point(loc, run)
    done = roll_back(loc, run, point) if point is not None else None
    recovery = {
        "kind": SEARCH,
        "step": last.record.step,
        "set": list(last.record.failing),
        "time": time.time(),
        "turn": st.turns,
        "record": last.index,
        "status": "pending",
        "point": point.id if point else None,
        "set_aside": done.set_aside.id if done and done.set_aside else None,
        "declined": done.declined if done else "no snapshot to go back to",
        "tried": tried,
    }
    return _message(verdict, last, tried, point, done), recovery, done


def _message(
    verdict: Verdict,
    last: Stored,
    tried: list[str],
    point: Any,
    done: Rollback | None,
) -> str:
    failing = list(last.record.failing)
    fields: list[tuple[str, str]] = [
        (
            "failing",
            ", ".join(failing[:4]) + (f" (+{len(failing) - 4} more)" if len(failing) > 4 else ""),
        ),
        ("tried", "\n".join(tried) or "(no records)"),
    ]
    if done is not None and done.done and done.set_aside is not None:
        fields.append(
            (
                "set aside",
                f"your patch is snapshot {done.set_aside.id} (see it: interlock diff "
                f"{done.set_aside.id}; take back one file: interlock restore "
                f"{done.set_aside.id} --paths FILE)",
            )
        )
        fields.append(
            (
                "restored",
                f"the tree is back at {point.kind} point {point.id} ({done.written} written, "
                f"{done.deleted} deleted)",
            )
        )
    else:
        why = done.declined if done is not None else "there is no point to go back to"
        fields.append(("not restored", f"the tree was left as it is: {why}"))
    fields.append(
        (
            "instead",
            "narrow the step and try exactly one new approach; if it does not move the "
            "failing set, the run stops and hands off to a person",
        )
    )
    return message("stuck", f"stepping back once: {verdict.reason}", fields)


def judge(st: MonitorState, stored: Stored, min_distance: float) -> str | None:
    """After a recovery: 'moved', 'flat' (the one new approach did not move the failing
    set), or None (not decided yet: no material attempt since the recovery)."""
    recovery = st.recovery
    if recovery is None:
        return None
    distance = stored.record.patch_distance
    if distance is None or distance < min_distance:
        return None
    same = sorted(stored.record.failing) == sorted(recovery.get("set") or [])
    return "flat" if same else "moved"


def moved_message(recovery: dict[str, Any], stored: Stored) -> str:
    before = len(recovery.get("set") or [])
    after = len(stored.record.failing)
    return message(
        "stuck",
        f"the new approach moved the failing set ({before} -> {after} failing): the run goes on",
    )
