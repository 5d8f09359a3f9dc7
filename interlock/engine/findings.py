"""What rules report: findings, discard targets and recognised validators."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from interlock.engine.findexpr import Search

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
    # the content of files in the worktree that exists nowhere else: unstaged changes,
    # untracked files, hand-made ignored files (a staged-only change is kept by the index)
    "files",
    "device",  # a disk, partition or block device (dd of=/dev/sda, mkfs, fdisk)
]


@dataclass(frozen=True)
class Saved:
    """Work saved earlier on the same line (engine.rules.sequence), e.g. `git stash -u && ...`
    (every kind but ignored, the whole worktree) or `cp f f.bak && ...` (every kind, at f).

    kinds: of `staged` (changes in the index), `unstaged` (changes to tracked files beyond the
      index), `untracked`, `ignored`;
    path: where the save acts, relative to where the line starts ('' = there) or absolute;
    whole: it covers the whole worktree that `path` lies in.
    """

    kinds: frozenset[str]
    path: str
    whole: bool = False


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
    # `git checkout X`, one operand: a switch when X names a commit (the facts layer resolves
    # it), else a checkout of the path X over its uncommitted changes.
    candidate: bool = False
    # ... and X reads as a branch (`main`, `"$BRANCH"`; not `app.py`, `src/`, `$(...)`): by
    # text alone a switch; in a tree a discard only when it names no commit and a path by
    # that name holds unsaved work (a word named at run time: when any work is unsaved).
    ref_like: bool = False
    # Every target is a literal path in a temp dir (/tmp/x): free when judged by text alone,
    # but the facts layer still checks that no worktree lives there.
    temp_only: bool = False
    # A force push whose only protection is a bare --force-with-lease (no expected value):
    # it drops remote commits only when the pushed commit does not contain the remote-tracking
    # tip. By text alone it is allowed; the facts layer checks the tips. refs: (remote, refspecs).
    lease: bool = False
    # Each path is one file (rm f, > f, cp a f): a directory there is not destroyed (the
    # command fails on it, or writes the `into` names inside it).
    single: bool = False
    # The command may be creating the target (echo x > f, cp a f, curl -o f): by text alone
    # that is not a discard; in a tree it is one only when the target exists with unsaved work.
    creates: bool = False
    # cp/mv/ln/tar -C: the names written inside a target that is an existing directory.
    into: tuple[str, ...] = ()
    # The command writes through a symlink at the target (> link writes the file it points
    # to); rm, mv and ln -f replace the link itself. A directory symlink on the way is always
    # followed, and so is a final one written with a trailing slash (rm -rf link/).
    follows: bool = False
    # Work saved earlier on the line (engine.sequence); the facts layer does not count it lost.
    saved: tuple[Saved, ...] = ()
    # Covered on the line only by a save of a whole worktree (`git stash -a && rm -rf sub`):
    # by text alone nothing is lost; in a tree, the facts layer still counts the work of other
    # worktrees under the targets (a submodule, a nested repository), which it does not reach.
    tree_saved: bool = False
    # tar -x/unzip -o: the archive (relative to the cwd) whose members, with `strip` leading
    # components dropped, are written under paths[0]; read in the tree when it is a file.
    archive: str | None = None
    strip: int = 0
    # `git stash drop|clear` of an entry a `git stash` earlier on the line made: what that
    # push took from the tree (engine.rules.stashes). The facts layer counts that work lost;
    # when the tree holds none of it, the push made no entry and an older one is dropped.
    stashed: tuple[Saved, ...] = ()
    # Targets chosen at run time by a file search (`find . -name x -delete`, `find ... -exec
    # rm {} +`, `fd -x rm`, `find ... | xargs rm`): the facts layer evaluates it on the
    # paths that hold unsaved work (engine.findmatch); `paths` are then only the literal
    # operands besides it.
    search: Search | None = None

    @property
    def by_tree_only(self) -> bool:
        """A discard only the tree can show (a literal temp dir, a bare lease, a write that
        may create its file, a checkout operand that reads as a branch): by text alone (the
        `--assume-dirty` judgement) it destroys nothing."""
        return self.temp_only or self.lease or self.creates or self.ref_like or self.tree_saved


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
    # Set by the facts layer (engine.check): the absolute paths whose unsaved content the
    # command would destroy, and those of them too large for the recorder or a snapshot to
    # keep (never recoverable). A door that snapshots before a discard reads these.
    lost: tuple[str, ...] = ()
    unrecoverable: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "kind": self.kind,
            "rule": self.rule,
            "text": self.text,
            "reason": self.reason,
            "instead": self.instead,
            "severity": self.severity,
        }
        if self.lost:
            data["lost"] = list(self.lost)
        if self.unrecoverable:
            data["unrecoverable"] = list(self.unrecoverable)
        return data


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
