"""Whether a process that looks like a person's is the run's agent gone round the back.

The person check (`interlock approve`, `stop`, `pause`, `run start|end`) looks for the agent
or the wrapper among the process's ancestors and, for an approval, wants a terminal. An agent
can shed all three: `setsid -f env -i script -qc 'interlock approve ID' /dev/null` leaves the
agent's ancestry (the orphan is adopted by pid 1), clears the environment, and `script` gives
it a terminal. While a run is live in the worktree, such a process is not a person:

1. **Adopted after the run began.** A process of its ancestry (itself included) started after
   the run began and has pid 1 or a subreaper (systemd, tini, dumb-init...) for a parent:
   it was orphaned or detached on the way (`setsid -f`, `nohup ... &`, a double fork). When
   the run's agent is alive and the system has control groups, the adopted process must also
   sit in the agent's control group (an orphan keeps its group): a person's tmux server or
   terminal started after the run lives in the person's own group.
2. **A terminal the run holds.** Its controlling terminal is a pseudo-terminal whose master
   side is held by a process that descends from the run's agent or the wrapper, or that is
   itself adopted as in 1 (`script`, `expect`, python's `pty`, `unbuffer` started by the run).

What it lets through: a person's shell in a terminal, tmux or screen session, ssh login, or
VS Code terminal, old or new, whose processes descend from something older than the run
(the terminal app, sshd, the tmux server) or live in another control group than the agent.
What it refuses wrongly: on a system without control groups per session (a plain container),
a person's terminal multiplexer or terminal app started after the run began and adopted by
pid 1; that person can use a terminal started before the run. What it cannot see: a process
started by a service manager on the agent's behalf (`systemd-run --user` without `--pty`),
which no ancestry shows; the engine refuses that command by its text.
"""

from __future__ import annotations

from interlock import procinfo
from interlock.git import RepoLocation
from interlock.procinfo import Link
from interlock.run import agent, agentname, inforce, records
from interlock.run.records import Run

# Programs that adopt orphans besides pid 1 (PR_SET_CHILD_SUBREAPER or a container's init).
SUBREAPERS = frozenset(
    (
        "systemd",
        "init",
        "tini",
        "tini-static",
        "dumb-init",
        "docker-init",
        "catatonit",
        "s6-svscan",
        "runsvdir",
        "containerd-shim",
        "containerd-shim-runc-v2",
        "conmon",
    )
)
_SLACK = 0.05  # seconds: process start times are read in clock ticks (procinfo.link_of)


class _Facts:
    """What the live runs say about processes: when the first began, the agents' pids, and
    the agents' control groups (None when none can be read: any group then counts)."""

    def __init__(self, runs: list[Run]) -> None:
        self.since = min(run.started for run in runs)
        self.agents = {pid for run in runs if (pid := _live_agent(run)) is not None}
        links = [procinfo.link_of(pid) for pid in self.agents]
        groups = {link.cgroup for link in links if link is not None}
        self.groups: set[str | None] | None = groups if groups and None not in groups else None

    def adopted(self, chain: list[Link]) -> str | None:
        """Why a process of this ancestry was adopted after the run began (rule 1), or None."""
        for k, link in enumerate(chain):
            if link.started <= self.since + _SLACK:
                continue
            parent = chain[k + 1] if k + 1 < len(chain) else None
            if link.ppid == 1:
                adopter = "pid 1"
            elif parent is not None and parent.name in SUBREAPERS:
                adopter = f"{parent.name} (pid {parent.pid})"
            else:
                continue
            if self.groups is not None and link.cgroup not in self.groups:
                continue  # another session's process: a person's tmux or terminal
            return (
                f"process {link.pid} ({link.name}) started after the run began and was "
                f"adopted by {adopter}: it left the agent's process tree on the way"
            )
        return None

    def descends(self, chain: list[Link]) -> str | None:
        """Which agent or wrapper this ancestry descends from, or None. A recorded agent
        counts only above the first process: the process the run names as its agent may be a
        terminal app (a person typing through the wrapper), whose other windows are a
        person's; a process it started is the run's."""
        for k, link in enumerate(chain):
            if link.pid in self.agents and k > 0:
                return f"it descends from the run's agent (pid {link.pid})"
            if agentname.is_wrapper(link.pid):
                return f"it descends from interlock's wrapper (pid {link.pid})"
            name = agentname.known_agent(procinfo.process_cmdline(link.pid) or ())
            if name is not None:
                return f"it descends from {name} (pid {link.pid}), a coding agent"
        return None


def _live_agent(run: Run) -> int | None:
    """The pid of the run's agent while that very process runs."""
    pid_text, _, start = (run.agent or "").partition(":")
    if not pid_text.isdigit():
        return None
    started = int(start) if start.isdigit() else None
    return int(pid_text) if agent.is_running(int(pid_text), started) else None


def live_runs(loc: RepoLocation) -> list[Run]:
    """The runs live in the worktree (open, and their agent runs or a command came lately);
    none when interlock never kept a journal there."""
    from interlock.journal import journal_path, opened

    if not journal_path(loc).exists():
        return []
    with opened(loc) as journal:
        return [run for run in records.open_runs(journal) if inforce.is_live(journal, run)]


def detached_from_run(loc: RepoLocation | None, pid: int | None = None) -> str | None:
    """Why process `pid` (default: this one) acts for a run live in the worktree although no
    agent or wrapper is among its ancestors (see the module docstring), or None."""
    live = live_runs(loc) if loc is not None else []
    if not live:
        return None
    facts = _Facts(live)
    why = facts.adopted(procinfo.ancestry(pid))
    if why is not None:
        return why
    index = procinfo.terminal_pty(pid)
    if index is None:
        return None
    for holder in procinfo.pty_master_holders(index):
        chain = procinfo.ancestry(holder)
        found = facts.descends(chain) or facts.adopted(chain)
        if found is not None:
            return f"its terminal /dev/pts/{index} is held by process {holder}, and {found}"
    return None
