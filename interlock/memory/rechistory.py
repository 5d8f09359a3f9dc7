"""What the flight recorder kept: versions of a path, the commits that keep their blobs alive,
pruning by age and size, and "is this path's latest content recorded?".

Anchors: blobs are kept alive against `git gc` by commits of kind `recorder` whose flat tree
names each blob by its id, chained per hour under `refs/interlock/<worktree>/recorder/<hour>`.
Each index row names the hour whose chain holds its blob (`versions.anchored`).

Pruning (`prune()`, run by the recorder at start and hourly, and by `interlock gc` when no
daemon runs): versions older than `recorder_keep_days`, then the oldest beyond
`recorder_max_bytes`, are dropped - except the newest version of each path that holds content (it is what `recover`
brings back after a discard). The
survivors of an hour that lost rows are anchored again in a new commit, then the hour's ref
is deleted, so pruned blobs become unreachable and git's own gc removes them in time.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from interlock import constants, git
from interlock.config import load_config
from interlock.git import RepoLocation
from interlock.memory import recindex
from interlock.memory.pack import PackBatch
from interlock.objectformat import BLOB, COMMIT, TREE, format_commit, format_tree, object_id

if TYPE_CHECKING:
    import pygit2

log = logging.getLogger("interlock.memory.recorder")
_DAY = 86400.0


@dataclass(frozen=True)
class Version:
    """One earlier version of a file: from the recorder or from a snapshot.

    oid is None for a deletion. snapshot names the snapshot id when source is "snapshot"."""

    path: bytes
    time: float
    source: str
    event: str
    oid: str | None
    mode: int | None
    size: int | None
    snapshot: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "path": os.fsdecode(self.path),
            "time": self.time,
            "source": self.source,
            "event": self.event,
            "blob": self.oid,
            "mode": f"{self.mode:06o}" if self.mode is not None else None,
            "size": self.size,
            "snapshot": self.snapshot,
        }


def recorded_versions(loc: RepoLocation, path: bytes) -> list[Version]:
    """Every recorded version of a worktree-relative path, newest first (no daemon needed)."""
    if not recindex.exists(loc):
        return []
    conn, _ = recindex.open_db(loc)
    try:
        rows = conn.execute(
            "SELECT time, event, oid, mode, size FROM versions WHERE path = ? ORDER BY id DESC",
            (path,),
        ).fetchall()
    finally:
        conn.close()
    return [Version(path, r[0], "recorder", r[1], r[2], r[3], r[4]) for r in rows]


def recorder_ref(loc: RepoLocation, when: float) -> str:
    hour = time.strftime("%Y%m%dT%H", time.gmtime(when))
    return f"{constants.REF_PREFIX}{loc.worktree_id}/recorder/{hour}"


def recorder_message(loc: RepoLocation, when: float, blobs: int) -> str:
    """A recorder commit's message, in the snapshot format (summary, blank line, JSON) so that
    retention reads its kind and time. Its empty scope says: restores nothing."""
    meta = {
        "kind": "recorder",
        "time": when,
        "worktree": loc.worktree_id,
        "message": f"{blobs} recorded blobs",
        "run": None,
        "command": None,
        "head": None,
        "skipped": {},
        "scope": [],
        "base": None,
        "how": "recorder",
        "version": constants.VERSION,
    }
    body = json.dumps(meta, sort_keys=True, ensure_ascii=True)
    return f"interlock recorder snapshot: {blobs} blobs\n\n{body}\n"


def write_anchor(
    repo: pygit2.Repository, loc: RepoLocation, conn: sqlite3.Connection, oids: Iterable[str]
) -> str | None:
    """One `recorder` commit naming every blob in oids, on this hour's chain; then the rows
    not yet anchored (and those of oids) name this hour. Returns the commit id."""
    now = time.time()
    names = sorted(set(oids))
    hour = recindex.hour_of(now)
    if names:
        tree = format_tree({oid.encode(): (git.FILE_MODE, oid) for oid in names})
        ref = recorder_ref(loc, now)
        parent = git.ref_target(repo, ref)
        message = recorder_message(loc, now, len(names))
        body = format_commit(object_id(TREE, tree), [parent] if parent else [], message, now)
        batch = PackBatch(git.objects_dir(repo))
        batch.add(TREE, tree)
        commit = batch.add(COMMIT, body)
        batch.flush()  # the objects before the ref: the ref update is the commit point
        git.set_ref(repo, ref, commit)
    conn.execute("UPDATE versions SET anchored = ? WHERE anchored = 0", (hour,))
    return commit if names else None


# --- pruning ---


@dataclass(frozen=True)
class Policy:
    """How long and how much recorder history is kept (config keys recorder_keep_days and
    recorder_max_bytes)."""

    keep_days: float
    max_bytes: int

    @classmethod
    def of(cls, loc: RepoLocation) -> Policy:
        config = load_config(loc.worktree)
        return cls(config.recorder_keep_days, config.recorder_max_bytes)

    def describe(self) -> str:
        return (
            f"keep {self.keep_days:g} days, at most {self.max_bytes / (1 << 20):.0f} MiB; "
            "the newest version of each file is always kept"
        )


@dataclass(frozen=True)
class Pruned:
    versions: int
    refs: int
    kept_bytes: int


def _rows_to_drop(conn: sqlite3.Connection, policy: Policy, now: float) -> list[int]:
    """Ids of the versions the policy drops: older than keep_days, or beyond max_bytes counting
    from the newest; never the newest version of a path that holds content."""
    newest = dict(
        conn.execute(
            "SELECT v.id, COALESCE(v.size, 0) FROM versions v JOIN "
            "(SELECT MAX(id) AS m FROM versions GROUP BY path) t ON v.id = t.m "
            "WHERE v.oid IS NOT NULL"
        ).fetchall()
    )
    cutoff = now - policy.keep_days * _DAY
    used = sum(newest.values())
    drop: list[int] = []
    rows = conn.execute("SELECT id, time, COALESCE(size, 0) FROM versions ORDER BY id DESC")
    for row_id, when, size in rows:
        if row_id in newest:
            continue
        if when < cutoff or used + size > policy.max_bytes:
            drop.append(row_id)
        else:
            used += size
    return drop


def prune(
    repo: pygit2.Repository, loc: RepoLocation, conn: sqlite3.Connection, policy: Policy
) -> Pruned:
    """Drop what the policy no longer keeps (see the module docstring)."""
    now = time.time()
    drop = _rows_to_drop(conn, policy, now)
    current = recindex.hour_of(now)
    hit: set[int] = set()
    for start in range(0, len(drop), 500):
        chunk = drop[start : start + 500]
        marks = ",".join("?" * len(chunk))
        hit |= {
            r[0]
            for r in conn.execute(
                f"SELECT DISTINCT anchored FROM versions WHERE id IN ({marks})", chunk
            )
        }
        conn.execute(f"DELETE FROM versions WHERE id IN ({marks})", chunk)
    hit.discard(0)
    hit.discard(current)  # the open hour's chain keeps growing; prune it next hour
    refs = _recorder_refs(repo, loc)
    referenced = {r[0] for r in conn.execute("SELECT DISTINCT anchored FROM versions")}
    stale = [h for h in refs if h not in referenced and h != current]
    if hit:
        marks = ",".join("?" * len(hit))
        conn.execute(f"UPDATE versions SET anchored = 0 WHERE anchored IN ({marks})", list(hit))
        write_anchor(repo, loc, conn, recindex.unanchored_oids(conn))
    gone = [(refs[h][0], refs[h][1]) for h in sorted(hit | set(stale)) if h in refs]
    if gone:
        _delete_refs(loc, gone)
    kept = conn.execute("SELECT COALESCE(SUM(size), 0) FROM versions").fetchone()[0]
    if drop or gone:
        log.info("recorder prune: %d versions, %d refs dropped", len(drop), len(gone))
    return Pruned(len(drop), len(gone), int(kept))


def _recorder_refs(repo: pygit2.Repository, loc: RepoLocation) -> dict[int, tuple[str, str]]:
    prefix = f"{constants.REF_PREFIX}{loc.worktree_id}/recorder/"
    found: dict[int, tuple[str, str]] = {}
    for name, oid in git.list_refs(repo, prefix):
        stamp = name[len(prefix) :].replace("T", "")
        if stamp.isdigit() and len(stamp) == 10:
            found[int(stamp)] = (name, oid)
    return found


def _delete_refs(loc: RepoLocation, refs: list[tuple[str, str]]) -> None:
    script = "start\n" + "".join(f"delete {n} {o}\n" for n, o in refs) + "prepare\ncommit\n"
    git.run(["update-ref", "--stdin"], loc.worktree, input=script.encode(), check=True)


def referenced_hours(loc: RepoLocation) -> set[int]:
    """Hours whose recorder refs the index still needs (`interlock gc` keeps them)."""
    if not recindex.exists(loc):
        return set()
    conn, _ = recindex.open_db(loc)
    try:
        return {r[0] for r in conn.execute("SELECT DISTINCT anchored FROM versions")} - {0}
    finally:
        conn.close()


# --- is it recorded? ---


def is_recorded(loc: RepoLocation, rel: bytes) -> bool:
    """Whether the content a worktree path holds now is kept by the recorder: its newest
    recorded version has these very bytes and mode, and the blob is in the object store.

    For the command engine: deleting or overwriting a path for which this is False (a file
    over `recorder_max_file_size`, an ignored file, one written while no daemon ran) destroys
    content nothing can bring back, unless a snapshot or a commit holds it. A path that does
    not exist is not recorded (there is nothing to keep)."""
    full = os.path.join(os.fsencode(loc.worktree), rel)
    try:
        st = os.lstat(full)
    except OSError:
        return False
    if not recindex.exists(loc):
        return False
    conn, _ = recindex.open_db(loc)
    try:
        row = conn.execute(
            "SELECT oid, mode FROM versions WHERE path = ? ORDER BY id DESC LIMIT 1", (rel,)
        ).fetchone()
    finally:
        conn.close()
    if row is None or row[0] is None:
        return False
    oid, mode = str(row[0]), int(row[1])
    now = _content_of(full, st)
    return now == (oid, mode) and git.has_object(git.open_repo(loc), oid)


def _content_of(full: bytes, st: os.stat_result) -> tuple[str, int] | None:
    import stat

    if stat.S_ISLNK(st.st_mode):
        return object_id(BLOB, os.readlink(full)), git.LINK_MODE
    if not stat.S_ISREG(st.st_mode):
        return None
    mode = git.EXEC_MODE if st.st_mode & 0o111 else git.FILE_MODE
    return git.hash_file(full), mode


def prune_index(loc: RepoLocation) -> Pruned | None:
    """Prune this worktree's recorder history now (`interlock gc` when no daemon runs; a
    running daemon prunes on its own, hourly). None when nothing was ever recorded."""
    if not recindex.exists(loc):
        return None
    conn, _ = recindex.open_db(loc)
    try:
        conn.execute("BEGIN IMMEDIATE")
        try:
            done = prune(git.open_repo(loc), loc, conn, Policy.of(loc))
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        return done
    finally:
        conn.close()
