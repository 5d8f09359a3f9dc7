"""Every line interlock writes as a message starts `interlock:` (or continues the message
above, indented): a person or a harness can tell interlock's words from the tool's output.

Data is not a message: `--json`, listings and tables (`snapshots`, `diff`, `lost`, `recover
--list`, `explain`, `config show`, `hooks status`, `daemon status`), a path (`hooks path`,
`daemon path`, `config path`), `--help` and `--version` print on stdout as they are, for
scripts. Everything else - errors, warnings, verdicts, notes, and a command's report of what it
did - is a message, on stdout or stderr. This session runs the CLI's commands, their success
and their error paths, in a real repository, and scans what they printed.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from interlock.cli import run_cli

# Commands whose stdout is data (their stderr is still scanned).
DATA = {
    ("snapshots",),
    ("diff",),
    ("lost",),
    ("explain",),
    ("config", "show"),
    ("config", "path"),
    ("hooks", "status"),
    ("hooks", "path"),
    ("daemon", "status"),
    ("daemon", "path"),
    ("approve",),
}


def _is_data(args: list[str]) -> bool:
    words = [a for a in args if not a.startswith("-")]
    return (
        "--json" in args
        or "--list" in args
        or "--help" in args
        or "--version" in args
        or tuple(words[:1]) in DATA
        or tuple(words[:2]) in DATA
    )


def offending(text: str) -> list[str]:
    """Lines that neither start `interlock:` nor continue (indented) a message above."""
    bad, inside = [], False
    for line in text.splitlines():
        if line.startswith("interlock:"):
            inside = True
        elif line.startswith("  ") and inside:
            continue
        elif line.strip():
            bad.append(line)
    return bad


def _session(repo: Path, elsewhere: Path) -> list[tuple[list[str], int]]:
    """(arguments, expected exit status) in order; the repository changes along the way."""
    r = ["--cwd", str(repo)]
    return [
        (["check", "git status"], 0),
        (["check", "git reset --hard"], 0),
        (["check", "--mode", "blocking", "git reset --hard"], 126),
        (["check", ""], 2),
        (["check"], 2),
        (["check", "echo 'unterminated"], 0),
        (["check", f"rm -rf {repo}"], 0),
        (["check", "git stash drop"], 0),
        (["check", "--json", "pytest || true"], 0),
        (["explain", "git.reset-hard"], 0),
        (["explain", "no.such-rule"], 1),
        (["config", "show", *r], 0),
        (["config", "validate", *r], 1),  # mode = "sometimes"
        (["snapshots", *r], 0),
        (["snapshot", *r, "-m", "first"], 0),
        (["snapshot", *r, "--kind", "bogus"], 2),
        (["snapshot", "--bogus-flag"], 2),
        (["snapshots", *r], 0),
        (["diff", *r, "latest"], 0),
        (["diff", *r, "no-such-snapshot"], 1),
        (["diff", *r], 1),  # no green point yet
        (["restore", *r, "latest", "--dry-run"], 0),
        (["restore", *r, "latest"], 0),
        (["restore", *r, "nosuchsnap"], 1),
        (["restore", *r], 2),
        (["undo", *r, "--dry-run"], 0),
        (["undo", *r], 0),
        (["gc", *r, "--dry-run"], 0),
        (["gc", *r], 0),
        (["recover", *r, "a.txt"], 0),
        (["recover", *r, "a.txt", "--list"], 0),
        (["recover", *r, "never-existed.txt"], 1),
        (["recover", *r, "--since", "10m"], 0),
        (["recover", *r, "--since", "soon"], 1),
        (["recover", *r, "--at", "1d", "a.txt"], 1),
        (["audit", *r], 0),
        (["audit", *r, "--since", "no-such-rev"], 1),
        (["install", *r], 0),
        (["install", *r], 0),
        (["hooks", "status", *r], 0),
        (["hooks", "path", *r], 0),
        (["approve", *r], 0),
        (["approve", *r, "deadbeef"], 1),
        (["lost", *r], 0),
        (["lost", *r, "restore", "nosuch"], 1),
        (["daemon", "status", *r], 0),
        (["daemon", "path", *r], 0),
        (["daemon", "stop", *r], 0),
        (["hook", "run", "bogus"], 2),
        (["uninstall", *r], 0),
        (["uninstall", *r, "--purge"], 0),
        (["snapshot", "--cwd", str(elsewhere)], 1),
        (["install", "--cwd", str(elsewhere)], 1),
        (["no-such-command"], 2),
    ]


@pytest.fixture
def session_repo(git_repo: Path, git) -> Path:
    (git_repo / "README.md").write_text("stashed work\n")
    git(git_repo, "stash", "-q")
    (git_repo / "a.txt").write_text("first\n")
    (git_repo / "src" / "app.py").write_text("print('unsaved')\n")
    (git_repo / ".interlock.toml").write_text('mode = "sometimes"\n')  # a warning each time
    os.chdir(git_repo)
    return git_repo


def test_every_line_the_cli_writes_as_a_message_starts_with_interlock(
    session_repo, tmp_path, capsys
):
    elsewhere = tmp_path / "not-a-repo"
    elsewhere.mkdir()
    problems = []
    for args, expected in _session(session_repo, elsewhere):
        if args[0] == "recover" and args[-1] == "a.txt" and len(args) == 4:
            (session_repo / "a.txt").write_text("second\n")  # something to bring back
        code = run_cli(args)
        out, err = capsys.readouterr()
        shown = " ".join(args)
        if code != expected:
            problems.append(f"interlock {shown}: exit {code}, expected {expected}\n{out}{err}")
        bad = offending(err) + ([] if _is_data(args) else offending(out))
        if bad:
            problems.append(f"interlock {shown}:\n  " + "\n  ".join(bad))
        if str(session_repo.parent) + "/ (" in out + err:
            problems.append(f"interlock {shown} names the folder above the worktree")
    assert not problems, "\n".join(problems)


def test_messages_do_not_read_oddly(session_repo, capsys):
    """The wordings the first users stumbled on."""
    run_cli(["check", "git stash drop"])
    run_cli(["check", f"rm -rf {session_repo}"])
    run_cli(["snapshot"])
    run_cli(["restore", "latest"])
    run_cli(["undo"])
    run_cli(["gc"])
    out, err = capsys.readouterr()
    said = out + err
    for odd in ("under refs/", "(s)", "0m ago", ": \n", "under //", "Usage:", "Error:"):
        assert odd not in said, f"{odd!r} in:\n{said}"
