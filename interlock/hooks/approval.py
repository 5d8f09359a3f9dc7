"""Approvals: a person, outside the agent's run, accepts one exact audit finding.

A finding has a stable id: a short hash of kind, path, test and detail (not the line, which
moves with unrelated edits). The pre-commit hook shows it; `interlock approve ID` journals it,
and the hook stops blocking on that finding. Approving refuses inside a run - INTERLOCK_RUN or
INTERLOCK_WRAPPED in the environment, or an ancestor process that is interlock's wrapper
(however it was started: interlock.run.agentname.is_wrapper) or a known coding agent (claude,
codex, gemini, aider, or node/python running one) - whatever the terminal says, when stdin
is not a terminal, and while a run is live, when the process left the agent's tree on the way
or its terminal is one the run holds (interlock.run.detached): an approval the agent can give
itself approves nothing.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from interlock import constants, journal, procinfo
from interlock.errors import InterlockError
from interlock.git import RepoLocation
from interlock.run import agent, agentname
from interlock.run.detached import detached_from_run

if TYPE_CHECKING:
    from interlock.audit.model import AuditFinding, AuditReport

APPROVE_KIND = "approve"


def finding_id(finding: AuditFinding) -> str:
    """Ten hex digits naming this exact finding, e.g. `3f9a1c2b7e`."""
    text = "\0".join((finding.kind, finding.path, finding.test or "", finding.detail))
    return hashlib.sha1(text.encode("utf-8", errors="surrogateescape")).hexdigest()[:10]


def approved_ids(loc: RepoLocation) -> set[str]:
    """Ids of every finding a person approved in this worktree."""
    return {str(event.data.get("id")) for event in journal.events(loc, kind=APPROVE_KIND)}


def unapproved(findings: Iterable[AuditFinding], approved: set[str]) -> list[AuditFinding]:
    return [f for f in findings if finding_id(f) not in approved]


@dataclass(frozen=True)
class Approval:
    """A recorded approval: the finding, who approved it, and the journal entry id."""

    id: str
    finding: AuditFinding
    by: str
    event: int


def agent_in(cmdline: tuple[str, ...]) -> str | None:
    """The agent or wrapper a command line runs, e.g. `claude` for
    `node /usr/lib/node_modules/@anthropic-ai/claude-code/cli.js` (interlock.run.agentname),
    `interlock-sh` for the wrapper however it was started (interlock.run.agentname.runs_wrapper);
    None for anything else."""
    if not cmdline:
        return None
    if agentname.runs_wrapper(cmdline):
        return agent.WRAPPER_NAME
    return agentname.known_agent(cmdline)


def agent_ancestor(pid: int | None = None, depth: int = 64) -> str | None:
    """`claude (pid 123)` when an ancestor of `pid` (default: this process) is an agent or
    interlock's wrapper; None when none is (or the process table cannot be read)."""
    current = procinfo.parent_pid(pid)
    for _ in range(depth):
        if current is None or current <= 1:
            return None
        if agentname.is_wrapper(current):
            return f"{agent.WRAPPER_NAME} (pid {current})"
        found = agent_in(procinfo.process_cmdline(current) or ())
        if found:
            return f"{found} (pid {current})"
        current = procinfo.parent_pid(current)
    return None


def refusal(
    stdin_is_tty: bool, environ: Mapping[str, str], ancestor: str | None = None
) -> str | None:
    """Why an approval from this process cannot count, or None when it can. `ancestor` is
    what agent_ancestor() found."""
    if environ.get(constants.ENV_WRAPPED):
        return f"this runs inside the agent's wrapper ({constants.ENV_WRAPPED} is set)"
    if environ.get(constants.ENV_RUN):
        return f"this runs inside an agent's run ({constants.ENV_RUN} is set)"
    if ancestor:
        return f"this runs under {ancestor}, an agent or interlock's wrapper"
    if not stdin_is_tty:
        return "stdin is not a terminal"
    return None


def current_findings(loc: RepoLocation) -> list[AuditFinding]:
    """Findings of the staged changes, then of the worktree, without duplicates."""
    from interlock.audit import audit_staged, audit_worktree

    reports: list[AuditReport] = [audit_staged(loc), audit_worktree(loc)]
    seen: dict[str, AuditFinding] = {}
    for report in reports:
        for finding in report.findings:
            seen.setdefault(finding_id(finding), finding)
    return list(seen.values())


def approve(
    loc: RepoLocation,
    wanted: str | list[str],
    *,
    stdin_is_tty: bool,
    environ: Mapping[str, str] | None = None,
) -> list[Approval]:
    """Journal a person's approval of each finding whose id starts with one of `wanted`:
    all of them, or none when one matches no finding or several."""
    ids = [wanted] if isinstance(wanted, str) else list(wanted)
    env = os.environ if environ is None else environ
    why = refusal(stdin_is_tty, env, agent_ancestor())
    if why is None and (detour := detached_from_run(loc)) is not None:
        why = f"while a run is live, {detour}"
    if why is not None:
        raise InterlockError(
            f"refused: an approval must come from a person, and {why}",
            hint=f"run `interlock approve {' '.join(ids)}` yourself, in a terminal outside the "
            "agent's session, whose processes the run did not start (docs/approvals.md)",
        )
    findings = current_findings(loc)
    chosen: dict[str, AuditFinding] = {}
    for one in ids:
        matches = [f for f in findings if finding_id(f).startswith(one.lower())]
        if len(matches) != 1:
            problem = "matches no current finding" if not matches else "matches several findings"
            raise InterlockError(
                f"{one!r} {problem}; nothing was approved",
                hint="interlock approve   (without an id: lists the pending findings and their ids)",
            )
        chosen.setdefault(finding_id(matches[0]), matches[0])
    by = _who()
    done = []
    for fid, finding in chosen.items():
        data: dict[str, Any] = {"id": fid, "by": by, **finding.to_json()}
        done.append(Approval(fid, finding, by, journal.record(loc, APPROVE_KIND, data)))
    return done


def _who() -> str:
    import getpass

    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return str(os.getuid())
