"""File sets read from git for the audit: a base revision, the index, the worktree.

A `GitFiles` maps every path of a set to its bytes but reads lazily: unchanged files share
their blob id with the base (`ident()`), so the audit reads only what changed, in one
`git cat-file --batch` (`prefetch()`).
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from interlock import constants, git
from interlock.config import RawSource, resolve
from interlock.git import RepoLocation

Entry = tuple[str, str]  # ("blob", oid) or ("disk", path)


class GitFiles(Mapping[str, bytes]):
    """A lazily read file set: path -> bytes, with a cheap identity per path."""

    def __init__(self, loc: RepoLocation, entries: dict[str, Entry]) -> None:
        self.loc = loc
        self.entries = entries
        self._cache: dict[str, bytes] = {}

    def ident(self, path: str) -> str | None:
        entry = self.entries.get(path)
        return None if entry is None else f"{entry[0]}:{entry[1]}"

    def prefetch(self, paths: Iterable[str]) -> None:
        wanted = [p for p in paths if p in self.entries and p not in self._cache]
        oids = sorted({self.entries[p][1] for p in wanted if self.entries[p][0] == "blob"})
        blobs = git.cat_blobs(self.loc, oids)
        for path in wanted:
            kind, ref = self.entries[path]
            if kind == "blob":
                if ref in blobs:
                    self._cache[path] = blobs[ref]
            else:
                self._cache[path] = _read_disk(self.loc.worktree / ref)

    def __getitem__(self, path: str) -> bytes:
        if path not in self._cache:
            if path not in self.entries:
                raise KeyError(path)
            self.prefetch([path])
        return self._cache.get(path, b"")

    def __iter__(self) -> Iterator[str]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    def __contains__(self, path: object) -> bool:
        return path in self.entries


def _read_disk(path: Path) -> bytes:
    try:
        if path.is_symlink():
            return os.fsencode(os.readlink(path))
        return path.read_bytes()
    except OSError:
        return b""


def tree_set(loc: RepoLocation, rev: str) -> GitFiles:
    """The files of a commit, tree or snapshot."""
    files = git.ls_tree_files(loc, rev)
    return GitFiles(loc, {p: ("blob", oid) for p, (_, oid) in files.items()})


def worktree_set(loc: RepoLocation, rev: str, base: GitFiles) -> GitFiles:
    """The worktree now: tracked and untracked non-ignored files (plus ignored files the base
    held that are still on disk), read from disk where they differ from the base."""
    entries = dict(base.entries)
    gone = []
    for status, path, _, _ in git.diff_raw(loc, [rev]):
        if status == "D":
            entries.pop(path, None)
            gone.append(path)
        else:
            entries[path] = ("disk", path)
    for path in git.untracked_paths(loc):
        entries[path] = ("disk", path)
    for path in gone:
        if path not in entries and (loc.worktree / path).is_file():
            entries[path] = ("disk", path)
    return GitFiles(loc, entries)


def index_set(
    loc: RepoLocation, rev: str, base: GitFiles, index_file: str | None = None
) -> GitFiles:
    """The index (or another index file): what the next commit would hold."""
    entries = dict(base.entries)
    for status, path, _, new in git.diff_raw(loc, ["--cached", rev], index_file):
        if status == "D":
            entries.pop(path, None)
        else:
            entries[path] = ("blob", new)
    return GitFiles(loc, entries)


def staged_overlay(loc: RepoLocation, rev: str, worktree: GitFiles) -> GitFiles | None:
    """The worktree with each file whose staged version differs both from the base and from
    the file on disk replaced by the staged version: a weakened test staged and then
    reverted on disk is still seen."""
    staged = {path for _, path, _, _ in git.diff_raw(loc, ["--cached", rev])}
    if staged:
        # Staged means the index differs from HEAD too: against a snapshot base (a run's
        # baseline holding unstaged work), an index that merely still holds HEAD's version
        # of a file changed before the run was never staged by anyone.
        staged &= {path for _, path, _, _ in git.diff_raw(loc, ["--cached"])}
    if not staged:
        return None
    unstaged = {path: oid for _, path, oid, _ in git.diff_raw(loc, []) if oid.strip("0")}
    entries = dict(worktree.entries)
    changed = False
    for path, oid in unstaged.items():
        if path in staged:
            entries[path] = ("blob", oid)
            changed = True
    return GitFiles(loc, entries) if changed else None


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
