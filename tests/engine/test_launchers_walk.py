"""interlock.engine.launchers, walked: what each launcher hands over (the commands, how,
and whether their exit status comes back), for the cases the rules alone cannot tell apart."""

from __future__ import annotations

import pytest

from interlock.engine.walk import trace
from interlock.shell.parse import parse


def commands(text: str) -> list[tuple[list[str | None], tuple[str, ...]]]:
    """Each command the line runs: its words and what it was handed over by."""
    return [(inv.literals(), inv.via) for inv in trace(parse(text)).invocations if inv.argv]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("fish --command 'git gc'", [(["git", "gc"], ("fish -c",))]),
        ("fish -C 'git gc'", [(["git", "gc"], ("fish -c",))]),
        ("fish --init-command 'git gc' -c 'git fsck'", [(["git", "gc"], ("fish -c",)), (["git", "fsck"], ("fish -c",))]),
        ("nu --commands 'git gc'", [(["git", "gc"], ("nu -c",))]),
        ("elvish -c 'git gc'", [(["git", "gc"], ("elvish -c",))]),
        ("tcsh -fc 'git gc'", [(["git", "gc"], ("tcsh -c",))]),
        ("fish --command=git\\ gc", [(["git", "gc"], ("fish -c",))]),
        # no code: the shell runs a file, or nothing
        ("fish --command", [(["fish", "--command"], ())]),
        ("fish -c", [(["fish", "-c"], ())]),
        ("tcsh calc x", [(["tcsh", "calc", "x"], ())]),
        ("tcsh -x", [(["tcsh", "-x"], ())]),
        ("fish --private x", [(["fish", "--private", "x"], ())]),
        ("fish --rc x", [(["fish", "--rc", "x"], ())]),
        ("csh -c x -c", [(["x"], ("csh -c",))]),
    ],
)
def test_what_a_shell_that_is_not_sh_runs(text, expected):
    assert commands(text) == expected


def test_a_shell_that_is_not_sh_reads_stdin_only_without_a_script_operand():
    assert commands("fish <<EOF\ngit gc\nEOF") == [(["git", "gc"], ("fish <<",))]
    assert commands("fish -i <<EOF\ngit gc\nEOF") == [(["git", "gc"], ("fish <<",))]
    assert commands("fish x.fish <<EOF\ngit gc\nEOF") == [(["fish", "x.fish"], ())]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("pwsh /command 'git gc'", [(["git", "gc"], ("pwsh -Command",))]),
        ("pwsh /c 'git gc'", [(["git", "gc"], ("pwsh -Command",))]),
        ("pwsh -com 'git gc'", [(["git", "gc"], ("pwsh -Command",))]),
        ("pwsh -comm 'git gc'", [(["git", "gc"], ("pwsh -Command",))]),
        ("powershell -NoLogo -Command git gc", [(["git", "gc"], ("pwsh -Command",))]),
        # `-Command -`: the script comes from stdin, which is not read here
        ("pwsh -Command - <<EOF\ngit gc\nEOF", [(["pwsh", "-Command", "-"], ())]),
        ("pwsh -Command", [(["pwsh", "-Command"], ())]),
        ("pwsh -File x.ps1", [(["pwsh", "-File", "x.ps1"], ())]),
    ],
)
def test_what_powershell_runs(text, expected):
    assert commands(text) == expected
