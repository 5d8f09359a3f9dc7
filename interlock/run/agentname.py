"""What to call an agent process: the coding agent it runs, else its program, from its command
line - not from its kernel name (comm), which is cut to 15 bytes and says nothing for programs
started from memory (`memfd:sealed-91`), by number (`3` for /dev/fd/3) or through an
interpreter (`node`, `python3`).

    describe(pid, start, comm)    # "claude", "codex", "python3 agent.py", "binary_backend"

Read once, when a run starts (its `agent_name`, shown by `interlock status` and `interlock
runs` with the pid); kept off the wrapper's hot path (it imports `re`).
"""

from __future__ import annotations

import os
import re

from interlock.run import agent

# Words in a command line that name a coding agent: the program itself, or the script or
# module an interpreter (node, python, bun, deno) runs.
_AGENT_WORDS = re.compile(
    r"(^|[/@._-])(claude|claude-code|codex|gemini|gemini-cli|aider|cursor-agent|opencode|"
    r"interlock-sh|interlock-bash)([/._-]|$)|^interlock\.run(\.|$)"
)
_INTERPRETERS = frozenset(
    {"node", "nodejs", "bun", "deno", "sh", "bash", "dash", "zsh", "ruby", "perl"}
)
_MAX_NAME = 60


def _runs(cmdline: tuple[str, ...]) -> tuple[str, str | None, str | None]:
    """(program, the module an interpreter runs, the script it runs) of a command line."""
    program = os.path.basename(cmdline[0])
    if agent.is_python(program):
        target = agent.python_runs(cmdline)
        if target is not None and target[0] == "-m":
            return program, target[1], None
        if target is not None and target[0] == "file":
            return program, None, target[1]
    elif program in _INTERPRETERS:
        script = next((w for w in cmdline[1:3] if w and not w.startswith("-")), None)
        return program, None, script
    return program, None, None


def known_agent(cmdline: tuple[str, ...]) -> str | None:
    """The coding agent a command line runs, e.g. `claude` for
    `node /usr/lib/node_modules/@anthropic-ai/claude-code/cli.js`; None for anything else."""
    if not cmdline:
        return None
    for word in _runs(cmdline):
        match = _AGENT_WORDS.search((word or "").lower())
        if match:
            return next(g for g in match.groups()[1:] if g) if match.group(2) else "interlock.run"
    return None


def name_of(cmdline: tuple[str, ...]) -> str:
    """A short name for the program a command line runs (see the module docstring)."""
    found = known_agent(cmdline)
    if found:
        return found
    program, module, script = _runs(cmdline)
    if module is not None:
        name = f"{program} -m {module}"
    elif script is not None:
        name = f"{program} {os.path.basename(script)}"
    else:
        name = program
    return name[:_MAX_NAME] or "?"


def describe(pid: int, start: int | None, comm: str) -> str:
    """The name of process `pid` (started at `start` clock ticks: not a reused pid), from its
    command line; `comm` when that cannot be read."""
    if type(pid) is not int or (start is not None and agent.start_time(pid) != start):
        return str(comm)
    args = agent.cmdline(pid)
    if not args or not args[0]:
        return str(comm)
    return name_of(args)
