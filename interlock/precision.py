"""Precision from the tree: does a discard finding really destroy something?

A discard is only a discard when it would destroy something that exists nowhere else:
uncommitted changes, untracked files git does not ignore, hand-made ignored files, commits no
other ref holds, stashes. `judge()` answers for one finding with the paths (or refs) that
would be lost; an empty answer means the command destroys nothing and the finding is dropped.
"""

from __future__ import annotations

import fnmatch
import os
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath

from interlock import git
from interlock.facts import TreeFacts
from interlock.findings import Finding, Targets
from interlock.git import RepoLocation

_GLOB_CHARS = set("*?[")
_TEMP_ROOTS = ("/tmp", "/var/tmp", "/dev/shm", "/private/tmp", "/private/var/folders")


@dataclass(frozen=True)
class Judgement:
    """The unsaved things a discard would destroy; `lost` empty means nothing is lost."""

    lost: tuple[str, ...]
    summary: str


def is_temp_path(path: str) -> bool:
    """An absolute path inside a temp directory (/tmp, /var/tmp, $TMPDIR)."""
    norm = os.path.normpath(path)
    roots = [*_TEMP_ROOTS, os.path.normpath(tempfile.gettempdir())]
    tmpdir = os.environ.get("TMPDIR")
    if tmpdir:
        roots.append(os.path.normpath(tmpdir))
    return any(norm != root and (norm + "/").startswith(root + "/") for root in roots)


def _overlaps(unsaved: str, target: str) -> bool:
    """Whether destroying `target` (a repo-relative path, '' = root) destroys `unsaved`."""
    entry = unsaved.rstrip("/")
    if target == "":
        return True
    if entry == target or entry.startswith(target + "/"):
        return True
    # target inside a collapsed untracked/ignored directory entry
    return unsaved.endswith("/") and target.startswith(entry + "/")


def _glob_hits(unsaved: str, pattern: str) -> bool:
    """Whether a glob target (repo-relative) matches the path or one of its ancestors."""
    parts = unsaved.rstrip("/").split("/")
    prefix = pattern.split("*", 1)[0].split("?", 1)[0].split("[", 1)[0]
    for i in range(1, len(parts) + 1):
        candidate = "/".join(parts[:i])
        if fnmatch.fnmatchcase(candidate, pattern):
            return True
    # the unsaved entry is a directory that the glob reaches into
    return unsaved.endswith("/") and prefix.startswith(unsaved)


def _existing_ancestor(path: str) -> str:
    while not os.path.exists(path) and path not in ("/", ""):
        path = os.path.dirname(path)
    return path or "/"


def _describe(paths: list[str], limit: int = 3) -> str:
    shown = ", ".join(paths[:limit]) + (", ..." if len(paths) > limit else "")
    files = "file" if len(paths) == 1 else "files"
    dirs = {str(PurePosixPath(p.rstrip("/")).parent) for p in paths}
    under = f" under {dirs.pop()}/" if len(dirs) == 1 and "." not in dirs else ""
    return f"{len(paths)} {files}{under} ({shown})"


