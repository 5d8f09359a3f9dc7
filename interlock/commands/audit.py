"""`interlock audit`: report validator definitions the run weakened.

Exit status: 0 when clean (review-only findings included), 1 when any finding says the tests
were tampered with (a green from them proves nothing), 1 as well for user errors (not a
repository, unknown --since), 2 for bad flags.
"""

from __future__ import annotations

from typing import Any

from interlock import exitcodes, output
from interlock.audit import TAMPERED, AuditFinding, AuditReport, audit_worktree
from interlock.daemon import client
from interlock.daemon.hotclient import build_stamp
from interlock.errors import DaemonError
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


def _warm_report(loc: RepoLocation, since: str | None) -> AuditReport | None:
    """The audit as the warm daemon makes it (it knows which paths changed), or None."""
    if client.daemon_disabled():
        return None
    try:
        reply = client.call(loc, "audit", since=since, build=build_stamp())
    except DaemonError:  # an unusable socket, another build, a bug there: inline
        return None
    if reply is None:
        client.ensure_daemon(loc)
        return None
    text = reply.get("stderr")
    if isinstance(text, str) and text:
        output.write_err(text.removesuffix("\n"))
    data: dict[str, Any] = reply["report"]
    findings = tuple(AuditFinding(**f) for f in data["findings"])
    return AuditReport(data["verdict"], findings, data["base"])


def audit(cwd: str | None, since: str | None, as_json: bool) -> int:
    loc = require_repo(cwd)
    report = _warm_report(loc, since) or audit_worktree(loc, since)
    if as_json:
        output.write_json(report.to_json())
    else:
        for line in render(report):
            output.write_err(line)
    return exitcodes.ERROR if report.verdict == TAMPERED else exitcodes.OK
