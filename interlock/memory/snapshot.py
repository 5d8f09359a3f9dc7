"""Worktree snapshots: whole-tree commits in the repository's own object store.

Public API (the daemon, the command engine and `interlock recover` build on it; keep it stable):

    take_snapshot(loc, kind="manual", message=None, run=None, command=None,
                  changed=None, base=None, scope=None, prescan=None) -> SnapshotInfo
        changed=None: cold, driven by one `git status` (prescan: that status and the snapshot
        lock, started early by interlock.memory.prescan). changed=PATHS with base=SNAP (the
        previous snapshot of this worktree: id, full oid or name): incremental, re-reading
        only PATHS (bytes or str, worktree-relative or absolute). A directory in PATHS is
        rescanned whole: pass directories created, removed, moved or chmod-ed, not those whose
        mtime merely changed. Falls back to cold when PATHS holds the root, a .gitignore,
        .gitattributes or .gitmodules (they change what a snapshot holds).
    list_snapshots(loc, kind=None, limit=None) -> list[SnapshotInfo]      newest first
    resolve_snapshot(loc, ref) -> SnapshotInfo    InterlockError when unknown or ambiguous.
        ref: a 12-hex id or any unique prefix of >= 4 hex digits (this worktree's snapshots
        first, then every worktree's), a full commit id, `latest`, `green`, `baseline` or
        any other kind (the newest of it), or a full ref name.
    snapshot_tree_files(loc, snap) -> dict[bytes path, (mode, oid)]   snap: SnapshotInfo|ref
    diff_snapshot(loc, snap) -> list[Change]       SNAP's tree vs the worktree now
    worktree_tree(loc) -> str                      the worktree's tree id now (no ref kept)
    snapshot_lock(loc)                             the lock snapshot and restore hold
    REGENERABLE                                    regenerable output (interlock.regenerable)

What a snapshot holds is described in interlock/memory/scan.py. Layout:
    ref     refs/interlock/<worktree-id>/snapshots/<kind>/<full commit id>
    commit  tree = the worktree; parent = HEAD (none when unborn), which also keeps a commit
            a later `reset --hard` dropped alive; message = a summary line, a blank line,
            then the metadata as JSON (kind, time, run, command, message, head, worktree,
            skipped, scope, base, how, version).
Objects are written before the ref, and the ref update is the commit point, so a snapshot
killed midway leaves only unreferenced objects (which `git fsck` accepts).
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

from interlock import constants, output
from interlock.errors import InterlockError, write_failure
from interlock.git import (
    Entry,
    RepoLocation,
    commit_by_prefix,
    has_object,
    list_refs,
    open_repo,
    read_commit,
)
from interlock.memory.catalog import KINDS, SnapshotInfo, info_from_commit, ref_name
from interlock.memory.leftovers import LockHolder, clear_interrupted, describe_interrupted
from interlock.memory.prescan import Prescan
from interlock.memory.scan import Scanner, display_path, scan_cold, scan_incremental, to_relative
from interlock.memory.store import ObjectStore, as_access
from interlock.memory.trees import (
    Change,
    apply_edits,
    count_changes,
    diff_trees,
    flatten,
    prefetch_along,
)
from interlock.plumbing import ReaderBroken
from interlock.regenerable import REGENERABLE_DIRS, REGENERABLE_FILES, is_regenerable
from interlock.repoaccess import PygitAccess
from interlock.state import repo_state_dir

TYPE_CHECKING = False  # not `typing` (~3 ms to import): a cold snapshot process loads this
if TYPE_CHECKING:
    import pygit2

    from interlock.memory.store import RepoAccess

__all__ = [
    "KINDS",
    "REGENERABLE",
    "SnapshotInfo",
    "diff_snapshot",
    "is_regenerable",
    "list_snapshots",
    "resolve_snapshot",
    "snapshot_lock",
    "snapshot_tree_files",
    "take_snapshot",
    "worktree_tree",
]

# Regenerable output as patterns: `name/` a directory anywhere, else a file-name glob.
REGENERABLE: tuple[str, ...] = (*sorted(d + "/" for d in REGENERABLE_DIRS), *REGENERABLE_FILES)

# Changed paths after which an incremental snapshot cannot be trusted: they change the rules.
_RULE_FILES = frozenset({b".gitignore", b".gitattributes", b".gitmodules"})


def _state_dir(loc: RepoLocation) -> Path:
    """`<git-dir>/interlock`, rebuilt with a warning when something else sits at that path."""
    try:
        return repo_state_dir(loc)
    except (FileExistsError, NotADirectoryError):
        aside = loc.state_dir.with_name(f"interlock.corrupt-{int(time.time())}")
        os.replace(loc.state_dir, aside)
        output.warn(f"{loc.state_dir} was not a directory; kept it as {aside.name} and rebuilt it")
        return repo_state_dir(loc)
    except OSError as exc:
        raise InterlockError(
            f"cannot use interlock's state directory {loc.state_dir}: {exc.strerror}",
            hint="check its permissions, or remove it: interlock rebuilds it",
        ) from exc


@contextlib.contextmanager
def snapshot_lock(
    loc: RepoLocation, op: str = "a snapshot", held: int | None = None
) -> Iterator[LockHolder]:
    """Hold the per-worktree lock that serialises snapshots and restores. A holder that died
    midway (kill -9) left its record in the lock: its temp files are removed first, and the
    interrupted operation is named in a warning (interlock/memory/leftovers.py). `held`: the
    lock's fd, already locked by interlock.memory.prescan (which took it only when no record
    was left), released here like one taken here."""
    path = _state_dir(loc) / constants.SNAPSHOT_LOCK_FILE
    try:
        holder = LockHolder(held, None) if held is not None else LockHolder.acquire(path)
    except OSError as exc:
        raise write_failure(exc, "take the snapshot lock") or InterlockError(
            f"cannot take the snapshot lock {path}: {exc.strerror}",
            hint="check the permissions of the repository's .git directory",
        ) from exc
    assert holder is not None  # a blocking acquire
    try:
        if holder.stale is not None:
            cleared = clear_interrupted(loc, holder.stale)
            output.warn(f"{describe_interrupted(holder.stale)}; {cleared.describe()}")
        holder.claim(op)
        yield holder
    finally:
        holder.release()


def head_commit(source: pygit2.Repository | RepoAccess) -> tuple[str | None, str | None]:
    """(HEAD commit id, its tree id), both None on an unborn branch."""
    return as_access(source).head()


def _needs_cold(changed: list[bytes]) -> bool:
    return any(p == b"" or p.rsplit(b"/", 1)[-1] in _RULE_FILES for p in changed)


def scan_worktree(
    repo: pygit2.Repository | RepoAccess,
    loc: RepoLocation,
    changed: list[bytes] | None = None,
    base_tree: str | None = None,
    store: ObjectStore | None = None,
    prescan: Prescan | None = None,
) -> tuple[str, Scanner]:
    """The worktree's tree id (no ref kept) and the scan that built it: cold when changed is
    None, else base_tree with only the changed paths re-read. New objects go to `store` (the
    caller flushes it) or, without one, are written before this returns. `prescan`: the cold
    scan's git commands, started early."""
    own = store is None
    store = store or ObjectStore(repo)
    if changed is None or _needs_cold(changed):
        head_tree = store.git.head()[1]
        scanner = scan_cold(store, loc, head_tree, prescan)
        prefetch_along(store, head_tree, scanner.edits)
        tree = apply_edits(store, head_tree, scanner.edits)
    else:
        scanner = scan_incremental(store, loc, base_tree or apply_edits(store, None, {}), changed)
        tree = apply_edits(store, base_tree, scanner.edits)
    if own:
        store.flush()
    return tree, scanner


