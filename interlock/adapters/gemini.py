"""Gemini CLI's hooks: the event fields interlock reads and the output it writes.

Input (google-gemini/gemini-cli `docs/hooks/reference.md`): `session_id`, `cwd`,
`hook_event_name`, `timestamp`; BeforeTool/AfterTool add `tool_name` (`run_shell_command`,
`write_file`, `replace`...) and `tool_input` (the model's arguments: `command` and
`dir_path` - older `directory` - for the shell; `file_path`, `content`, `old_string`,
`new_string` for the file tools); AfterTool adds `tool_response` `{llmContent,
returnDisplay, error}`, whose llmContent for the shell tool reads `Output: ...` and, only
when it is not 0, `Exit Code: N` (packages/core/src/tools/shell.ts). AfterAgent (the end
of a turn) adds `stop_hook_active`; SessionStart adds `source`. There is no tool-use id:
a BeforeTool and its AfterTool are paired by session and command.

Output: JSON only on stdout. BeforeTool: `{"decision": "deny", "reason": ...}` (the
reason goes to the model as the tool's error); a warning the model cannot see before the
tool runs is shown to the person (`systemMessage`) and given to the model with the
AfterTool result (`hookSpecificOutput.additionalContext`). AfterAgent:
`{"decision": "deny", "reason": ...}` makes the agent go on with the reason as its prompt.
Nothing to say: `{}`. A malformed event: stderr, exit 1 (a warning; the CLI goes on).
"""

from __future__ import annotations

import json
import os
from typing import Any

from interlock.adapters import event as ev
from interlock.adapters.edits import FileEdit, Replace
from interlock.adapters.event import BadEvent, Decision, Event, Reply, text_field

AGENT = "gemini"
SHELL_TOOL = "run_shell_command"
EDIT_TOOLS = ("write_file", "replace")
EVENTS = ("BeforeTool", "AfterTool", "AfterAgent", "SessionStart")


def parse(data: Any, name: str, cwd: str) -> Event:
    payload = ev.require_object(data, "the event")
    event_cwd = text_field(payload, "cwd") or cwd
    event = Event(AGENT, name, ev.OTHER, event_cwd, session=text_field(payload, "session_id"))
    event.tool = text_field(payload, "tool_name")
    if name in ("BeforeTool", "AfterTool") and event.tool == SHELL_TOOL:
        tool_input = ev.require_object(payload.get("tool_input"), "tool_input")
        command = tool_input.get("command")
        if not isinstance(command, str):
            raise BadEvent("tool_input.command is not a string")
        event.command = command
        where = text_field(tool_input, "dir_path") or text_field(tool_input, "directory")
        if where:
            event.cwd = os.path.join(event_cwd, where)
        event.kind = ev.PRE_SHELL if name == "BeforeTool" else ev.POST_SHELL
        if name == "AfterTool":
            _outcome(event, payload.get("tool_response"))
    elif name == "BeforeTool" and event.tool in EDIT_TOOLS:
        tool_input = ev.require_object(payload.get("tool_input"), "tool_input")
        path = text_field(tool_input, "file_path")
        if not path:
            raise BadEvent("tool_input has no file_path")
        edit = FileEdit(os.path.join(event_cwd, path))
        if event.tool == "write_file":
            edit.write = text_field(tool_input, "content") or ""
        else:
            old, new = tool_input.get("old_string"), tool_input.get("new_string")
            if not isinstance(old, str) or not isinstance(new, str):
                raise BadEvent("replace lacks old_string or new_string")
            many = tool_input.get("expected_replacements")
            edit.replaces.append(Replace(old, new, isinstance(many, int) and many > 1))
        event.kind, event.edits = ev.PRE_EDIT, [edit]
    elif name == "AfterAgent":
        event.kind = ev.STOP
        event.stop_active = payload.get("stop_hook_active") is True
    elif name == "SessionStart":
        event.kind = ev.SESSION_START
        event.source = text_field(payload, "source")
    return event


def _outcome(event: Event, response: Any) -> None:
    if isinstance(response, dict):
        content = response.get("llmContent")
        text = content if isinstance(content, str) else json.dumps(content)
        failed = response.get("error") not in (None, "", {})
    else:
        text, failed = (response if isinstance(response, str) else ""), False
    event.output = text
    stated = ev.exit_in_text(text)
    if stated is not None:
        event.exit_code, event.exit_known = stated, True
    elif "\nSignal: " in text or text.startswith("Command was cancelled"):
        event.exit_code, event.exit_known = None, True  # killed: no status
    elif text.startswith("Output:") and not failed:
        event.exit_code, event.exit_known = 0, True  # the tool states only a non-zero status


def render(event: Event, decision: Decision) -> Reply:
    out: dict[str, Any] = {}
    if event.kind == ev.STOP and decision.action == "block-stop":
        out = {"decision": "deny", "reason": decision.reason}
    elif event.name == "BeforeTool" and decision.action in ("deny", "ask"):
        out = {"decision": "deny", "reason": decision.reason}
    elif event.name == "BeforeTool" and decision.context:
        out = {"systemMessage": decision.context}
    elif decision.context:
        out = {
            "hookSpecificOutput": {
                "hookEventName": event.name,
                "additionalContext": decision.context,
            }
        }
    if decision.user:
        out["systemMessage"] = decision.user
    return Reply(json.dumps(out))


def render_unreadable(name: str, why: str, decision: Decision) -> Reply:
    if decision.action in ("deny", "ask") and name == "BeforeTool":
        return Reply(json.dumps({"decision": "deny", "reason": decision.reason}), why + "\n", 0)
    return Reply("", why + "\n", 1)
