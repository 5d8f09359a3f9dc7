"""A task judged as the commands its definition runs: `npm test` whose script is
`jest --passWithNoTests || true`, `make test` whose recipe is `-pytest`, `tox -e py` whose
commands are `pytest -k "not slow"`, `npm run verify` whose script is `pytest`.

`judge_task()` takes the definitions (read from the tree by engine/taskdefs.py) and the
analyses of their command lines, and gives the invocation's validator match (a task whose
definition runs a validator is one, whatever its name; its tier is the slowest inside) and
masked-validator findings that carry the inner rule, severity and reason, named after the
file that defines them. Only validators are judged this way: a discard inside a script is
not followed (an agent can as well write a script file and run it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from interlock.engine.findings import Finding, Tier, ValidatorMatch
from interlock.engine.invocation import Invocation
from interlock.engine.rules import index as rules
from interlock.engine.rules.validators.runner import IGNORE_FAILURES
from interlock.engine.rules.validators.tasks import Definition, TaskRef
from interlock.engine.verdict import ValidatorReport


@dataclass(frozen=True)
class Inner:
    """One definition line and what analysing it found."""

    definition: Definition
    findings: tuple[Finding, ...]
    validators: tuple[ValidatorReport, ...]


def _short(text: str) -> str:
    one = " ".join(text.split())
    return one if len(one) <= 80 else one[:77] + "..."


def judge_task(
    inv: Invocation, ref: TaskRef, match: ValidatorMatch | None, inner: Sequence[Inner]
) -> tuple[ValidatorMatch | None, list[Finding]]:
    """The task's validator match (tier: the slowest validator inside; masking told on the
    command line kept) and the masking its definition carries, as findings."""
    running = [i for i in inner if i.validators]
    if not running:
        return match, []
    tiers = {v.tier for i in running for v in i.validators}
    tier: Tier = "slow" if "slow" in tiers else "fast"
    tool = f"{ref.manager or ref.kind} {' '.join(ref.names)}".strip()
    findings: list[Finding] = []
    for part in running:
        origin, text = part.definition.origin, _short(part.definition.text)
        if part.definition.ignore_errors:
            why = f"{origin} runs `{text}` and ignores its failure (`-` or ignore_outcome)"
            findings.append(_finding(IGNORE_FAILURES, inv, why))
        for found in part.findings:
            if found.kind == "masked-validator":
                reason = f"{origin} runs `{_short(found.text)}`: {found.reason}"
                findings.append(_finding(found.rule, inv, reason))
    masked_by = match.masked_by if match is not None else None
    rule = match.rule if match is not None else None
    return ValidatorMatch(inv.text, tier, tool, masked_by, rule), findings


def _finding(rule: str, inv: Invocation, reason: str) -> Finding:
    info = rules.rule_info(rule)
    return Finding(
        kind="masked-validator",
        rule=rule,
        text=inv.text,
        reason=reason,
        instead=info.instead if info is not None else "run the validator unmasked",
        cwd=inv.cwd,
        severity=info.severity if info is not None else "block",
    )
