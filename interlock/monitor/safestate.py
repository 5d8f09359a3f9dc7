"""The safe-state rung (`safe_state_abort`: off | advisory | auto).

It fires when the failure streak (validator runs failing in a row) reaches twice the
checkpoint threshold (`repeat_threshold`: 6 failures with the default 3), unverified edits sit
on the tree (it differs from the run's last green point), and that green point exists; at
most SAFE_STATE_CEILING times a run and once per streak. It carries the abandoned approaches
and their failure excerpts, and asks for one new approach, not a menu.

- advisory: writes nothing; names the known-good point, and the restore command only when a
  dry run proves the restore would succeed (never a command it cannot stand behind).
- auto: sets the tree's work aside and restores the green point (interlock.monitor.rollback);
  when any path cannot be restored it declines, and says what advisory says.
"""

from __future__ import annotations

from collections.abc import Sequence

from interlock.config import Config
from interlock.errors import InterlockError
from interlock.git import RepoLocation
from interlock.memory.catalog import SnapshotInfo
from interlock.memory.restore import restore_snapshot
from interlock.monitor import evidence
from interlock.monitor.rollback import roll_back, rollback_point
from interlock.monitor.say import message
from interlock.monitor.state import MonitorState, Stored
from interlock.run.records import Run

SAFE_STATE_CEILING = 2
TRIED_SHOWN = 4


def due(st: MonitorState, config: Config, red: bool) -> bool:
    """Whether the rung's streak and budget allow it now (the tree is looked at after)."""
    if config.safe_state_abort == "off" or not red:
        return False
    if st.streak_fired or st.safe_states >= SAFE_STATE_CEILING:
        return False
    return st.streak >= 2 * config.repeat_threshold


def _provable(loc: RepoLocation, run: Run, green: SnapshotInfo) -> str | None:
    """Why a restore of the green point could not be stood behind, or None."""
    try:
        plan = restore_snapshot(loc, green, dry_run=True, run=run.id)
    except InterlockError as exc:
        return str(exc)
    if plan.skipped:
        return f"{len(plan.skipped)} path(s) cannot be restored"
    return None


def fire(
    loc: RepoLocation,
    run: Run,
    config: Config,
    st: MonitorState,
    stored: Sequence[Stored],
    tree_now: str,
    before_tree: str | None,
) -> str | None:
    """The `[safe-state]` message, acting first in auto mode; None when it does not apply
    (no green point, or the tree is that green point)."""
    green = rollback_point(loc, run, green_only=True)
    if green is None or green.tree == tree_now:
        return None
    st.streak_fired = True
    st.safe_states += 1
    changes = evidence.changed_paths(loc, green.tree, tree_now)
    rows = evidence.attempt_lines(loc, stored, before_tree)[-st.streak :][-TRIED_SHOWN:]
    fields: list[tuple[str, str]] = [
        ("abandoned", "\n".join(evidence.render_attempt(r) for r in rows) or "(no records)"),
        (
            "unverified",
            f"{len(changes)} path(s) changed since green: {evidence.paths_summary(changes)}",
        ),
    ]
    headline = (
        f"{st.streak} failing checks in a row on top of green point {green.id}, with "
        "unverified edits"
    )
    if config.safe_state_abort == "auto":
        done = roll_back(loc, run, green)
        if done.done and done.set_aside is not None:
            fields.append(
                (
                    "restored",
                    f"the tree is back at green point {green.id}; your edits are snapshot "
                    f"{done.set_aside.id} (interlock diff {done.set_aside.id}; one file back: "
                    f"interlock restore {done.set_aside.id} --paths FILE)",
                )
            )
            fields.append(("instead", "from this known-good tree, try one new approach"))
            return message("safe-state", headline + ": restored it", fields)
        fields.append(("not restored", f"auto declined, nothing was changed: {done.declined}"))
    problem = _provable(loc, run, green)
    if problem is None:
        fields.append(
            (
                "known good",
                f"green point {green.id} (interlock diff {green.id} shows your edits; "
                f"interlock restore {green.id} goes back, saving them first)",
            )
        )
    else:
        fields.append(("known good", f"green point {green.id} (not restorable as is: {problem})"))
    fields.append(
        ("instead", "stop patching on top of this streak: pick one new approach and try it")
    )
    return message("safe-state", headline, fields)
