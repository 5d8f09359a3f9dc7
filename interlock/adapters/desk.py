"""What judging an agent's event needs from where it runs: the run's worktree (warm from
the daemon, else opened inline) and, warm, a way to feed paths to the flight recorder."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from interlock.run.session import Worktree


@dataclass
class Desk:
    """A worktree to judge in; `record(paths)` asks the daemon's recorder to keep the
    current content of these worktree-relative paths now (None inline: no recorder here).
    `warm`: judged in the daemon, whose own environment is not the agent's (the monitor
    reads the agent's from its process when it runs a call again)."""

    wt: Worktree
    record: Callable[[list[bytes]], None] | None = None
    warm: bool = False
