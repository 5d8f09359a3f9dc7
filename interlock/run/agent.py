"""Which agent process a wrapper serves, and whether a process is the wrapper, read from /proc:
the wrapper's hot path cannot pay for psutil, and a run without `INTERLOCK_RUN` is named by its
agent process.

The agent is the wrapper's nearest ancestor that is not a shell or a launcher (`sh -c`,
`timeout`, `env`, `nohup`...): an agent that runs `sh -c "interlock-sh -c CMD"` starts a new
`sh` for every command, but the agent itself stays the same. A process is named by its pid
and its start time (clock ticks since boot), so a reused pid is never the same agent.
Standard library only.

A process is interlock's wrapper when its name (comm) is `interlock-sh` (the wrapper names
itself so at start) or its command line runs it, however it was started: the installed
launcher (`python -IS /path/interlock-sh`, under any file name: the script says what it
runs), the checkout's shell/interlock-sh (`sh interlock-sh`, then `python -I -S -c '...'`),
`python -m interlock.run.wrapper`. `interlock approve` and the person-only commands look
for it among their ancestors.
"""

from __future__ import annotations

import os

# Processes between an agent and its commands that are not the agent: shells and launchers.
_PASS_THROUGH = frozenset(
    {
        "sh",
        "bash",
        "dash",
        "ash",
        "zsh",
        "ksh",
        "mksh",
        "fish",
        "tcsh",
        "csh",
        "busybox",
        "env",
        "timeout",
        "nice",
        "ionice",
        "nohup",
        "stdbuf",
        "time",
        "setsid",
        "sudo",
        "doas",
        "su",
        "script",
        "interlock-sh",
    }
)
_MAX_DEPTH = 16
WRAPPER_NAME = "interlock-sh"
WRAPPER_MODULE = "interlock.run.wrapper"
_WRAPPER_FILES = frozenset({"interlock-sh", "interlock-bash"})
_SHELLS = frozenset({"sh", "bash", "dash", "ash", "zsh", "ksh", "mksh", "busybox"})


def proc_stat(pid: int) -> tuple[str, int, int, str] | None:
    """(command name, parent pid, start time in clock ticks, state) of a process, or None."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    left, right = data.find(b"("), data.rfind(b")")
    if left < 0 or right < left:
        return None
    fields = data[right + 2 :].split()
    try:
        return (
            data[left + 1 : right].decode("utf-8", "replace"),
            int(fields[1]),
            int(fields[19]),
            (fields[0].decode("ascii", "replace")),
        )
    except (IndexError, ValueError):
        return None


def start_time(pid: int) -> int | None:
    """A process's start time in clock ticks since boot, or None when it is not running."""
    stat = proc_stat(pid)
    return None if stat is None or stat[3] in ("Z", "X") else stat[2]


def is_running(pid: int | None, started: int | None) -> bool:
    """The process `pid` that started at `started` is still running (not a reused pid)."""
    if not pid or pid <= 0:
        return False
    now = start_time(pid)
    if now is None:
        return False
    return started is None or now == started


def agent_process(pid: int | None = None) -> tuple[int, int, str]:
    """(pid, start time, name) of the agent above this process (default: its parent)."""
    current = os.getppid() if pid is None else pid
    best: tuple[int, int, str] | None = None
    for _ in range(_MAX_DEPTH):
        stat = proc_stat(current)
        if stat is None:
            break
        name, parent, started, _state = stat
        best = (current, started, name)
        if name not in _PASS_THROUGH or parent <= 1:
            return best
        current = parent
    return best if best is not None else (current, 0, "?")


def agent_key(agent: tuple[int, int, str]) -> str:
    """How the journal names an agent process: `pid:start`."""
    return f"{agent[0]}:{agent[1]}"


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
    if comm(pid) == WRAPPER_NAME:
        return True
    args = cmdline(pid)
    return args is not None and runs_wrapper(args, pid)
