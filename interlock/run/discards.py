"""Discards inside a run, sorted by whose work they destroy.

The engine already dropped discards that destroy nothing here (engine.precision). What is
left is sorted, for every thing it would destroy:
- **own**: a worktree path that held no unsaved work at the run's baseline: what is there
  now, the run produced;
- **pre-run**: a path that was unsaved at the baseline (a person's uncommitted work), or a
  directory holding such a path;
- **holdable**: commits only a branch tip holds, and stash entries: a ref can keep them;
- **unholdable**: commits on a remote, unreachable objects, another worktree, paths outside
  any worktree, an unknown repository.

Only a discard of own and holdable things, with the `discards = "by-owner"` policy and no
other run live in the worktree, is allowed: the pre-discard snapshot and the kept refs must
then be proved to hold all of it (`holds`), else it is treated like the rest. The rest is
refused in blocking mode and warned about in advisory mode, where the snapshot is still taken
first so `interlock undo` works.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field

from interlock import git
from interlock.engine.facts import TreeFacts
from interlock.engine.findings import Finding
from interlock.engine.precision import Judge, describe
from interlock.git import RepoLocation

_ELSEWHERE = ("remote", "unreachable", "worktree")
_WHAT = {
    "remote": "commits on a remote",
    "unreachable": "objects no ref holds",
    "worktree": "another worktree's uncommitted work",
}


@dataclass
class Sorting:
    """What one command line's discards would destroy, by owner."""

    own: list[str] = field(default_factory=list)
    prerun: list[str] = field(default_factory=list)
    commits: list[tuple[Finding, list[str]]] = field(default_factory=list)
    stash: bool = False
    unholdable: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

    @property
    def paths(self) -> list[str]:
        return sorted(set(self.own) | set(self.prerun))

    @property
    def only_own(self) -> bool:
        return not self.prerun and not self.unholdable

    def why_not_own(self, shared: str | None, policy: str) -> str | None:
        """Why this cannot be allowed as the run's own work, or None when it can."""
        if self.unholdable:
            return "would destroy what no snapshot can hold: " + ", ".join(self.unholdable[:3])
        if self.prerun:
            return "would destroy work that predates this run: " + describe(sorted(self.prerun))
        if policy == "refuse":
            return 'every discard is refused here (discards = "refuse" in the config)'
        if shared:
            return f"{shared} is live in this worktree too, so whose work this is is unknown"
        return None


def _is_path(item: str) -> bool:
    return not (item.startswith(("(", "/", "commit ")) or " (" in item or item == "refs/stash")


def _acts_here(finding: Finding, start: str, loc: RepoLocation) -> bool:
    """The finding acts on this worktree (not `git -C ../other`, not `rm -rf ../other/x`)."""
    targets = finding.targets
    if targets is None or targets.git_dir_flag:
        return False
    base = start if finding.cwd is None else os.path.normpath(os.path.join(start, finding.cwd))
    root = os.path.realpath(loc.worktree)
    if targets.destroys != "all":
        found = git.discover(base)
        return found is not None and os.path.realpath(found.worktree) == root
    for target in targets.paths or (".",):
        absolute = os.path.realpath(os.path.join(base, os.path.expanduser(target)))
        probe = absolute
        while not os.path.exists(probe) and probe not in ("/", ""):
            probe = os.path.dirname(probe)
        found = git.discover(probe or "/")
        if found is None or os.path.realpath(found.worktree) != root:
            return False
    return True


def _is_prerun(path: str, prerun: frozenset[str]) -> bool:
    if path in prerun:
        return True
    prefix = path if path.endswith("/") else path + "/"
    return any(p.startswith(prefix) for p in prerun)


def sort_discards(
    findings: Iterable[Finding],
    start: str,
    loc: RepoLocation,
    facts: TreeFacts | None,
    prerun: frozenset[str],
) -> Sorting:
    """Sort what the discard findings of one command line would destroy."""
    sorting = Sorting()
    judge = Judge(start, facts)
    for finding in findings:
        if finding.kind != "discard":
            continue
        sorting.findings.append(finding)
        targets = finding.targets
        if targets is not None and targets.destroys in _ELSEWHERE:
            sorting.unholdable.append(_WHAT[targets.destroys])
            continue
        lost = judge.judge(finding).lost
        here = _acts_here(finding, start, loc)
        commits = [item.split(" ", 1)[1] for item in lost if item.startswith("commit ")]
        if commits:
            sorting.commits.append((finding, commits))
        for item in lost:
            if item == "refs/stash":
                sorting.stash = True
            elif item.startswith("commit "):
                continue
            elif not _is_path(item):
                sorting.unholdable.append(item)
            elif not here:
                sorting.unholdable.append(f"{item} (outside this worktree)")
            elif _is_prerun(item, prerun):
                sorting.prerun.append(item)
            else:
                sorting.own.append(item)
    return sorting


def scope_of(paths: list[str]) -> list[str] | None:
    """The outermost paths to snapshot-and-undo (None: the whole worktree)."""
    if not paths or any(not p.strip("/") for p in paths):
        return None
    clean = sorted({p.rstrip("/") for p in paths})
    outer: list[str] = []
    for path in clean:
        if not any(path == o or path.startswith(o + "/") for o in outer):
            outer.append(path)
    return outer
