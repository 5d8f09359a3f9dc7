"""The finalization gate: when an agent wants to end its turn (Claude Code's Stop and
SubagentStop, Codex's Stop, Gemini CLI's AfterAgent), is the run's work verified green?

The answer is `interlock done`'s (`run.tiers.end_of_task`). When the tree is not verified,
the agent is held once with the `[verify-before-done]` message as the reason - and never
trapped:
- never while the agent is already going on because of a stop hook (`stop_hook_active`);
- never twice for the same tree (a person's question answered without an edit does not
  bring the same message back);
- never past the run's message budget (1, 2 or 3 per run for `verification_tiers` off,
  advisory, blocking: the budgets of `interlock done`);
- never with `verification_tiers = "off"`, and never when the run changed nothing (the
  tree is its baseline's: there is nothing to verify).
When it lets an unverified turn end, the person is told (`systemMessage`).
"""

from __future__ import annotations

from interlock.adapters.desk import Desk
from interlock.adapters.event import Decision
from interlock.git import open_repo, read_commit
from interlock.journal import append_event
from interlock.memory.snapshot import list_snapshots
from interlock.run import records, session, tiers
from interlock.run.records import Run

_KIND = "stop-gate"


def _baseline_tree(desk: Desk, run: Run) -> str | None:
    if run.baseline is None:
        return None
    commit = read_commit(open_repo(desk.wt.loc), run.baseline)
    return commit[0] if commit else None


def gate(desk: Desk, run: Run, stop_active: bool) -> Decision:
    config = session.run_config(run)
    if config.verification_tiers == "off":
        return Decision()
    tree = desk.wt.tree_now()
    if tree == _baseline_tree(desk, run):
        return Decision()
    if any(s.tree == tree for s in list_snapshots(desk.wt.loc, kind="green")):
        return Decision()  # verified green
    key = f"tree:{tree}"
    journal = desk.wt.journal
    if stop_active or records.count_events(journal, run.id, _KIND, key) > 0:
        return _unverified_end(desk, run, tree)
    answer = tiers.end_of_task(desk.wt, run, config)
    if answer.verified:
        return Decision()
    append_event(journal, _KIND, {"key": key}, run=run.id)
    if not answer.spent:
        return Decision(user=answer.lines[0] + " (the agent's turn ends unverified)")
    return Decision("block-stop", reason="\n".join(answer.lines))


def _unverified_end(desk: Desk, run: Run, tree: str) -> Decision:
    """Let the turn end; tell the person once per tree that it ends unverified."""
    key = f"told:{tree}"
    if records.count_events(desk.wt.journal, run.id, _KIND, key) > 0:
        return Decision()
    append_event(desk.wt.journal, _KIND, {"key": key}, run=run.id)
    return Decision(
        user=f"interlock: [{tiers.TAG}] the agent's turn ends, its work not verified green "
        "(interlock done says what is missing)"
    )
