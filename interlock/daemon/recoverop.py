"""The daemon's `recover` operation: `interlock recover` done by the warm daemon, for the
launcher's door (interlock.daemon.hotrecover), so that bringing back twenty files costs one
bare Python start and the work, not loading click and pygit2.

Request: `{"op": "recover", "paths": [str], "cwd": str, "at": str|null, "since": str|null,
"list": bool, "json": bool, "run": str|null, "env": {INTERLOCK_*, HOME, TMPDIR,
XDG_STATE_HOME}, "same": {name: value|null}, "umask": int, "build": str}`.
Reply: `{"stdout": str, "stderr": str, "exit_code": 0|1|3}`: exactly what the CLI prints,
because it runs the CLI's own function (interlock.memory.recoverrun.run) under the same funnel
(an InterlockError: its message and hint, exit 1; a full disk: what to do, exit 1; anything
else: a bug report, exit 3).

A refusal (`ok: false`) means "recover in the client", and is only ever given before
anything was read or written: a build that is not this daemon's, a malformed request, paths
in another worktree, or a client whose process-wide settings differ from the daemon's and
cannot be laid over one thread (`same`: the time zone, the home and config folders libgit2
reads, the umask new folders get).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from interlock import exitcodes, output
from interlock.daemon import reqenv
from interlock.daemon.client import check_env
from interlock.daemon.hotrecover import SAME_ENV
from interlock.daemon.server import UsageProblem, field
from interlock.errors import InterlockError, write_failure
from interlock.memory import recoverrun

if TYPE_CHECKING:
    from interlock.daemon.ops import Operations
    from interlock.git import RepoLocation


def _is_check_variable(key: str) -> bool:
    return bool(check_env({key: ""}))


class _Elsewhere(Exception):
    """The paths are in another worktree than the daemon's."""


def own_umask() -> int | None:
    """This process's umask, read without changing it (other threads create files)."""
    try:
        with open("/proc/self/status", "rb") as handle:
            for line in handle:
                if line.startswith(b"Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return None


def _differs(req: dict[str, Any]) -> str | None:
    """Why the client's process-wide settings are not the daemon's, or None."""
    same = field(req, "same", dict)
    if same is None or set(same) != set(SAME_ENV):
        return "the request does not say which settings it runs with"
    for name in SAME_ENV:
        if same[name] != os.environ.get(name):
            return f"the client's {name} is not the daemon's"
    umask = field(req, "umask", int)
    if umask is None or umask != own_umask():
        return "the client's umask is not the daemon's"
    return None


def _request(req: dict[str, Any]) -> dict[str, Any]:
    paths = field(req, "paths", list)
    if paths is None or not all(isinstance(p, str) for p in paths):
        raise UsageProblem("recover needs paths, a list of strings")
    cwd = field(req, "cwd", str)
    if cwd is None or not os.path.isabs(cwd):
        raise UsageProblem("recover needs cwd, an absolute folder")
    return {
        "paths": paths,
        "cwd": cwd,
        "at": field(req, "at", str),
        "since": field(req, "since", str),
        "list_only": bool(field(req, "list", bool, False)),
        "as_json": bool(field(req, "json", bool, False)),
        "run_id": field(req, "run", str) or None,
    }


def serve(ops: Operations, req: dict[str, Any]) -> dict[str, Any]:
    """Run `interlock recover` as the client asked; its output and exit code."""
    args = _request(req)
    why = _differs(req)
    if why is not None:
        raise UsageProblem(f"{why}: recover runs in the client")
    try:
        env = reqenv.validate(req.get("env") or {}, _is_check_variable)
    except reqenv.BadEnvironment as exc:
        raise UsageProblem(str(exc)) from None

    def located(loc: RepoLocation) -> None:
        if loc.worktree != ops.loc.worktree or loc.git_dir != ops.loc.git_dir:
            raise _Elsewhere()

    with ops.serialised(), reqenv.applied(env), output.captured_output() as (out, err):
        try:
            code = _funnel(lambda: recoverrun.run(**args, located=located))
        except _Elsewhere:
            raise UsageProblem("the paths are not in this daemon's worktree") from None
    return {"stdout": out.getvalue(), "stderr": err.getvalue(), "exit_code": code}


def _funnel(work: Callable[[], int]) -> int:
    """The CLI's funnel (interlock.cli.run_cli), for one command run inside the daemon."""
    try:
        return int(work())
    except _Elsewhere:
        raise
    except InterlockError as exc:
        output.error(str(exc), exc.hint)
        return exitcodes.ERROR
    except Exception as exc:
        failure = write_failure(exc, "finish `interlock recover`")
        if failure is not None:
            output.error(str(failure), failure.hint)
            return exitcodes.ERROR
        from interlock.bugreport import report_bug

        report = report_bug(exc)
        output.write_err(f"interlock: bug: {type(exc).__name__}: {exc} (report: {report})")
        return exitcodes.BUG
