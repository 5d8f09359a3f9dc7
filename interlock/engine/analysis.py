"""The command engine: `analyse()` reads a command line and finds what it would do. Pure: no
I/O, no tree facts (those are applied later by `engine.check`).

parse (interlock.shell) -> walk (every invocation, through wrappers and trampolines) -> rules on
each invocation (discard, self-disable) -> validators (tier, selection masking) -> exit-status
flow (is a validator's failure able to reach the caller?).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from interlock.engine import exitflow, hidden, linecontext, unknowncode, walk
from interlock.engine.definitions import Inner, judge_task
from interlock.engine.findings import Finding, Severity, ValidatorMatch
from interlock.engine.invocation import Invocation
from interlock.engine.rules import index as rules
from interlock.engine.rules.validators import exported
from interlock.engine.rules.validators.runner import EXIT_FORGED, EXIT_MASKED, NEGATIVE
from interlock.engine.rules.validators.tasks import Lookup, reference
from interlock.engine.scriptfiles import ScriptFiles
from interlock.engine.verdict import ParseState, ValidatorReport, unparsed_finding
from interlock.engine.walksteps import Origin, Trace
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


def _severity(rule: str) -> Severity:
    info = rules.rule_info(rule)
    return info.severity if info is not None else "block"


def _free_by_text(finding: Finding) -> bool:
    return finding.targets is not None and finding.targets.by_tree_only


def _dedupe(findings: list[Finding]) -> tuple[Finding, ...]:
    seen: dict[tuple[str, str, str | None, str], int] = {}
    unique: list[Finding] = []
    for finding in findings:  # one command reached twice; one finding of each of its reasons
        key = (finding.rule, finding.text, finding.cwd, finding.reason)
        if key not in seen:
            seen[key] = len(unique)
            unique.append(finding)
        elif _free_by_text(unique[seen[key]]) and not _free_by_text(finding):
            # the same text twice (`git commit -am x && git reset --hard HEAD~1 && git reset
            # --hard HEAD~1`): the one that destroys by text alone stands for both
            unique[seen[key]] = finding
    return tuple(unique)


def _located(findings: list[Finding], origin: Origin | None) -> tuple[list[Finding], bool]:
    """Findings of a command read from a script file, saying where it stands there
    (`x.sh line 3: git checkout -- .`), and whether any part of it could not be read.

    Code a script file only knows when it runs (`"$@"`, `eval "$X"`, `$CMD args`) is not a
    finding: a file interlock can read in part is judged no more harshly than one it cannot
    read at all (a binary, a file over the size cap), which runs as an unknown program; what
    it can read is judged like typed code. The analysis is then `degraded`."""
    if origin is None:
        return findings, False
    kept = [replace(f, text=f"{origin.text}: {f.text}") for f in findings if f.kind != "unparsed"]
    return kept, len(kept) < len(findings)


def _masked_finding(rule: str, text: str, reason: str, cwd: str | None) -> Finding:
    return Finding(
        kind="masked-validator",
        rule=rule,
        text=text,
        reason=reason,
        instead=_instead(rule),
        cwd=cwd,
        severity=_severity(rule),
    )


def _task(
    inv: Invocation,
    match: ValidatorMatch | None,
    declared: tuple[str, ...],
    tasks: Lookup,
    depth: int,
) -> tuple[ValidatorMatch | None, list[Finding]]:
    """A task judged as the commands its definition in the tree runs (engine/definitions)."""
    ref = reference(inv)
    definitions = tasks(ref) if ref is not None and depth < _MAX_FED_DEPTH else []
    if ref is None or not definitions:
        return match, []
    inner = []
    for definition in definitions:
        found = analyse(definition.text, declared, depth + 1, tasks.at(definition.directory))
        inner.append(Inner(definition, found.findings, found.validators))
    return judge_task(inv, ref, match, inner)


def _drop_script_runners(matches: dict[int, ValidatorMatch], walked: Trace) -> None:
    """`./ci.sh` read as a validator when the validators in ci.sh were read too: those are
    what runs, masked or not, so the script's own name proves nothing more."""
    inside = {path for k in matches if k in walked.origins for path in walked.origins[k].files}
    for k in [k for k in matches if walked.runs.get(k) in inside]:
        del matches[k]


