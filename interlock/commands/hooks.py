"""`interlock install|uninstall`, `hooks status|path`, `hook run`, `approve`, `lost`."""

from __future__ import annotations

import os
import sys

from interlock import exitcodes, output
from interlock.git import require_repo
from interlock.hooks import files as hookfiles
from interlock.hooks.approval import approve as record_approval
from interlock.hooks.approval import approved_ids, current_findings, finding_id, unapproved
from interlock.memory import lostrefs


def _report(result: hookfiles.HooksResult, verb: str) -> None:
    for note in result.hooks_dir.notes:
        output.write_out(f"interlock: note: {note}")
    for action in result.actions:
        if action.action != "unchanged":
            detail = f" ({action.detail})" if action.detail else ""
            output.write_out(f"interlock: {action.name}: {action.action}{detail}")
    where = result.hooks_dir.path
    if not result.changed:
        output.write_out(f"interlock: hooks already {verb} in {where}; nothing to do")
    else:
        output.write_out(f"interlock: hooks {verb} in {where} (every worktree of this repository)")


def install_hooks(cwd: str | os.PathLike[str] | None = None) -> int:
    """Install interlock's hooks; a second run changes nothing."""
    loc = require_repo(cwd)
    _report(hookfiles.install(loc), "installed")
    return exitcodes.OK


def uninstall_hooks(cwd: str | os.PathLike[str] | None = None) -> int:
    """Remove interlock's hooks and put back the hooks they chained."""
    loc = require_repo(cwd)
    _report(hookfiles.uninstall(loc), "uninstalled")
    return exitcodes.OK


def hooks_status(cwd: str | None, as_json: bool) -> int:
    loc = require_repo(cwd)
    where, states = hookfiles.hook_states(loc)
    if as_json:
        output.write_json(
            {
                "hooks_dir": str(where.path),
                "core_hooks_path": where.configured,
                "hooks": [
                    {
                        "name": s.name,
                        "state": s.state,
                        "chained": str(s.chained) if s.chained else None,
                        "python": s.python,
                        "python_exists": bool(s.python and os.access(s.python, os.X_OK)),
                    }
                    for s in states
                ],
            }
        )
        return exitcodes.OK
    output.write_out(f"hooks dir: {where.path}" + (" (core.hooksPath)" if where.configured else ""))
    rows = [
        {
            "hook": s.name,
            "state": s.state,
            "chains": s.chained.name if s.chained else "-",
            "python": (s.python or "-")
            + ("" if not s.python or os.access(s.python, os.X_OK) else " (missing)"),
        }
        for s in states
    ]
    output.table(rows, ["hook", "state", "chains", "python"])
    return exitcodes.OK


def hooks_path(cwd: str | None) -> int:
    loc = require_repo(cwd)
    output.write_out(str(hookfiles.resolve_hooks_dir(loc).path))
    return exitcodes.OK


def hook_run(argv: list[str]) -> int:
    from interlock.hooks.dispatch import shim_main

    return shim_main(argv)


def approve(cwd: str | None, wanted: list[str]) -> int:
    """With ids: record a person's approval of each. Without: list the pending findings."""
    loc = require_repo(cwd)
    if wanted:
        for done in record_approval(loc, wanted, stdin_is_tty=sys.stdin.isatty()):
            output.write_out(
                f"interlock: approved {done.id}: {done.finding.location()}: {done.finding.detail}"
            )
        return exitcodes.OK
    pending = unapproved(current_findings(loc), approved_ids(loc))
    if not pending:
        output.write_out("interlock: no pending findings in the staged changes or the worktree")
        return exitcodes.OK
    for finding in pending:
        output.write_out(f"{finding_id(finding)}  {finding.location()}: {finding.detail}")
    output.write_out(
        "interlock: approve them (a person, in a terminal, outside the agent's run): "
        "interlock approve ID [ID...]"
    )
    return exitcodes.OK


def lost_list(cwd: str | None, as_json: bool) -> int:
    loc = require_repo(cwd)
    entries = lostrefs.list_lost(loc)
    if as_json:
        output.write_json(lostrefs.lost_refs_json(entries))
        return exitcodes.OK
    if not entries:
        output.write_out("interlock: no lost branch tips kept")
        return exitcodes.OK
    import time

    rows = [
        {
            "branch": e.branch,
            "tip": e.oid[:12],
            "time": time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(e.time)),
            "worktree": e.worktree,
            "subject": e.subject,
        }
        for e in entries
    ]
    output.table(rows, ["branch", "tip", "time", "worktree", "subject"])
    return exitcodes.OK


def lost_restore(cwd: str | None, name: str) -> int:
    loc = require_repo(cwd)
    lost = lostrefs.find_lost(loc, name)
    branch = lostrefs.recover_lost_ref(loc, name)
    output.write_out(f"interlock: branch {branch} now points at {lost.oid[:12]} ({lost.subject})")
    return exitcodes.OK
