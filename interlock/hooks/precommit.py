"""The pre-commit hook: audit the staged changes, and say whether the commit was verified.

Findings that make a validator prove less (severity `tampered`) block in blocking mode and warn
in advisory mode, unless a person approved that exact finding (`interlock approve ID`);
`review` findings are shown, never blocking.

Verification. Inside a run (INTERLOCK_RUN names an open run, as the wrapper sets it for its
commands; or, without it, an open run's agent process is among the hook's ancestors: an agent
committing through its own shell tool under interlock's adapters) the hook asks `interlock done`'s end-of-task question about the tree being
committed (interlock.run.tiers): verified when a green snapshot holds it; else the tier
escalation when only fast checks passed on it, or the unverified message when nothing did -
each within the run's budgets (`verification_tiers`, the run's frozen config), silent once
they are spent. It never blocks a commit for that: committing unfinished work is normal, and
`interlock done` is where blocking mode fails. Outside a run, `[verify-before-done]` is noted
when green snapshots exist and none of them holds the tree being committed.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from interlock import exitcodes, journal, output
from interlock.constants import ENV_RUN
from interlock.git import RepoLocation, no_git_env, run

if TYPE_CHECKING:
    from interlock.audit.model import AuditFinding, AuditReport
    from interlock.journal import Journal
    from interlock.memory.catalog import SnapshotInfo
    from interlock.run.records import Run


def check_commit(
    loc: RepoLocation,
    mode: str,
    *,
    run_id: str | None = None,
    index_file: str | None = None,
    hook_pid: int | None = None,
) -> int:
    """The whole pre-commit hook after the chained one; returns its exit status.

    run_id: the current run id (green points of other runs do not count); index_file: the index
    git is committing (GIT_INDEX_FILE), default the worktree's own; hook_pid: the hook's
    process, whose ancestors name an agent's run when no run id is given.
    """
    findings = list(_audit(loc, index_file).findings)
    ids = _finding_ids(findings)
    approved = _approved_ids(loc) if findings else set()
    pending = [f for f in findings if ids[id(f)] not in approved]
    tampered = [f for f in pending if f.severity == "tampered"]
    review = [f for f in pending if f.severity != "tampered"]
    block = bool(tampered) and mode == "blocking"
    if tampered:
        output.write_err(render_tampered(tampered, block))
    for finding in review:
        output.message("self-authored", f"worth a look: {finding.location()}: {finding.detail}")
    with journal.opened(loc) as runs:  # one connection for the verification and the record
        verified = _verification(loc, runs, run_id, index_file, hook_pid)
        data: dict[str, Any] = {
            "hook": "pre-commit",
            "mode": mode,
            "verdict": "block" if block else ("warn" if pending or verified is False else "allow"),
            "would_block": bool(tampered),
            "findings": [{"id": ids[id(f)], **f.to_json()} for f in pending],
            "approved": sorted(set(ids.values()) & approved),
            "verified": verified,
        }
        journal.append_event(runs, "hook", data, run_id or os.environ.get(ENV_RUN))
    return exitcodes.ERROR if block else exitcodes.OK


def _finding_ids(findings: list[AuditFinding]) -> dict[int, str]:
    """Each finding's approval id, by object identity (hashlib is loaded only when needed)."""
    if not findings:
        return {}
    from interlock.hooks.approval import finding_id

    return {id(f): finding_id(f) for f in findings}


def _approved_ids(loc: RepoLocation) -> set[str]:
    from interlock.hooks.approval import approved_ids

    return approved_ids(loc)


def _audit(loc: RepoLocation, index_file: str | None) -> AuditReport:
    from interlock.audit import audit_staged

    return audit_staged(loc, index_file)


def render_tampered(findings: list[AuditFinding], block: bool) -> str:
    """The message for findings that weaken validators, ids included for `interlock approve`."""
    from interlock.hooks.approval import finding_id

    head = "blocked commit" if block else "warning (advisory mode, the commit goes ahead)"
    lines = [f"interlock: [self-authored] {head}: the staged changes weaken the project's tests"]
    for finding in findings:
        lines.append(f"  {finding.location()}: {finding.detail}  [id {finding_id(finding)}]")
    ids = " ".join(finding_id(f) for f in findings)
    lines.append("  why:     a test weakened in the same change proves nothing about the code")
    lines.append(
        "  instead: restore the tests and fix the code; if the change is intended, a person "
        f"approves it outside the agent's run: interlock approve {ids}"
    )
    return "\n".join(lines)


