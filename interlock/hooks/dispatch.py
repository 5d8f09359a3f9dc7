"""What each git hook does once the shim has started Python.

The shim (interlock/resources/hook-shim) runs `python -I -S -c BOOT --from HOOK_PATH NAME ARGS`,
which calls `shim_main`; `python -m interlock hook run ...` and `interlock hook run ...` reach
the same function. Every git commit starts this module, so it imports only sys and the hot
client's `hotos` (not `os`: it costs ~1.2 ms) at the top, and the rest inside the hook that
needs it: no click, bashlex or pygit2 on this path.

Every hook first asks the warm daemon through interlock.daemon.hotclient (the daemon calls
`serve_hook`; stdin travels in the request), and runs in-process when the daemon cannot answer
- then it starts the daemon in the background, so the next hook is warm. Not through the
daemon: a hook with a chained foreign hook, or inside a hook interlock itself started.
reference-transaction rarely gets here: its shim settles the common case in sh.

Order in every hook: run the chained foreign hook first (same arguments, same stdin), then
interlock's own logic. pre-commit and pre-push stop when the chained hook fails. Inside a hook
that interlock itself started (the recursion guard, constants.ENV_HOOK_ACTIVE, holding the pid
of an ancestor), only the chained hook runs.
"""

from __future__ import annotations

import sys

from interlock.daemon import hotos

TYPE_CHECKING = False  # not `typing`: importing it costs ~20 ms on every commit

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path
    from typing import Any

    from interlock.git import RepoLocation

STDIN_HOOKS = frozenset({"pre-push", "reference-transaction", "post-rewrite"})
FAIL_CLOSED_HOOKS = frozenset({"pre-commit", "pre-push"})
WARM_HOOKS = frozenset({"pre-commit", "pre-push", "post-checkout", "post-rewrite"})
MAX_JOURNALED_PAIRS = 1000
_CHAINED_SUFFIXES = (".legacy", ".pre-commit-framework")


def shim_main(argv: list[str]) -> int:
    """`[--from HOOK_PATH] NAME ARGS...`: what the shim and `interlock hook run` pass."""
    hook_path = None
    if len(argv) >= 2 and argv[0] == "--from":
        hook_path, argv = argv[1], argv[2:]
    if not argv:
        from interlock import exitcodes, output

        output.error("hook run needs a hook name", "interlock hook run pre-commit")
        return exitcodes.USAGE
    stdin = None
    if argv[0] in WARM_HOOKS and _is_warmable(argv[0], hook_path):
        stdin = sys.stdin.buffer.read() if argv[0] in STDIN_HOOKS else b""
        answered = warm_hook(argv[0], argv[1:], stdin)
        if answered is not None:
            return answered
    if sys.flags.no_site:  # started by the shim with -S: the in-process hook needs site-packages
        import site

        site.main()
    from interlock import classcache

    classcache.enable()  # the in-process hook creates dozens of dataclasses
    return run_hook(argv[0], argv[1:], hook_path, stdin)


def _is_warmable(name: str, hook_path: str | None) -> bool:
    """The daemon may run this hook: no chained foreign hook, not nested, daemons allowed."""
    from interlock import constants

    if hotos.getenv(constants.ENV_HOOK_ACTIVE) or hotos.getenv(constants.ENV_NO_DAEMON) not in (
        "",
        "0",
    ):
        return False
    if not hook_path:
        return False
    hooks_dir = hotos.dirname(hook_path) or "."
    return not any(hotos.lexists(hotos.join(hooks_dir, name + s)) for s in _CHAINED_SUFFIXES)


def warm_hook(name: str, args: list[str], stdin: bytes) -> int | None:
    """The hook's exit status as the warm daemon ran it (its output printed), or None: run it
    in-process (the daemon is then started in the background)."""
    from interlock import constants
    from interlock.daemon import hotclient

    cwd = hotos.getcwd()
    where = hotclient.find(cwd)
    if where is None:
        return None
    index = hotos.getenv("GIT_INDEX_FILE")
    request = {
        "name": name,
        "args": list(args),
        "cwd": cwd,
        "index_file": hotos.abspath(index) if index else None,
        "stdin": hotos.fsdecode(stdin),
        "env": {k: v for k, v in hotos.environ().items() if k.startswith(constants.ENV_PREFIX)},
        "pid": hotos.getpid(),  # the hook's process: an agent above it owns the commit's run
        "build": hotclient.build_stamp(),
    }
    reply = hotclient.ask(where, "hook", request)
    if reply is None:
        hotclient.ensure_daemon(where)
        return None
    return hotclient.printed(reply, tuple(range(256)))


