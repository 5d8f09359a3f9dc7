"""`interlock todo add|done|list`: the objectives board."""

from __future__ import annotations

import os

from interlock import exitcodes, output
from interlock.git import RepoLocation, require_repo
from interlock.journal import opened
from interlock.memory.catalog import iso_time
from interlock.monitor import todo
from interlock.run import session


def _run_here(loc: RepoLocation) -> tuple[str | None, bool]:
    """(the run a board change belongs to, whether a person made it: outside any run)."""
    with opened(loc) as journal:
        run = session.current_run(journal)
    person = session.inside_run() is None and not os.environ.get("INTERLOCK_RUN")
    return (run.id if run else None), person


def todo_add(cwd: str | None, text: str, as_json: bool) -> int:
    loc = require_repo(cwd)
    run, person = _run_here(loc)
    item = todo.add(loc, text, run, person)
    if as_json:
        output.write_json(item.to_json())
    else:
        output.write_out(f"interlock: objective #{item.id} added: {item.text}")
    return exitcodes.OK


def todo_done(cwd: str | None, which: str, as_json: bool) -> int:
    loc = require_repo(cwd)
    run, _ = _run_here(loc)
    item, was_open = todo.close(loc, which, run)
    if as_json:
        output.write_json({**item.to_json(), "was_open": was_open})
    elif was_open:
        left = len(todo.outstanding(loc))
        output.write_out(f"interlock: objective #{item.id} done: {item.text} ({left} open)")
    else:
        output.write_out(f"interlock: objective #{item.id} was already done")
    return exitcodes.OK


def todo_list(cwd: str | None, show_all: bool, as_json: bool) -> int:
    loc = require_repo(cwd)
    items = todo.read_board(loc)
    shown = items if show_all else [i for i in items if i.is_open]
    if as_json:
        output.write_json([i.to_json() for i in shown])
        return exitcodes.OK
    if not shown:
        output.write_out(
            "no open objectives (add one: interlock todo add TEXT)"
            if not show_all
            else "the board is empty (add one: interlock todo add TEXT)"
        )
        return exitcodes.OK
    for item in shown:
        state = "done" if not item.is_open else "open"
        who = "a person" if item.person else (item.run or "-")
        output.write_out(
            f"#{item.id:<3} {state:<4}  {iso_time(item.added)[:16]}Z  {item.text}  ({who})"
        )
    return exitcodes.OK
