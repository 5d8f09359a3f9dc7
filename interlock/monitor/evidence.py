"""The evidence the monitor shows: what each attempt tried and how it failed, the failing
set's history, the paths changed since a point. Read from the stored records and their trees,
so it says what interlock saw, not what the agent said it did.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from interlock.git import RepoLocation, open_repo
from interlock.memory.catalog import iso_time
from interlock.memory.scan import display_path
from interlock.memory.trees import Change, diff_trees
from interlock.monitor.errortext import first_line
from interlock.monitor.state import Stored

SHOWN_PATHS = 4


def changed_paths(loc: RepoLocation, old: str | None, new: str | None) -> list[Change]:
    if new is None:
        return []
    return diff_trees(open_repo(loc), old, new)


def change_word(change: Change) -> str:
    if change.old is None:
        return "added"
    if change.new is None:
        return "deleted"
    return "modified"


def _paths_text(changes: Sequence[Change]) -> str:
    names = [display_path(c.path) for c in changes[:SHOWN_PATHS]]
    more = len(changes) - len(names)
    return ", ".join(names) + (f" (+{more} more)" if more > 0 else "")


def attempt_lines(
    loc: RepoLocation, stored: Sequence[Stored], before_tree: str | None
) -> list[dict[str, Any]]:
    """Each record as {attempt, command, changed, failing, error}: what it tried (the paths
    its patch changed since the record before) and how it failed."""
    rows: list[dict[str, Any]] = []
    previous = before_tree
    for item in stored:
        changes = changed_paths(loc, previous, item.tree) if item.tree != previous else []
        previous = item.tree or previous
        record = item.record
        rows.append(
            {
                "attempt": item.attempt,
                "time": iso_time(item.time),
                "command": record.last_call,
                "exit": record.exit,
                "changed": [display_path(c.path) for c in changes],
                "patch_lines": record.patch_lines,
                "patch_distance": record.patch_distance,
                "failing": list(record.failing),
                "error": first_line(record.last_error),
            }
        )
    return rows


def render_attempt(row: dict[str, Any]) -> str:
    """One line: `#12 pytest -q · changed calc.py · 1 failing · AssertionError: ...`."""
    changed = row["changed"]
    parts = [f"#{row['attempt']} `{row['command']}`"]
    if changed:
        names = changed[:SHOWN_PATHS]
        more = len(changed) - len(names)
        parts.append("changed " + ", ".join(names) + (f" (+{more} more)" if more > 0 else ""))
    else:
        parts.append("no edit")
    failing = row["failing"]
    parts.append(f"{len(failing)} failing" if failing else f"exit {row['exit']}")
    if row["error"]:
        parts.append(row["error"])
    return " · ".join(parts)


def failing_history(stored: Sequence[Stored]) -> list[dict[str, Any]]:
    """The failing set over the records, one entry per stretch where it did not change:
    {failing, first_attempt, last_attempt, since, attempts}, oldest first."""
    stretches: list[dict[str, Any]] = []
    for item in stored:
        failing = list(item.record.failing)
        if stretches and stretches[-1]["failing"] == failing:
            stretches[-1]["last_attempt"] = item.attempt
            stretches[-1]["attempts"] += 1
            continue
        stretches.append(
            {
                "failing": failing,
                "first_attempt": item.attempt,
                "last_attempt": item.attempt,
                "since": item.time,
                "attempts": 1,
            }
        )
    return stretches


def paths_summary(changes: Sequence[Change]) -> str:
    return _paths_text(changes) if changes else "no path"
