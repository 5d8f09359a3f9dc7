"""`interlock audit`: report validator definitions the run weakened.

Exit status: 0 when clean (review-only findings included), 1 when any finding says the tests
were tampered with (a green from them proves nothing), 1 as well for user errors (not a
repository, unknown --since), 2 for bad flags.
"""

from __future__ import annotations

from interlock import exitcodes, output
from interlock.audit import TAMPERED, AuditReport, audit_worktree
from interlock.git import RepoLocation, require_repo

TAG = "self-authored"


def render(report: AuditReport) -> list[str]:
    """Human lines, one per finding, then a summary."""
    lines = []
    for finding in report.findings:
        note = "" if finding.severity == TAMPERED else " [review]"
        lines.append(f"interlock: [{TAG}] {finding.location()}: {finding.detail}{note}")
    tampered = sum(f.severity == TAMPERED for f in report.findings)
    review = len(report.findings) - tampered
    if report.verdict == TAMPERED:
        lines.append(
            f"interlock: [{TAG}] tampered: {tampered} finding(s) against {report.base}"
            + (f", {review} worth a look" if review else "")
            + "; a green from these tests proves nothing until they are restored"
        )
    elif review:
        lines.append(
            f"interlock: [{TAG}] clean against {report.base}; {review} change(s) worth a look"
        )
    else:
        lines.append(f"interlock: [{TAG}] clean: no validator weakened since {report.base}")
    return lines


def _base(loc: RepoLocation, since: str | None) -> str | None:
    """Inside an open run, no --since (or `baseline`) means the run's baseline and `green`
    its last green point, so a weakened test committed during the run still shows."""
    if since not in (None, "baseline", "green"):
        return since
    from interlock.run.session import run_snapshot  # only when a default is read

    found = run_snapshot(loc, since or "baseline")
    return found if found is not None else since


def audit(cwd: str | None, since: str | None, as_json: bool) -> int:
    loc = require_repo(cwd)
    report = audit_worktree(loc, _base(loc, since))
    if as_json:
        output.write_json(report.to_json())
    else:
        for line in render(report):
            output.write_err(line)
    return exitcodes.ERROR if report.verdict == TAMPERED else exitcodes.OK
