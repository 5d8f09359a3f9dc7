"""The command engine: `analyse()` reads a command line and finds what it would do. Pure: no
I/O, no tree facts (those are applied later by `engine.check`).

parse (interlock.shell) -> walk (every invocation, through wrappers and trampolines) -> rules on
each invocation (discard, self-disable) -> validators (tier, selection masking) -> exit-status
flow (is a validator's failure able to reach the caller?).
"""

from __future__ import annotations

from dataclasses import dataclass

from interlock.engine import exitflow, unknowncode, walk
from interlock.engine.findings import Finding, ValidatorMatch
from interlock.engine.invocation import Invocation
from interlock.engine.rules import index as rules
from interlock.engine.rules.validators.runner import EXIT_MASKED
from interlock.engine.verdict import ParseState, ValidatorReport, unparsed_finding
from interlock.shell.model import ParseResult
from interlock.shell.parse import parse as parse_shell

_MAX_FED_DEPTH = 4


@dataclass(frozen=True)
class Analysis:
    """What a command line would do, before tree facts and mode are applied."""

    command: str
    parse: ParseState
    parse_error: str | None
    invocations: tuple[Invocation, ...]
    findings: tuple[Finding, ...]
    validators: tuple[ValidatorReport, ...]


def _instead(rule: str) -> str:
    """The rule's documented alternative (one text for the finding and `interlock explain`)."""
    info = rules.rule_info(rule)
    return info.instead if info is not None else "run the validator unmasked"


def _dedupe(findings: list[Finding]) -> tuple[Finding, ...]:
    seen: set[tuple[str, str, str | None]] = set()
    unique: list[Finding] = []
    for finding in findings:
        key = (finding.rule, finding.text, finding.cwd)
        if key not in seen:
            seen.add(key)
            unique.append(finding)
    return tuple(unique)


def _validator_findings(
    result: ParseResult,
    walked: walk.Trace,
    declared: tuple[str, ...],
) -> tuple[list[Finding], list[ValidatorReport]]:
    matches: dict[int, ValidatorMatch] = {}
    for inv in walked.invocations:
        match = rules.classify_validator(inv, declared)
        if match is not None:
            matches[id(inv)] = match
    if not matches:
        return [], []

    findings: list[Finding] = []
    reports: list[ValidatorReport] = []
    masking = exitflow.validator_masking(result, lambda inv: id(inv) in matches, walked)
    for inv, exit_mask in masking:
        match = matches[id(inv)]
        masked_by = match.masked_by or exit_mask
        reports.append(ValidatorReport(match.text, match.tier, masked_by is not None, masked_by))
        if match.masked_by is not None:
            rule = match.rule or "validator.negative-selection"
            findings.append(
                Finding(
                    kind="masked-validator",
                    rule=rule,
                    text=match.text,
                    reason=f"this run of {match.tool} cannot prove anything: {match.masked_by}",
                    instead=_instead(rule),
                    cwd=inv.cwd,
                )
            )
        elif exit_mask is not None:
            findings.append(
                Finding(
                    kind="masked-validator",
                    rule=EXIT_MASKED,
                    text=match.text,
                    reason=f"a failure of {match.tool} cannot reach the exit status: {exit_mask}",
                    instead=_instead(EXIT_MASKED),
                    cwd=inv.cwd,
                )
            )
    return findings, reports


def analyse(command: str, declared_validators: tuple[str, ...] = (), depth: int = 0) -> Analysis:
    """Read one command line. Never raises on any text."""
    result = parse_shell(command)
    if result.root is None:
        finding = unparsed_finding(command, result.error)
        return Analysis(command, "unparsed", result.error, (), (finding,), ())
    # An unparsed line with a root is an unclosed construct read conservatively: bash runs
    # the complete commands before the broken one, so they are judged too.
    walked = walk.trace(result)
    invocations = walked.invocations
    findings: list[Finding] = []
    if result.status == "unparsed":
        findings.append(unparsed_finding(command, result.error))
    scripts = unknowncode.stdin_scripts(result.root)
    fed_degraded = False
    for k, inv in enumerate(invocations):
        findings.extend(rules.check_invocation(inv, invocations[:k]))
        unknown, script = unknowncode.unknown_findings(inv, scripts)
        findings.extend(unknown)
        if script is not None:  # `echo 'cmd' | bash`: judge the script that is fed
            if depth >= _MAX_FED_DEPTH:
                findings.append(unparsed_finding(script, "scripts fed to shells nest too deep"))
                continue
            fed = analyse(script, declared_validators, depth + 1)
            findings.extend(fed.findings)
            fed_degraded = fed_degraded or fed.parse != "ok"
    masked, reports = _validator_findings(result, walked, declared_validators)
    findings.extend(masked)
    if result.status == "unparsed":
        parse: ParseState = "unparsed"
    elif fed_degraded or result.status == "degraded" or walk.is_degraded(result, list(invocations)):
        parse = "degraded"
    else:
        parse = "ok"
    return Analysis(
        command, parse, result.error, tuple(invocations), _dedupe(findings), tuple(reports)
    )
