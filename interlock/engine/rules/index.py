"""The rules: what one invocation would destroy, disable, or validate.

`check_invocation(inv)` gives the discard and self-disable findings of one effective command
(the walker already stripped wrappers and found it wherever it hides; rules never scan
argument strings for command text). `classify_validator(inv, declared)` recognises a
validator run with its tier and selection masking. `all_rules()` / `rule_info(id)` describe
every rule for `interlock explain`.

Families, one module each with its ids, reasons and alternatives beside the code that finds
them: `git/worktree`, `git/history` and `git/push` (git discards; `git/invocation` reads git's
global options, `git/config` what git configuration runs and `git/programs` reports it when it
is only known at run time), `fs` (rm, find -delete, shred, rsync --delete), `overwrite` (a file
written over, emptied or cut short; with `copies`, `editors`, `extract`), `disk` (devices,
filesystems, partition tables), `selfdisable` (`ownpaths` says which paths are interlock's,
`daemonkill` what reaches the daemon), `validators/` (runners in `python`, `javascript`,
`native`, `build`; the masked-validator rules in `validators/runner`), `unreadable` (parse and
unknown code). Importing a family registers its rules in the catalogue, so this index imports
every one.

A command is judged where it may run (`Invocation.alt_cwds`: `cd build; rm -rf *` also where
the line started) and after what the line did before it (`sequence`: saves, links).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from interlock.engine.findings import Finding, RuleInfo, ValidatorMatch
from interlock.engine.invocation import Invocation
from interlock.engine.rules import (  # noqa: F401 (registers rules)
    disk,
    fs,
    overwrite,
    runtime,
    selfdisable,
    sequence,
    unreadable,
)
from interlock.engine.rules.common import catalog
from interlock.engine.rules.fs import is_temp_path
from interlock.engine.rules.git.invocation import GIT_SUBCOMMANDS, GitCall, parse_git
from interlock.engine.rules.git.programs import check_config_code
from interlock.engine.rules.git.worktree import check_git
from interlock.engine.rules.validators import classify as validators  # noqa: F401
from interlock.shell.model import Word

__all__ = [
    "all_rules",
    "discard_notes",
    "check_invocation",
    "classify_validator",
    "is_temp_path",
    "rule_info",
]


def _git_call(inv: Invocation) -> GitCall | None:
    """`inv` read as git; `$GIT reset --hard` (unknown name, git subcommand after it) too."""
    call = parse_git(inv)
    if call is None and inv.name is None and len(inv.argv) > 1:
        if inv.argv[1].literal() in GIT_SUBCOMMANDS:
            call = parse_git(inv, assume_git=True)
    return call


def _unknown_rm(inv: Invocation) -> list[Finding]:
    """`$RM -rf src`: an unknown command name with rm's recursive-force signature."""
    flags = [w.literal() or "" for w in inv.argv[1:] if (w.literal() or "").startswith("-")]
    letters = "".join(f[1:] for f in flags if not f.startswith("--"))
    if "f" in letters and ("r" in letters or "R" in letters):
        rm = replace(inv, argv=(Word("rm", "rm"),) + inv.argv[1:])
        return [replace(f, text=inv.text) for f in fs.check_fs(rm)]
    return []


def _findings_of(inv: Invocation, earlier: Sequence[Invocation]) -> list[Finding]:
    found = _plain_findings(inv, earlier)
    stand_in = runtime.probe(inv)  # `xargs sed -i ...`, `find -exec truncate -s0 {} +`
    if stand_in is None:
        return found
    # what it destroys is read from the probe (its files are the search's); the rest as is
    probed = [f for f in _plain_findings(stand_in, earlier) if f.kind == "discard"]
    return runtime.chosen(probed, inv, earlier) + [f for f in found if f.kind != "discard"]


def _plain_findings(inv: Invocation, earlier: Sequence[Invocation]) -> list[Finding]:
    call = _git_call(inv)
    findings = selfdisable.check_selfdisable(inv, call)
    findings += check_git(call) if call is not None else []
    findings += check_config_code(inv, call)
    findings += fs.check_fs(inv, earlier)
    findings += overwrite.check_overwrite(inv, earlier)
    findings += disk.check_disk(inv)
    if inv.name is None and inv.argv:
        findings += _unknown_rm(inv)
    return findings


def check_invocation(inv: Invocation, earlier: Sequence[Invocation] = ()) -> list[Finding]:
    """Discard and self-disable findings for one effective command; `earlier`: the commands
    the line starts before it (for sequences, links and pipelines)."""
    findings = _findings_of(inv, earlier)
    for cwd in inv.alt_cwds:
        where = "where the line started" if cwd == "" else f"in {cwd or 'an unknown directory'}"
        note = f"; if a `cd` before it fails, it runs {where} instead"
        moved = replace(inv, cwd=cwd, alt_cwds=())
        findings += [replace(f, reason=f.reason + note) for f in _findings_of(moved, earlier)]
    return sequence.apply(findings, inv, earlier)


def classify_validator(inv: Invocation, declared: tuple[str, ...] = ()) -> ValidatorMatch | None:
    """The validator `inv` runs, with tier and selection masking; None if it is not one."""
    return validators.classify(inv, declared)


def discard_notes() -> tuple[str, ...]:
    """How every discard is read on its line: links, cwd, saves (for `interlock explain`)."""
    return sequence.LINE_NOTES


def all_rules() -> list[RuleInfo]:
    return list(catalog().values())


def rule_info(rule_id: str) -> RuleInfo | None:
    return catalog().get(rule_id)
