"""`interlock config ...`."""

from __future__ import annotations

from interlock.cli import cli, cwd_option, json_option
from interlock.commands import config as commands


@cli.group(name="config")
def config_group() -> None:
    """Show, check and locate interlock's configuration.

    Configuration lives in `.interlock.toml` at the repository root, or in a
    `[tool.interlock]` table of pyproject.toml.
    """


@config_group.command(name="show")
@json_option
@cwd_option
def config_show(as_json: bool, cwd: str | None) -> int:
    """Print each effective value and where it came from.

    \b
    Example:
      interlock config show
      interlock config show --json
    """
    return commands.show(cwd, as_json)


@config_group.command(name="validate")
@cwd_option
def config_validate(cwd: str | None) -> int:
    """Check the config files strictly; exit 1 when any value cannot be used.

    \b
    Example:
      interlock config validate
    """
    return commands.validate(cwd)


@config_group.command(name="path")
@cwd_option
def config_path(cwd: str | None) -> int:
    """Print where the config file of this repository lives (or would live).

    \b
    Example:
      interlock config path
    """
    return commands.path(cwd)
