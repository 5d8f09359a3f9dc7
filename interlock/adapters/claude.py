"""Claude Code's hooks: the event fields interlock reads and the output it writes.

Input (the hooks reference, code.claude.com/docs/en/hooks): every event carries
`session_id`, `cwd`, `hook_event_name`; PreToolUse/PostToolUse add `tool_name`,
`tool_input` and `tool_use_id`; PostToolUse adds `tool_response` (for Bash
`{stdout, stderr, interrupted, isImage}`), PostToolUseFailure adds `error` (e.g. "Command
exited with non-zero status code 1") and `is_interrupt`; Stop and SubagentStop add
`stop_hook_active`; SessionStart adds `source`.

Output: JSON on stdout with exit status 0. PreToolUse: `hookSpecificOutput` with
`permissionDecision` deny (its reason is what the model reads) or ask (the person is asked),
or only `additionalContext` (no decision: the normal permission flow goes on; an advisory
warning). Stop/SubagentStop: `{"decision": "block", "reason": ...}`. Other events:
`additionalContext`. A malformed event: the reason on stderr, exit status 1 (Claude Code's
non-blocking error: shown to the person, the tool goes on).
"""

from __future__ import annotations

import json
import os
from typing import Any

from interlock.adapters import event as ev
from interlock.adapters.edits import FileEdit, Replace
from interlock.adapters.event import BadEvent, Decision, Event, Reply, text_field

AGENT = "claude-code"
EDIT_TOOLS = ("Edit", "Write", "MultiEdit", "NotebookEdit")
EVENTS = (
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "Stop",
    "SubagentStop",
    "SessionStart",
)


def parse(data: Any, name: str, cwd: str) -> Event:
    payload = ev.require_object(data, "the event")
    event_cwd = text_field(payload, "cwd") or cwd
    event = Event(AGENT, name, ev.OTHER, event_cwd, session=text_field(payload, "session_id"))
    event.tool = text_field(payload, "tool_name")
    event.tool_use_id = text_field(payload, "tool_use_id")
    tool_input = payload.get("tool_input")
    if name == "PreToolUse" and event.tool == "Bash":
        event.kind = ev.PRE_SHELL
        event.command = ev.shell_text(_command(tool_input))
    elif name == "PreToolUse" and event.tool in EDIT_TOOLS:
        event.kind = ev.PRE_EDIT
        event.edits = [_edit(event.tool, ev.require_object(tool_input, "tool_input"), event_cwd)]
    elif name in ("PostToolUse", "PostToolUseFailure") and event.tool == "Bash":
        event.kind = ev.POST_SHELL
        event.command = ev.shell_text(_command(tool_input))
        _outcome(event, payload, failed=name == "PostToolUseFailure")
    elif name in ("Stop", "SubagentStop"):
        event.kind = ev.STOP if name == "Stop" else ev.SUBAGENT_STOP
        event.stop_active = payload.get("stop_hook_active") is True
    elif name == "SessionStart":
        event.kind = ev.SESSION_START
        event.source = text_field(payload, "source")
    return event


def _command(tool_input: Any) -> Any:
    data = ev.require_object(tool_input, "tool_input")
    if "command" not in data:
        raise BadEvent("tool_input has no command")
    return data["command"]


def _path(data: dict[str, Any], key: str, cwd: str) -> str:
    value = text_field(data, key)
    if not value:
        raise BadEvent(f"tool_input has no {key}")
    return os.path.join(cwd, value)


def _edit(tool: str, data: dict[str, Any], cwd: str) -> FileEdit:
    if tool == "NotebookEdit":
        return FileEdit(_path(data, "notebook_path", cwd), opaque=True)
    edit = FileEdit(_path(data, "file_path", cwd))
    if tool == "Write":
        edit.write = text_field(data, "content") or ""
    elif tool == "Edit":
        edit.replaces.append(_replace(data))
    else:  # MultiEdit (older Claude Code): the edits in order
        steps = data.get("edits")
        if not isinstance(steps, list):
            raise BadEvent("MultiEdit tool_input has no list of edits")
        edit.replaces.extend(_replace(ev.require_object(s, "an edit")) for s in steps)
    return edit


def _replace(data: dict[str, Any]) -> Replace:
    old, new = data.get("old_string"), data.get("new_string")
    if not isinstance(old, str) or not isinstance(new, str):
        raise BadEvent("an edit lacks old_string or new_string")
    return Replace(old, new, data.get("replace_all") is True)


def _outcome(event: Event, payload: dict[str, Any], failed: bool) -> None:
    response = payload.get("tool_response")
    parts: list[str] = []
    if isinstance(response, dict):
        parts += [str(response.get(k) or "") for k in ("stdout", "stderr")]
        for key in ("exit_code", "exitCode", "returnCode"):
            if type(response.get(key)) is int:
                event.exit_code, event.exit_known = response[key], True
        if response.get("interrupted") is True:
            event.exit_code, event.exit_known = None, True
    elif isinstance(response, str):
        parts.append(response)
    error = text_field(payload, "error")
    if error:
        parts.append(error)
    event.output = "\n".join(p for p in parts if p)
    if event.exit_known:
        return
    if failed:
        code = ev.exit_in_text(error or "")
        event.exit_code = code if code is not None and code != 0 else 1
        event.exit_known = payload.get("is_interrupt") is not True
        if not event.exit_known:
            event.exit_code = None
    else:
        # PostToolUse fires for a Bash call that succeeded; exit 1 of grep, diff, test...
        # counts as a result too, so only a stated status is believed over 0.
        stated = ev.exit_in_text(error or "")
        event.exit_code, event.exit_known = (stated if stated is not None else 0), True


def render(event: Event, decision: Decision) -> Reply:
    name = event.name
    if event.kind in (ev.STOP, ev.SUBAGENT_STOP):
        out: dict[str, Any] = {}
        if decision.action == "block-stop":
            out = {"decision": "block", "reason": decision.reason}
        if decision.user:
            out["systemMessage"] = decision.user
        return Reply(json.dumps(out) if out else "")
    specific: dict[str, Any] = {"hookEventName": name}
    if name == "PreToolUse" and decision.action in ("deny", "ask"):
        specific["permissionDecision"] = decision.action
        specific["permissionDecisionReason"] = decision.reason
    if decision.context:
        specific["additionalContext"] = decision.context
    out = {"hookSpecificOutput": specific} if len(specific) > 1 else {}
    if decision.user:
        out["systemMessage"] = decision.user
    return Reply(json.dumps(out) if out else "")


def render_unreadable(name: str, why: str, decision: Decision) -> Reply:
    """A malformed event: the reason on stderr, exit 1 - unless a decision was still taken
    (an ask for a PreToolUse whose command could not be read)."""
    if decision.action in ("deny", "ask") and name == "PreToolUse":
        reply = render(Event(AGENT, name, ev.PRE_SHELL, ""), decision)
        return Reply(reply.stdout, why + "\n", 0)
    return Reply("", why + "\n", 1)
