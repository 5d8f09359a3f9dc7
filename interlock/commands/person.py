"""Whether a person, not the run's agent, is asking: for the commands that are a person's
brakes (`pause`, `resume`, `stop`, `run start|end|reconcile`), a harness's marks
(`turn --step/--set/--experiment`), and a person's word on the objectives board.

`run.session.inside_run` sees the wrapper (its variables, or the wrapper as an ancestor). An
agent's hooks (Claude Code, Codex, Gemini) leave no such sign: the agent's Bash tool runs the
command itself, so the agent is found as an ancestor process too (`hooks.approval`). A command
that left the agent's tree (`setsid -f`, `nohup ... &`, a double fork) or got a terminal of
its own from the run (`script`, `expect`) is found while a run is live in the worktree by
`run.detached`; the engine's self-disable rule also finds most of them in the command's text.
"""

from __future__ import annotations

import os

from interlock.errors import InterlockError
from interlock.git import discover
from interlock.hooks.approval import agent_ancestor
from interlock.run import session
from interlock.run.detached import detached_from_run


def agent_side() -> str | None:
    """Why this process acts for a run's agent, or None when nothing says so."""
    why = session.inside_run()
    if why is not None:
        return why
    found = agent_ancestor()
    if found is not None:
        return f"it runs under {found}, a coding agent"
    detour = detached_from_run(discover(os.getcwd()))
    return None if detour is None else f"while a run is live, {detour}"


def require_person(what: str) -> None:
    """Raise when `interlock WHAT` is asked from inside a run or under an agent."""
    why = agent_side()
    if why is not None:
        raise InterlockError(
            f"`interlock {what}` is for a person, outside the run ({why})",
            hint="run it in your own terminal, not through the agent (one whose processes the "
            "run did not start: docs/approvals.md)",
        )
