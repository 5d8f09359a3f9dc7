"""One check of a command line: the path every door takes (the CLI, the daemon's warm `check`,
the batch judge, and the wrapper and hooks).

`evaluate()` analyses the text, applies the tree facts to discards (precision) and applies the
mode; `show()` prints the result exactly as `interlock check` does, whichever door asked.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace

from interlock import output
from interlock.config import load_config
from interlock.engine.analysis import Analysis, analyse
from interlock.engine.facts import TreeFacts
from interlock.engine.findings import Finding
from interlock.engine.precision import Judge
from interlock.engine.verdict import CheckResult, decide, internal_error_finding
from interlock.git import discover


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

    With assume_dirty every existing target is taken to hold unsaved work, except literal temp
    dirs; a write that may be creating its target (`echo x > f`, `cp a f`) is not judged a
    discard by text alone.
    """
    if not any(f.kind == "discard" for f in analysis.findings):
        return analysis.findings
    if assume_dirty:
        return tuple(
            f
            for f in analysis.findings
            if not (f.targets and (f.targets.temp_only or f.targets.creates))
        )
    judge = Judge(start, facts)
    kept: list[Finding] = []
    for finding in analysis.findings:
        if finding.kind != "discard":
            kept.append(finding)
            continue
        verdict = judge.judge(finding)
        if verdict.lost:
            kept.append(
                replace(
                    finding,
                    reason=f"{finding.reason}; unsaved here: {verdict.summary}",
                    lost=verdict.paths,
                    unrecoverable=verdict.unrecoverable,
                )
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


def render_summary(result: CheckResult) -> str:
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
        output.write_out(render_summary(outcome.result))
