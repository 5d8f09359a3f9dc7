"""Metrics: numbers interlock measures on the tree at each attempt, by running the commands a
person declared in the config (`metrics = { todo_left = "grep -rc 'TODO(migration)' src |
awk -F: '{s+=$2} END {print s}'" }`), never numbers the agent reports.

A metric is the last number its command prints on stdout. A command that fails, prints no
number or runs past METRIC_SECONDS (all of them together: METRICS_SECONDS) gives no value: the metric is missing from that record,
and a missing value never shows a decrease (a broken metric never saves a stuck run).
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping

from interlock.monitor.shellrun import run_shell

METRIC_SECONDS = 10.0  # one metric's command, at most
METRICS_SECONDS = 20.0  # all of an attempt's metrics together, at most
MAX_METRICS = 8  # more than this many declared metrics: the first ones, by name
_NUMBER = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?")


def last_number(text: str) -> float | None:
    """The last number in `text`, or None."""
    found = _NUMBER.findall(text)
    if not found:
        return None
    try:
        return float(found[-1])
    except ValueError:
        return None


def measure(declared: Mapping[str, str], cwd: str) -> tuple[dict[str, float], dict[str, str]]:
    """(values, problems) of the declared metrics, measured in cwd (the worktree's top)."""
    values: dict[str, float] = {}
    problems: dict[str, str] = {}
    deadline = time.monotonic() + METRICS_SECONDS
    for name in sorted(declared)[:MAX_METRICS]:
        left = min(METRIC_SECONDS, deadline - time.monotonic())
        if left <= 0:
            problems[name] = f"not measured: the metrics took {METRICS_SECONDS:g} s already"
            continue
        ran = run_shell(declared[name], cwd, timeout=left, with_stderr=False)
        value = last_number(ran.output) if ran.exit == 0 else None
        if value is not None:
            values[name] = value
        else:
            problems[name] = ran.problem or (
                f"exit status {ran.exit}" if ran.exit else "printed no number"
            )
    return values, problems
