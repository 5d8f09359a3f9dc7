"""Read the worktree into tree edits: which paths a snapshot holds, with their raw bytes.

What a snapshot holds (the same rules on the cold and the incremental path):
- tracked files (in the index, any stage, so conflicted files too): always, any size;
- untracked files git does not ignore: up to SNAPSHOT_UNTRACKED_MAX_BYTES each;
- ignored files that are hand-made (`.env`, `secrets/local.json`): up to
  SNAPSHOT_IGNORED_MAX_BYTES each, at most SNAPSHOT_IGNORED_DIR_MAX_ENTRIES read from one
  ignored directory; never regenerable output (interlock.regenerable: node_modules/, .venv/,
  __pycache__/, build/ ...);
- never: anything inside `.git`, the inside of submodules and nested repositories (a
  submodule's gitlink stays as the base tree has it), sockets, fifos and devices.
Skipped paths are reported by reason. Files are hashed as they are on disk: no clean/smudge
filters, no line-ending conversion. Blobs already in the object store are not rewritten.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable
from dataclasses import dataclass

from interlock import constants
from interlock.errors import InterlockError, write_failure
from interlock.git import RepoLocation, run
from interlock.memory.prescan import ATTRIBUTE_ARGS, STATUS_ARGS, Prescan
from interlock.memory.store import ObjectStore, as_access
from interlock.memory.trees import ancestors, flatten, lookup, outermost
from interlock.objectformat import (
    BLOB,
    EXEC_MODE,
    FILE_MODE,
    GITLINK_MODE,
    LINK_MODE,
    Entry,
    object_id,
)
from interlock.regenerable import is_regenerable

TYPE_CHECKING = False  # not `typing` (~3 ms to import): a cold snapshot process loads this
if TYPE_CHECKING:
    import pygit2

    from interlock.memory.store import RepoAccess

SKIP_SUBMODULE = "submodules"
SKIP_OVERSIZE = "oversize"
SKIP_UNREADABLE = "unreadable"
SKIP_SPECIAL = "special"
SKIP_TOO_MANY = "too-many-ignored"

_STREAM_OVER = 8 << 20  # files larger than this are hashed and stored by streaming
# Attributes that make git rewrite bytes between the worktree and the object store.
_FILTER_ATTRS = re.compile(rb"(?<![\w-])-?(text|eol|crlf|filter|ident|working-tree-encoding)\b")


def display_path(path: bytes) -> str:
    """A path for people and JSON: UTF-8, with undecodable bytes shown as \\xNN."""
    return path.decode("utf-8", "backslashreplace")


def to_relative(loc: RepoLocation, path: str | bytes, cwd: str | bytes | None = None) -> bytes:
    """A worktree-relative bytes path (b"" for the root) from a str/bytes path, absolute or
    relative to cwd (default: the worktree root). InterlockError when it lies outside."""
    raw = os.fsencode(path)
    root = os.fsencode(loc.worktree)
    if not raw.startswith(b"/"):
        raw = os.path.join(os.fsencode(cwd) if cwd is not None else root, raw)
    raw = os.path.normpath(raw)
    if raw == root:
        return b""
    if not raw.startswith(root + b"/"):
        raise InterlockError(
            f"{display_path(raw)} is outside the worktree {loc.worktree}",
            hint="name paths inside the repository",
        )
    return raw[len(root) + 1 :]


@dataclass
class _Budget:
    """What is left to read of one ignored directory."""

    top: bytes
    left: int


class Scanner:
    """Collects edits against a base tree (HEAD's for a cold scan, the previous snapshot's for
    an incremental one) and the paths skipped, by reason."""

    def __init__(self, store: ObjectStore, loc: RepoLocation, base: str | None) -> None:
        self.store, self.git, self.loc, self.base = store, store.git, loc, base
        self.root = os.fsencode(loc.worktree)
        self.edits: dict[bytes, Entry | None] = {}
        self.skipped: dict[str, set[str]] = {}
        self._nested: dict[bytes, bool] = {}
        # Files named as changed (an incremental scan): their new content is queued without
        # asking the repository first, unless the base holds these very bytes. Asking pygit2
        # about a blob it lacks costs libgit2 a rescan of the pack directory (~70% of a warm
        # 20-path snapshot's reading at 100k files); a duplicate in a pack is harmless.
        self.named: set[bytes] = set()

    def _abs(self, rel: bytes) -> bytes:
        return self.root + b"/" + rel

    def _skip(self, reason: str, rel: bytes) -> None:
        self.skipped.setdefault(reason, set()).add(display_path(rel))

    @property
    def repo(self) -> pygit2.Repository:
        return self.store.repo

    def is_tracked(self, rel: bytes) -> bool:
        return self.git.index_has(rel)

    def _is_nested_repo(self, rel: bytes) -> bool:
        if rel not in self._nested:
            self._nested[rel] = os.path.lexists(self._abs(rel) + b"/.git")
        return self._nested[rel]

    def _keep_gitlink(self, rel: bytes) -> None:
        entry = lookup(self.store, self.base, rel)
        self.edits[rel] = entry if entry and entry[0] == GITLINK_MODE else None
        self._skip(SKIP_SUBMODULE, rel)

    def _store(self, rel: bytes, st: os.stat_result, limit: int | None) -> None:
        """Put the file or symlink at rel in the edits; oversize files are left out."""
        if limit is not None and st.st_size > limit:
            self.edits[rel] = None
            self._skip(SKIP_OVERSIZE, rel)
            return
        path = self._abs(rel)
        try:
            if stat.S_ISLNK(st.st_mode):
                self.edits[rel] = (LINK_MODE, self.store.blob(os.readlink(path)))
                return
            mode = EXEC_MODE if st.st_mode & stat.S_IXUSR else FILE_MODE
            if st.st_size > _STREAM_OVER:
                self.edits[rel] = (mode, self.store.blob_from_file(path))
                return
            with open(path, "rb") as handle:
                data = handle.read()
            self.edits[rel] = (mode, self._blob(rel, data))
        except FileNotFoundError:  # gone since it was listed
            self.edits[rel] = None
        except OSError as exc:
            if write_failure(exc, "") is not None:
                raise  # the object store is full or read-only: no snapshot, not a skipped file
            self._skip(SKIP_UNREADABLE, rel)  # unreadable: keep what the base knew

    def _blob(self, rel: bytes, data: bytes) -> str:
        if rel not in self.named:
            return self.store.blob(data)
        oid = object_id(BLOB, data)
        held = lookup(self.store, self.base, rel)
        if held is None or held[1] != oid:
            self.store.queue_blob(data, oid)
        return oid

    def _limit(self, rel: bytes, size: int, ignored: bool, tracked: bool | None) -> int | None:
        """Size cap for a file (None: none); -1 when the file is left out entirely."""
        if tracked:
            return None
        if ignored:
            if tracked is None and self.is_tracked(rel):
                return None
            return -1 if is_regenerable(os.fsdecode(rel)) else constants.SNAPSHOT_IGNORED_MAX_BYTES
        cap = constants.SNAPSHOT_UNTRACKED_MAX_BYTES
        if size > cap and tracked is None and self.is_tracked(rel):
            return None
        return cap

    def read_file(
        self, rel: bytes, st: os.stat_result, ignored: bool | None, tracked: bool | None = None
    ) -> None:
        if not (stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode)):
            self.edits[rel] = None
            self._skip(SKIP_SPECIAL, rel)
            return
        if ignored is None:
            ignored = False if tracked else self.git.is_ignored(self.loc, rel)
        limit = self._limit(rel, st.st_size, ignored, tracked)
        if limit == -1:
            self.edits[rel] = None
        else:
            self._store(rel, st, limit)

    def read_dir(self, rel: bytes, ignored: bool, budget: _Budget | None = None) -> None:
        """Read every file below directory rel (whose base contents the caller dropped)."""
        if ignored and budget is None:
            budget = _Budget(rel, constants.SNAPSHOT_IGNORED_DIR_MAX_ENTRIES)
        try:
            entries = sorted(os.scandir(self._abs(rel)), key=lambda e: e.name)
        except (FileNotFoundError, NotADirectoryError):
            return
        except OSError:
            self._skip(SKIP_UNREADABLE, rel)
            return
        for entry in entries:
            if entry.name == b".git":
                continue
            if budget is not None:
                budget.left -= 1
                if budget.left < 0:
                    self._skip(SKIP_TOO_MANY, budget.top + b"/")
                    return
            child = rel + b"/" + entry.name if rel else entry.name
            try:
                st = entry.stat(follow_symlinks=False)
            except FileNotFoundError:
                continue
            if stat.S_ISDIR(st.st_mode):
                self._read_subdir(child, ignored, budget)
            else:
                self.read_file(child, st, True if ignored else None)

    def _read_subdir(self, rel: bytes, ignored: bool, budget: _Budget | None) -> None:
        if self._is_nested_repo(rel):
            self._keep_gitlink(rel)
        elif ignored:
            if not is_regenerable(os.fsdecode(rel)):
                self.read_dir(rel, True, budget)
        elif self.git.is_ignored(self.loc, rel + b"/"):
            if not is_regenerable(os.fsdecode(rel)):
                self.read_dir(rel, True)
        else:
            self.read_dir(rel, False)

    def read_changed(self, rel: bytes) -> None:
        """Re-read one changed path: a file, a directory (rescanned whole) or a deletion."""
        if b".git" in rel.split(b"/") or any(self._is_nested_repo(a) for a in ancestors(rel)):
            return
        try:
            st = os.lstat(self._abs(rel))
        except (FileNotFoundError, NotADirectoryError):
            self.edits[rel] = None
            return
        if not stat.S_ISDIR(st.st_mode):
            self.read_file(rel, st, None)
            return
        self.edits[rel] = None
        self._read_subdir(rel, False, None)

    def read_tracked(self, rel: bytes) -> None:
        """Re-read a path status lists as tracked (changed, unmerged, or in HEAD's tree)."""
        try:
            st = os.lstat(self._abs(rel))
        except (FileNotFoundError, NotADirectoryError):
            self.edits[rel] = None
            return
        if stat.S_ISDIR(st.st_mode):  # a file became a directory: its files are listed apart
            if self._is_nested_repo(rel):
                self._keep_gitlink(rel)
            else:
                self.edits[rel] = None
            return
        self.read_file(rel, st, False, tracked=True)

    def read_listed(self, code: bytes, rel: bytes) -> None:
        """Handle one `git status` line: `?` untracked, `!` ignored, anything else tracked."""
        if code not in (b"?", b"!"):
            self.read_tracked(rel)
            return
        if rel.endswith(b"/"):  # a directory: nested repository, or ignored as a whole
            rel = rel.rstrip(b"/")
            if code == b"?" or self._is_nested_repo(rel):
                self._skip(SKIP_SUBMODULE, rel)
            elif not is_regenerable(os.fsdecode(rel)):
                self.read_dir(rel, True)
            return
        try:
            st = os.lstat(self._abs(rel))
        except (FileNotFoundError, NotADirectoryError):
            self.edits[rel] = None
            return
        self.read_file(rel, st, code == b"!", tracked=False)


def parse_status(out: bytes) -> list[tuple[bytes, bytes]]:
    """(code, path) for each record of `git status --porcelain=v2 -z`; renames give both paths."""
    records = out.split(b"\0")
    found: list[tuple[bytes, bytes]] = []
    i = 0
    while i < len(records):
        record = records[i]
        i += 1
        if not record or record.startswith(b"#"):
            continue
        code = record[:1]
        fields = {b"1": 8, b"2": 9, b"u": 10}.get(code, 1)
        path = record.split(b" ", fields)[fields]
        found.append((code, path))
        if code == b"2":  # the original path follows in its own record
            found.append((code, records[i]))
            i += 1
    return found


def worktree_status(loc: RepoLocation) -> bytes:
    """`git status --porcelain=v2 -z` of every path (untracked files one by one, ignored ones
    as matched), without touching the index (`--no-optional-locks`) or entering submodules."""
    return run(list(STATUS_ARGS), loc.worktree, check=True)[1]


def tracked_attribute_files(loc: RepoLocation) -> list[bytes]:
    """Paths of tracked `.gitattributes` files (their rules may rewrite bytes on checkout)."""
    return _paths(run(list(ATTRIBUTE_ARGS), loc.worktree, check=True)[1])


def _paths(out: bytes) -> list[bytes]:
    return [p for p in out.split(b"\0") if p]


def _attribute_sources(loc: RepoLocation, git: RepoAccess) -> list[bytes]:
    paths = [os.fsencode(loc.common_dir / "info" / "attributes")]
    configured = git.config("core.attributesFile")
    if configured is not None:
        paths.append(os.fsencode(os.path.expanduser(configured)))
    else:
        base = os.environ.get("XDG_CONFIG_HOME") or os.path.expanduser("~/.config")
        paths.append(os.fsencode(os.path.join(base, "git", "attributes")))
    return paths


def has_byte_filters(
    source: pygit2.Repository | RepoAccess,
    loc: RepoLocation,
    tracked: list[bytes],
    listed: Iterable[bytes],
) -> bool:
    """Whether git may store bytes other than those on disk (core.autocrlf, eol/text/filter
    attributes in the tracked or listed .gitattributes): then files that status calls clean
    must still be hashed from disk."""
    git = as_access(source)
    autocrlf = git.config("core.autocrlf")
    if autocrlf is not None and autocrlf.lower() not in ("false", "0"):
        return True
    root = os.fsencode(loc.worktree)
    candidates = _attribute_sources(loc, git)
    candidates += [root + b"/" + p for p in tracked]
    candidates += [root + b"/" + p for p in listed if p.rsplit(b"/", 1)[-1] == b".gitattributes"]
    for path in candidates:
        try:
            with open(path, "rb") as handle:
                if _FILTER_ATTRS.search(handle.read()):
                    return True
        except OSError:
            continue
    return False


def scan_cold(
    store: ObjectStore, loc: RepoLocation, head_tree: str | None, prescan: Prescan | None = None
) -> Scanner:
    """Edits turning HEAD's tree into the worktree, driven by one `git status` (the one
    `prescan` started early, when given)."""
    scanner = Scanner(store, loc, head_tree)
    if prescan is not None:
        listed = parse_status(prescan.output("status"))
        tracked = _paths(prescan.output("attributes"))
    else:
        from concurrent.futures import ThreadPoolExecutor  # (a cold process has a prescan)

        with ThreadPoolExecutor(max_workers=1) as pool:  # both git commands at once
            attributes = pool.submit(tracked_attribute_files, loc)
            listed = parse_status(worktree_status(loc))
            tracked = attributes.result()
    if has_byte_filters(store.git, loc, tracked, (p for _, p in listed)):
        for rel, entry in flatten(store, head_tree).items():
            if entry[0] != GITLINK_MODE:
                scanner.read_tracked(rel)
    for code, rel in listed:
        scanner.read_listed(code, rel)
    for path in store.git.submodule_paths(loc):
        scanner.skipped.setdefault(SKIP_SUBMODULE, set()).add(path)
    return scanner


def scan_incremental(
    store: ObjectStore, loc: RepoLocation, base_tree: str, changed: Iterable[bytes]
) -> Scanner:
    """Edits turning a previous snapshot's tree into the worktree, re-reading only `changed`."""
    scanner = Scanner(store, loc, base_tree)
    paths = outermost(changed)
    scanner.named.update(paths)
    for rel in paths:
        scanner.read_changed(rel)
    return scanner
