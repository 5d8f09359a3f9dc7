"""A shell command of an agent, before and after: the same `begin` and `complete` the shell
wrapper calls (the run monitor's desk around `interlock.run.gate`), so the check, the
pre-discard snapshot, the journal, green credit, the monitor's messages, a stopped run's
refusals and every message are the wrapper's own.

Before: a refusal is a deny whose reason is interlock's message; a warning, or a discard
of the run's own work that was saved first, is allowed with the message as context for the
model. After: the attempt the pre event journaled (`pending`) is completed with the exit
status and the output's tail. When the agent does not report the exit status (Codex), it
is read from a test runner's summary in the output (no failures and tests run: 0; failures:
1), else left unknown, which never credits a green point.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from interlock import constants
from interlock.adapters import pending
from interlock.adapters.desk import Desk
from interlock.adapters.event import Decision, Event
from interlock.monitor import desk as monitor_desk
from interlock.run import records
from interlock.run.agent import agent_process
from interlock.run.outcome import parse_outcome


def agent_of(req: dict[str, Any]) -> list[Any] | None:
    """[pid, start, name] of the agent above the hook: read from /proc, starting at the hook's
    parent (`agent_parent`), while the hook waits for its answer (as the wrapper reads its
    own ancestors: interlock.run.agent)."""
    parent = req.get("agent_parent")
    if type(parent) is not int or parent <= 0:
        return None
    return list(agent_process(parent))


def begin_request(event: Event, req: dict[str, Any]) -> dict[str, Any]:
    """The wrapper's begin request for this command (see interlock.run.gate)."""
    proc = agent_of(req)
    agent = proc if proc is not None and len(proc) == 3 else None
    run = req.get("run") or None
    return {
        "command": event.command or "",
        "judge": event.command or "",
        "cwd": event.cwd,
        "run": run,
        "agent": None if run else agent,
        "parent": None,
        "pid": agent[0] if agent else None,
        "pid_start": agent[1] if agent else None,
        "env": dict(req.get("env") or {}),
        "wants_quiet": False,  # the wrapper's question (interlock.monitor.desk.is_quiet)
    }


def _key(event: Event) -> str:
    return pending.key_of(event.agent, event.session, event.tool_use_id, event.command)


def before(desk: Desk, event: Event, req: dict[str, Any]) -> Decision:
    reply = monitor_desk.begin(desk.wt, begin_request(event, req))
    messages = str(reply.get("messages") or "")
    if reply.get("verdict") == "block":
        return Decision("deny", reason=messages or "interlock: refused")
    record: dict[str, Any] = {"attempt": reply.get("attempt"), "run": reply.get("run")}
    record["started"] = time.time()
    if event.agent == "gemini" and messages:
        record["warning"] = messages  # Gemini's model sees it with the tool's result
    pending.remember(desk.wt.loc, _key(event), record)
    return Decision(context=messages)


def after(desk: Desk, event: Event) -> Decision:
    record = pending.take(desk.wt.loc, _key(event))
    if record is None or not isinstance(record.get("attempt"), int):
        return Decision()  # nothing was journaled for it (interlock was not asked before)
    attempt = records.get_attempt(desk.wt.journal, record["attempt"])
    if attempt is None:
        return Decision()
    tail = event.output[-constants.TAIL_BYTES :]
    code = event.exit_code if event.exit_known else _inferred_exit(attempt.data, tail)
    started = record.get("started")
    duration = time.time() - started if isinstance(started, (int, float)) else None
    done = {"attempt": attempt.id, "exit": code, "signal": None, "duration": duration}
    reply = monitor_desk.complete(desk.wt, {**done, "tail": tail, "warm": desk.warm})
    warning = str(record.get("warning") or "")
    context = "\n".join(m for m in (warning, str(reply.get("messages") or "")) if m)
    return Decision(context=context)


def _inferred_exit(data: Mapping[str, Any], tail: str) -> int | None:
    """0 when a runner's summary shows tests ran and none failed, 1 when some failed."""
    validators = data.get("validators") or []
    if not validators:
        return None
    tool = str(validators[0].get("tool") or validators[0].get("text") or "")
    outcome = parse_outcome(tool, tail, 0)
    if not outcome.parsed or outcome.failed is None:
        return None
    if outcome.failed > 0:
        return 1
    return 0 if (outcome.ran or 0) > 0 and not outcome.no_tests else None
