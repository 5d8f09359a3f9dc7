"""Retention: which of interlock's refs `interlock gc` drops, in one ref transaction.

Policy (numbers in interlock/constants.py, applied to every worktree's refs, each worktree's
runs ranked apart):
- green: every green snapshot of the GC_GREEN_RUNS (20) most recent runs, a run's recency
  being its newest green; snapshots taken outside a run count together as one run;
- pre-discard, pre-restore: GC_PRE_DAYS (14) days;
- recorder (snapshots of kind recorder and the recorder's hourly refs,
  refs/interlock/<worktree>/recorder/<hour>): `recorder_keep_days` (config, 7) days, newest
  first while their recorded content stays within `recorder_max_bytes`; an hourly ref that
  the recorder's index still names is left to the recorder's own pruning
  (interlock/memory/rechistory.py), which keeps the newest version of every file;
- manual, baseline and anything else: kept until a person deletes them
  (`git update-ref -d <ref>`).
Objects are not pruned here: dropping a ref only makes its objects unreachable, and git's own
`git gc` removes those once older than gc.pruneExpire (2 weeks by default).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from interlock import constants
from interlock.git import RepoLocation, blob_size, list_refs, open_repo, read_commit, read_tree, run
from interlock.memory import recindex
from interlock.memory.catalog import SnapshotInfo, info_from_commit, iso_time
from interlock.memory.rechistory import Policy, referenced_hours
from interlock.memory.trees import diff_trees

if TYPE_CHECKING:
    import pygit2

_DAY = 86400.0


@dataclass(frozen=True)
class Dropped:
    """One ref gc drops, and why."""

    info: SnapshotInfo
    worktree: str
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {
            "ref": self.info.ref,
            "id": self.info.id,
            "kind": self.info.kind,
            "worktree": self.worktree,
            "time": iso_time(self.info.time),
            "run": self.info.run,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class GcResult:
    """What gc dropped (or would drop, with dry_run) and how many refs it kept."""

    dropped: tuple[Dropped, ...]
    kept: int
    dry_run: bool

    def by_kind(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for item in self.dropped:
            counts[item.info.kind] = counts.get(item.info.kind, 0) + 1
        return dict(sorted(counts.items()))

    def to_json(self) -> dict[str, Any]:
        return {
            "dropped": [d.to_json() for d in self.dropped],
            "dropped_by_kind": self.by_kind(),
            "kept": self.kept,
            "dry_run": self.dry_run,
            "objects_pruned": False,
        }


def _worktree_of(ref: str) -> str:
    return ref[len(constants.REF_PREFIX) :].split("/", 1)[0]


def _interlock_refs(repo: pygit2.Repository) -> Iterator[SnapshotInfo]:
    """Every snapshot and recorder ref, as SnapshotInfo (refs that are not commits are left
    out: gc never drops what it cannot date)."""
    for name, oid in list_refs(repo, constants.REF_PREFIX):
        if "/snapshots/" not in name and "/recorder/" not in name:
            continue
        commit = read_commit(repo, oid)
        if commit is not None:
            info = info_from_commit(name, oid, commit[0], commit[2])
            yield info if "/snapshots/" in name else _as_recorder(info)


def _as_recorder(info: SnapshotInfo) -> SnapshotInfo:
    if info.kind == "recorder":
        return info
    return dataclasses.replace(info, kind="recorder")


def _recorded_bytes(repo: pygit2.Repository, info: SnapshotInfo) -> int:
    """Content a recorder ref keeps alive: for the recorder's hourly chains, every blob of
    every commit in the chain; for a recorder snapshot, its blobs that differ from HEAD."""
    if info.ref is not None and "/recorder/" in info.ref:
        total, oid = 0, info.oid
        while (commit := read_commit(repo, oid)) is not None:
            total += sum((blob_size(repo, e[1]) or 0) for e in read_tree(repo, commit[0]).values())
            if not commit[1]:
                break
            oid = commit[1][0]
        return total
    head = read_commit(repo, info.head) if info.head else None
    changes = diff_trees(repo, head[0] if head else None, info.tree)
    return sum((blob_size(repo, c.new[1]) or 0) for c in changes if c.new is not None)


def _greens_to_drop(greens: list[SnapshotInfo]) -> list[tuple[SnapshotInfo, str]]:
    newest: dict[str | None, float] = {}
    for info in greens:
        newest[info.run] = max(info.time, newest.get(info.run, 0.0))
    ranked = sorted(newest, key=lambda run: newest[run], reverse=True)
    recent = set(ranked[: constants.GC_GREEN_RUNS])
    reason = f"green of a run older than the last {constants.GC_GREEN_RUNS} runs"
    return [(info, reason) for info in greens if info.run not in recent]


def _is_indexed(info: SnapshotInfo, hours: set[int]) -> bool:
    ref = info.ref or ""
    if "/recorder/" not in ref:
        return False
    stamp = ref.rsplit("/", 1)[-1].replace("T", "")
    return stamp.isdigit() and int(stamp) in hours


def _recorders_to_drop(
    repo: pygit2.Repository, recorders: list[SnapshotInfo], now: float, policy: Policy
) -> list[tuple[SnapshotInfo, str]]:
    dropped: list[tuple[SnapshotInfo, str]] = []
    budget = policy.max_bytes
    used = 0
    for info in sorted(recorders, key=lambda s: s.time, reverse=True):
        if now - info.time > policy.keep_days * _DAY:
            dropped.append((info, f"recorder older than {policy.keep_days:g} days"))
            continue
        used += _recorded_bytes(repo, info)
        if used > budget:
            dropped.append((info, f"recorder over the {budget >> 20} MiB budget"))
    return dropped


def plan_gc(loc: RepoLocation, now: float | None = None) -> tuple[list[Dropped], int]:
    """(refs to drop with their reasons, number of refs kept) under the policy above."""
    now = time.time() if now is None else now
    repo = open_repo(loc)
    policy = Policy.of(loc)
    # Only this worktree's index is at hand; other worktrees' hourly refs follow the policy.
    indexed = referenced_hours(loc) if recindex.exists(loc) else set()
    by_worktree: dict[str, list[SnapshotInfo]] = {}
    for info in _interlock_refs(repo):
        by_worktree.setdefault(_worktree_of(info.ref or ""), []).append(info)
    dropped: list[Dropped] = []
    total = 0
    for worktree, infos in sorted(by_worktree.items()):
        total += len(infos)
        pairs = _greens_to_drop([i for i in infos if i.kind == "green"])
        recorders = [i for i in infos if i.kind == "recorder"]
        if worktree == loc.worktree_id:
            recorders = [i for i in recorders if not _is_indexed(i, indexed)]
        pairs += _recorders_to_drop(repo, recorders, now, policy)
        for info in infos:
            if info.kind in ("pre-discard", "pre-restore"):
                if now - info.time > constants.GC_PRE_DAYS * _DAY:
                    pairs.append((info, f"{info.kind} older than {constants.GC_PRE_DAYS:g} days"))
        dropped += [Dropped(info, worktree, reason) for info, reason in pairs]
    dropped.sort(key=lambda d: (d.worktree, d.info.time))
    return dropped, total - len(dropped)


def delete_refs(loc: RepoLocation, refs: list[tuple[str, str]]) -> None:
    """Delete (name, expected id) refs in one `git update-ref --stdin` transaction: all of
    them, or none when any moved meanwhile (GitError)."""
    if any(not name.startswith(constants.REF_PREFIX) for name, _ in refs):
        raise ValueError("interlock only deletes refs under refs/interlock/")
    script = "start\n" + "".join(f"delete {n} {o}\n" for n, o in refs) + "prepare\ncommit\n"
    run(["update-ref", "--stdin"], loc.worktree, input=script.encode(), check=True)


def gc(loc: RepoLocation, dry_run: bool = False, now: float | None = None) -> GcResult:
    """Drop the refs the policy no longer keeps, all in one transaction (all or none)."""
    dropped, kept = plan_gc(loc, now)
    if dropped and not dry_run:
        delete_refs(loc, [(d.info.ref or "", d.info.oid) for d in dropped])
    return GcResult(tuple(dropped), kept, dry_run)
