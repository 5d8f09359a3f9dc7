"""Precision from the tree: does a discard finding really destroy something?

A discard is only a discard when it would destroy something that exists nowhere else:
uncommitted changes, untracked files git does not ignore, hand-made ignored files, commits no
other ref holds, stashes. `Judge.judge()` answers for one finding with the paths (or refs)
that would be lost; an empty answer means the command destroys nothing and is allowed.

Each target is judged in the worktree it lies in (`git -C ../other`, `rm -rf ../other/src`),
with that worktree's facts; outside every worktree, recursive deletion of anything but a temp
directory counts as lost, since nothing could bring it back.
"""

from __future__ import annotations

import fnmatch
import os
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath

from interlock import git
from interlock.engine.facts import TreeFacts, collect_facts
from interlock.engine.findings import Finding, Targets
from interlock.engine.rules.fs import is_temp_path as _is_temp_text
from interlock.git import RepoLocation

_GLOB_CHARS = set("*?[")
_STATIC = ("remote", "unreachable", "worktree")


@dataclass(frozen=True)
class Judgement:
    """The unsaved things a discard would destroy; `lost` empty means nothing is lost."""

    lost: tuple[str, ...]
    summary: str


def is_temp_path(path: str) -> bool:
    """An absolute path inside a temp directory (/tmp, /var/tmp, $TMPDIR, the system's)."""
    norm = os.path.normpath(path)
    if _is_temp_text(norm) and norm not in ("/tmp", "/var/tmp", "/dev/shm"):
        return True
    roots = [os.path.normpath(tempfile.gettempdir())]
    if os.environ.get("TMPDIR"):
        roots.append(os.path.normpath(os.environ["TMPDIR"]))
    return any(norm != root and norm.startswith(root + "/") for root in roots)


def _existing_ancestor(path: str) -> str:
    while not os.path.exists(path) and path not in ("/", ""):
        path = os.path.dirname(path)
    return path or "/"


def _overlaps(unsaved: str, target: str) -> bool:
    """Whether destroying `target` (a repo-relative path, '' = root) destroys `unsaved`."""
    entry = unsaved.rstrip("/")
    if target == "" or entry == target or entry.startswith(target + "/"):
        return True
    # the target lies inside a collapsed untracked/ignored directory entry
    return unsaved.endswith("/") and target.startswith(entry + "/")


def _glob_hits(unsaved: str, pattern: str) -> bool:
    """Whether a glob target (repo-relative) matches the path or one of its ancestors."""
    parts = unsaved.rstrip("/").split("/")
    if any(fnmatch.fnmatchcase("/".join(parts[:i]), pattern) for i in range(1, len(parts) + 1)):
        return True
    prefix = pattern.split("*", 1)[0].split("?", 1)[0].split("[", 1)[0]
    return unsaved.endswith("/") and prefix.startswith(unsaved)


def describe(paths: list[str], limit: int = 3) -> str:
    """`2 files under sub/ (sub/a.py, sub/b.py)`."""
    shown = ", ".join(paths[:limit]) + (", ..." if len(paths) > limit else "")
    noun = "file" if len(paths) == 1 else "files"
    dirs = {str(PurePosixPath(p.rstrip("/")).parent) for p in paths}
    under = f" under {dirs.pop()}/" if len(dirs) == 1 and "." not in dirs else ""
    return f"{len(paths)} {noun}{under} ({shown})"


def _is_file(entry: str) -> bool:
    """A worktree path, not a description such as `/ (outside any worktree)` or a ref."""
    return not (entry.startswith(("commit ", "(", "/", "refs/")) or " (" in entry)


def _summarise(lost: list[str]) -> Judgement:
    if not lost:
        return Judgement((), "")
    paths = sorted({p for p in lost if not p.startswith("commit ")})
    commits = sorted({p for p in lost if p.startswith("commit ")})
    files = [p for p in paths if _is_file(p)]
    parts = [describe(files)] if files else []
    # Whole trees, repositories, the stash: named as they are, never counted as "files under"
    # their parent folder.
    parts += ["the stash" if p == "refs/stash" else p for p in paths if not _is_file(p)]
    if commits:
        parts.append(f"{len(commits)} commit{'s' if len(commits) > 1 else ''} no other ref holds")
    return Judgement(tuple(paths + commits), "; ".join(parts))


