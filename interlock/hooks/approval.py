"""Approvals: a person, outside the agent's run, accepts one exact audit finding.

A finding has a stable id: a short hash of kind, path, test and detail (not the line, which
moves with unrelated edits). The pre-commit hook shows it; `interlock approve ID` journals it,
and the hook stops blocking on that finding. Approving refuses when stdin is not a terminal or
when the caller runs inside the agent's wrapper (INTERLOCK_WRAPPED), because an approval the
agent can give itself approves nothing.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from interlock import constants, journal
from interlock.errors import InterlockError
from interlock.git import RepoLocation

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


def refusal(stdin_is_tty: bool, environ: Mapping[str, str]) -> str | None:
    """Why an approval from this process cannot count, or None when it can."""
    if environ.get(constants.ENV_WRAPPED):
        return f"this runs inside the agent's wrapper ({constants.ENV_WRAPPED} is set)"
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
    wanted: str,
    *,
    stdin_is_tty: bool,
    environ: Mapping[str, str] | None = None,
) -> Approval:
    """Journal a person's approval of the finding whose id starts with `wanted`."""
    env = os.environ if environ is None else environ
    why = refusal(stdin_is_tty, env)
    if why is not None:
        raise InterlockError(
            f"refused: an approval must come from a person, and {why}",
            hint=f"run `interlock approve {wanted}` yourself, in a terminal outside the agent's session",
        )
    matches = [f for f in current_findings(loc) if finding_id(f).startswith(wanted.lower())]
    if len(matches) != 1:
        problem = "matches no current finding" if not matches else "matches several findings"
        raise InterlockError(
            f"{wanted!r} {problem}",
            hint="interlock approve   (without an id: lists the pending findings and their ids)",
        )
    finding = matches[0]
    fid = finding_id(finding)
    by = _who()
    data: dict[str, Any] = {"id": fid, "by": by, **finding.to_json()}
    event = journal.record(loc, APPROVE_KIND, data)
    return Approval(fid, finding, by, event)


def _who() -> str:
    import getpass

    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return str(os.getuid())
