"""Verdicts: allow, warn or block, with the findings that led there.

Each finding has a severity. `block` findings (discards, self-disable, unknown code,
validators whose success is forged) are refused in blocking mode; `warn` findings (a
validator whose status is only hidden by output plumbing, a narrowed or listing run) are
shown and recorded but never refused: the run goes on and is never credited as green.

The verdict blocking mode *would* give (`would_block`: a `block` finding is present) is always
computed, whatever the mode: advisory demotes the guard to an advisor, it does not blind it. Three outcomes have names and
tests of their own: a command that could not be parsed (`unparsed_finding`), a config that
could not be read (the resolver's guarded defaults plus a note), and interlock itself failing
(`internal_error_finding`): none of them ever becomes a silent allow.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from interlock import exitcodes
from interlock.engine.findings import Finding

Action = Literal["allow", "warn", "block"]
ParseState = Literal["ok", "degraded", "unparsed"]


@dataclass(frozen=True)
class ValidatorReport:
    """A validator seen in the command line, e.g. `pytest -q` (slow, unmasked)."""

    text: str
    tier: str
    masked: bool
    masked_by: str | None = None
    tool: str = ""  # the runner, as the classifier names it (pytest, go test, ...)
    # the script files it was read from (`./ci.sh` running `pytest`), absolute, outermost
    # first: a file the run wrote or changed makes its pass self-authored (run.green)
    scripts: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"text": self.text, "tier": self.tier, "masked": self.masked}
        if self.scripts:
            data["scripts"] = list(self.scripts)
        return data


@dataclass(frozen=True)
class CheckResult:
    """The answer for one command line (the JSON contract of `interlock check --json`)."""

    command: str
    verdict: Action
    would_block: bool
    parse: ParseState
    findings: tuple[Finding, ...]
    validators: tuple[ValidatorReport, ...]
    mode: str
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def exit_code(self) -> int:
        return exitcodes.BLOCKED if self.verdict == "block" else exitcodes.OK

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "command": self.command,
            "verdict": self.verdict,
            "would_block": self.would_block,
            "parse": self.parse,
            "findings": [f.to_json() for f in self.findings],
            "validators": [v.to_json() for v in self.validators],
            "mode": self.mode,
        }
        if self.notes:
            data["notes"] = list(self.notes)
        return data


def unparsed_finding(command: str, error: str | None) -> Finding:
    """The named outcome for a command line neither parser could read."""
    return Finding(
        kind="unparsed",
        rule="parse.unparsed",
        text=command if len(command) <= 120 else command[:117] + "...",
        reason=f"interlock could not read this command line ({error or 'unknown syntax'}), "
        "so it cannot tell what it would do",
        instead="split it into simpler commands, or write the script to a file and run that file",
    )


def internal_error_finding(command: str, report: str) -> Finding:
    """The named outcome for interlock failing on a command: guarded, never a silent allow."""
    return Finding(
        kind="unparsed",
        rule="interlock.internal-error",
        text=command if len(command) <= 120 else command[:117] + "...",
        reason=f"interlock failed while analysing this command (report: {report})",
        instead="run a simpler form of the command, and report the bug with the file above",
    )


def decide(findings: tuple[Finding, ...], mode: str) -> tuple[Action, bool]:
    """(verdict in `mode`, whether blocking mode would refuse the command).

    Blocking mode refuses when any finding has severity `block` and warns when all are `warn`;
    advisory warns on any finding; off allows everything.
    """
    would_block = any(f.severity == "block" for f in findings)
    if not findings or mode == "off":
        return "allow", would_block
    return ("block" if mode == "blocking" and would_block else "warn"), would_block