class Judge:
    """Judges discard findings against the facts of one worktree."""

    def __init__(self, loc: RepoLocation, facts: TreeFacts, start: str) -> None:
        self.loc = loc
        self.facts = facts
        self.root = os.path.realpath(facts.root)
        self.start = os.path.realpath(start)

    def judge(self, finding: Finding) -> Judgement:
        targets = finding.targets or Targets(destroys="all", unknown=True)
        destroys = targets.destroys
        if destroys in ("remote", "unreachable", "worktree"):
            return Judgement(("(outside the worktree)",), "destroys history git keeps elsewhere")
        if destroys == "stash":
            if self.facts.stash_count == 0:
                return Judgement((), "")
            count = self.facts.stash_count
            return Judgement(("refs/stash",), f"{count} stash entr{'y' if count == 1 else 'ies'}")
        lost: list[str] = []
        if destroys == "commits" or targets.refs:
            lost += self._lost_commits(targets.refs, finding)
        if destroys != "commits":
            lost += self._lost_paths(targets, destroys, finding.cwd)
        if not lost:
            return Judgement((), "")
        paths = [p for p in lost if not p.startswith("commit ")]
        commits = [p for p in lost if p.startswith("commit ")]
        parts = []
        if paths:
            parts.append(_describe(paths))
        if commits:
            parts.append(f"{len(commits)} commit{'s' if len(commits) > 1 else ''} no other ref holds")
        return Judgement(tuple(lost), "; ".join(parts))

    def _base_dir(self, cwd: str | None) -> str | None:
        if cwd is None:
            return None
        return os.path.normpath(os.path.join(self.start, cwd))

    def _lost_paths(self, targets: Targets, destroys: str, cwd: str | None) -> list[str]:
        unsaved = sorted(self.facts.unsaved(destroys))
        base = self._base_dir(cwd)
        if targets.whole_tree or targets.unknown or base is None:
            if base is not None and not targets.whole_tree and targets.paths:
                # unknown run-time arguments, but confined to known roots (find -exec)
                return self._match_paths(unsaved, targets.paths, base)
            return unsaved
        return self._match_paths(unsaved, targets.paths or (".",), base)

    def _match_paths(self, unsaved: list[str], paths: Iterable[str], base: str) -> list[str]:
        lost: list[str] = []
        for target in paths:
            lost += self._match_one(unsaved, target, base)
        return sorted(set(lost))

    def _match_one(self, unsaved: list[str], target: str, base: str) -> list[str]:
        absolute = os.path.normpath(os.path.join(base, os.path.expanduser(target)))
        if not (absolute + "/").startswith(self.root + "/") and absolute != self.root:
            if (self.root + "/").startswith(absolute.rstrip("/") + "/"):
                return [*unsaved, ".git/ (the repository itself)"]
            if is_temp_path(absolute) and git.discover(_existing_ancestor(absolute)) is None:
                return []
            return [f"{absolute} (outside the worktree)"]
        rel = os.path.relpath(absolute, self.root)
        rel = "" if rel == "." else rel
        if rel == ".git" or rel.startswith(".git/"):
            return [f"{rel} (git's own data)"]
        if rel == "" and not any(c in target for c in _GLOB_CHARS):
            return [*unsaved, ".git/ (the repository itself)"]
        if any(c in rel for c in _GLOB_CHARS):
            return [p for p in unsaved if _glob_hits(p, rel)]
        return [p for p in unsaved if _overlaps(p, rel)]

    def _lost_commits(self, refs: Iterable[str], finding: Finding) -> list[str]:
        lost: list[str] = []
        rule = finding.rule
        for ref in refs or ("HEAD",):
            if rule.startswith("git.reset") or rule.startswith("git.checkout"):
                lost += self._commits_left_behind(ref)
            else:
                lost += self._commits_only_on_branch(ref)
        return lost

    def _commits_left_behind(self, target: str) -> list[str]:
        """Commits reachable from HEAD but not from `target` nor any other ref."""
        head = self.facts.head
        if head is None:
            return []
        code, out, _ = git.run(["rev-parse", "-q", "--verify", f"{target}^{{commit}}"], self.loc.worktree)
        if code != 0:
            return []
        return self._unique_commits(head, exclude=[out.decode().strip()], skip_ref=self._head_ref())

    def _commits_only_on_branch(self, name: str) -> list[str]:
        ref = name if name.startswith("refs/") else f"refs/heads/{name}"
        code, out, _ = git.run(["rev-parse", "-q", "--verify", f"{ref}^{{commit}}"], self.loc.worktree)
        if code != 0:
            return []
        return self._unique_commits(out.decode().strip(), exclude=[], skip_ref=ref)

    def _head_ref(self) -> str | None:
        code, out, _ = git.run(["symbolic-ref", "-q", "HEAD"], self.loc.worktree)
        return out.decode().strip() if code == 0 else None

    def _unique_commits(self, tip: str, exclude: list[str], skip_ref: str | None) -> list[str]:
        _, refs_out, _ = git.run(["for-each-ref", "--format=%(refname)"], self.loc.worktree)
        others = [
            r
            for r in refs_out.decode(errors="replace").split()
            if r != skip_ref and not r.startswith("refs/interlock/") and r != "refs/stash"
        ]
        lines = [tip, *(f"^{x}" for x in [*exclude, *others])]
        stdin = ("\n".join(lines) + "\n").encode()
        code, out, _ = git.run(["rev-list", "--stdin"], self.loc.worktree, input=stdin)
        if code != 0:
            return [f"commit {tip[:12]}"]
        return [f"commit {line[:12]}" for line in out.decode().split()]
