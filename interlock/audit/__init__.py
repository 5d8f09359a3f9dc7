"""Validator-integrity audit: did the run weaken the tests that are supposed to judge it?

`compare_file_sets()` compares two file sets structurally (Python `ast`, not line diffs);
`audit_worktree()` and `audit_staged()` read the sets from git. `KINDS` lists what is reported.

The analysis modules load on first use, so importing this package (as the pre-commit hook
does on every commit) stays cheap when nothing relevant changed.

May import: memory, ground.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from interlock.audit.model import CLEAN, KINDS, REVIEW, TAMPERED, AuditFinding, AuditReport
from interlock.config import DEFAULT_PROTECTED
from interlock.git import RepoLocation

__all__ = [
    "CLEAN",
    "DEFAULT_PROTECTED",
    "KINDS",
    "REVIEW",
    "TAMPERED",
    "AuditFinding",
    "AuditReport",
    "audit_staged",
    "audit_worktree",
    "compare_file_sets",
]


def compare_file_sets(
    before: Mapping[str, bytes],
    after: Mapping[str, bytes],
    protected: Sequence[str] = DEFAULT_PROTECTED,
) -> AuditReport:
    """Audit the validator definitions that differ between two file sets (pure: no I/O
    beyond reading the mappings). `base` of the report is empty; callers name it."""
    from interlock.audit.compare import compare_file_sets as compare

    return compare(before, after, protected)


def audit_worktree(loc: RepoLocation, since: str | None = None) -> AuditReport:
    """Audit the worktree (and staged versions that differ from it) against `since`: a git
    revision or a snapshot; by default the newest baseline snapshot, else HEAD."""
    from interlock.audit.repo import audit_worktree as audit

    return audit(loc, since)


def audit_staged(loc: RepoLocation, index_file: str | None = None) -> AuditReport:
    """Audit the index against HEAD (pre-commit); index_file: GIT_INDEX_FILE of the commit."""
    from interlock.audit.repo import audit_staged as audit

    return audit(loc, index_file)
