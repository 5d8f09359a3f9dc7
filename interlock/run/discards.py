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
first so `interlock undo` works. `DiscardStep` does all of it for one command line.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from interlock import git
from interlock.config import Config
from interlock.engine.facts import TreeFacts
from interlock.engine.findings import Finding
from interlock.engine.precision import Judge, describe
from interlock.errors import InterlockError
from interlock.git import RepoLocation
from interlock.run import inforce, records, session
from interlock.run.notices import Notice
from interlock.run.records import Run
from interlock.run.session import Worktree

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
            shown = (
                u[1:-1] if u.startswith("(") and u.endswith(")") else u for u in self.unholdable
            )
            return "would destroy what no snapshot can hold: " + ", ".join(list(shown)[:3])
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
    max_file_size: int,
) -> Sorting:
    """Sort what the discard findings of one command line would destroy; `max_file_size` is
    the run's recorder cap (its config frozen at the baseline, never the file's now)."""
    sorting = Sorting()
    judge = Judge(start, facts, max_file_size)
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


class DiscardStep:
    """The discard part of a begin: sorting, snapshot, holds and what to say."""

    def __init__(self, wt: Worktree, run: Run, config: Config, cwd: str, command: str) -> None:
        self.wt, self.run, self.config, self.cwd, self.command = wt, run, config, cwd, command
        self.data: dict[str, Any] = {}
        self.saved: str | None = None

    def _others_live(self) -> str | None:
        for other in records.open_runs(self.wt.journal):
            if other.id != self.run.id and inforce.is_live(self.wt.journal, other):
                name = other.data.get("agent_name")
                return f"run {other.id}" + (
                    f" ({name} pid {other.data.get('agent_pid')})" if name else ""
                )
        return None

    def _hold(self, sorting: Sorting) -> list[str]:
        """Snapshot the paths and keep the refs; the things left unheld. A hold that fails
        (a full disk, a broken object store) leaves its targets unheld: the discard is then
        refused in blocking mode and only warned about in advisory mode, never a crash."""
        from interlock.run import holds

        loose: list[str] = []
        kept: list[str] = []
        try:
            if sorting.paths:
                scope = scope_of(sorting.paths)
                meta = {"message": f"before: {self.command[:200]}", "run": self.run.id}
                info = self.wt.snapshot(
                    "pre-discard", {**meta, "command": self.command, "scope": scope}
                )
                self.saved = info.id
                loose += holds.uncovered(self.wt.loc, info, sorting.paths)
            for finding, commits in sorting.commits:
                refs = finding.targets.refs if finding.targets else ()
                more, missing = holds.hold_commits(self.wt.loc, refs, finding.rule, commits)
                kept += more
                loose += [f"commit {c}" for c in missing]
            if sorting.stash:
                more, missing = holds.hold_stash(self.wt.loc)
                kept += more
                loose += [f"stash entry {c[:12]}" for c in missing]
        except (InterlockError, OSError) as exc:
            loose.append(f"(saving it first failed: {exc})")
        self.data["kept_refs"] = kept
        return loose

    def judge(self, findings: list[Finding]) -> tuple[list[Finding], list[Notice]]:
        """(findings that still decide the verdict, notices); holds before allowing."""
        prerun = session.prerun_paths(self.wt.loc, self.run)
        sorting = sort_discards(
            findings,
            self.cwd,
            self.wt.loc,
            self.wt.facts(),
            prerun,
            self.config.recorder_max_file_size,
        )
        why = sorting.why_not_own(self._others_live(), self.config.discards)
        self.data.update(
            own=sorting.own, prerun=sorting.prerun, unholdable=sorting.unholdable, why=why
        )
        refusing = why is not None and self.config.mode == "blocking"
        loose = [] if refusing else self._hold(sorting)
        if why is None and loose:
            why = "the snapshot does not hold all of it: " + ", ".join(loose[:5])
        self.data.update(snapshot=self.saved, allowed=why is None, unheld=loose)
        rest = [f for f in findings if f.kind != "discard"]
        saved = [("saved", f"snapshot {self.saved} (undo: interlock undo)")] if self.saved else []
        kept = [("kept", ", ".join(self.data["kept_refs"]))] if self.data.get("kept_refs") else []
        if why is None:
            text = " && ".join(f.text for f in sorting.findings)
            lost = (
                [("lost", f"only this run's own work: {describe(sorted(set(sorting.own)))}")]
                if sorting.own
                else []
            )
            verb = "saved first" if self.saved else "kept first"
            return rest, [Notice("discard", f"{verb}: {text}", (*lost, *saved, *kept), False)]
        notices = [
            Notice(
                "discard",
                f.text,
                (("rule", f.rule), ("why", why), ("instead", f.instead), *saved, *kept),
                True,
            )
            for f in sorting.findings
        ]
        return rest, notices
