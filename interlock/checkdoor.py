"""`interlock check ...` from the installed launcher: the warm daemon's answer, or None.

    interlock check [--json] [--mode M] [--assume-dirty] [--cwd DIR] [--] COMMAND...

An agent (or a person) may run this before every command, so the launcher's entry point
(interlock.launch) sends it here without loading interlock.__main__, and a warm answer costs
about one bare Python start plus one round trip:

- the request is sent before the peer is verified (hotclient.Channel.forward): the checks of
  the peer (its uid, the pid file, its command line) run while the daemon judges, and the
  answer is used only once they passed. The request names the daemon this door accepts
  (`expect_daemon`): a daemon that would fail them never acts on it (server._reply_for), and
  only that daemon's `ok` answer is used, so the pid file's lock is tested by the daemon
  itself rather than here (see hotwhere.trust_problem for the argument);
- the answer comes back framed (`frame: true`: one line `ok EXIT NOUT NERR`, then the bytes
  of stdout and stderr; server.framed), so no JSON decoder (`_json`) is loaded;
- once the answer is written (posix.write, nothing buffered) the process ends with
  `posix._exit` (launch.main): nothing was opened that Python's shutdown must close.
The request, the frame and what None means: hotclient.answer_framed.

None means the full entry point must answer: the arguments are anything unusual (`--help`, an
unknown option, no command: the CLI says how to use it), the daemon is disabled, down (it is
then started in the background for the next call), not trusted, refused (another build, a
failed self-check), answered in any other form or with an exit status a check never has. The
output does not say which path answered: it is exactly what the CLI prints.
"""

from interlock.daemon import hotos
from interlock.daemon.hotwhere import daemon_disabled

TYPE_CHECKING = False  # not `typing`: importing it costs milliseconds on every command
if TYPE_CHECKING:
    from typing import Any

_FLAGS = {"--json": "json", "--assume-dirty": "assume_dirty"}
_VALUED = {"--mode": "mode", "--cwd": "cwd"}
CHECK_CODES = (0, 126)  # what a check exits with (allowed, refused)


def split_option(arg: str, valued: dict[str, str]) -> tuple[str, str] | None:
    """(option key, value) for `--opt=value` or `-mVALUE`; None otherwise."""
    name, eq, value = arg.partition("=")
    if eq and name in valued and name.startswith("--"):
        return valued[name], value
    if arg[:2] in valued and len(arg) > 2 and not arg.startswith("--"):
        return valued[arg[:2]], arg[2:]
    return None


def parse_check_args(args: list[str]) -> "dict[str, Any] | None":
    """The options and command of `interlock check ARGS`, or None for anything unusual."""
    opts: dict[str, Any] = {"json": False, "assume_dirty": False, "mode": None, "cwd": None}
    i = 0
    while i < len(args):
        arg = args[i]
        joined = split_option(arg, _VALUED)
        if arg in _FLAGS:
            opts[_FLAGS[arg]] = True
        elif joined is not None:
            opts[joined[0]] = joined[1]
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
    if i >= len(args) or (opts["cwd"] is not None and not hotos.isdir(opts["cwd"])):
        return None
    if not " ".join(args[i:]).strip():
        return None  # nothing to check: the full CLI says how to use it
    opts["command"] = " ".join(args[i:])
    return opts


def door(args: list[str]) -> int | None:
    """Answer `interlock check ARGS` through the warm daemon: the exit status once its answer
    is written, or None (nothing written) when the full entry point must answer."""
    opts = parse_check_args(args)
    if opts is None or daemon_disabled():
        return None
    from interlock.daemon import hotclient

    given = opts.pop("cwd")
    cwd = hotos.abspath(given) if given else hotos.getcwd()
    where = hotclient.find(cwd, real=not given)
    if where is None:
        return None
    fields = {
        **opts,
        "cwd": cwd,
        "env": hotclient.check_env(hotos.environ()),
        "build": hotclient.build_stamp(),
    }
    return hotclient.answer_framed(where, "check", fields, CHECK_CODES)