def index_tree(loc: RepoLocation, index_file: str | None = None) -> str | None:
    """The tree the commit will record, written from a copy so the index stays untouched.

    `commit -a` and `commit PATH` commit a temporary index (GIT_INDEX_FILE), not .git/index.
    """
    source = Path(index_file) if index_file else loc.git_dir / "index"
    if not source.is_file():
        return None
    with tempfile.TemporaryDirectory(prefix="interlock-index-") as scratch:
        copy = Path(scratch) / "index"
        shutil.copyfile(source, copy)
        code, out, _ = run(
            ["write-tree"], loc.worktree, env=no_git_env({"GIT_INDEX_FILE": str(copy)})
        )
    return out.decode().strip() if code == 0 else None


def tree_covered_by(loc: RepoLocation, commit_tree: str, green_tree: str) -> bool:
    """True when the green snapshot holds the committed tree.

    A snapshot also holds untracked files; a path the snapshot has that is neither committed
    nor in HEAD is such a file and does not count. Any other difference does. Only the
    directories where the trees differ are read.
    """
    if commit_tree == green_tree:
        return True
    from interlock.git import head_oid, open_repo, read_commit
    from interlock.memory.trees import diff_trees, lookup

    repo = open_repo(loc)
    head = head_oid(loc)
    head_commit = read_commit(repo, head) if head else None
    head_tree = head_commit[0] if head_commit else None
    for change in diff_trees(repo, commit_tree, green_tree):
        if change.old is None and lookup(repo, head_tree, change.path) is None:
            continue  # only the snapshot has it, and HEAD does not: an untracked file
        return False
    return True


def _has_green_refs(loc: RepoLocation) -> bool:
    """Whether this worktree has green snapshot refs, read from the ref store directly: this
    runs on every commit, and most repositories have none."""
    from interlock.memory.catalog import ref_name

    prefix = ref_name(loc.worktree_id, "green", "")
    try:
        if any((loc.common_dir / prefix).iterdir()):
            return True
    except OSError:
        pass
    try:
        with open(loc.common_dir / "packed-refs", "rb") as packed:
            return any(f" {prefix}".encode() in line for line in packed)
    except OSError:
        return False


def is_verified(
    loc: RepoLocation, *, run_id: str | None = None, index_file: str | None = None
) -> bool | None:
    """None when the run has no green point; else whether one holds the committed tree."""
    if not _has_green_refs(loc):
        return None
    from interlock.memory.snapshot import list_snapshots

    found = list_snapshots(loc, kind="green")
    if run_id:
        found = [g for g in found if g.run == run_id]
    if not found:
        return None
    tree = index_tree(loc, index_file)
    if tree is None:
        return None
    return any(tree_covered_by(loc, tree, green.tree) for green in found)


def _verification(
    loc: RepoLocation,
    runs: Journal,
    run_id: str | None,
    index_file: str | None,
    hook_pid: int | None = None,
) -> bool | None:
    """Say whether the commit was verified (see the module docstring); True, False, or None
    when there is nothing to compare with."""
    from interlock.run import records

    run = records.get_run(runs, run_id) if run_id else _agents_run(runs, hook_pid)
    if run is not None and run.is_open:
        return _tier_check(loc, runs, run, index_file)
    verified = is_verified(loc, run_id=run_id, index_file=index_file)
    if verified is False:
        output.message(
            "verify-before-done",
            "this commit's tree never passed the full test suite in this run",
            [
                ("why", "the run's green points hold different content than the commit"),
                ("instead", "run the full suite on exactly these changes, then commit"),
            ],
        )
    return verified


def _agents_run(runs: Journal, hook_pid: int | None) -> Run | None:
    """The open run of an agent above the hook's process, for a commit an agent made outside
    the wrapper (its own shell tool, under interlock's adapters), where INTERLOCK_RUN is not
    set. A person's commit beside the run has no agent above it and gets none."""
    from interlock.run import agent, records

    if hook_pid is None:
        return None
    live = {r.agent: r for r in records.open_runs(runs) if r.agent and r.origin == "agent"}
    if not live:
        return None
    return next((live[k] for k in agent.ancestor_keys(hook_pid) if k in live), None)


def _tier_check(loc: RepoLocation, runs: Journal, run: Run, index_file: str | None) -> bool | None:
    """The end-of-task check of `interlock done`, about the tree being committed."""
    from interlock.run import tiers
    from interlock.run.inforce import run_config
    from interlock.run.session import Worktree

    tree = index_tree(loc, index_file)
    if tree is None:
        return None

    def no_snapshot(kind: str, meta: dict[str, Any]) -> SnapshotInfo:
        raise AssertionError("the end-of-task check takes no snapshot")

    wt = Worktree(loc, runs, no_snapshot, lambda: None, lambda: tree)
    covered: dict[str, bool] = {}

    def holds(seen: str) -> bool:
        if seen not in covered:
            covered[seen] = tree_covered_by(loc, tree, seen)
        return covered[seen]

    answer = tiers.end_of_task(
        wt, run, run_config(run), holds=holds, subject="this commit's tree", when_spent=None
    )
    if not answer.verified:
        for line in answer.lines:
            output.write_err(line)
    return answer.verified
