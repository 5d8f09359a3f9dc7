"""Entry point. Keeps the agent's hot path light: `check` may be answered by the thin client.

`interlock check [--json] [--mode M] [--assume-dirty] [--cwd DIR] [--] COMMAND...` is parsed
here with the standard library and sent to the worktree's daemon, whose answer is printed
exactly as the full CLI would print it (same stdout, stderr and exit status). When the daemon
is not reachable (or INTERLOCK_NO_DAEMON is set, or the arguments are anything else, e.g.
`--batch` or `--help`), the full click CLI answers inline; a front door also starts the
daemon in the background then, so the next call is fast. The check's output does not say
which path answered: it must not differ. `interlock daemon status` counts the requests served.
"""

from __future__ import annotations

import os
import sys
from typing import Any

_FLAGS = {"--json": "json", "--assume-dirty": "assume_dirty"}
_VALUED = {"--mode": "mode", "--cwd": "cwd"}


def parse_check_args(args: list[str]) -> dict[str, Any] | None:
    """The options and command of `interlock check ARGS`, or None for anything unusual."""
    opts: dict[str, Any] = {"json": False, "assume_dirty": False, "mode": None, "cwd": None}
    i = 0
    while i < len(args):
        arg = args[i]
        name, eq, value = arg.partition("=")
        if arg in _FLAGS:
            opts[_FLAGS[arg]] = True
        elif name in _VALUED and eq:
            opts[_VALUED[name]] = value
        elif arg in _VALUED and i + 1 < len(args):
            opts[_VALUED[arg]] = args[i + 1]
            i += 1
        elif arg == "--":
            i += 1
            break
        elif arg.startswith("-"):
            return None
        else:
            break
        i += 1
    if i >= len(args) or (opts["cwd"] is not None and not os.path.isdir(opts["cwd"])):
        return None
    if not " ".join(args[i:]).strip():
        return None  # nothing to check: the full CLI says how to use it
    opts["command"] = " ".join(args[i:])
    return opts


def thin_check(args: list[str]) -> int | None:
    """Answer `interlock check` through the daemon; None when the full CLI must answer."""
    from interlock.daemon import client

    opts = parse_check_args(args)
    if opts is None or client.daemon_disabled():
        return None
    from interlock.errors import InterlockError

    cwd = os.path.abspath(opts.pop("cwd") or os.getcwd())
    loc = client.locate(cwd)
    if loc is None:
        return None
    try:
        from interlock.constants import build_stamp

        env = client.check_env(os.environ)
        reply = client.request(loc, "check", cwd=cwd, env=env, build=build_stamp(), **opts)
        if reply is None:
            client.ensure_daemon(loc)
            return None
    except InterlockError:
        return None  # an unusable socket: inline, and `interlock daemon status` says why
    if not reply.get("ok"):
        return None
    from interlock import output

    for text, write in ((reply["stdout"], output.write_out), (reply["stderr"], output.write_err)):
        if text:
            write(text.removesuffix("\n"))
    return int(reply["exit_code"])


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:2] == ["hook", "run"]:  # git hooks: every commit pays for this path, keep it off click
        from interlock.hooks.dispatch import shim_main

        return shim_main(args[2:])
    if args[:1] == ["check"]:
        code = thin_check(args[1:])
        if code is not None:
            return code
    from interlock.cli import run_cli

    return run_cli(args)


if __name__ == "__main__":
    sys.exit(main())