def run_hook(
    name: str, args: list[str], hook_path: str | None = None, stdin: bytes | None = None
) -> int:
    """Run hook `name`: the chained foreign hook first, then interlock's logic. `stdin`: what
    the hook's stdin held when it was read already (else it is read here)."""
    import os
    from pathlib import Path

    from interlock import constants, exitcodes, output

    if name not in constants.HOOK_NAMES:
        output.error(f"unknown hook {name!r}", "one of: " + ", ".join(constants.HOOK_NAMES))
        return exitcodes.USAGE
    if stdin is None:
        stdin = sys.stdin.buffer.read() if name in STDIN_HOOKS else b""
    hooks_dir = Path(hook_path).parent if hook_path else _configured_hooks_dir()
    status = _run_chained(hooks_dir, name, args, stdin) if hooks_dir is not None else 0
    if _is_nested() or (status != 0 and name in FAIL_CLOSED_HOOKS):
        return status
    loc = _locate()
    if loc is None:
        return status
    index = os.environ.get("GIT_INDEX_FILE")
    index = os.path.abspath(index) if index else None
    ours = run_ours(loc, name, args, stdin, os.environ, index, os.getpid())
    return status or ours


def _configured_hooks_dir() -> Path | None:
    import os
    import subprocess
    from pathlib import Path

    proc = subprocess.run(["git", "rev-parse", "--git-path", "hooks"], capture_output=True)
    return Path(os.fsdecode(proc.stdout.strip())) if proc.returncode == 0 else None


def _is_nested() -> bool:
    """True inside a hook that interlock itself started (the guard names a live ancestor)."""
    import os

    from interlock import constants

    value = os.environ.get(constants.ENV_HOOK_ACTIVE, "")
    if not value.isdigit():
        return False
    from interlock.procinfo import parent_pid

    pid: int | None = os.getpid()
    for _ in range(64):
        pid = parent_pid(pid)
        if pid is None or pid <= 1:
            return False
        if pid == int(value):
            return True
    return False


def _run_chained(hooks_dir: Path, name: str, args: list[str], stdin: bytes) -> int:
    """Run the foreign hook interlock chained, as git would have run it."""
    import errno
    import os
    import subprocess

    from interlock import constants
    from interlock.hooks.files import chained_path, is_ours

    chained = chained_path(hooks_dir, name)
    if chained is None or is_ours(chained) or not os.access(chained, os.X_OK):
        return 0
    env = dict(os.environ)
    env[constants.ENV_HOOK_ACTIVE] = str(os.getpid())
    feed = stdin if name in STDIN_HOOKS else None  # None: the hook shares git's stdin
    command = [os.fspath(chained), *args]
    try:
        return subprocess.run(command, env=env, input=feed, check=False).returncode
    except OSError as exc:
        if exc.errno != errno.ENOEXEC:  # git runs a script without a #! line with sh too
            raise
        return subprocess.run(["sh", *command], env=env, input=feed, check=False).returncode


def _locate() -> RepoLocation | None:
    import os
    from pathlib import Path

    from interlock.git import RepoLocation, discover

    loc = discover(os.getcwd())
    if loc is not None or not os.environ.get("GIT_DIR"):
        return loc
    # GIT_DIR/GIT_WORK_TREE set by the user (a bare repo with a separate work tree).
    import subprocess

    proc = subprocess.run(
        ["git", "rev-parse", "--show-toplevel", "--absolute-git-dir", "--git-common-dir"],
        capture_output=True,
    )
    lines = os.fsdecode(proc.stdout).splitlines()
    if proc.returncode != 0 or len(lines) != 3:
        return None
    top, git_dir = Path(lines[0]), Path(lines[1])
    return RepoLocation(top, git_dir, (git_dir / lines[2]).resolve())


