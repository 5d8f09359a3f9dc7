"""`interlock check`: what interlock would do with a command line (see interlock.engine.check,
the path every door takes)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable

from interlock import exitcodes, output
from interlock.engine.check import evaluate, render_summary, show
from interlock.git import discover


def check(
    command: str, cwd: str | None, mode: str | None, assume_dirty: bool, as_json: bool
) -> int:
    outcome = evaluate(command, cwd, mode=mode, assume_dirty=assume_dirty)
    show(outcome, as_json)
    return outcome.exit_code


def _read_batch(lines: Iterable[str], json_in: bool) -> Iterable[str]:
    import json  # --batch only: a single check does not pay for it

    for raw in lines:
        line = raw.rstrip("\n")
        if not line.strip():
            continue
        yield json.loads(line) if json_in else line


def batch(
    cwd: str | None, mode: str | None, assume_dirty: bool, as_json: bool, json_in: bool
) -> int:
    """Judge one command per stdin line, in order, in one process; exit 126 if any would block."""
    from interlock.engine.facts import collect_facts

    start = os.path.abspath(cwd or os.getcwd())
    loc = discover(start)
    facts = collect_facts(loc) if loc is not None and not assume_dirty else None
    worst = exitcodes.OK
    for command in _read_batch(sys.stdin, json_in):
        if not isinstance(command, str):
            output.error("--json-lines-in expects one JSON string per line")
            return exitcodes.USAGE
        outcome = evaluate(command, start, mode=mode, assume_dirty=assume_dirty, facts=facts)
        if as_json:
            output.write_json(outcome.result.to_json())
        else:
            text = outcome.render()
            output.write_out(text if text else render_summary(outcome.result))
        worst = max(worst, outcome.exit_code)
    return worst
