"""Entry point of `interlock`: the installed launcher, `python -m interlock`, the pip script.

The hot doors are answered by the warm daemon through interlock.daemon.hotclient, without
loading the CLI:

- `interlock check [--json] [--mode M] [--assume-dirty] [--cwd DIR] [--] COMMAND...`
- `interlock snapshot [-m MESSAGE] [--kind KIND] [--json] [--cwd DIR]`
- `interlock audit [--since REV] [--json] [--cwd DIR]`
- `interlock recover PATH... [--list] [--at T | --since T] [--json] [--cwd DIR]`
  (interlock.daemon.hotrecover)

The daemon's answer is printed exactly as the full CLI would print it (same stdout, stderr
and exit status). When the daemon is down, stalled, not trusted, or answers with anything
malformed - or the arguments are anything else (`--batch`, `--help`, another command) - the
full click CLI answers inline, and a front door starts the daemon in the background so the
next call is warm. The output does not say which path answered: it must not differ.

The installed launcher (install.sh writes it; its entry point, interlock.launch, sends an
agent's hook event straight to interlock.adapters.hot, and `check` and `snapshot` to their warm
doors, interlock.checkdoor and interlock.snapdoor, which `hot_check` and `hot_snapshot` here
call too) runs this module with `python -I -S`, so Python
starts without `site`, with site-packages on sys.path; `site` is loaded only for the full CLI
(and for a cold check when the dependencies are not reachable without it). A `check` the daemon
did not answer is judged in this process without click (`inline_check`, the same function the
CLI calls, so the same output); so is a `snapshot` (`inline_snapshot`), whose `git status`
starts before anything heavy is imported (interlock.memory.prescan): on two cores the imports
then cost no wall time. Everything else goes to the click CLI. If even the full
CLI cannot be loaded, the command fails with exit 3 and one line: never 0, never a traceback.
Both take the methods dataclasses writes and the programs of compiled regular expressions from
disk caches (interlock.classcache, interlock.recache).
"""

from __future__ import annotations

import sys

from interlock.checkdoor import parse_check_args
from interlock.daemon import hotos  # what the hot doors need of os, without importing it
from interlock.daemon.hotwhere import daemon_disabled
from interlock.snapdoor import parse_options, parse_snapshot_args

TYPE_CHECKING = False  # not `typing`: importing it costs milliseconds on every command
if TYPE_CHECKING:
    from typing import Any

    from interlock.memory.prescan import Prescan


def hot_check(args: list[str]) -> int | None:
    """Answer `interlock check` through the daemon; None when the full CLI must answer."""
    from interlock.checkdoor import door

    return door(args)


def hot_snapshot(args: list[str]) -> int | None:
    """Answer `interlock snapshot` through the daemon; None when the full CLI must answer."""
    from interlock.snapdoor import door

    return door(args)


def _load_site() -> None:
    """Started with -S (the launcher, the hook shims): site-packages, before the CLI's imports."""
    if sys.flags.no_site and "site" not in sys.modules:
        import site

        site.main()


def _reach_dependencies(module: str = "bashlex") -> None:
    """Make interlock's dependencies importable for an inline check or snapshot. The launcher
    and the hook shims start Python with -S and put site-packages on sys.path themselves, so
    `site` (its .pth files, ~3 ms) is loaded only when they did not: a dependency that cannot
    be imported in the middle of a check would be judged as interlock crashing."""
    if not sys.flags.no_site or "site" in sys.modules:
        return
    from importlib.machinery import PathFinder  # loaded at start-up: costs nothing

    if PathFinder.find_spec(module) is None:
        _load_site()


def inline_check(args: list[str]) -> int | None:
    """`interlock check` judged in this process, without click (the cold path: no daemon);
    None for anything the CLI must parse itself. Errors go through the CLI's funnel rules."""
    opts = parse_check_args(args)
    if opts is None:
        return None
    _reach_dependencies()
    from interlock import classcache, lazymodules, recache

    lazymodules.defer()  # inspect (which dataclasses imports), ipaddress, base64: on first use
    classcache.enable()  # before the engine's ~50 dataclasses are created
    recache.enable()  # before the engine's modules compile their patterns
    from interlock.config import MODES

    if opts["mode"] is not None and opts["mode"] not in MODES:
        return None  # click says which modes exist
    from interlock import exitcodes, output
    from interlock.commands.check import check
    from interlock.errors import InterlockError

    try:
        return check(opts["command"], opts["cwd"], opts["mode"], opts["assume_dirty"], opts["json"])
    except InterlockError as exc:
        output.error(str(exc), exc.hint)
        return exitcodes.ERROR
    except BrokenPipeError:
        return exitcodes.OK
    except Exception as exc:  # the funnel, as in the CLI: a bug is reported once, exit 3
        from interlock.bugreport import report_bug

        output.write_err(f"interlock: bug: {type(exc).__name__}: {exc} (report: {report_bug(exc)})")
        return exitcodes.BUG


def inline_snapshot(args: list[str]) -> int | None:
    """`interlock snapshot` taken in this process, without click (no daemon answered); None
    for anything the CLI must parse itself. Its `git status` starts first, under the snapshot
    lock (interlock.memory.prescan), and runs while this process imports the rest."""
    opts = parse_snapshot_args(args)
    if opts is None:
        return None
    from interlock.daemon.hotwhere import find
    from interlock.memory import prescan

    where = find(hotos.abspath(opts["cwd"] or hotos.getcwd()))
    early = prescan.start(where.worktree, where.git_dir) if where is not None else None
    try:
        return _snapshot_now(opts, early)
    finally:
        if early is not None:
            early.close()


