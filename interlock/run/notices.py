"""What a run says about a command: the engine's findings and the run's own notices, as the
stderr lines every door prints (`interlock: [tag] headline` and aligned fields).

Warnings are bounded: each kind gets WARNINGS_IN_FULL full messages a run, then one line
each (what was seen and the rule); a refusal always says why and what to do instead."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from interlock import output
from interlock.engine.findings import Finding

WARNINGS_IN_FULL = 3


@dataclass(frozen=True)
class Notice:
    """A run-level reason to refuse or warn, beside the engine's findings."""

    tag: str
    text: str
    fields: tuple[tuple[str, str], ...]
    blocks: bool


def _headline(verdict: str, severity: str = "block") -> str:
    if severity == "warn":  # only hides a validator's status: runs, never credited as green
        if verdict == "allow":
            return "allowed (mode off; not credited as green)"
        return "warning (runs, but is never credited as green)"
    if verdict == "block":
        return "refused"
    if verdict == "warn":
        return "warning (blocking mode would refuse it)"
    return "allowed (mode off; blocking mode would refuse it)"


def render(
    findings: list[Finding],
    notices: list[Notice],
    verdict: str,
    brief: Callable[[str], bool] = lambda kind: False,
) -> list[str]:
    """The messages for one command. `brief(kind)` says a kind already had its full
    warnings this run: a warning then gets one line (refusals always say everything)."""
    lines = []
    head = _headline(verdict)
    for f in findings:
        said = _headline(verdict, f.severity)
        if verdict == "warn" and brief(f.kind):
            lines.append(f"interlock: [{f.kind}] {said}: {f.text} (rule {f.rule})")
            continue
        fields = [("rule", f.rule), ("why", f.reason), ("instead", f.instead)]
        lines.append(output.format_message(f.kind, f"{said}: {f.text}", fields))
    for n in notices:
        title = n.text if not n.blocks else f"{head}: {n.text}"
        lines.append(output.format_message(n.tag, title, n.fields))
    return lines
