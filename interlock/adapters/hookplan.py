"""What `interlock integrate` writes for each agent: where its settings live, which events
and tools it hooks, and the command each hook runs.

The command starts interlock's minimal client path: the `interlock` launcher install.sh
writes (Python with `-I -S`, interlock on an explicit path) when this interlock runs from
one, else this interpreter with `-I -S` and the import paths written in - never the pip
script or click, which would cost every tool call the CLI's start-up.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

LAUNCHER_MARK = "interlock launcher, written by install.sh"
HOOK_TIMEOUT = 120  # seconds: a discard's snapshot and the audit can take a while
# The first Claude Code with a hook's `"onFailure": "block"`: a PreToolUse hook that cannot
# start, crashes or times out blocks the call instead of letting it run unjudged. Older
# releases may reject a settings file with keys they do not know (and then drop all of it).
CLAUDE_FAILS_CLOSED = (2, 1, 295)


@dataclass(frozen=True)
class HookSpec:
    """One hook to write: the event, the matcher (None: every occurrence), the handler."""

    event: str
    matcher: str | None
    handler: dict[str, Any]


@dataclass(frozen=True)
class Target:
    """An agent's settings file for a scope, and what to say after writing it."""

    agent: str
    path: Path
    notes: tuple[str, ...] = ()


def _is_launcher(path: str | None) -> bool:
    if not path or not os.path.isfile(path):
        return False
    try:
        with open(path, "rb") as handle:
            return LAUNCHER_MARK.encode() in handle.read(4096)
    except OSError:
        return False


def launcher_words() -> list[str]:
    """The words that start interlock's minimal client path (see the module docstring)."""
    for candidate in (sys.argv[0] if sys.argv else None, shutil.which("interlock")):
        if candidate and _is_launcher(candidate):
            return [os.path.abspath(candidate)]
    from interlock.run.launcher import import_paths

    boot = (
        f"import sys; sys.path[:0] = {json.dumps(import_paths())}; "
        "from interlock.launch import main; sys.exit(main())"
    )
    return [sys.executable, "-I", "-S", "-c", boot]


def hook_command(agent: str, event: str, words: list[str] | None = None) -> str:
    """The command string an agent's settings hold. Every agent runs it through a shell
    (Claude Code and Gemini CLI `sh -c`/`bash -c`, Codex `$SHELL -lc`); `exec` makes that
    shell become the hook instead of forking it and waiting (dash forks for a last command
    that bash would have exec'd): one process and ~1 ms less on every tool call."""
    return "exec " + shlex.join([*(words or launcher_words()), "hook", agent, event])


def _command_words(command: str) -> list[str] | None:
    """A hook command's words without the leading `exec` (earlier versions wrote none)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    return words[1:] if words[:1] == ["exec"] else words


def is_our_command(agent: str, command: object) -> bool:
    """True for a hook command interlock wrote for this agent (any install of it, with or
    without the `exec` earlier versions did not write)."""
    words = _command_words(command) if isinstance(command, str) else None
    return (
        words is not None
        and len(words) >= 4
        and words[-3:-1] == ["hook", agent]
        and any("interlock" in w for w in words[:-3])
    )


def launcher_of(command: str) -> list[str]:
    """The words that start interlock in one of our hook commands (before `hook AGENT EVENT`)."""
    return (_command_words(command) or [])[:-3]


def claude_version() -> tuple[int, ...] | None:
    """The Claude Code on PATH's version (`claude --version`), or None: not found, or it did
    not say within 10 s."""
    import re
    import subprocess

    found = shutil.which("claude")
    if found is None:
        return None
    try:
        said = subprocess.run(
            [found, "--version"], capture_output=True, text=True, timeout=10, check=False
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    match = re.search(r"\b(\d+)\.(\d+)\.(\d+)\b", said)
    return tuple(int(part) for part in match.groups()) if match else None


def can_fail_closed(version: tuple[int, ...] | None) -> bool:
    """Whether that Claude Code knows a hook's `"onFailure": "block"`."""
    return version is not None and version >= CLAUDE_FAILS_CLOSED


