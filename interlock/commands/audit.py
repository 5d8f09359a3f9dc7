"""`interlock audit`: report validator definitions the run weakened.

The hot client (interlock/__main__.py) has the warm daemon answer first; what reaches
`audit()` here asks the daemon for the report too (a hot path that was not taken: unusual
arguments), and audits inline when the daemon is down.

Exit status: 0 when clean (review-only findings included), 1 when any finding says the tests
were tampered with (a green from them proves nothing), 1 as well for user errors (not a
repository, unknown --since), 2 for bad flags.
"""

from __future__ import annotations

from typing import Any

from interlock import exitcodes, output
from interlock.audit import TAMPERED, AuditFinding, AuditReport, audit_worktree
from interlock.audit.render import report_lines
from interlock.daemon import client
from interlock.daemon.hotclient import build_stamp
from interlock.errors import DaemonError
from interlock.git import RepoLocation, require_repo

TAG = "self-authored"
render = report_lines  # the human lines of a report (interlock.audit.render)


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
    base = _base(loc, since)
    report = _warm_report(loc, base) or audit_worktree(loc, base)
    if as_json:
        output.write_json(report.to_json())
    else:
        for line in render(report):
            output.write_err(line)
    return exitcodes.ERROR if report.verdict == TAMPERED else exitcodes.OK