def run_ours(
    loc: RepoLocation,
    name: str,
    args: list[str],
    stdin: bytes,
    env: Mapping[str, str],
    index_file: str | None,
    pid: int | None = None,
) -> int:
    """interlock's part of hook `name`; env supplies INTERLOCK_* (mode, run id); `pid` is the
    hook's process (an agent among its ancestors names the run when INTERLOCK_RUN is unset)."""
    from interlock import constants, exitcodes, output
    from interlock.errors import InterlockError
    from interlock.run.inforce import config_in_force

    mode = "advisory"
    fail = exitcodes.ERROR if name in FAIL_CLOSED_HOOKS else exitcodes.OK
    try:
        # while a run is live its frozen config holds: deleting the file mid-run relaxes nothing
        mode = config_in_force(loc, env).mode
        if mode == "off":
            return exitcodes.OK
        run_id = env.get(constants.ENV_RUN) or None
        if name == "pre-commit":
            from interlock.hooks.precommit import check_commit

            return check_commit(loc, mode, run_id=run_id, index_file=index_file, hook_pid=pid)
        if name == "pre-push":
            from interlock.hooks.prepush import check_push

            return check_push(loc, mode, args[0] if args else "", stdin, run_id=run_id)
        _HANDLERS[name](loc, args, stdin, run_id)
        return exitcodes.OK
    except InterlockError as exc:
        output.error(f"{name} hook: {exc}", exc.hint)
        return fail if mode == "blocking" else exitcodes.OK
    except Exception as exc:  # the hook's funnel: reported, never silently swallowed
        from interlock.bugreport import report_bug

        report = report_bug(exc)
        output.write_err(
            f"interlock: bug in the {name} hook: {type(exc).__name__}: {exc} (report: {report})"
        )
        return fail if mode == "blocking" else exitcodes.OK


def serve_hook(loc: RepoLocation, req: dict[str, Any]) -> dict[str, Any]:
    """The daemon's `hook` op: run a hook sent by `warm_hook`, output captured.

    Request: {"name", "args", "cwd", "index_file", "stdin", "env"}; reply {"stdout", "stderr",
    "exit_code"}. Refuses (InterlockError) a hook for another worktree than the daemon's.
    """
    import os
    from pathlib import Path

    from interlock.errors import InterlockError
    from interlock.output import captured_output

    name, args, env = req.get("name"), req.get("args") or [], req.get("env") or {}
    cwd, index_file, stdin = req.get("cwd"), req.get("index_file"), req.get("stdin") or ""
    if name not in WARM_HOOKS or not isinstance(stdin, str):
        raise InterlockError(f"the daemon does not run the {name!r} hook")
    if not isinstance(cwd, str) or Path(cwd).resolve() != loc.worktree.resolve():
        raise InterlockError(f"this daemon serves {loc.worktree}, not {cwd}")
    with captured_output() as (out, err):
        pid = req.get("pid") if type(req.get("pid")) is int else None
        code = run_ours(loc, name, [str(a) for a in args], os.fsencode(stdin), env, index_file, pid)
    return {"stdout": out.getvalue(), "stderr": err.getvalue(), "exit_code": code}


def _reference_transaction(
    loc: RepoLocation, args: list[str], stdin: bytes, run_id: str | None
) -> None:
    """Keep branch tips a transaction loses. Never blocks: `committed` cannot be undone."""
    from interlock import journal
    from interlock.memory import lostrefs

    state = args[0] if args else ""
    if state == "prepared":
        lostrefs.note_prepared(loc, stdin)
    elif state in ("committed", "aborted"):
        kept = lostrefs.settle(loc, stdin, committed=state == "committed")
        if kept:
            data = {"hook": "reference-transaction", "kept": lostrefs.lost_refs_json(kept)}
            journal.record(loc, "hook", data, run=run_id)


def _post_checkout(loc: RepoLocation, args: list[str], stdin: bytes, run_id: str | None) -> None:
    from interlock import journal

    previous, new, flag = (list(args) + ["", "", ""])[:3]
    data = {
        "hook": "post-checkout",
        "previous": previous,
        "new": new,
        "branch_checkout": flag == "1",
    }
    journal.record(loc, "hook", data, run=run_id)


def _post_rewrite(loc: RepoLocation, args: list[str], stdin: bytes, run_id: str | None) -> None:
    from interlock import journal

    pairs = []
    for line in hotos.fsdecode(stdin).splitlines()[:MAX_JOURNALED_PAIRS]:
        words = line.split()
        if len(words) >= 2:
            pairs.append([words[0], words[1]])
    command = args[0] if args else ""
    journal.record(
        loc, "hook", {"hook": "post-rewrite", "command": command, "rewritten": pairs}, run=run_id
    )


_HANDLERS = {
    "reference-transaction": _reference_transaction,
    "post-checkout": _post_checkout,
    "post-rewrite": _post_rewrite,
}
