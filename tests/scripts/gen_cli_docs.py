"""Write docs/cli.md from the command tree's own help (the help text is the documentation).

    .venv/bin/python tests/scripts/gen_cli_docs.py > docs/cli.md

tests/test_docs.py fails when docs/cli.md is not what this prints.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

import click

from interlock.cli import cli


def walk(command: click.Command, path: list[str]) -> Iterator[tuple[list[str], click.Command]]:
    yield path, command
    if isinstance(command, click.Group):
        ctx = click.Context(command, info_name=path[-1])
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is not None and not sub.hidden:
                yield from walk(sub, [*path, name])


def render() -> str:
    parts = [
        "# interlock command reference\n",
        "Generated from each command's `--help` by `tests/scripts/gen_cli_docs.py`; "
        "do not edit by hand.\n",
    ]
    for path, command in walk(cli, ["interlock"]):
        ctx = click.Context(
            command,
            info_name=" ".join(path),
            terminal_width=100,
            max_content_width=100,
            help_option_names=["-h", "--help"],  # as CONTEXT_SETTINGS gives every command
        )
        text = command.get_help(ctx).rstrip()
        parts.append(f"\n## {' '.join(path)}\n\n```\n{text}\n```\n")
    return "".join(parts)


if __name__ == "__main__":
    sys.stdout.write(render())