class Judge:
    """Judges discard findings for a command line started in `start`."""

    def __init__(self, start: str, facts: TreeFacts | None = None) -> None:
        self.start = os.path.realpath(start)
        self._facts: dict[str, TreeFacts] = {}
        if facts is not None:
            self._facts[os.path.realpath(facts.root)] = facts
        self.start_loc = git.discover(self.start)

    def facts_for(self, loc: RepoLocation) -> TreeFacts:
        key = os.path.realpath(loc.worktree)
        if key not in self._facts:
            self._facts[key] = collect_facts(loc)
        return self._facts[key]

    def judge(self, finding: Finding) -> Judgement:
        targets = finding.targets or Targets(destroys="all", unknown=True)
        if targets.destroys in _STATIC:
            return Judgement(("(history outside the worktree)",), "history git keeps nowhere else")
        base = (
            None if finding.cwd is None else os.path.normpath(os.path.join(self.start, finding.cwd))
        )
        if targets.destroys == "all":
            return _summarise(self._lost_files(targets, base))
        return _summarise(self._lost_in_git(finding, targets, base))

    # --- git commands: act on the worktree of their directory -------------------------

    def _lost_in_git(self, finding: Finding, targets: Targets, base: str | None) -> list[str]:
        loc = self.start_loc if base is None else git.discover(base)
        if targets.git_dir_flag:
            return ["(a repository named by --git-dir/--work-tree)"]
        if loc is None:
            # outside any repository git refuses to run; with an unknown cwd, assume the worst
            return ["(an unknown repository)"] if base is None else []
        facts = self.facts_for(loc)
        if targets.destroys == "stash":
            return ["refs/stash"] if facts.stash_count else []
        lost: list[str] = []
        if targets.destroys == "commits" or targets.refs:
            lost += self._lost_commits(loc, facts, targets.refs, finding.rule)
        if targets.destroys != "commits":
            unsaved = sorted(facts.unsaved(targets.destroys))
            if targets.whole_tree or targets.unknown or base is None:
                lost += unsaved
            else:
                lost += self._match(loc, unsaved, targets.paths or (".",), base)
        return lost

    # --- file deletion: each target in the worktree it lies in --------------------------

    def _lost_files(self, targets: Targets, base: str | None) -> list[str]:
        if base is None or (targets.unknown and not targets.paths):
            if self.start_loc is None:
                return ["(unknown paths outside any worktree)"]
            return sorted(self.facts_for(self.start_loc).unsaved("all"))
        lost: list[str] = []
        for target in targets.paths or (".",):
            lost += self._lost_file_target(target, base, targets.unknown)
        return lost

    def _lost_file_target(self, target: str, base: str, unknown: bool) -> list[str]:
        absolute = os.path.normpath(os.path.join(base, os.path.expanduser(target)))
        if self.start_loc is not None:
            root = os.path.realpath(self.start_loc.worktree)
            if (root + "/").startswith(absolute.rstrip("/") + "/"):
                return [f"{root} (the whole worktree, .git included)"]
        if ".git" in absolute.split("/"):
            return [f"{absolute} (git's own data)"]
        loc = git.discover(_existing_ancestor(absolute))
        if loc is None:
            if os.path.isdir(os.path.join(absolute, ".git")):
                return [f"{absolute} (a git repository)"]
            return [] if is_temp_path(absolute) else [f"{absolute} (outside any worktree)"]
        facts = self.facts_for(loc)
        unsaved = sorted(facts.unsaved("all"))
        if unknown:
            return unsaved
        return self._match(loc, unsaved, (target,), base, files=True)

    def _match(
        self,
        loc: RepoLocation,
        unsaved: list[str],
        paths: Iterable[str],
        base: str,
        files: bool = False,
    ) -> list[str]:
        root = os.path.realpath(loc.worktree)
        lost: list[str] = []
        for target in paths:
            absolute = os.path.normpath(os.path.join(base, os.path.expanduser(target)))
            rel = os.path.relpath(absolute, root)
            if rel.startswith(".."):
                lost.append(f"{absolute} (outside the worktree)")
                continue
            rel = "" if rel == "." else rel
            if files and (rel == ".git" or rel.startswith(".git/")):
                lost.append(f"{rel} (git's own data)")
            elif any(c in rel for c in _GLOB_CHARS):
                lost += [p for p in unsaved if _glob_hits(p, rel)]
            else:
                lost += [p for p in unsaved if _overlaps(p, rel)]
        return lost

    # --- commits ---------------------------------------------------------------------------

    def _lost_commits(
        self, loc: RepoLocation, facts: TreeFacts, refs: Iterable[str], rule: str
    ) -> list[str]:
        lost: list[str] = []
        for ref in refs or ("HEAD",):
            if rule.startswith(("git.reset", "git.checkout", "git.update-ref-move")):
                lost += self._commits_left_behind(loc, facts, ref)
            else:
                lost += self._commits_only_on_branch(loc, ref)
        return lost

    def _commits_left_behind(self, loc: RepoLocation, facts: TreeFacts, target: str) -> list[str]:
        """Commits reachable from HEAD but not from `target` nor any other ref."""
        if facts.head is None:
            return []
        code, out, _ = git.run(
            ["rev-parse", "-q", "--verify", f"{target}^{{commit}}"], loc.worktree
        )
        if code != 0:
            return []
        code, head_ref, _ = git.run(["symbolic-ref", "-q", "HEAD"], loc.worktree)
        skip = head_ref.decode().strip() if code == 0 else None
        return _unique_commits(loc, facts.head, [out.decode().strip()], skip)

    def _commits_only_on_branch(self, loc: RepoLocation, name: str) -> list[str]:
        ref = name if name.startswith("refs/") else f"refs/heads/{name}"
        code, out, _ = git.run(["rev-parse", "-q", "--verify", f"{ref}^{{commit}}"], loc.worktree)
        if code != 0:
            return []
        return _unique_commits(loc, out.decode().strip(), [], ref)


def _unique_commits(
    loc: RepoLocation, tip: str, exclude: list[str], skip_ref: str | None
) -> list[str]:
    """Commits reachable from tip and from no ref but skip_ref (interlock's own refs aside)."""
    _, refs_out, _ = git.run(["for-each-ref", "--format=%(refname)"], loc.worktree)
    others = [
        r
        for r in refs_out.decode(errors="replace").split()
        if r != skip_ref and not r.startswith("refs/interlock/") and r != "refs/stash"
    ]
    lines = [tip, *(f"^{x}" for x in [*exclude, *others])]
    stdin = ("\n".join(lines) + "\n").encode()
    code, out, _ = git.run(["rev-list", "--stdin"], loc.worktree, input=stdin)
    if code != 0:
        return [f"commit {tip[:12]}"]
    return [f"commit {line[:12]}" for line in out.decode().split()]
