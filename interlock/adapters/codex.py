"""Codex CLI's hooks: the event fields interlock reads and the output it writes.

Input (developers.openai.com/codex/hooks and the generated schemas in openai/codex
`codex-rs/hooks/schema/generated/`): `session_id`, `cwd`, `hook_event_name`, `turn_id`;
PreToolUse/PostToolUse add `tool_name` (`Bash`, `apply_patch`, `mcp__...`), `tool_use_id`
and `tool_input.command` - for Bash the script as a string (the legacy shell tool's argv
arrives joined: `bash -lc 'git status'`, which is unwrapped here; an argv list is read
too), for apply_patch the patch text. PostToolUse fires after a non-zero exit as well; its
`tool_response` is the command's output text, with no exit status (one is read when the
text states it, else inferred from a test runner's summary, else left unknown). Stop and
SubagentStop add `stop_hook_active`; SessionStart adds `source`.

Output: the same PreToolUse JSON as Claude Code for deny and `additionalContext`; Codex does
not support `ask` (a hook that returns it fails and the tool runs), so what would ask is a
deny here. Stop and SubagentStop must print JSON on exit 0: `{}`, or
`{"decision": "block", "reason": ...}`. A malformed event: stderr, exit 1 (the hook run
fails, the tool goes on). Codex runs a command hook only after a person trusted it in
`/hooks`.
"""

from __future__ import annotations

import json
import os
from typing import Any

from interlock.adapters import event as ev
from interlock.adapters.edits import parse_apply_patch
from interlock.adapters.event import BadEvent, Decision, Event, Reply, text_field

AGENT = "codex"
EVENTS = ("PreToolUse", "PostToolUse", "Stop", "SubagentStop", "SessionStart")


def parse(data: Any, name: str, cwd: str) -> Event:
    payload = ev.require_object(data, "the event")
    event_cwd = text_field(payload, "cwd") or cwd
    event = Event(AGENT, name, ev.OTHER, event_cwd, session=text_field(payload, "session_id"))
    event.tool = text_field(payload, "tool_name")
    event.tool_use_id = text_field(payload, "tool_use_id")
    if name in ("PreToolUse", "PostToolUse") and event.tool in ("Bash", "apply_patch"):
        tool_input = ev.require_object(payload.get("tool_input"), "tool_input")
        if "command" not in tool_input:
            raise BadEvent("tool_input has no command")
        command = tool_input["command"]
        if event.tool == "apply_patch":
            if name == "PreToolUse":
                if not isinstance(command, str):
                    raise BadEvent("apply_patch tool_input.command is not a string")
                event.kind = ev.PRE_EDIT
                event.edits = parse_apply_patch(command, event_cwd)
            return event
        event.command = ev.shell_text(command)
        event.kind = ev.PRE_SHELL if name == "PreToolUse" else ev.POST_SHELL
        if name == "PostToolUse":
            _outcome(event, payload.get("tool_response"))
    elif name in ("Stop", "SubagentStop"):
        event.kind = ev.STOP if name == "Stop" else ev.SUBAGENT_STOP
        event.stop_active = payload.get("stop_hook_active") is True
    elif name == "SessionStart":
        event.kind = ev.SESSION_START
        event.source = text_field(payload, "source")
    return event


def _outcome(event: Event, response: Any) -> None:
    if isinstance(response, dict):
        text = "\n".join(
            str(response.get(k) or "")
            for k in ("output", "aggregated_output", "stdout", "stderr", "formatted_output")
        )
        for key in ("exit_code", "exitCode"):
            if type(response.get(key)) is int:
                event.exit_code, event.exit_known = response[key], True
    else:
        text = response if isinstance(response, str) else ""
    event.output = text
    if not event.exit_known:
        stated = ev.exit_in_text(text[:4096])
        if stated is not None:
            event.exit_code, event.exit_known = stated, True


def render(event: Event, decision: Decision) -> Reply:
    if event.kind in (ev.STOP, ev.SUBAGENT_STOP):
        out: dict[str, Any] = {}
        if decision.action == "block-stop":
            out = {"decision": "block", "reason": decision.reason}
        if decision.user:
            out["systemMessage"] = decision.user
        return Reply(json.dumps(out))  # Stop requires JSON on exit 0: `{}` when nothing
    specific: dict[str, Any] = {"hookEventName": event.name}
    if event.name == "PreToolUse" and decision.action in ("deny", "ask"):
        specific["permissionDecision"] = "deny"  # Codex does not support ask
        specific["permissionDecisionReason"] = decision.reason
    if decision.context:
        specific["additionalContext"] = decision.context
    out = {"hookSpecificOutput": specific} if len(specific) > 1 else {}
    if decision.user:
        out["systemMessage"] = decision.user
    return Reply(json.dumps(out) if out else "")


def render_unreadable(name: str, why: str, decision: Decision) -> Reply:
    if decision.action in ("deny", "ask") and name == "PreToolUse":
        reply = render(Event(AGENT, name, ev.PRE_SHELL, os.getcwd()), decision)
        return Reply(reply.stdout, why + "\n", 0)
    if name in ("Stop", "SubagentStop"):
        return Reply("{}", why + "\n", 0)
    return Reply("", why + "\n", 1)
