"""Which agent process a wrapper serves, read from /proc: the wrapper's hot path cannot pay for
psutil, and a run without `INTERLOCK_RUN` is named by its agent process.

The agent is the wrapper's nearest ancestor that is not a shell or a launcher (`sh -c`,
`timeout`, `env`, `nohup`...): an agent that runs `sh -c "interlock-sh -c CMD"` starts a new
`sh` for every command, but the agent itself stays the same. A process is named by its pid
and its start time (clock ticks since boot), so a reused pid is never the same agent.
Standard library only.
"""

from __future__ import annotations

import posix  # getppid only: `os` costs the agent hook door ~1 ms it need not pay

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
WRAPPER_NAME = "interlock-sh"  # the wrapper's process name, whichever way it started


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
    current = posix.getppid() if pid is None else pid
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


def ancestor_keys(pid: int, depth: int = 32) -> list[str]:
    """The `pid:start` keys of process `pid` and its ancestors, nearest first: a process that
    is not the wrapper's child (a git hook under an agent's own shell tool) finds its agent's
    run by them."""
    current = pid
    keys: list[str] = []
    for _ in range(depth):
        if current <= 1:
            break
        stat = proc_stat(current)
        if stat is None:
            break
        keys.append(f"{current}:{stat[2]}")
        current = stat[1]
    return keys
