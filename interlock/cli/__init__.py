"""The click command tree. Click code lives only in this package: each module turns options
into typed arguments for a plain function in `interlock.commands`, which returns an exit code.

`run_cli()` is the one funnel around every command: InterlockError -> ERROR with its message
and hint, usage errors -> USAGE, Ctrl-C -> INTERRUPTED, anything else -> BUG with a report.

May import: commands, memory, ground.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any, TypeVar

import click

from interlock import __version__, exitcodes, output
from interlock.errors import InterlockError, write_failure

F = TypeVar("F", bound=Callable[..., Any])

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


# Which module of this package registers each top-level command. Modules are imported only
# when their command runs (or for --help), so `interlock audit` does not pay for the daemon,
# the snapshot engine and the shell parser.
COMMAND_MODULES = {
    "approve": "hooks",
    "audit": "audit",
    "check": "check",
    "config": "config",
    "daemon": "daemon",
    "diff": "snapshot",
    "doctor": "integrate",
    "done": "runs",
    "explain": "check",
    "gc": "snapshot",
    "handoff": "monitor",
    "hook": "hooks",
    "hooks": "hooks",
    "install": "hooks",
    "integrate": "integrate",
    "log": "runs",
    "lost": "hooks",
    "monitor": "monitor",
    "pause": "monitor",
    "recover": "recover",
    "restore": "snapshot",
    "resume": "monitor",
    "run": "runs",
    "runs": "runs",
    "snapshot": "snapshot",
    "snapshots": "snapshot",
    "status": "runs",
    "stop": "monitor",
    "todo": "monitor",
    "turn": "monitor",
    "uninstall": "hooks",
    "undo": "snapshot",
}


class LazyGroup(click.Group):
    """A group whose commands are registered by importing their module on first use."""

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module = COMMAND_MODULES.get(cmd_name)
        if module is not None and cmd_name not in self.commands:
            importlib.import_module(f"interlock.cli.{module}")
        return super().get_command(ctx, cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        for module in sorted(set(COMMAND_MODULES.values())):
            importlib.import_module(f"interlock.cli.{module}")
        return super().list_commands(ctx)


@click.group(cls=LazyGroup, context_settings=CONTEXT_SETTINGS)
@click.version_option(__version__, "--version", prog_name="interlock")
def cli() -> None:
    """Keep a git worktree safe while an AI coding agent, or a person, works in it.

    interlock blocks (or, in advisory mode, warns about) commands that would discard work,
    validators whose failure is masked, and commands that would switch interlock off. It
    snapshots the tree so that any state can be restored and nothing is ever lost.

    \b
    Example:
      interlock check "git checkout -- ."
      interlock snapshot -m "before refactor"
      interlock install
    """


def json_option(func: F) -> F:
    """`--json`: machine-readable output on stdout."""
    return click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")(func)


def cwd_option(func: F) -> F:
    """`--cwd DIR`: act as if started in DIR."""
    return click.option(
        "--cwd",
        "cwd",
        type=click.Path(file_okay=False, exists=True),
        default=None,
        help="Directory to act in (default: the current one).",
    )(func)


def _show_click_error(exc: click.ClickException) -> None:
    """click's errors in interlock's words: `interlock: error: ...`, the usage, the help."""
    text = exc.format_message().rstrip(".")
    if text[:1].isupper() and text[1:2].islower():  # "No such option" -> "no such option"
        text = text[0].lower() + text[1:]
    ctx = getattr(exc, "ctx", None)
    if not isinstance(exc, click.UsageError) or ctx is None:
        output.error(text)
        return
    usage = ctx.get_usage().removeprefix("Usage: ").strip()
    output.write_err(f"interlock: error: {text}")
    output.write_err(f"  usage: {' '.join(usage.split())}")
    output.write_err(f"  hint:  {ctx.command_path} --help")


def _command_name(args: list[str]) -> str:
    words = [a for a in args if not a.startswith("-")][:2]
    if len(words) > 1 and words[0] in _GROUPS:
        return " ".join(words)
    return words[0] if words else "command"


_GROUPS = frozenset({"config", "daemon", "hooks", "hook"})


def run_cli(args: list[str]) -> int:
    """Run the command tree on args and map every outcome to an exit code."""
    try:
        result = cli.main(args=args, prog_name="interlock", standalone_mode=False)
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    except click.exceptions.Abort:
        output.write_err("interlock: interrupted")
        return exitcodes.INTERRUPTED
    except click.ClickException as exc:
        _show_click_error(exc)
        return exitcodes.USAGE if isinstance(exc, click.UsageError) else exitcodes.ERROR
    except InterlockError as exc:
        output.error(str(exc), exc.hint)
        return exitcodes.ERROR
    except KeyboardInterrupt:
        output.write_err("interlock: interrupted")
        return exitcodes.INTERRUPTED
    except BrokenPipeError:
        return exitcodes.OK
    except Exception as exc:  # the funnel: anything else is a bug, reported once
        failure = write_failure(exc, f"finish `interlock {_command_name(args)}`")
        if failure is not None:  # a full or read-only disk is not a bug: say what to do
            output.error(str(failure), failure.hint)
            return exitcodes.ERROR
        from interlock.bugreport import report_bug

        report = report_bug(exc)
        output.write_err(f"interlock: bug: {type(exc).__name__}: {exc} (report: {report})")
        return exitcodes.BUG
    return int(result) if isinstance(result, int) else exitcodes.OK
