"""`interlock install|uninstall`, `hooks status|path`, `hook run`, `approve`, `lost`."""

from __future__ import annotations

import os
import shutil
import sys

from interlock import constants, exitcodes, output
from interlock.daemon import client
from interlock.daemon.service import install_service, remove_service
from interlock.git import RepoLocation, list_refs, open_repo, require_repo
from interlock.hooks import files as hookfiles
from interlock.hooks.approval import approve as record_approval
from interlock.hooks.approval import approved_ids, current_findings, finding_id, unapproved
from interlock.memory import lostrefs
from interlock.memory.retention import delete_refs


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


def install_hooks(cwd: str | os.PathLike[str] | None = None, service: bool = False) -> int:
    """Install interlock's hooks and start the daemon (its recorder keeps every version from
    now on); a second run changes nothing. service: also the systemd user unit."""
    loc = require_repo(cwd)
    _report(hookfiles.install(loc), "installed")
    if service:
        unit, problem = install_service(loc)
        if problem:
            output.warn(
                f"wrote {unit} but could not enable it ({problem}); the daemon runs until idle "
                "instead",
            )
            output.write_err(
                f"  hint: once systemd --user runs: systemctl --user enable --now {unit.name}"
            )
        else:
            output.write_out(
                f"interlock: service {unit.name} enabled: the daemon stays up across logins"
            )
    _start_daemon(loc)
    return exitcodes.OK


def _start_daemon(loc: RepoLocation) -> None:
    if client.daemon_disabled():
        output.write_out(
            "interlock: daemon not started (INTERLOCK_NO_DAEMON is set): nothing records "
            "changes until it runs (interlock daemon start)"
        )
        return
    if client.ensure_daemon(loc):
        output.write_out("interlock: daemon started: every change to the worktree is recorded")
    elif client.is_daemon_locked(loc):
        output.write_out("interlock: daemon already running: every change is recorded")


def uninstall_hooks(cwd: str | os.PathLike[str] | None = None, purge: bool = False) -> int:
    """Remove interlock's hooks and put back the hooks they chained; say what stays, or with
    purge remove it too (after listing it)."""
    loc = require_repo(cwd)
    _report(hookfiles.uninstall(loc), "uninstalled")
    unit = remove_service(loc)
    if unit is not None:
        output.write_out(f"interlock: removed the service {unit}")
    refs = list_refs(open_repo(loc), constants.REF_PREFIX)
    dirs = [
        d
        for d in dict.fromkeys([loc.state_dir, loc.common_dir / constants.STATE_DIR_NAME])
        if d.exists()
    ]
    if not purge:
        if refs or dirs:
            output.write_out(
                f"interlock: left in place: {_refs_summary(refs)}"
                + "".join(f", {d}" for d in dirs)
                + "; remove them too with: interlock uninstall --purge"
            )
        return exitcodes.OK
    _stop_daemon(loc)
    output.write_out(f"interlock: removing {_refs_summary(refs)}" + "".join(f", {d}" for d in dirs))
    if refs:
        delete_refs(loc, refs)
    for directory in dirs:
        shutil.rmtree(directory, ignore_errors=True)
    output.write_out(
        "interlock: purged; the objects those refs kept become unreachable and git gc removes "
        "them after gc.pruneExpire"
    )
    return exitcodes.OK


def _refs_summary(refs: list[tuple[str, str]]) -> str:
    """`14 refs under refs/interlock/ (snapshots 9, recorder 4, lost branches 1)`."""
    if not refs:
        return "no refs under refs/interlock/"
    kinds: dict[str, int] = {}
    for name, _ in refs:
        part = name[len(constants.REF_PREFIX) :].split("/")[1:2]
        word = {"snapshots": "snapshots", "recorder": "recorder", "lost": "lost branches"}
        key = word.get(part[0] if part else "", "other")
        kinds[key] = kinds.get(key, 0) + 1
    detail = ", ".join(f"{k} {n}" for k, n in sorted(kinds.items()))
    noun = "ref" if len(refs) == 1 else "refs"
    return f"{len(refs)} {noun} under refs/interlock/ ({detail})"


def _stop_daemon(loc: RepoLocation) -> None:
    if client.is_daemon_locked(loc):
        from interlock.commands.daemon import stop

        stop(os.fspath(loc.worktree), as_json=False)


def hooks_status(cwd: str | None, as_json: bool) -> int:
    loc = require_repo(cwd)
    where, states = hookfiles.hook_states(loc)
    if as_json:
        output.write_json(
            {
                "hooks_dir": str(where.path),
                "core_hooks_path": where.configured,
                "active": where.active,
                "chains": where.chains,
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
    if where.chains is not None:
        output.write_out(f"chains:    the project's hooks in {where.chains}")
    if not where.active:
        output.warn(
            f"interlock's hooks do not run: core.hooksPath is {where.configured} (husky, or "
            "someone, set it again)"
        )
        output.write_err("  hint: interlock install")
    rows = [
        {
            "hook": s.name,
            "state": s.state,
            "chains": _shown_chain(s.chained, where.path) if s.chained else "-",
            "python": (s.python or "-")
            + ("" if not s.python or os.access(s.python, os.X_OK) else " (missing)"),
        }
        for s in states
    ]
    output.table(rows, ["hook", "state", "chains", "python"])
    return exitcodes.OK


def _shown_chain(chained: os.PathLike[str], hooks: os.PathLike[str]) -> str:
    """`pre-commit.legacy` beside the hook, else the path (a project's hooks folder)."""
    folder = os.path.dirname(os.fspath(chained))
    if folder == os.fspath(hooks):
        return os.path.basename(os.fspath(chained))
    return os.fspath(chained)


def hooks_path(cwd: str | None) -> int:
    loc = require_repo(cwd)
    output.write_out(str(hookfiles.resolve_hooks_dir(loc).path))
    return exitcodes.OK


def hook_run(argv: list[str]) -> int:
    from interlock.hooks.dispatch import shim_main

    return shim_main(argv)


def agent_hook(agent: str, event: str) -> int:
    """`interlock hook AGENT EVENT` (the agent's hook runs it; stdin holds the event)."""
    from interlock.adapters.hot import main as hot_main

    return hot_main([agent, event])


def shell_helper(argv: list[str]) -> int:
    """`interlock hook shell FIFO-IN FIFO-OUT`: the advisory shell's co-process."""
    from interlock.adapters.shellhelper import main as helper_main

    return helper_main(argv)


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
