"""What `interlock audit` prints for a report: the same text whichever process made it (the
CLI inline, or the warm daemon for the hot client)."""

from __future__ import annotations

import json

from interlock.audit.model import TAMPERED, AuditReport

TAG = "self-authored"


def report_lines(report: AuditReport) -> list[str]:
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


def rendered(report: AuditReport, as_json: bool) -> tuple[str, str, int]:
    """(stdout, stderr, exit status) of `interlock audit [--json]`: 1 when tampered."""
    code = 1 if report.verdict == TAMPERED else 0
    if as_json:
        return json.dumps(report.to_json(), ensure_ascii=False) + "\n", "", code
    return "", "\n".join(report_lines(report)) + "\n", code