def _snapshot_now(opts: dict[str, Any], early: Prescan | None) -> int | None:
    _reach_dependencies("pygit2")
    from interlock import classcache, lazymodules, recache

    lazymodules.defer()
    classcache.enable()
    recache.enable()
    from interlock.memory.catalog import KINDS

    if opts["kind"] not in KINDS:
        return None  # click says which kinds exist
    from interlock import exitcodes, output
    from interlock.commands.snaptake import snapshot
    from interlock.errors import InterlockError, write_failure

    try:
        return snapshot(opts["cwd"], opts["message"], opts["kind"], opts["json"], early)
    except InterlockError as exc:
        output.error(str(exc), exc.hint)
        return exitcodes.ERROR
    except KeyboardInterrupt:
        output.write_err("interlock: interrupted")
        return exitcodes.INTERRUPTED
    except BrokenPipeError:
        return exitcodes.OK
    except ImportError:
        raise  # a broken installation: the full CLI says so in one line
    except Exception as exc:  # the funnel, as in the CLI
        failure = write_failure(exc, "finish `interlock snapshot`")
        if failure is not None:  # a full or read-only disk is not a bug: say what to do
            output.error(str(failure), failure.hint)
            return exitcodes.ERROR
        from interlock.bugreport import report_bug

        output.write_err(f"interlock: bug: {type(exc).__name__}: {exc} (report: {report_bug(exc)})")
        return exitcodes.BUG


def full_cli(args: list[str]) -> int:
    """The click CLI; loads `site` first when Python was started without it (-S)."""
    try:
        _load_site()
        from interlock import classcache, recache

        classcache.enable()
        recache.enable()
        from interlock.cli import run_cli
    except Exception as exc:  # a broken installation: one line, exit 3, no traceback
        sys.stderr.write(
            f"interlock: error: cannot load interlock's command line ({type(exc).__name__}: "
            f"{exc}); reinstall interlock (./install.sh)\n"
        )
        return 3
    return run_cli(args)


def parse_audit_args(args: list[str]) -> dict[str, Any] | None:
    """The options of `interlock audit ARGS`, or None for anything unusual."""
    opts: dict[str, Any] = {"since": None, "json": False, "cwd": None}
    return parse_options(args, opts, {"--since": "since", "--cwd": "cwd"})


def hot_audit(args: list[str]) -> int | None:
    """Answer `interlock audit` through the daemon; None when the full CLI must answer."""
    opts = parse_audit_args(args)
    if opts is None or daemon_disabled():
        return None
    from interlock.daemon import hotclient

    where = hotclient.find(hotos.abspath(opts.pop("cwd") or hotos.getcwd()))
    if where is None:
        return None
    fields = {**opts, "render": True, "build": hotclient.build_stamp()}
    reply = hotclient.ask(where, "audit", fields)
    if reply is None:
        hotclient.ensure_daemon(where)
        return None
    return hotclient.printed(reply, (0, 1))


def hot_recover(args: list[str]) -> int | None:
    """Answer `interlock recover` through the daemon (interlock.daemon.hotrecover)."""
    from interlock.daemon.hotrecover import door

    return door(args)


_HOT = {"check": hot_check, "snapshot": hot_snapshot, "audit": hot_audit, "recover": hot_recover}


def main(argv: list[str] | None = None, warm_tried: bool = False) -> int:
    """`interlock ARGS`; `warm_tried`: the launcher's check door (interlock.checkdoor) already
    asked the daemon (and started it when down), so a `check` goes inline at once."""
    args = sys.argv[1:] if argv is None else argv
    if args[:2] == ["hook", "run"]:  # git hooks: every commit pays for this path, keep it off click
        from interlock.hooks.dispatch import shim_main

        return shim_main(args[2:])
    if args[:1] == ["hook"] and len(args) >= 2 and not {"-h", "--help"} & set(args):
        if args[1] in ("claude-code", "codex", "gemini"):  # agent hooks: every tool call
            from interlock.adapters.hot import door as agent_door

            return agent_door(args[1:])
        if args[1] == "shell":  # the advisory shell's co-process
            from interlock.adapters.shellhelper import main as helper_main

            return helper_main(args[2:])
    door = _HOT.get(args[0]) if args and not warm_tried else None
    if door is not None:
        try:
            code = door(args[1:])
        except Exception:  # a bug on the hot path must not decide: the full CLI judges
            code = None
        if code is not None:
            return code
    code = answer_inline(args)
    return code if code is not None else full_cli(args)


def answer_inline(args: list[str]) -> int | None:
    """`check` or `snapshot` answered in this process without click; None when the full CLI
    must answer (anything else, arguments it must parse, a broken installation)."""
    inline = {"check": inline_check, "snapshot": inline_snapshot}.get(args[0]) if args else None
    if inline is None:
        return None
    try:
        return inline(args[1:])
    except ImportError:  # a broken installation: the full CLI says so in one line
        return None


if __name__ == "__main__":
    sys.exit(main())
