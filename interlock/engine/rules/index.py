"""The rules: what one invocation would destroy, disable, or validate.

`check_invocation(inv)` gives the discard and self-disable findings of one effective command
(the walker already stripped wrappers and found it wherever it hides; rules never scan
argument strings for command text). `classify_validator(inv, declared)` recognises a
validator run with its tier and selection masking. `all_rules()` / `rule_info(id)` describe
every rule for `interlock explain`.

Families, one module each with its ids, reasons and alternatives beside the code that finds
them: `git/worktree`, `git/history` and `git/push` (git discards; `git/invocation` reads git's global
options, `git/config` what git configuration runs and `git/programs` reports it when it is
only known at run time), `fs` (rm, find -delete, shred, rsync --delete), `selfdisable`
(`ownpaths` says which paths are interlock's, `daemonkill` what reaches the daemon),
`validators/` (runners in `python`, `javascript`, `native`, `build`;
the masked-validator rules in `validators/runner`), `unreadable` (parse and unknown code).
Importing a family registers its rules in the catalogue, so this index imports every one.
"""

from __future__ import annotations

from dataclasses import replace

from interlock.engine.findings import Finding, RuleInfo, ValidatorMatch
from interlock.engine.invocation import Invocation
from interlock.engine.rules import fs, selfdisable, unreadable  # noqa: F401 (registers rules)
from interlock.engine.rules.common import catalog
from interlock.engine.rules.fs import is_temp_path
from interlock.engine.rules.git.invocation import GIT_SUBCOMMANDS, GitCall, parse_git
from interlock.engine.rules.git.programs import check_config_code
from interlock.engine.rules.git.worktree import check_git
from interlock.engine.rules.validators import classify as validators  # noqa: F401
from interlock.shell.model import Word

__all__ = [
    "all_rules",
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


def check_invocation(inv: Invocation) -> list[Finding]:
    """Discard and self-disable findings for one effective command."""
    call = _git_call(inv)
    findings = selfdisable.check_selfdisable(inv, call)
    findings += check_git(call) if call is not None else []
    findings += check_config_code(inv, call)
    findings += fs.check_fs(inv)
    if inv.name is None and inv.argv:
        findings += _unknown_rm(inv)
    return findings


def classify_validator(inv: Invocation, declared: tuple[str, ...] = ()) -> ValidatorMatch | None:
    """The validator `inv` runs, with tier and selection masking; None if it is not one."""
    return validators.classify(inv, declared)


def all_rules() -> list[RuleInfo]:
    return list(catalog().values())


def rule_info(rule_id: str) -> RuleInfo | None:
    return catalog().get(rule_id)