def specs(agent: str, words: list[str] | None = None, fails_closed: bool = False) -> list[HookSpec]:
    """The hooks to write for `agent`. fails_closed (Claude Code >= CLAUDE_FAILS_CLOSED): a
    PreToolUse hook that cannot answer blocks the call. Only there: the other events come
    after the call ran, and a Stop hook that failed closed would keep a broken install from
    ever letting the agent stop."""

    def cmd(event: str) -> str:
        return hook_command(agent, event, words)

    if agent == "claude-code":

        def cc(event: str, matcher: str | None) -> HookSpec:
            handler: dict[str, Any] = {
                "type": "command",
                "command": cmd(event),
                "timeout": HOOK_TIMEOUT,
            }
            if fails_closed and event == "PreToolUse":
                handler["onFailure"] = "block"
            return HookSpec(event, matcher, handler)

        return [
            cc("PreToolUse", "Bash|Edit|Write|MultiEdit|NotebookEdit"),
            cc("PostToolUse", "Bash"),
            cc("PostToolUseFailure", "Bash"),
            cc("Stop", None),
            cc("SubagentStop", None),
            cc("SessionStart", None),
        ]
    if agent == "codex":

        def cx(event: str, matcher: str | None) -> HookSpec:
            handler = {
                "type": "command",
                "command": cmd(event),
                "timeout": HOOK_TIMEOUT,
                "statusMessage": "interlock",
            }
            return HookSpec(event, matcher, handler)

        return [
            cx("PreToolUse", "^(Bash|apply_patch)$"),
            cx("PostToolUse", "^Bash$"),
            cx("Stop", None),
            cx("SubagentStop", None),
            cx("SessionStart", None),
        ]
    if agent == "gemini":

        def gm(event: str, matcher: str | None) -> HookSpec:
            handler = {
                "name": f"interlock-{event}",
                "type": "command",
                "command": cmd(event),
                "timeout": HOOK_TIMEOUT * 1000,  # Gemini CLI counts milliseconds
                "description": "interlock: judge shell commands and edits, verify before done",
            }
            return HookSpec(event, matcher, handler)

        return [
            gm("BeforeTool", "run_shell_command|write_file|replace"),
            gm("AfterTool", "run_shell_command"),
            gm("AfterAgent", None),
            gm("SessionStart", None),
        ]
    raise ValueError(f"unknown agent {agent!r}")


def target(agent: str, scope: str, repo: Path | None, home: Path) -> Target:
    """The settings file of `agent` for scope project | local | user."""
    base = home if scope == "user" else repo
    if base is None:
        from interlock.errors import InterlockError

        raise InterlockError(
            f"--{scope} needs a git repository (run it inside one, or use --user)",
            hint=f"interlock integrate {agent} --user",
        )
    notes: tuple[str, ...]
    if agent == "claude-code":
        name = "settings.local.json" if scope == "local" else "settings.json"
        notes = (
            "Claude Code picks up settings changes on its own or at its next start; `/hooks` lists them",
        )
        return Target(agent, base / ".claude" / name, notes)
    if agent == "codex":
        notes = (
            "Codex runs these hooks only after you trust them: open `/hooks` in Codex and "
            "trust the interlock hooks (again after every change to them)",
        )
        if scope != "user":
            notes += ("project hooks load only when the project's .codex/ layer is trusted",)
        return Target(agent, base / ".codex" / "hooks.json", notes)
    notes = (
        "Gemini CLI runs hooks only with its hooks system on: /settings, Advanced, "
        '"Enable Hooks System" (tools.enableHooks); `/hooks panel` lists them',
    )
    return Target(agent, base / ".gemini" / "settings.json", notes)
