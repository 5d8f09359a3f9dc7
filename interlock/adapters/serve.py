"""One agent hook event, judged: what the daemon's `agent` op runs warm, and the hook
process inline when the daemon cannot answer.

Request (from `hot`): {agent, event, payload (the event's JSON text), cwd (the hook's),
run (INTERLOCK_RUN or null), agent_parent (the hook's parent pid: the agent above it is read
from /proc here, `shellstep.agent_of`), env (INTERLOCK_*)}. Answer: the hook's stdout, stderr and exit status, in the agent's
format.

Unreadable input never crashes and never silently allows a flagged command:
- an event name interlock does not handle: a note on stderr, no decision (exit 0);
- event JSON that cannot be read (or lacks a field interlock needs): the reason on stderr
  and the agent's "no decision" outcome (Claude Code and Gemini CLI: exit 1, a non-blocking
  error the person sees; Codex: exit 1, the hook run fails) - except before a tool runs,
  where a command may hide in it: the command is read from the text if it can be (a
  `"command": "..."` field) and judged as usual; if it cannot, Claude Code asks the person
  (`permissionDecision: ask`) and Codex and Gemini CLI, which have no ask, refuse the call
  with the reason.
"""

from __future__ import annotations

import json
import re
from types import ModuleType
from typing import Any

from interlock.adapters import claude, codex, editgate, gemini, shellstep, stopgate
from interlock.adapters import event as ev
from interlock.adapters.desk import Desk
from interlock.adapters.event import BadEvent, Decision, Event, Reply

AGENTS: dict[str, ModuleType] = {"claude-code": claude, "codex": codex, "gemini": gemini}
PRE_EVENTS = frozenset({"PreToolUse", "BeforeTool"})
_COMMAND = re.compile(r'"command"\s*:\s*("(?:[^"\\]|\\.)*")')


def agent_module(name: str) -> ModuleType | None:
    return AGENTS.get(name)


def serve(desk: Desk | None, req: dict[str, Any]) -> Reply:
    agent = AGENTS.get(str(req.get("agent")))
    name = str(req.get("event") or "")
    if agent is None:
        return Reply("", f"interlock: error: unknown agent {req.get('agent')!r}\n", 1)
    if name not in agent.EVENTS:
        note = f"interlock: note: {agent.AGENT} event {name!r} is not one interlock handles; no decision\n"
        return Reply("{}" if agent is codex and name.endswith("Stop") else "", note, 0)
    cwd = str(req.get("cwd") or "/")
    text = str(req.get("payload") or "")
    try:
        event = agent.parse(json.loads(text), name, cwd)
    except (ValueError, BadEvent, RecursionError) as exc:
        return _unreadable(desk, agent, name, cwd, text, req, exc)
    return agent.render(event, decide(desk, event, req))


def _unreadable(
    desk: Desk | None,
    agent: ModuleType,
    name: str,
    cwd: str,
    text: str,
    req: dict[str, Any],
    exc: Exception,
) -> Reply:
    why = f"interlock: [unparsed] could not read the {agent.AGENT} {name} event ({exc})"
    if name not in PRE_EVENTS:
        return agent.render_unreadable(name, why + "; no decision", Decision())
    found = _COMMAND.search(text)
    command = None
    if found:
        try:
            command = json.loads(found.group(1))
        except ValueError:
            command = None
    if isinstance(command, str):
        event = Event(agent.AGENT, name, ev.PRE_SHELL, cwd, command=command)
        decision = decide(desk, event, req)
        reply: Reply = agent.render(event, decision)
        return Reply(reply.stdout, why + "; its command was judged as read from the text\n", 0)
    decision = Decision(
        "ask",
        reason=why + ": interlock cannot tell what this tool call would run; "
        "allow it only if you know what it does",
    )
    return agent.render_unreadable(name, why, decision)


def decide(desk: Desk | None, event: Event, req: dict[str, Any]) -> Decision:
    """What interlock answers to one readable event (see the module docstring)."""
    if desk is None:
        return _outside(event)
    if event.kind == ev.PRE_SHELL:
        return shellstep.before(desk, event, req)
    if event.kind == ev.POST_SHELL:
        return shellstep.after(desk, event)
    if event.kind not in (ev.PRE_EDIT, ev.STOP, ev.SUBAGENT_STOP, ev.SESSION_START):
        return Decision()
    run = _run(desk, req)
    if event.kind == ev.PRE_EDIT:
        return _edit(desk, run, event)
    if event.kind == ev.SESSION_START:
        return _session(desk, run)
    return stopgate.gate(desk, run, event.stop_active)


def _run(desk: Desk, req: dict[str, Any]) -> Any:
    from interlock.run import session

    begin = shellstep.begin_request(Event("", "", ev.OTHER, ""), req)
    agent = tuple(begin["agent"]) if begin["agent"] else None
    return session.resolve_run(desk.wt, begin["run"], agent, begin["env"])[0]


def _edit(desk: Desk, run: Any, event: Event) -> Decision:
    from interlock.run import session

    config = session.run_config(run)
    verdict, lines = editgate.judge(desk, run, config, event.edits, event.tool or "edit")
    if verdict == "block":
        return Decision("deny", reason="\n".join(lines))
    return Decision(context="\n".join(lines))


def _session(desk: Desk, run: Any) -> Decision:
    from interlock.run import session

    config = session.run_config(run)
    baseline = (run.data.get("baseline_id") or (run.baseline or "")[:12]) if run.baseline else "-"
    return Decision(
        context=f"interlock: [run] this session's commands and edits are judged in run {run.id} "
        f"(mode {config.mode}, verification_tiers {config.verification_tiers}, baseline "
        f"snapshot {baseline}); a refused call says why and what to do instead"
    )


def _outside(event: Event) -> Decision:
    """Outside any repository: the global rules for shell commands, nothing else."""
    if event.kind != ev.PRE_SHELL or not event.command:
        return Decision()
    from interlock.engine.check import evaluate
    from interlock.run.notices import render

    result = evaluate(event.command, event.cwd).result
    messages = "\n".join(render(list(result.findings), [], result.verdict))
    if result.verdict == "block":
        return Decision("deny", reason=messages)
    return Decision(context=messages)
