"""What a door does for each command of a run, with the run monitor: the functions the daemon,
the wrapper's inline path and the agent adapters all call (one path, one behaviour).

    begin(wt, req)       before a command: a stopped run's commands refused (`[handoff]`), a
                         command that would start a new run while paused refused (`[paused]`),
                         else interlock.run.gate.begin; a command the gate refused still
                         counts as a turn of the run. The reply's `quiet` says whether its
                         `complete` cannot have anything to say (see `is_quiet`).
    complete(wt, req)    after it: interlock.run.gate.complete, then after_command().
    after_command(wt, attempt, tail, environ)
                         what to tell the agent after one command (the monitor's messages).
    harness_turn(wt, run, ...)
                         `interlock turn`: a turn a harness counts, its step, config, marks.

Requests and replies are interlock.run.gate's (plain dicts); the monitor only adds messages,
and refusals shaped like the gate's. In mode off the monitor says nothing and acts on nothing,
except the kill switch, which a person set.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping
from typing import Any

from interlock import exitcodes
from interlock.journal import append_event
from interlock.monitor import control, say, settings, state
from interlock.monitor.progress import BUDGET_MARKS
from interlock.monitor.state import MonitorState
from interlock.monitor.stop import STOP_REMINDERS, refusal, refuses, reminder
from interlock.monitor.watch import Watch
from interlock.run import gate, records, session
from interlock.run.records import Run
from interlock.run.session import Worktree

REMINDER_KEY = "handoff:reminder"
# Turns that may be counted before a quiet command's own besides the open commands' (a
# harness's `interlock turn`, refused commands): a budget or max_turns mark closer than that
# makes the command's completion one to wait for.
QUIET_MARGIN = 8


def _join(*parts: Any) -> str:
    return "\n".join(str(p) for p in parts if p)


def _refused(messages: str, run: str | None, mode: str, attempt: int | None) -> dict[str, Any]:
    return {
        "verdict": "block",
        "exit_code": exitcodes.BLOCKED,
        "would_block": True,
        "messages": messages,
        "attempt": attempt,
        "run": run,
        "interpose": False,
        "mode": mode,
    }


def _journal_refusal(wt: Worktree, run: Run, req: dict[str, Any], why: str) -> int:
    parent = req.get("parent")
    # claimed, not inserted: a wrapper that gave up on a late daemon asks again inline, and
    # its command must stay one refused attempt, not two
    attempt, wrote = records.claim_attempt(
        wt.journal,
        once=req.get("once") is True,
        run=run.id,
        parent=parent if isinstance(parent, int) else None,
        command=str(req["command"]),
        cwd=str(req["cwd"]),
        pid=req.get("pid"),
        pid_start=req.get("pid_start"),
        verdict="block",
        would_block=True,
        effect=None,
        data={"notices": [{"tag": "handoff", "text": why, "blocks": True}], "findings": []},
    )
    if wrote:
        records.insert_completion(wt.journal, attempt, run.id, "refused", exit=exitcodes.BLOCKED)
    return attempt


def _before(wt: Worktree, req: dict[str, Any]) -> tuple[dict[str, Any] | None, str]:
    """(a refusal reply, or None; a reminder line for an advisory run that was stopped)."""
    agent_info = tuple(req["agent"]) if req.get("agent") else None
    run, _ = session.find_run(wt.journal, req.get("run"), agent_info)
    command = str(req["command"])
    if run is None:
        pause = control.paused(wt.loc)
        if pause is None:
            return None, ""
        append_event(wt.journal, "message", {"key": "paused", "command": command})
        text = say.message(
            "paused",
            f"refused: {command}",
            (
                (
                    "why",
                    f"new runs do not start: a person paused this worktree ({pause.get('by')})",
                ),
                ("instead", "wait for a person to run `interlock resume`"),
            ),
        )
        return _refused(text, None, "blocking", None), ""
    stop = state.stop_of(wt.journal, run.id)
    if stop is None:
        return None, ""
    mode = str(run.config.get("mode"))
    if refuses(stop, mode):
        attempt = _journal_refusal(wt, run, req, str(stop.get("reason")))
        return _refused(refusal(wt.loc, stop, command), run.id, mode, attempt), ""
    if mode == "off" or req.get("parent") is not None:
        return None, ""
    if records.count_events(wt.journal, run.id, "message", REMINDER_KEY) >= STOP_REMINDERS:
        return None, ""
    append_event(wt.journal, "message", {"key": REMINDER_KEY}, run=run.id)
    return None, reminder(stop)


def begin(wt: Worktree, req: dict[str, Any]) -> dict[str, Any]:
    """Before a command of a run (see the module docstring)."""
    refused, note = _before(wt, req)
    if refused is not None:
        return refused
    reply = gate.begin(wt, req)
    # Only the wrapper reads `quiet` (whether to wait for complete's answer); an agent's hook
    # always has its post event answered, and says so (`wants_quiet`: the look costs ~0.1 ms).
    reply["quiet"] = req.get("wants_quiet") is not False and is_quiet(wt, reply, req)
    if reply.get("exit_code") == exitcodes.BLOCKED and reply.get("attempt") is not None:
        more = after_command(wt, int(reply["attempt"]), None, None)
        reply["messages"] = _join(reply.get("messages"), *more)
    if note:
        reply["messages"] = _join(reply.get("messages"), note)
    return reply


def is_quiet(wt: Worktree, reply: dict[str, Any], req: dict[str, Any]) -> bool:
    """Whether the `complete` of this begin cannot tell the agent anything, so the wrapper may
    send it without waiting: the gate's part (not refused, no top-level validator, no side
    effect: `reply["quiet"]`), and the monitor's, whose only messages for such a command are
    the `[stall]` notice (not when the stall monitor is off) and the `max_turns` budget marks
    and stop (not when none is within reach of the turns the open commands may still count).
    A nested command is part of its outer command's turn, and mode off says nothing."""
    if reply.get("quiet") is not True or reply.get("run") is None:
        return False
    if type(req.get("parent")) is int:
        return True
    run = records.get_run(wt.journal, str(reply["run"]))
    if run is None:
        return False
    config = session.run_config(run)
    if config.mode == "off":
        return True
    if config.progress_stall_threshold is not None:
        return False
    if config.max_turns is None:
        return True
    st = state.load(wt.journal, run.id)
    marks = [math.ceil(config.max_turns * m / 100) for m in BUDGET_MARKS if m not in st.budget]
    reach = st.turns + records.open_count(wt.journal, run.id) + QUIET_MARGIN
    return reach < min([config.max_turns, *marks])


