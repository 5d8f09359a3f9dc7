"""What a run says about a command: the engine's findings and the run's own notices, as the
stderr lines every door prints (`interlock: [tag] headline` and aligned fields)."""

from __future__ import annotations

from dataclasses import dataclass

from interlock import output
from interlock.engine.findings import Finding


@dataclass(frozen=True)
class Notice:
    """A run-level reason to refuse or warn, beside the engine's findings."""

    tag: str
    text: str
    fields: tuple[tuple[str, str], ...]
    blocks: bool


def _headline(verdict: str) -> str:
    if verdict == "block":
        return "refused"
    if verdict == "warn":
        return "warning (blocking mode would refuse it)"
    return "allowed (mode off; blocking mode would refuse it)"


def render(findings: list[Finding], notices: list[Notice], verdict: str) -> list[str]:
    lines = []
    head = _headline(verdict)
    for f in findings:
        fields = [("rule", f.rule), ("why", f.reason), ("instead", f.instead)]
        lines.append(output.format_message(f.kind, f"{head}: {f.text}", fields))
    for n in notices:
        title = n.text if not n.blocks else f"{head}: {n.text}"
        lines.append(output.format_message(n.tag, title, n.fields))
    return lines
