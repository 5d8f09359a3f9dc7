"""`BASH_ENV=FILE` / `ENV=FILE`: a shell started with it reads FILE before its command, so
FILE's text is code the line runs. A file in the tree is read and judged (engine.hidden, the
ScriptFiles tree fact); a name known only at run time, or a file interlock cannot read, is
unknown code; an absent file runs nothing. Before, only a file written earlier on the same
line was judged: `BASH_ENV=e.sh bash -c ls` with e.sh in the tree was allowed unread."""

from __future__ import annotations

from pathlib import Path

import pytest

from interlock.engine.check import evaluate


@pytest.fixture
def tree(git_repo: Path) -> Path:
    """Uncommitted work (README.md), e.sh holding a discard, ok.sh harmless, bin.sh binary."""
    (git_repo / "README.md").write_text("work in progress\n")
    (git_repo / "e.sh").write_text("git checkout -- .\n")
    (git_repo / "ok.sh").write_text("export PS4='+ '\n")
    (git_repo / "bin.sh").write_bytes(b"\x00\x01git checkout -- .\n")
    (git_repo / "sub").mkdir()
    return git_repo


def judged(repo: Path, command: str) -> tuple[str, set[str]]:
    result = evaluate(command, str(repo), mode="blocking").result
    return result.verdict, {f.rule for f in result.findings}


@pytest.mark.parametrize(
    "command",
    [
        "BASH_ENV=e.sh bash -c 'ls'",
        "BASH_ENV=./e.sh bash -c 'ls'",
        "ENV=e.sh sh -i",
        "env BASH_ENV=e.sh make test",
        "export BASH_ENV=e.sh; bash -c ls",
        "cd sub; BASH_ENV=e.sh bash -c ls",
        "echo 'git checkout -- .' > ok.sh; BASH_ENV=ok.sh bash -c ls",
        "GIT_PAGER='git checkout -- .' BASH_ENV=ok.sh git log",
        "BASH_ENV=e.sh",
    ],
)
def test_a_discard_in_the_file_a_shell_reads_first_is_refused(tree: Path, command: str) -> None:
    verdict, found = judged(tree, command)
    assert verdict == "block", command
    assert "git.checkout-discard" in found, command


def test_the_finding_says_the_startup_variable_ran_it(tree: Path) -> None:
    result = evaluate("BASH_ENV=e.sh bash -c ls", str(tree), mode="blocking").result
    [finding] = [f for f in result.findings if f.rule == "git.checkout-discard"]
    assert "`BASH_ENV` (e.sh), which shells read first" in finding.reason


@pytest.mark.parametrize(
    "command",
    [
        'BASH_ENV="$X" bash -c ls',
        "BASH_ENV=$X bash -c ls",
        "BASH_ENV=~/.bashenv bash -c ls",
        "BASH_ENV=bin.sh bash -c ls",
        'export BASH_ENV="$F"',
    ],
)
def test_a_startup_file_interlock_cannot_read_is_unknown_code(tree: Path, command: str) -> None:
    assert judged(tree, command) == ("block", {"parse.unknown-code"}), command


@pytest.mark.parametrize(
    "command",
    [
        "BASH_ENV=ok.sh bash -c ls",
        "BASH_ENV=absent.sh bash -c ls",
        "BASH_ENV=/dev/null bash -c ls",
        "BASH_ENV= bash -c ls",
        "cd sub && BASH_ENV=e.sh bash -c ls",
        "FOO=e.sh bash -c ls",
    ],
)
def test_a_harmless_absent_or_empty_startup_file_is_allowed(tree: Path, command: str) -> None:
    assert judged(tree, command) == ("allow", set()), command


def test_judging_the_text_alone_a_startup_file_is_unknown_code(tree: Path) -> None:
    """--assume-dirty reads no file of the tree: what BASH_ENV names is not known."""
    result = evaluate("BASH_ENV=ok.sh bash -c ls", str(tree), mode="blocking", assume_dirty=True)
    assert {f.rule for f in result.result.findings} == {"parse.unknown-code"}