Environ = Callable[[int | None], Mapping[str, str] | None]


def _environ(req: dict[str, Any]) -> Environ:
    """How to read the agent's environment (for running a call again outside interlock),
    given the pid of the wrapper that ran it: this process's own when judging inline (the
    wrapper is the agent's child), else the waiting wrapper's. Read only when asked: most
    commands never need it."""

    def read(pid: int | None) -> Mapping[str, str] | None:
        if not req.get("warm"):
            return dict(os.environ)
        from interlock import procinfo  # psutil: only for the daemon's look at the wrapper

        return procinfo.process_environ(pid) if pid else None

    return read


def complete(wt: Worktree, req: dict[str, Any]) -> dict[str, Any]:
    """After a command of a run (see the module docstring)."""
    reply = gate.complete(wt, req)
    more = after_command(wt, int(req["attempt"]), req.get("tail"), _environ(req))
    reply["messages"] = _join(reply.get("messages"), *more)
    return reply


def after_command(
    wt: Worktree, attempt_id: int, tail: str | None, environ: Environ | None
) -> list[str]:
    """What to tell the agent after one command of a run ended or was refused: the run
    monitor's messages (none for a nested command: it is part of its outer command's turn).
    `tail` is the output's tail of a validator; `environ` reads the agent's environment."""
    attempt = records.get_attempt(wt.journal, attempt_id)
    if attempt is None or attempt.parent is not None:
        return []
    run = records.get_run(wt.journal, attempt.run)
    if run is None:
        return []
    config = session.run_config(run)
    if config.mode == "off" or state.stop_of(wt.journal, run.id) is not None:
        return []
    with state.locked(wt.loc):
        st = state.load(wt.journal, run.id)
        if attempt.id in st.seen:  # completed twice (a daemon reply past the deadline)
            return []
        st.seen = [*st.seen, attempt.id][-state.SEEN_KEPT :]
        if st.turns == 0:
            state.forget_ended(wt.journal)
        said = Watch(wt, run, config, st, environ).command(attempt, tail)
        state.save(wt.journal, run.id, st)
    return said


def mark(
    st: MonitorState,
    step: str | None,
    overrides: Mapping[str, Any],
    experiment: bool,
    warn: Any,
) -> None:
    """What a harness marks for the next attempt record: its step, a per-step config (checked
    now: a value the detector cannot use is warned about and dropped), an experiment."""
    if step is not None:
        st.step = step
    if overrides:
        checked = settings.checked(overrides, "interlock turn --set", warn)
        st.pending_config = {**st.pending_config, **checked}
    if experiment:
        st.next_experiment = True


def harness_turn(
    wt: Worktree,
    run: Run,
    *,
    count: bool,
    failed: bool,
    step: str | None,
    overrides: Mapping[str, Any],
    experiment: bool,
    warn: Any,
) -> tuple[int, list[str]]:
    """`interlock turn` (see interlock.commands.monitor): (exit code, messages)."""
    stop = state.stop_of(wt.journal, run.id)
    if stop is not None:
        return exitcodes.BLOCKED, [refusal(wt.loc, stop, "interlock turn")]
    config = session.run_config(run)
    with state.locked(wt.loc):
        st = state.load(wt.journal, run.id)
        mark(st, step, overrides, experiment, warn)
        said: list[str] = []
        if count and config.mode != "off":
            said = Watch(wt, run, config, st, lambda _: dict(os.environ)).harness_turn(failed)
        state.save(wt.journal, run.id, st)
    stopped = state.stop_of(wt.journal, run.id) is not None
    return (exitcodes.BLOCKED if stopped else exitcodes.OK), said
