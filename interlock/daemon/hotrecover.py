"""The `interlock recover` door of the installed launcher: the warm daemon does the work
(interlock.daemon.recoverop), so twenty files cost one bare Python start plus the work, not
loading click, pygit2 and the CLI.

    code = door(["src/a.py", "src/b.py"])   # the exit code, or None: run the full CLI

Stdlib only, like the hot client it is built on (started with `python -I -S`). The
arguments are read as click reads recover's (options anywhere, `--opt=value`, `--` ends
them, the last value wins); anything else - `--ref`, `--help`, an unknown option, a usage
error, a --cwd that is not a folder - is left to the full CLI, which says what is wrong.

None (the full CLI recovers, cold, and starts the daemon) also when the daemon is down,
disabled, not trusted, or refuses: a refusal comes only before it read or wrote anything
(see recoverop). Once an answer is in hand it is printed and is the outcome: a recover must
never run twice, because a second run would choose the version before the one just written.
"""

from __future__ import annotations

import os
import sys

from interlock import constants
from interlock.daemon import hotclient

TYPE_CHECKING = False  # not `typing`: importing it costs milliseconds on every command
if TYPE_CHECKING:
    from typing import Any

# Read by C code in the daemon (libgit2's config and excludes, localtime()), so they cannot be
# laid over one request: the daemon serves only a client whose values equal its own.
SAME_ENV = ("TZ", "HOME", "XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM")
DEADLINE = 300.0  # seconds: a recover of many large files is still one answer
_FLAGS = {"--list": "list", "--json": "json"}
_VALUED = {"--at": "at", "--since": "since", "--cwd": "cwd"}
_CODES = (0, 1, 3)


def parse_args(args: list[str]) -> dict[str, Any] | None:
    """recover's options and paths, or None for anything the full CLI must read."""
    opts: dict[str, Any] = {"list": False, "json": False, "at": None, "since": None, "cwd": None}
    paths: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        name, eq, value = arg.partition("=")
        if arg == "--":
            paths += args[i + 1 :]
            break
        if arg in _FLAGS:
            opts[_FLAGS[arg]] = True
        elif eq and name in _VALUED:
            opts[_VALUED[name]] = value
        elif arg in _VALUED and i + 1 < len(args):
            opts[_VALUED[arg]] = args[i + 1]
            i += 1
        elif arg.startswith("-") or not arg:
            return None
        else:
            paths.append(arg)
        i += 1
    if (opts["at"] is not None and opts["since"] is not None) or "" in paths:
        return None
    if not paths and opts["since"] is None:
        return None
    if opts["cwd"] is not None and not os.path.isdir(opts["cwd"]):
        return None
    opts["paths"] = paths
    return opts


def _umask() -> int:
    mask = os.umask(0o022)  # one thread here: reading it by setting it back is safe
    os.umask(mask)
    return mask


def door(args: list[str]) -> int | None:
    """Recover through the warm daemon: its exit code, or None for the full CLI."""
    opts = parse_args(args)
    if opts is None or hotclient.daemon_disabled():
        return None
    cwd = os.path.abspath(opts.pop("cwd") or os.getcwd())
    where = hotclient.find(cwd)
    if where is None:
        return None
    fields = {
        **opts,
        "cwd": cwd,
        "run": os.environ.get(constants.ENV_RUN) or None,
        "env": hotclient.check_env(os.environ),
        "same": {name: os.environ.get(name) for name in SAME_ENV},
        "umask": _umask(),
        "build": hotclient.build_stamp(),
    }
    reply = hotclient.ask(where, "recover", fields, deadline=DEADLINE)
    if reply is None:
        hotclient.ensure_daemon(where)
        return None
    try:
        return hotclient.printed(reply, _CODES)
    except BrokenPipeError:  # as the CLI: a reader that went away is not an error
        return 0
    except Exception as exc:  # printing failed halfway: never fall back and recover again
        sys.stderr.write(f"interlock: error: could not print recover's report ({exc})\n")
        return 1
