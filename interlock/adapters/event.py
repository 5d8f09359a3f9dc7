"""The agent-neutral view of one hook event, and the answer interlock gives to it.

Each agent module (`claude`, `codex`, `gemini`) reads its own fields into an `Event` and
writes a `Decision` back in its own documented format (`Reply`: stdout, stderr, exit
status). What interlock decides never depends on which agent asked.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from typing import Any

from interlock.adapters.edits import FileEdit

# What interlock does for an event, by kind.
PRE_SHELL = "pre-shell"  # a shell command is about to run: judge it
POST_SHELL = "post-shell"  # it ran: record the outcome, credit a green point
PRE_EDIT = "pre-edit"  # a file edit is about to land: feed the recorder, audit it
STOP = "stop"  # the agent wants to end its turn: the finalization gate
SUBAGENT_STOP = "subagent-stop"
SESSION_START = "session-start"  # start or join the run
OTHER = "other"  # an event or tool interlock has nothing to say about

_SHELLS = frozenset({"bash", "sh", "zsh", "dash"})
_SPLIT_LIMIT = 64 * 1024
_EXIT_PATTERNS = (
    re.compile(r"^Exit [Cc]ode:? (-?\d+)\s*$", re.M),
    re.compile(r"exited with (?:non-zero )?(?:status )?code:? (-?\d+)", re.I),
    re.compile(r"^Process exited with code (-?\d+)\s*$", re.M),
)


class BadEvent(ValueError):
    """Event JSON interlock cannot read; the message says what is wrong with it."""


@dataclass
class Event:
    """One hook event: what happened and the fields interlock needs, e.g. a PreToolUse of
    Bash with `command` "git checkout -- ." in `cwd` /repo."""

    agent: str
    name: str  # the event's own name (PreToolUse, BeforeTool, ...)
    kind: str
    cwd: str
    session: str | None = None
    tool: str | None = None
    tool_use_id: str | None = None
    command: str | None = None
    exit_code: int | None = None  # None: not told (see `exit_known`)
    exit_known: bool = False
    output: str = ""
    edits: list[FileEdit] = field(default_factory=list)
    stop_active: bool = False
    source: str | None = None  # SessionStart: startup | resume | clear | compact


@dataclass
class Decision:
    """What interlock answers: `action` none | deny | ask | block-stop; `reason` is what the
    model reads for deny, ask and block-stop; `context` is added to what the model reads
    without deciding anything (advisory warnings, saved-first notices, greens); `user` is
    shown to the person only."""

    action: str = "none"
    reason: str = ""
    context: str = ""
    user: str = ""


@dataclass(frozen=True)
class Reply:
    """The hook process's answer: its stdout, stderr and exit status."""

    stdout: str = ""
    stderr: str = ""
    exit_code: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"stdout": self.stdout, "stderr": self.stderr, "exit_code": self.exit_code}


def text_field(data: dict[str, Any], key: str) -> str | None:
    value = data.get(key)
    return value if isinstance(value, str) else None


def require_object(data: Any, what: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise BadEvent(f"{what} is {type(data).__name__}, not a JSON object")
    return data


def shell_text(command: Any) -> str:
    """The shell script a command field holds: a string as it is; an argv list joined as a
    shell would read it; `bash -lc 'SCRIPT'` (Codex's argv form) unwrapped to SCRIPT."""
    if isinstance(command, list) and command and all(isinstance(c, str) for c in command):
        argv: list[str] = list(command)
    elif isinstance(command, str):
        if not _may_start_with_shell(command):
            return command
        try:
            argv = shlex.split(command)
        except ValueError:
            return command
        if not _is_shell_wrapper(argv):
            return command
    else:
        raise BadEvent("tool_input.command is neither a string nor a list of strings")
    if _is_shell_wrapper(argv):
        return argv[-1]
    return shlex.join(argv)


def _may_start_with_shell(command: str) -> bool:
    """Whether the line may be `SHELL -c SCRIPT`, worth splitting. shlex.split is quadratic in
    a word's length (a 400 KB heredoc took 4 s), so a line whose first word names no shell is
    not split, nor one past _SPLIT_LIMIT: the engine unwraps `bash -c` itself, so such a line
    is judged the same, only shown whole."""
    if len(command) > _SPLIT_LIMIT:
        return False
    words = command.split(None, 1)
    if not words or words[0][0] in "'\"":
        return bool(words)
    name = words[0].replace("'", "").replace('"', "").replace("\\", "")
    return name.rsplit("/", 1)[-1] in _SHELLS


def _is_shell_wrapper(argv: list[str]) -> bool:
    """[bash|sh|zsh, -c|-lc|-l -c, SCRIPT]: exactly a shell given one script, no $0 or args."""
    if len(argv) < 3 or argv[0].rsplit("/", 1)[-1] not in _SHELLS:
        return False
    flags = argv[1:-1]
    joined = "".join(f.lstrip("-") for f in flags)
    return (
        all(f.startswith("-") and not f.startswith("--") for f in flags)
        and "c" in joined
        and set(joined) <= {"c", "l"}
    )


def exit_in_text(text: str) -> int | None:
    """An exit status a tool's result text states ("Exit code: 2"), or None."""
    for pattern in _EXIT_PATTERNS:
        found = pattern.search(text)
        if found:
            return int(found.group(1))
    return None


def hooks_json(event: Event, decision: Decision, ask: bool) -> str:
    """Claude Code's and Codex's shared hook output (their hooks reference): a Stop's
    `decision`/`reason`, else `hookSpecificOutput` with a PreToolUse's permission decision
    (`ask` where the agent has it, else `deny`) and the context the model reads; the person's
    `systemMessage` with either. "" when there is nothing to say (a Stop gets `{}`: the
    caller decides whether an empty Stop needs it)."""
    if event.kind in (STOP, SUBAGENT_STOP):
        out: dict[str, Any] = {}
        if decision.action == "block-stop":
            out = {"decision": "block", "reason": decision.reason}
    else:
        specific: dict[str, Any] = {"hookEventName": event.name}
        if event.name == "PreToolUse" and decision.action in ("deny", "ask"):
            specific["permissionDecision"] = decision.action if ask else "deny"
            specific["permissionDecisionReason"] = decision.reason
        if decision.context:
            specific["additionalContext"] = decision.context
        out = {"hookSpecificOutput": specific} if len(specific) > 1 else {}
    if decision.user:
        out["systemMessage"] = decision.user
    return json.dumps(out) if out else ""
