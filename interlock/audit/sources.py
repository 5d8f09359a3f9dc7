"""File sets read from git for the audit: a base revision, the index, the worktree.

They are read narrowly, because the audit runs on every commit: a base revision is never
listed whole up front. Its paths are looked up one by one in the tree (pygit2, no process)
when asked for; the index and the worktree are the base plus what `git diff --raw` (and the
untracked list) says changed, the index's changes read in process where libgit2 gives git's
answer (git.staged_changes). `changes_from(base)` tells the audit which paths to compare,
`ident()` tells whether two versions differ without reading them, and `prefetch()` reads
what changed in one `git cat-file --batch`. Only asking for every path (`iter()`: a root
runner config changed, a conftest ignores test paths) lists the base tree whole.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from interlock import constants, git
from interlock.config import RawSource, resolve
from interlock.git import RepoLocation
from interlock.memory.trees import lookup
from interlock.objectformat import TREE_MODE

if TYPE_CHECKING:
    import pygit2

Entry = tuple[str, str]  # ("blob", oid) or ("disk", path)
_GONE: Entry = ("gone", "")


class GitFiles(Mapping[str, bytes]):
    """A lazily read file set: path -> bytes, with a cheap identity per path.

    Either a tree (`rev`) whose entries are looked up on demand, or `base` with some paths
    replaced (`overrides`, where ("gone", "") removes a path)."""

    def __init__(
        self,
        loc: RepoLocation,
        rev: str | None = None,
        base: GitFiles | None = None,
        overrides: dict[str, Entry] | None = None,
        repo: pygit2.Repository | None = None,
    ) -> None:
        self.loc, self.rev, self.base = loc, rev, base
        self.overrides = overrides or {}
        self._found: dict[str, Entry | None] = {}
        self._all: list[str] | None = None
        self._cache: dict[str, bytes] = {}
        self._repo = repo
        self._tree: str | None = None

    def entry(self, path: str) -> Entry | None:
        if path in self.overrides:
            found = self.overrides[path]
            return None if found == _GONE else found
        if self.base is not None:
            return self.base.entry(path)
        if path not in self._found:
            self._found[path] = self._lookup(path)
        return self._found[path]

    def repo(self) -> pygit2.Repository:
        """One repository object for a set and the sets built on it (each open reads the
        config and the refs again)."""
        if self._repo is None:
            self._repo = self.base.repo() if self.base is not None else git.open_repo(self.loc)
        return self._repo

    def tree_id(self) -> str | None:
        """The tree this set reads (None: empty), for a set made by tree_set()."""
        if self.rev is None or self.rev == git.EMPTY_TREE_OID:  # git knows it; the odb may not
            return None
        if self._tree is None:
            commit = git.read_commit(self.repo(), self.rev)
            self._tree = commit[0] if commit else self.rev
        return self._tree

    def _lookup(self, path: str) -> Entry | None:
        tree = self.tree_id()
        if tree is None:
            return None
        found = lookup(self.repo(), tree, os.fsencode(path))
        return None if found is None or found[0] in (TREE_MODE, 0o160000) else ("blob", found[1])

    def ident(self, path: str) -> str | None:
        found = self.entry(path)
        return None if found is None else f"{found[0]}:{found[1]}"

    def changes_from(self, other: Mapping[str, bytes]) -> set[str] | None:
        """Paths that may differ from `other` when this set was built on it; else None."""
        if self is other:
            return set()
        if self.base is None:
            return None
        below = self.base.changes_from(other)
        return None if below is None else below | set(self.overrides)

    def prefetch(self, paths: Iterable[str]) -> None:
        wanted = {p: e for p in paths if p not in self._cache and (e := self.entry(p))}
        oids = sorted({e[1] for e in wanted.values() if e[0] == "blob"})
        blobs = read_blobs(self.loc, oids, self.repo() if oids else None)
        for path, (kind, ref) in wanted.items():
            if kind == "disk":
                self._cache[path] = _read_disk(self.loc.worktree / ref)
            elif ref in blobs:
                self._cache[path] = blobs[ref]

    def __getitem__(self, path: str) -> bytes:
        if path not in self._cache:
            if self.entry(path) is None:
                raise KeyError(path)
            self.prefetch([path])
        return self._cache.get(path, b"")

    def __iter__(self) -> Iterator[str]:
        if self._all is None:
            if self.base is not None:
                names = dict.fromkeys(self.base)
                names.update(dict.fromkeys(self.overrides))
                self._all = [p for p in names if self.entry(p) is not None]
            elif self.rev is not None:
                listed = git.ls_tree_files(self.loc, self.rev)
                self._found.update({p: ("blob", oid) for p, (_, oid) in listed.items()})
                self._all = list(listed)
            else:
                self._all = []
        return iter(self._all)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __contains__(self, path: object) -> bool:
        return isinstance(path, str) and self.entry(path) is not None


_IN_PROCESS_BLOBS = 64  # fewer blobs than this are read through pygit2, not a git process


def read_blobs(
    loc: RepoLocation, oids: list[str], repo: pygit2.Repository | None = None
) -> dict[str, bytes]:
    """Blob contents by id (missing ones left out): in process for a few, else one
    `git cat-file --batch` (no fork for the common commit of a few files)."""
    if len(oids) >= _IN_PROCESS_BLOBS:
        return git.cat_blobs(loc, oids)
    repo = repo or git.open_repo(loc)
    found = {}
    for oid in oids:
        try:
            found[oid] = git.read_blob(repo, oid)
        except (KeyError, ValueError, git.GitError):
            continue
    return found


def head_commit(loc: RepoLocation, repo: pygit2.Repository | None = None) -> str | None:
    """The commit HEAD points at, or None on an unborn branch (read in process)."""
    repo = repo or git.open_repo(loc)
    if repo.head_is_unborn:
        return None
    return str(repo.head.target)


def _read_disk(path: Path) -> bytes:
    try:
        if path.is_symlink():
            return os.fsencode(os.readlink(path))
        return path.read_bytes()
    except OSError:
        return b""


def tree_set(loc: RepoLocation, rev: str, repo: pygit2.Repository | None = None) -> GitFiles:
    """The files of a commit, tree or snapshot (looked up on demand)."""
    return GitFiles(loc, rev=rev, repo=repo)


def worktree_set(loc: RepoLocation, rev: str, base: GitFiles) -> GitFiles:
    """The worktree now: tracked and untracked non-ignored files (plus ignored files the base
    held that are still on disk), read from disk where they differ from the base."""
    overrides: dict[str, Entry] = {}
    for status, path, _, _ in git.diff_raw(loc, [rev]):
        gone = status == "D" and not (loc.worktree / path).is_file()
        overrides[path] = _GONE if gone else ("disk", path)
    for path in git.untracked_paths(loc):
        overrides[path] = ("disk", path)
    return GitFiles(loc, base=base, overrides=overrides)


def index_set(
    loc: RepoLocation, rev: str, base: GitFiles, index_file: str | None = None
) -> GitFiles:
    """The index (or another index file): what the next commit would hold."""
    overrides: dict[str, Entry] = {}
    for status, path, _, new in git.staged_changes(loc, rev, index_file, base.repo()):
        overrides[path] = _GONE if status == "D" else ("blob", new)
    return GitFiles(loc, base=base, overrides=overrides)


def staged_overlay(loc: RepoLocation, rev: str, worktree: GitFiles) -> GitFiles | None:
    """The worktree with each file whose staged version differs both from the base and from
    the file on disk replaced by the staged version: a weakened test staged and then
    reverted on disk is still seen."""
    staged = {path for _, path, _, _ in git.staged_changes(loc, rev, repo=worktree.repo())}
    if staged:
        # Staged means the index differs from HEAD too: against a snapshot base (a run's
        # baseline holding unstaged work), an index that merely still holds HEAD's version
        # of a file changed before the run was never staged by anyone.
        head = head_commit(loc, worktree.repo()) or git.EMPTY_TREE_OID  # as `git diff --cached`
        staged &= {path for _, path, _, _ in git.staged_changes(loc, head, repo=worktree.repo())}
    if not staged:
        return None
    unstaged = {path: oid for _, path, oid, _ in git.diff_raw(loc, []) if oid.strip("0")}
    overrides: dict[str, Entry] = {p: ("blob", oid) for p, oid in unstaged.items() if p in staged}
    return GitFiles(loc, base=worktree, overrides=overrides) if overrides else None


def tree_overlay(loc: RepoLocation, base: GitFiles, tree: str) -> GitFiles:
    """`base` changed into the files of `tree` (a worktree written as a tree): one tree diff,
    which skips every subtree the two share."""
    from interlock.memory.trees import diff_trees

    base_tree = base.tree_id()
    overrides: dict[str, Entry] = {}
    for change in diff_trees(git.open_repo(loc), base_tree, tree):
        path = os.fsdecode(change.path)
        new = change.new
        overrides[path] = _GONE if new is None or new[0] == 0o160000 else ("blob", new[1])
    return GitFiles(loc, base=base, overrides=overrides)


def staged_over_tree(loc: RepoLocation, rev: str, worktree: GitFiles) -> GitFiles | None:
    """staged_overlay() for a worktree given as a tree: reads the index, not the files."""
    changes = git.staged_changes(loc, rev, repo=worktree.repo())
    staged = {p: new for status, p, _, new in changes if status != "D"}
    overrides: dict[str, Entry] = {}
    for path, oid in staged.items():
        now = worktree.entry(path)
        if now is not None and now != ("blob", oid):
            overrides[path] = ("blob", oid)
    return GitFiles(loc, base=worktree, overrides=overrides) if overrides else None


def protected_at(files: Mapping[str, bytes]) -> tuple[str, ...]:
    """The `protected` globs as the config stood in this file set (a run cannot relax them)."""
    sources = []
    for name, table in ((constants.CONFIG_FILE, ()), (constants.PYPROJECT, ("tool", "interlock"))):
        if name not in files:
            continue
        try:
            data = tomllib.loads(files[name].decode("utf-8", errors="replace"))
        except tomllib.TOMLDecodeError:
            continue
        for part in table:
            data = data.get(part, {}) if isinstance(data, dict) else {}
        if isinstance(data, dict) and data:
            sources.append(RawSource(name, data))
    return resolve(sources).protected
