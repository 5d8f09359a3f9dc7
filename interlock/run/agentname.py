"""What a process is, from its command line: interlock's wrapper, a coding agent, or what to
call it - not from its kernel name (comm) alone, which is cut to 15 bytes and says nothing for
programs started from memory (`memfd:sealed-91`), by number (`3` for /dev/fd/3) or through an
interpreter (`node`, `python3`).

    describe(pid, start, comm)    # "claude", "codex", "python3 agent.py", "binary_backend"

A name is read once, when a run starts (its `agent_name`, shown by `interlock status` and
`interlock runs` with the pid). Kept off the wrapper's hot path (it imports `re`).

A process is interlock's wrapper when its name (comm) is `interlock-sh` (the wrapper names
itself so at start) or its command line runs it, however it was started: the installed
launcher (`python -IS /path/interlock-sh`, under any file name: the script says what it
runs), the checkout's shell/interlock-sh (`sh interlock-sh`, then `python -I -S -c '...'`),
`python -m interlock.run.wrapper`. `interlock approve` and the person-only commands look
for it among their ancestors.
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
WRAPPER_MODULE = "interlock.run.wrapper"
_WRAPPER_FILES = frozenset({"interlock-sh", "interlock-bash"})
_SHELLS = frozenset({"sh", "bash", "dash", "ash", "zsh", "ksh", "mksh", "busybox"})


def _read(pid: int, name: str, limit: int = 1 << 16) -> bytes | None:
    try:
        with open(f"/proc/{pid}/{name}", "rb") as handle:
            return handle.read(limit)
    except OSError:
        return None


def cmdline(pid: int) -> tuple[str, ...] | None:
    """A process's arguments, or None when they cannot be read (gone, or a kernel thread)."""
    raw = _read(pid, "cmdline")
    if not raw:
        return None
    return tuple(os.fsdecode(a) for a in raw.rstrip(b"\0").split(b"\0"))


def comm(pid: int) -> str | None:
    """A process's name as the kernel keeps it (at most 15 bytes), or None."""
    raw = _read(pid, "comm", 64)
    return None if raw is None else raw.rstrip(b"\n").decode("utf-8", "replace")


def is_python(program: str) -> bool:
    name = os.path.basename(program)
    return name == "python" or (name.startswith("python") and name[6:].replace(".", "").isdigit())


def python_runs(argv: tuple[str, ...] | list[str]) -> tuple[str, str] | None:
    """What a Python command line runs: ("-c", code), ("-m", module) or ("file", path); None
    when it runs nothing named (an interactive prompt, --version). Options are read as Python
    reads them: clusters (`-IS`, `-Im mod`), and -W/-X with their argument."""
    i = 1
    while i < len(argv):
        word = argv[i]
        if word == "-" or not word.startswith("-"):
            return ("file", word) if word != "-" else None
        if word.startswith("--"):
            i += 2 if word == "--check-hash-based-pycs" else 1
            continue
        for j in range(1, len(word)):
            flag, rest = word[j], word[j + 1 :]
            if flag in "cm":
                value = rest or (argv[i + 1] if i + 1 < len(argv) else "")
                return f"-{flag}", value
            if flag in "WX":
                i += 0 if rest else 1  # -Wignore, or -W ignore
                break
        i += 1
    return None


def _names_wrapper(path: str, pid: int | None) -> bool:
    """A script file that is the wrapper: its name, else what its first lines import."""
    if os.path.basename(path) in _WRAPPER_FILES:
        return True
    where = path if os.path.isabs(path) or pid is None else f"/proc/{pid}/cwd/{path}"
    try:
        with open(where, "rb") as handle:
            return WRAPPER_MODULE.encode() in handle.read(4096)
    except OSError:
        return False


def runs_wrapper(argv: tuple[str, ...] | list[str], pid: int | None = None) -> bool:
    """Whether a command line runs interlock's wrapper (see the module docstring); `pid` is
    the process's, to read a relative script path from where it runs."""
    if not argv:
        return False
    program = argv[0]
    if os.path.basename(program) in _WRAPPER_FILES:
        return True
    if is_python(program):
        target = python_runs(argv)
        if target is None:
            return False
        kind, value = target
        if kind == "-c":
            return WRAPPER_MODULE in value
        if kind == "-m":
            return value == WRAPPER_MODULE
        return _names_wrapper(value, pid)
    if os.path.basename(program) in _SHELLS and len(argv) > 1 and not argv[1].startswith("-"):
        return os.path.basename(argv[1]) in _WRAPPER_FILES
    return False


def is_wrapper(pid: int) -> bool:
    """Whether process `pid` is interlock's wrapper, by its name or its command line."""
    if comm(pid) == agent.WRAPPER_NAME:
        return True
    args = cmdline(pid)
    return args is not None and runs_wrapper(args, pid)


def _runs(cmdline: tuple[str, ...]) -> tuple[str, str | None, str | None]:
    """(program, the module an interpreter runs, the script it runs) of a command line."""
    program = os.path.basename(cmdline[0])
    if is_python(program):
        target = python_runs(cmdline)
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
    args = cmdline(pid)
    if not args or not args[0]:
        return str(comm)
    return name_of(args)
