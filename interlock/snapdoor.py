"""`interlock snapshot ...` from the installed launcher: the warm daemon's snapshot, or None.

    interlock snapshot [-m MESSAGE] [--kind KIND] [--json] [--cwd DIR]

An agent's workflow may take one before every risky step, so the launcher's entry point
(interlock.launch) sends it here without loading interlock.__main__, as it sends `check` to
interlock.checkdoor: the request goes out before the peer is verified and names the daemon
this door accepts (the checks then run while the daemon takes the snapshot; a daemon that
would fail them refuses before acting, so a snapshot is never taken by a daemon whose answer
is then thrown away and again inline), the answer comes back framed (no `_json`), and the
process ends with `posix._exit` once it is written (launch.main). See
hotclient.answer_framed for when None sends the command on to the full entry point, which
then takes the snapshot inline (interlock.__main__.inline_snapshot).
"""

from interlock.checkdoor import split_option
from interlock.daemon import hotos
from interlock.daemon.hotwhere import daemon_disabled

TYPE_CHECKING = False  # not `typing`: importing it costs milliseconds on every command
if TYPE_CHECKING:
    from typing import Any

_SNAPSHOT_VALUED = {"-m": "message", "--message": "message", "--kind": "kind", "--cwd": "cwd"}


def parse_options(
    args: list[str], opts: "dict[str, Any]", valued: dict[str, str]
) -> "dict[str, Any] | None":
    """`--json` and the options in `valued` (`--opt VALUE` or `--opt=VALUE`) into `opts`, or
    None for anything unusual (the full CLI answers it); `--cwd` must name a directory."""
    i = 0
    while i < len(args):
        arg = args[i]
        joined = split_option(arg, valued)
        if arg == "--json":
            opts["json"] = True
        elif joined is not None:
            opts[joined[0]] = joined[1]
        elif arg in valued and i + 1 < len(args):
            opts[valued[arg]] = args[i + 1]
            i += 1
        else:
            return None
        i += 1
    if opts["cwd"] is not None and not hotos.isdir(opts["cwd"]):
        return None
    return opts


def parse_snapshot_args(args: list[str]) -> "dict[str, Any] | None":
    """The options of `interlock snapshot ARGS`, or None for anything unusual."""
    opts: dict[str, Any] = {"message": None, "kind": "manual", "json": False, "cwd": None}
    return parse_options(args, opts, _SNAPSHOT_VALUED)


def door(args: list[str]) -> int | None:
    """Answer `interlock snapshot ARGS` through the warm daemon: the exit status once its
    answer is written, or None (nothing written) when the full entry point must answer."""
    from interlock import constants

    opts = parse_snapshot_args(args)
    if opts is None or daemon_disabled():
        return None
    from interlock.daemon import hotclient

    given = opts.pop("cwd")
    where = hotclient.find(hotos.abspath(given) if given else hotos.getcwd(), real=not given)
    if where is None:
        return None
    fields = {
        "kind": opts["kind"],
        "message": opts["message"],
        "run": hotos.getenv(constants.ENV_RUN) or None,
        "render": True,
        "json": opts["json"],
        "build": hotclient.build_stamp(),
    }
    return hotclient.answer_framed(where, "snapshot", fields, (0,))