def _skipped(
    scanner: Scanner, base: SnapshotInfo | None, changed: list[bytes]
) -> dict[str, list[str]]:
    """What this scan skipped, plus what the base skipped outside the re-read paths."""
    merged = {k: set(v) for k, v in scanner.skipped.items()}
    if base is not None:
        covered = [display_path(p) for p in changed]
        for reason, paths in base.skipped.items():
            for path in paths:
                if not any(path == c or path.startswith(c + "/") for c in covered):
                    merged.setdefault(reason, set()).add(path)
    return {k: sorted(v) for k, v in sorted(merged.items())}


def record_snapshot(
    store: ObjectStore,
    loc: RepoLocation,
    tree: str,
    meta: dict[str, object],
) -> SnapshotInfo:
    """Write the commit for tree with metadata and every queued object, then the ref (the
    commit point)."""
    head, _ = store.git.head()
    when = time.time()
    meta = {**meta, "time": when, "head": head, "worktree": loc.worktree_id}
    meta["version"] = constants.VERSION
    kind = str(meta["kind"])
    summary = f"interlock {kind} snapshot"
    if meta.get("message"):
        summary += ": " + str(meta["message"]).splitlines()[0][:72]
    body = summary + "\n\n" + json.dumps(meta, sort_keys=True, ensure_ascii=True) + "\n"
    oid = store.commit(tree, [head] if head else [], body, when)
    store.flush()
    name = ref_name(loc.worktree_id, kind, oid)
    store.git.set_ref(name, oid)
    return info_from_commit(name, oid, tree, body)


