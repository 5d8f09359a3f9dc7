"""The help text is the documentation: every command has help with an example, and
docs/cli.md is exactly what the command tree says."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import click
import pytest

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location(
    "gen_cli_docs", ROOT / "tests" / "scripts" / "gen_cli_docs.py"
)
assert spec is not None and spec.loader is not None
gen = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gen)

COMMANDS = list(gen.walk(gen.cli, ["interlock"]))


@pytest.mark.parametrize(("path", "command"), COMMANDS, ids=[" ".join(p) for p, _ in COMMANDS])
def test_every_command_has_help(path, command):
    assert command.help and command.help.strip(), " ".join(path)
    if not isinstance(command, click.Group):
        assert "Example:" in command.help, f"{' '.join(path)} has no Example: block"
        assert "\b" in command.help, f"{' '.join(path)}: keep the example intact with \\b"


def test_docs_cli_md_is_generated_from_the_help():
    expected = gen.render()
    actual = (ROOT / "docs" / "cli.md").read_text()
    if actual != expected:
        import difflib

        diff = "".join(
            difflib.unified_diff(
                actual.splitlines(True), expected.splitlines(True), "docs/cli.md", "help now"
            )
        )
        pytest.fail(
            f"docs/cli.md is stale: run tests/scripts/gen_cli_docs.py > docs/cli.md\n{diff}"
        )


def test_readme_starts_with_the_setup_and_test_commands():
    lines = (ROOT / "README.md").read_text().splitlines()
    block = lines[lines.index("```sh") + 1 : lines.index("```sh") + 3]
    assert block[0].startswith("./install.sh ")
    assert "pytest" in block[1]
    ci = (ROOT / ".ci" / "run").read_text()
    assert block[1].split("#")[0].strip() in ci
