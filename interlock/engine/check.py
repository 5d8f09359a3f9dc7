"""One check of a command line: the path every door takes (the CLI, the daemon's warm `check`,
the batch judge, and the wrapper and hooks).

`evaluate()` analyses the text, applies the tree facts to discards (precision) and applies the
mode; `show()` prints the result exactly as `interlock check` does, whichever door asked.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, replace

from interlock import output
from interlock.config import Config, load_config
from interlock.engine.analysis import Analysis, analyse
from interlock.engine.findings import Finding
from interlock.engine.invocation import Invocation
from interlock.engine.linecontext import AliasLookup
from interlock.engine.rules.common import make_finding
from interlock.engine.rules.daemonkill import literal_pids
from interlock.engine.rules.index import rule_info
from interlock.engine.scriptfiles import ScriptFiles
from interlock.engine.taskdefs import TaskFiles
from interlock.engine.verdict import CheckResult, decide, internal_error_finding
from interlock.git import RepoLocation, discover

# Imported where used: tree facts (precision, facts) only when a discard or a pid needs them.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from interlock.engine.facts import TreeFacts


@dataclass(frozen=True)
class CheckOutcome:
    """A check's result plus how to show it, and the commands the line would run."""

    result: CheckResult
    invocations: tuple[Invocation, ...] = ()

    @property
    def exit_code(self) -> int:
        return self.result.exit_code

    def render(self) -> str:
        return render(self.result)


def _apply_facts(
    analysis: Analysis,
    start: str,
    facts: TreeFacts | Callable[[], TreeFacts | None] | None,
    assume_dirty: bool,
    max_file_size: int,
) -> tuple[Finding, ...]:
    """Drop discard findings that would destroy nothing; say what the rest would destroy.

    With assume_dirty every existing target is taken to hold unsaved work, except literal temp
    dirs; a write that may be creating its target (`echo x > f`, `cp a f`) is not judged a
    discard by text alone.
    """
    if not any(f.kind == "discard" for f in analysis.findings):
        return analysis.findings
    if assume_dirty:
        return tuple(f for f in analysis.findings if not (f.targets and f.targets.by_tree_only))
    from interlock.engine.precision import Judge

    judge = Judge(start, facts() if callable(facts) else facts, max_file_size)
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


def _daemon_kills(analysis: Analysis, start: str) -> tuple[Finding, ...]:
    """`kill 12345` where 12345 is the pid in this worktree's daemon pid file (a tree fact)."""
    from interlock.engine.facts import daemon_pid

    for inv in analysis.invocations:
        pids = literal_pids(inv)
        if not pids:
            continue
        loc = discover(start)
        pid = daemon_pid(loc) if loc is not None else None
        if pid is not None and pid in pids:
            info = rule_info("selfdisable.kill-daemon")
            assert info is not None
            reason = f"{pid} is interlock's daemon (its pid file says so); {info.why}"
            return (make_finding(info, inv, reason=reason),)
    return ()


def _alias_reader(start: str) -> AliasLookup:
    """The git aliases in effect where a command runs (a tree fact, read only when a line
    calls a git subcommand that is not one of git's own, and once per directory)."""

    def read(cwd: str | None) -> dict[str, str]:
        from interlock.engine.facts import read_aliases

        directory = start if cwd is None else os.path.normpath(os.path.join(start, cwd))
        return read_aliases(directory)

    return read


def _script_reader(start: str, loc: RepoLocation | None) -> ScriptFiles:
    """The script files a line runs (`./x.sh`, `bash x.sh`: a tree fact, read only when a
    command names a file); PATH is looked up only in its directories inside the worktree."""
    root = os.fspath(loc.worktree) if loc is not None else None
    return ScriptFiles(start, root, os.environ.get("PATH"))


def evaluate(
    command: str,
    cwd: str | None = None,
    *,
    mode: str | None = None,
    assume_dirty: bool = False,
    facts: TreeFacts | Callable[[], TreeFacts | None] | None = None,
    config: Config | None = None,
) -> CheckOutcome:
    """Judge one command line as if run in `cwd` (default: the current directory).

    facts: the tree facts, or a function giving them (None: computed inline), called only
    when a discard needs them - the warm daemon's facts cost a watcher barrier to vouch for.
    config: the config to apply (a run's, frozen at its baseline); default: the current one.
    """
    start = os.path.abspath(cwd or os.getcwd())
    loc = discover(start)
    if config is None:
        config = load_config(loc.worktree if loc else None, {"mode": mode} if mode else None)
    tasks = TaskFiles(start, loc.worktree) if loc is not None and not assume_dirty else None
    invocations: tuple[Invocation, ...] = ()
    try:
        aliases = None if assume_dirty else _alias_reader(start)
        files = None if assume_dirty else _script_reader(start, loc)
        analysis = analyse(
            command, config.validators, tasks=tasks, tree_aliases=aliases, files=files
        )
        findings = _apply_facts(analysis, start, facts, assume_dirty, config.recorder_max_file_size)
        if not assume_dirty:
            findings += _daemon_kills(analysis, start)
        parse = analysis.parse
        validators = analysis.validators
        invocations = analysis.invocations
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
    return CheckOutcome(result, invocations)


def _headline(result: CheckResult, finding: Finding) -> str:
    if finding.severity == "warn":
        if result.verdict == "allow":
            return "allowed (mode off; not credited as green)"
        return "warning (runs, but is never credited as green)"
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
                f"{_headline(result, finding)}: {finding.text}",
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