def _check_kind(kind: str) -> None:
    if kind not in KINDS:
        raise InterlockError(
            f"unknown snapshot kind {kind!r}", hint="use one of: " + ", ".join(KINDS)
        )


def _base_snapshot(repo: pygit2.Repository, loc: RepoLocation, base: str) -> SnapshotInfo | None:
    """The base of an incremental snapshot, found by id without listing refs; None (take a
    cold snapshot instead) when it is not a readable interlock snapshot any more."""
    oid = commit_by_prefix(repo, base) if _is_hex(base) else None
    if oid is None:
        try:
            return resolve_in_repo(repo, loc, base)
        except InterlockError:
            return None
    commit = read_commit(repo, oid)
    if commit is None or not has_object(repo, commit[0]) or '"worktree"' not in commit[2]:
        return None
    return info_from_commit(None, oid, commit[0], commit[2])


def _is_hex(text: str) -> bool:
    return len(text) >= 4 and all(c in "0123456789abcdef" for c in text.lower())


def take_snapshot(
    loc: RepoLocation,
    kind: str = "manual",
    message: str | None = None,
    run: str | None = None,
    command: str | None = None,
    changed: Iterable[str | bytes] | None = None,
    base: str | None = None,
    scope: Iterable[str] | None = None,
    prescan: Prescan | None = None,
) -> SnapshotInfo:
    """Snapshot the worktree (see the module docstring); never touches the worktree, the
    index, HEAD or branches. scope: the paths this snapshot is about (a pre-discard
    snapshot's targets), recorded so an undo restores only them; the tree is still whole.
    prescan: a cold snapshot's lock and git commands, started early for this worktree
    (interlock.memory.prescan); its lock is adopted and released here."""
    _check_kind(kind)
    if changed is not None and base is None:
        raise ValueError("an incremental snapshot (changed=...) needs base=<previous snapshot>")
    if prescan is not None and (changed is not None or not prescan.serves(loc)):
        raise ValueError("a prescan serves a cold snapshot of the worktree it was started for")
    paths = None if changed is None else [to_relative(loc, p) for p in changed]
    meta: dict[str, object] = {"kind": kind, "message": message, "run": run, "command": command}
    held = prescan.adopt_lock() if prescan is not None else None
    with snapshot_lock(loc, f"a {kind} snapshot", held):
        try:
            reader = prescan.reader.use(loc) if prescan and prescan.reader else None
            if reader is not None:
                try:
                    return _take(reader, loc, paths, base, dict(meta), scope, prescan)
                except ReaderBroken:  # git's processes failed (an older git, a dead process):
                    prescan = None  # the snapshot is taken again from the start, by pygit2
            return _take(PygitAccess(open_repo(loc)), loc, paths, base, meta, scope, prescan)
        except Exception as exc:  # a write that failed for lack of room says so; else as is
            failure = write_failure(exc, "take the snapshot", _NOTHING_TAKEN, loc.common_dir)
            if failure is None:
                raise
            raise failure from exc


_NOTHING_TAKEN = "no snapshot was taken, and nothing in the worktree changed"


def _take(
    git: RepoAccess,
    loc: RepoLocation,
    paths: list[bytes] | None,
    base: str | None,
    meta: dict[str, object],
    scope: Iterable[str] | None,
    prescan: Prescan | None = None,
) -> SnapshotInfo:
    base_info = None if base is None else _base_snapshot(git.repo, loc, base)
    if base_info is None:
        paths = None
    store = ObjectStore(git)
    base_tree = base_info.tree if base_info else None
    tree, scanner = scan_worktree(git, loc, paths, base_tree, store, prescan)
    cold = paths is None or _needs_cold(paths)
    meta["how"] = "cold" if cold else "incremental"
    meta["base"] = None if cold or base_info is None else base_info.oid
    meta["skipped"] = _skipped(scanner, None if cold else base_info, paths or [])
    meta["scope"] = sorted(scope) if scope is not None else None
    return record_snapshot(store, loc, tree, meta)


def worktree_tree(loc: RepoLocation) -> str:
    """The tree id of the worktree now (cold scan); its objects are written, no ref is kept."""
    repo = open_repo(loc)
    return scan_worktree(repo, loc)[0]


