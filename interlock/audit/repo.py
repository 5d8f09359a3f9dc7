"""Audits of a real repository: the worktree against the run's baseline, the index against HEAD.

`--since` names what to compare with: a snapshot id or name (`baseline`, `latest`) or a git
revision. By default the newest baseline snapshot of this worktree, else HEAD. The worktree
(tracked files plus untracked files git does not ignore) is the "after" side; files whose
staged version differs from the file on disk are audited in their staged version too, so a
weakened test that was staged and then reverted on disk does not hide.
"""

from __future__ import annotations

from dataclasses import replace

from interlock import constants, git
from interlock.audit.fileset import changed_paths
from interlock.audit.model import AuditReport, make_report
from interlock.audit.sources import (
    GitFiles,
    head_commit,
    index_set,
    protected_at,
    staged_over_tree,
    staged_overlay,
    tree_overlay,
    tree_set,
    worktree_set,
)
from interlock.errors import InterlockError
from interlock.git import RepoLocation


def _has_refs(loc: RepoLocation, prefix: str) -> bool:
    """Any ref under prefix, loose or packed, read without git (cheap before importing the
    snapshot machinery)."""
    loose = loc.common_dir / prefix
    if loose.is_dir() and any(p.is_file() for p in loose.rglob("*")):
        return True
    try:
        packed = (loc.common_dir / "packed-refs").read_bytes()
    except OSError:
        return False
    return f" {prefix}".encode() in packed


def _newest_baseline(loc: RepoLocation) -> tuple[str, str] | None:
    if not _has_refs(loc, f"{constants.REF_PREFIX}{loc.worktree_id}/snapshots/baseline"):
        return None
    from interlock.memory.snapshot import list_snapshots  # only when baselines exist

    try:
        snaps = list_snapshots(loc, kind="baseline")
    except InterlockError:
        return None
    whole = [s for s in snaps if getattr(s, "scope", None) is None]
    if not whole:
        return None
    newest = max(whole, key=lambda s: s.time)
    return str(newest.oid), f"baseline snapshot {newest.id}"


def _named_snapshot(loc: RepoLocation, name: str) -> tuple[str, str] | None:
    from interlock.memory.snapshot import resolve_snapshot

    try:
        info = resolve_snapshot(loc, name)
    except InterlockError:
        return None
    return str(info.oid), f"snapshot {info.id}"


def resolve_base(loc: RepoLocation, since: str | None) -> tuple[str, str]:
    """(revision to read, label) for `--since`; see the module docstring."""
    if since is None:
        found = _newest_baseline(loc)
        if found is not None:
            return found
        head = git.head_oid(loc)
        return (head, "HEAD") if head else (git.EMPTY_TREE_OID, "HEAD (no commits yet)")
    found = _named_snapshot(loc, since)
    if found is not None:
        return found
    rev = git.resolve_rev(loc, since)
    if rev is None:
        raise InterlockError(
            f"--since {since!r} is neither a snapshot nor a git revision",
            hint="pass a commit, branch or tag, or a snapshot id from `interlock snapshots`",
        )
    return rev, since


def audit_worktree(loc: RepoLocation, since: str | None = None) -> AuditReport:
    """Audit the worktree (and staged versions that differ from it) against `since`."""
    rev, label = resolve_base(loc, since)
    before = tree_set(loc, rev)
    after = worktree_set(loc, rev, before)
    return _audit_sets(before, after, staged_overlay(loc, rev, after), label)


def audit_tree(loc: RepoLocation, since: str | None, tree: str) -> AuditReport:
    """Like audit_worktree, with the worktree given as a tree id (the warm daemon's view of it,
    built from the paths it saw change): no pass over the worktree's files at all."""
    rev, label = resolve_base(loc, since)
    before = tree_set(loc, rev)
    after = tree_overlay(loc, before, tree)
    return _audit_sets(before, after, staged_over_tree(loc, rev, after), label)


def _audit_sets(
    before: GitFiles, after: GitFiles, overlay: GitFiles | None, label: str
) -> AuditReport:
    if not changed_paths(before, after) and overlay is None:
        return make_report([], label)
    from interlock.audit.compare import compare_file_sets  # the analysis, loaded when needed

    protected = protected_at(before)
    report = compare_file_sets(before, after, protected)
    if overlay is not None:
        staged = compare_file_sets(before, overlay, protected)
        return make_report([*report.findings, *staged.findings], label)
    return replace(report, base=label)


def audit_staged(loc: RepoLocation, index_file: str | None = None) -> AuditReport:
    """Audit the index against HEAD: what the next commit would change (pre-commit).

    index_file: the index git is committing when it is not the worktree's own
    (GIT_INDEX_FILE in a hook during `git commit -a` or `git commit PATH`).
    """
    repo = git.open_repo(loc)  # one repository object for the whole audit
    head = head_commit(loc, repo)
    rev = head or git.EMPTY_TREE_OID
    label = "HEAD" if head else "HEAD (no commits yet)"
    before = tree_set(loc, rev, repo)
    after = index_set(loc, rev, before, index_file)
    if not changed_paths(before, after):
        return make_report([], label)
    from interlock.audit.compare import compare_file_sets  # the analysis, loaded when needed

    report = compare_file_sets(before, after, protected_at(before))
    return replace(report, base=label)