def _validator_findings(
    result: ParseResult,
    walked: Trace,
    declared: tuple[str, ...],
    tasks: Lookup | None = None,
    depth: int = 0,
) -> tuple[list[Finding], list[ValidatorReport]]:
    matches: dict[int, ValidatorMatch] = {}
    defined: dict[int, list[Finding]] = {}
    for inv, seen_as in exported.with_line_environment(walked.invocations):
        if id(inv) in walked.repeats:
            continue  # a loop's earlier pass: its exit status is followed in the last one
        match = rules.classify_validator(seen_as, declared)
        if tasks is not None:
            match, defined[id(inv)] = _task(inv, match, declared, tasks, depth)
        if match is not None:
            matches[id(inv)] = match
    if not matches:
        return [], []
    _drop_script_runners(matches, walked)

    findings: list[Finding] = []
    reports: list[ValidatorReport] = []
    masking = exitflow.validator_masking(result, lambda inv: id(inv) in matches, walked)
    for inv, exit_mask in masking:
        match = matches[id(inv)]
        origin = walked.origins.get(id(inv))
        inside = defined.get(id(inv), [])
        masked_by = (
            match.masked_by
            or (inside[0].reason if inside else None)
            or (exit_mask.reason if exit_mask else None)
        )
        files = origin.files if origin is not None else ()
        if id(inv) in walked.runs:  # `./ci.sh` with no validator read in it: the file defines it
            files += (walked.runs[id(inv)],)
        reports.append(
            ValidatorReport(
                match.text, match.tier, masked_by is not None, masked_by, match.tool, files
            )
        )
        first = len(findings)
        findings.extend(inside)
        if match.masked_by is not None:
            rule = match.rule or NEGATIVE
            reason = f"this run of {match.tool} cannot prove anything: {match.masked_by}"
            findings.append(_masked_finding(rule, match.text, reason, inv.cwd))
        if exit_mask is not None:
            rule = EXIT_FORGED if exit_mask.forged else EXIT_MASKED
            how = "is turned into a success" if exit_mask.forged else "cannot reach the exit status"
            reason = f"a failure of {match.tool} {how}: {exit_mask.reason}"
            findings.append(_masked_finding(rule, match.text, reason, inv.cwd))
        findings[first:] = _located(findings[first:], origin)[0]
    return findings, reports


def _judge_hidden(
    code: linecontext.HiddenCode,
    inv: Invocation,
    declared: tuple[str, ...],
    depth: int,
    line: linecontext.LineContext,
    tasks: Lookup | None,
    files: ScriptFiles | None = None,
) -> tuple[list[Finding], bool]:
    """Findings for code another command runs (engine.hidden), and whether it read degraded."""
    if code.text is None:
        info = rules.rule_info(code.rule)
        kind = info.kind if info is not None else "unparsed"
        instead = info.instead if info is not None else ""
        reason = code.origin
        if kind == "unparsed":
            reason = f"{code.origin}: interlock cannot tell what it does"
        return [Finding(kind, code.rule, inv.text, reason, instead, cwd=inv.cwd)], False
    if depth >= _MAX_FED_DEPTH:
        return [unparsed_finding(code.text, "scripts run by other commands nest too deep")], False
    inner = analyse(
        code.text,
        declared,
        depth + 1,
        tasks,
        tree_aliases=line.tree_aliases,
        inherited=line,
        files=files,
    )
    moved = [
        replace(
            f,
            cwd=walk.join_cwd(code.cwd, f.cwd) if f.cwd is not None else None,
            reason=f"{f.reason} (run by {code.origin})",
        )
        for f in inner.findings
    ]
    return moved, inner.parse != "ok"


def analyse(
    command: str,
    declared_validators: tuple[str, ...] = (),
    depth: int = 0,
    tasks: Lookup | None = None,
    *,
    tree_aliases: linecontext.AliasLookup | None = None,
    inherited: linecontext.LineContext | None = None,
    files: ScriptFiles | None = None,
) -> Analysis:
    """Read one command line. Never raises on any text.

    tasks: where task definitions are read from (a tree fact: `npm test` judged as its
    package.json script); None judges the text alone. tree_aliases: reads the git aliases in
    effect in a directory (relative to where the line starts), a tree fact supplied by the
    caller; inherited: what an enclosing line defined; files: reads the script files the
    line runs (a tree fact: `./x.sh` judged as the code in x.sh, engine.scriptfiles).
    """
    result = parse_shell(command)
    if result.root is None:
        finding = unparsed_finding(command, result.error)
        return Analysis(command, "unparsed", result.error, (), (finding,), ())
    # An unparsed line with a root is an unclosed construct read conservatively: bash runs
    # the complete commands before the broken one, so they are judged too.
    walked = walk.trace(result, files=files)
    invocations = walked.invocations
    findings: list[Finding] = []
    if result.status == "unparsed":
        findings.append(unparsed_finding(command, result.error))
    scripts = unknowncode.stdin_scripts(result.root)
    line = linecontext.build_line(invocations, scripts, tree_aliases, inherited, result.root)
    fed_degraded = False
    for k, inv in enumerate(invocations):
        origin = walked.origins.get(id(inv))
        own = rules.check_invocation(inv, invocations[:k])
        for code in hidden.hidden_code(inv, line, files):
            if code.text is not None and walked.traps.get(id(inv)) and code.origin == hidden.TRAP:
                code = replace(code, text=walked.traps[id(inv)] + code.text)
            found, degraded = _judge_hidden(
                code, inv, declared_validators, depth, line, tasks, files
            )
            own.extend(found)
            fed_degraded = fed_degraded or degraded
        unknown, script = unknowncode.unknown_findings(inv, scripts)
        own.extend(unknown)
        located, unread = _located(own, origin)
        findings.extend(located)
        fed_degraded = fed_degraded or unread
        if script is not None:  # `echo 'cmd' | bash`: judge the script that is fed
            if depth >= _MAX_FED_DEPTH:
                findings.append(unparsed_finding(script, "scripts fed to shells nest too deep"))
                continue
            fed = analyse(
                script,
                declared_validators,
                depth + 1,
                tasks,
                tree_aliases=tree_aliases,
                inherited=line,
                files=files,
            )
            findings.extend(fed.findings)
            fed_degraded = fed_degraded or fed.parse != "ok"
    masked, reports = _validator_findings(result, walked, declared_validators, tasks, depth)
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
