"""What rules report: findings, discard targets and recognised validators."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

FindingKind = Literal["discard", "masked-validator", "self-disable", "unparsed"]
Tier = Literal["fast", "slow"]
# What blocking mode does with a finding: refuse the command, or run it with a warning (a
# validator whose status is only hidden: shown, recorded, never credited as green).
Severity = Literal["block", "warn"]

# What kind of work a discard destroys at its targets; facts about the tree decide whether
# any such work is really there.
Destroys = Literal[
    "unstaged",  # unstaged changes to tracked files (git checkout -- p, git restore p)
    "tracked",  # staged and unstaged changes to tracked files (checkout HEAD -- p, reset --hard)
    "untracked",  # untracked, not ignored files (git clean -f)
    "untracked+ignored",  # untracked and ignored (git clean -fx)
    "ignored",  # ignored only (git clean -fX)
    "all",  # anything under the path (rm -rf, find -delete)
    "commits",  # commits only reachable from the ref (branch -D, reset --hard REV)
    "stash",  # stash entries
    "remote",  # commits on a remote (force push)
    "unreachable",  # unreachable objects / reflog (reflog expire, gc --prune=now)
    "worktree",  # another worktree's uncommitted work (worktree remove --force)
]


@dataclass(frozen=True)
class Targets:
    """Where a discard acts.

    paths: literal pathspecs/paths relative to the invocation's cwd (may contain globs; '.'
      means everything under cwd); empty with scope 'tree' means the whole worktree.
    unknown: some targets cannot be known statically ($VAR, xargs input, find results).
    refs: branch/stash/remote names involved (for commits/stash/remote).
    """

    destroys: Destroys
    paths: tuple[str, ...] = ()
    whole_tree: bool = False
    unknown: bool = False
    refs: tuple[str, ...] = ()
    git_dir_flag: bool = False  # git -C/--git-dir/--work-tree pointed elsewhere
    # `git checkout X` where X reads as a path but may be a branch: a discard only if X is
    # really a path in the tree (the facts layer checks it exists and is dirty).
    candidate: bool = False
    # Every target is a literal path in a temp dir (/tmp/x): free when judged by text alone,
    # but the facts layer still checks that no worktree lives there.
    temp_only: bool = False
    # A force push whose only protection is a bare --force-with-lease (no expected value):
    # it drops remote commits only when the pushed commit does not contain the remote-tracking
    # tip. By text alone it is allowed; the facts layer checks the tips. refs: (remote, refspecs).
    lease: bool = False


@dataclass(frozen=True)
class Finding:
    """One reason to warn or block, e.g. rule git.reset-hard on `git reset --hard`."""

    kind: FindingKind
    rule: str
    text: str
    reason: str
    instead: str
    targets: Targets | None = None
    cwd: str | None = ""
    severity: Severity = "block"

    def to_json(self) -> dict[str, str]:
        return {
            "kind": self.kind,
            "rule": self.rule,
            "text": self.text,
            "reason": self.reason,
            "instead": self.instead,
            "severity": self.severity,
        }


@dataclass(frozen=True)
class ValidatorMatch:
    """A recognised validator, e.g. `pytest -k 'not slow'` (slow tier, masked by selection).

    masked_by: why its failure cannot count (negative selection, --collect-only, ...), or None.
    """

    text: str
    tier: Tier
    tool: str
    masked_by: str | None = None
    rule: str | None = None  # rule id used when masked_by is set


@dataclass(frozen=True)
class RuleInfo:
    """A rule's public description, for `interlock explain`."""

    id: str
    kind: FindingKind
    summary: str
    why: str
    instead: str
    examples_block: tuple[str, ...] = ()
    examples_allow: tuple[str, ...] = ()
    extra: dict[str, str] = field(default_factory=dict)
    severity: Severity = "block"
