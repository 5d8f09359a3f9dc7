"""`interlock check`: what interlock would do with a command line.

`evaluate()` is the one path every front door takes (the CLI, the daemon's warm `check`, the
batch judge): analyse the text, apply the tree facts to discards, apply the mode.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass, replace

from interlock import exitcodes, output
from interlock.config import load_config
from interlock.engine import Analysis, analyse
from interlock.facts import TreeFacts, collect_facts
from interlock.findings import Finding
from interlock.git import discover
from interlock.precision import Judge
from interlock.verdict import CheckResult, decide, internal_error_finding


@dataclass(frozen=True)
class CheckOutcome:
    """A check's result plus how to show it."""

    result: CheckResult

    @property
    def exit_code(self) -> int:
        return self.result.exit_code

    def render(self) -> str:
        return render(self.result)


def _apply_facts(
    analysis: Analysis,
    start: str,
    facts: TreeFacts | None,
    assume_dirty: bool,
) -> tuple[Finding, ...]:
    """Drop discard findings that would destroy nothing; say what the rest would destroy.

    With assume_dirty every target is taken to hold unsaved work, except literal temp dirs.
    """
    if not any(f.kind == "discard" for f in analysis.findings):
        return analysis.findings
    if assume_dirty:
        return tuple(f for f in analysis.findings if not (f.targets and f.targets.temp_only))
    judge = Judge(start, facts)
    kept: list[Finding] = []
    for finding in analysis.findings:
        if finding.kind != "discard":
            kept.append(finding)
            continue
        verdict = judge.judge(finding)
        if verdict.lost:
            kept.append(
                replace(finding, reason=f"{finding.reason}; unsaved here: {verdict.summary}")
            )
    return tuple(kept)


def evaluate(
    command: str,
    cwd: str | None = None,
    *,
    mode: str | None = None,
    assume_dirty: bool = False,
    facts: TreeFacts | None = None,
) -> CheckOutcome:
    """Judge one command line as if run in `cwd` (default: the current directory)."""
    start = os.path.abspath(cwd or os.getcwd())
    loc = discover(start)
    config = load_config(loc.worktree if loc else None, {"mode": mode} if mode else None)
    try:
        analysis = analyse(command, config.validators)
        findings = _apply_facts(analysis, start, facts, assume_dirty)
        parse = analysis.parse
        validators = analysis.validators
    except Exception as exc:  # named outcome: interlock crashed -> guarded, never a silent allow
        from interlock.bugreport import report_bug

        findings = (internal_error_finding(command, report_bug(exc)),)
        parse, validators = "unparsed", ()
    verdict, would_block = decide(findings, config.mode)
    result = CheckResult(
        command=command,
        verdict=verdict,
        would_block=would_block,
        parse=parse,
        findings=findings,
        validators=validators,
        mode=config.mode,
        notes=tuple(config.warnings),
    )
    return CheckOutcome(result)


def _headline(result: CheckResult) -> str:
    if result.verdict == "block":
        return "would block"
    if result.verdict == "warn":
        return "warning (blocking mode would refuse it)"
    return "allowed (mode off; blocking mode would refuse it)"


def render(result: CheckResult) -> str:
    """The stderr text for a check: one message per finding, notes first."""
    lines = [f"interlock: warning: {note}" for note in result.notes]
    for finding in result.findings:
        lines.append(
            output.format_message(
                finding.kind,
                f"{_headline(result)}: {finding.text}",
                [("rule", finding.rule), ("why", finding.reason), ("instead", finding.instead)],
            )
        )
    return "\n".join(lines)


def _summary(result: CheckResult) -> str:
    parts = [f"interlock: {result.verdict}: {result.command}"]
    if result.parse != "ok":
        parts.append(f"  parse:   {result.parse}")
    for v in result.validators:
        state = f"masked ({v.masked_by})" if v.masked else "unmasked"
        parts.append(f"  validator: {v.text} ({v.tier} tier, {state})")
    return "\n".join(parts)


def show(outcome: CheckOutcome, as_json: bool) -> None:
    if as_json:
        output.write_json(outcome.result.to_json())
        return
    text = outcome.render()
    if text:
        output.write_err(text)
    if not outcome.result.findings:
        output.write_out(_summary(outcome.result))


def check(
    command: str, cwd: str | None, mode: str | None, assume_dirty: bool, as_json: bool
) -> int:
    outcome = evaluate(command, cwd, mode=mode, assume_dirty=assume_dirty)
    show(outcome, as_json)
    return outcome.exit_code


def _read_batch(lines: Iterable[str], json_in: bool) -> Iterable[str]:
    for raw in lines:
        line = raw.rstrip("\n")
        if not line.strip():
            continue
        yield json.loads(line) if json_in else line


def batch(
    cwd: str | None, mode: str | None, assume_dirty: bool, as_json: bool, json_in: bool
) -> int:
    """Judge one command per stdin line, in order, in one process; exit 126 if any would block."""
    start = os.path.abspath(cwd or os.getcwd())
    loc = discover(start)
    facts = collect_facts(loc) if loc is not None and not assume_dirty else None
    worst = exitcodes.OK
    for command in _read_batch(sys.stdin, json_in):
        if not isinstance(command, str):
            output.error("--json-lines-in expects one JSON string per line")
            return exitcodes.USAGE
        outcome = evaluate(command, start, mode=mode, assume_dirty=assume_dirty, facts=facts)
        if as_json:
            output.write_json(outcome.result.to_json())
        else:
            text = outcome.render()
            output.write_out(text if text else _summary(outcome.result))
        worst = max(worst, outcome.exit_code)
    return worst