def _list(repo: pygit2.Repository, prefix: str, oid_prefix: str = "") -> list[SnapshotInfo]:
    found = []
    for name, oid in list_refs(repo, prefix, oid_prefix):  # snapshot refs end with the id
        if "/snapshots/" not in name or not oid.startswith(oid_prefix):
            continue
        commit = read_commit(repo, oid)
        if commit is not None:
            found.append(info_from_commit(name, oid, commit[0], commit[2]))
    found.sort(key=lambda s: (s.time, s.oid), reverse=True)
    return found


def list_snapshots(
    loc: RepoLocation,
    kind: str | None = None,
    limit: int | None = None,
    all_worktrees: bool = False,
) -> list[SnapshotInfo]:
    """This worktree's snapshots (or every worktree's), newest first."""
    if all_worktrees:
        found = [s for s in _list(open_repo(loc), constants.REF_PREFIX) if kind in (None, s.kind)]
        return found[:limit] if limit is not None else found
    prefix = f"{constants.REF_PREFIX}{loc.worktree_id}/snapshots/"
    found = _list(open_repo(loc), prefix + (f"{kind}/" if kind else ""))
    return found[:limit] if limit is not None else found


def _newest(repo: pygit2.Repository, loc: RepoLocation, kind: str | None) -> SnapshotInfo:
    prefix = f"{constants.REF_PREFIX}{loc.worktree_id}/snapshots/" + (f"{kind}/" if kind else "")
    found = _list(repo, prefix)
    if not found:
        what = f"no {kind} snapshot" if kind else "no snapshot"
        raise InterlockError(f"{what} in this worktree yet", hint="list them: interlock snapshots")
    return found[0]


def resolve_in_repo(repo: pygit2.Repository, loc: RepoLocation, ref: str) -> SnapshotInfo:
    name = ref.strip()
    if name == "latest":
        return _newest(repo, loc, None)
    if name in KINDS:
        return _newest(repo, loc, name)
    if name.startswith(constants.REF_PREFIX):
        matches = [s for s in _list(repo, name) if s.ref == name]
    elif _is_hex(name):
        prefix = name.lower()
        own = f"{constants.REF_PREFIX}{loc.worktree_id}/"
        matches = _list(repo, own, prefix) or _list(repo, constants.REF_PREFIX, prefix)
        if not matches and len(prefix) == 40:
            commit = read_commit(repo, prefix)
            if commit is not None and '"worktree"' in commit[2]:
                return info_from_commit(None, prefix, commit[0], commit[2])
    else:
        matches = []
    if len(matches) == 1:
        return matches[0]
    if len({s.oid for s in matches}) == 1:
        return matches[0]
    if matches:
        listed = ", ".join(f"{s.id} ({s.kind})" for s in matches[:5])
        raise InterlockError(f"snapshot {ref!r} is ambiguous: {listed}", hint="type more digits")
    raise InterlockError(f"no snapshot {ref!r}", hint="list them: interlock snapshots")


def resolve_snapshot(loc: RepoLocation, ref: str) -> SnapshotInfo:
    """The snapshot a user or a caller names (see the module docstring)."""
    return resolve_in_repo(open_repo(loc), loc, ref)


def snapshot_tree_files(loc: RepoLocation, snap: SnapshotInfo | str) -> dict[bytes, Entry]:
    """Every file of a snapshot: path -> (mode, blob id); symlinks and gitlinks included."""
    repo = open_repo(loc)
    info = snap if isinstance(snap, SnapshotInfo) else resolve_in_repo(repo, loc, snap)
    return flatten(repo, info.tree)


def diff_snapshot(loc: RepoLocation, snap: SnapshotInfo | str) -> list[Change]:
    """Paths that differ between a snapshot (old) and the worktree now (new)."""
    repo = open_repo(loc)
    info = snap if isinstance(snap, SnapshotInfo) else resolve_in_repo(repo, loc, snap)
    store = ObjectStore(repo)  # never flushed: comparing writes nothing
    return diff_trees(store, info.tree, scan_worktree(repo, loc, store=store)[0])


def changed_vs_head(loc: RepoLocation, info: SnapshotInfo, reader: RepoAccess | None = None) -> int:
    """How many files of the snapshot differ from the HEAD it was taken on. `reader`: the
    access the snapshot was taken through (a cold process's GitReader), else pygit2's."""
    if reader is not None:
        try:
            return _changed_vs_head(reader, info)
        except ReaderBroken:
            pass  # counted by pygit2 instead
    return _changed_vs_head(PygitAccess(open_repo(loc)), info)


def _changed_vs_head(git: RepoAccess, info: SnapshotInfo) -> int:
    head_tree = None
    if info.head:
        commit = git.commit(info.head)
        head_tree = commit[0] if commit else None
    return count_changes(git, head_tree, info.tree)
