"""Approvals come from a person at a terminal, never from inside the agent's run.

The terminal is a real pty (os.openpty), not a mock of isatty.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from interlock import constants, journal
from interlock.audit.model import AuditFinding
from interlock.commands.hooks import install_hooks
from interlock.git import require_repo
from interlock.hooks import approval

BEFORE = """\
from app import add


def test_add():
    assert add(2, 2) == 4
"""
WEAKENED = """\
from app import add


def test_add():
    assert add(2, 2)
"""


def git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=check)


def interlock_on_a_terminal(
    args: list[str], cwd: Path, env: dict[str, str] | None = None
) -> tuple[int, str]:
    """Run interlock with its stdin on a fresh pty; returns (exit status, stdout+stderr)."""
    primary, secondary = os.openpty()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "interlock", *args],
            cwd=cwd,
            stdin=secondary,
            capture_output=True,
            text=True,
            env=env if env is not None else dict(os.environ),
            timeout=60,
        )
    finally:
        os.close(secondary)
        os.close(primary)
    return proc.returncode, proc.stdout + proc.stderr


@pytest.fixture
def weakened(git_repo: Path, cap_out) -> Path:
    """A repo whose staged change turns `assert add(2, 2) == 4` into `assert add(2, 2)`."""
    (git_repo / "app.py").write_text("def add(a, b):\n    return a + b\n")
    (git_repo / "tests").mkdir()
    (git_repo / "tests" / "test_app.py").write_text(BEFORE)
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "tests")
    install_hooks(git_repo)
    (git_repo / "tests" / "test_app.py").write_text(WEAKENED)
    git(git_repo, "add", "-A")
    return git_repo


def test_finding_id_ignores_the_line_and_names_the_exact_change():
    base = AuditFinding(
        "assertion-weakened", "tests/test_a.py", 4, "test_add", "`==` became truthiness"
    )
    moved = AuditFinding(
        "assertion-weakened", "tests/test_a.py", 40, "test_add", "`==` became truthiness"
    )
    other = AuditFinding(
        "assertion-weakened", "tests/test_a.py", 4, "test_sub", "`==` became truthiness"
    )

    assert approval.finding_id(base) == approval.finding_id(moved)
    assert approval.finding_id(base) != approval.finding_id(other)
    assert len(approval.finding_id(base)) == 10


def test_approve_refuses_when_stdin_is_not_a_terminal(git_repo):
    proc = subprocess.run(
        [sys.executable, "-m", "interlock", "approve", "0123456789"],
        cwd=git_repo,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
    )

    assert proc.returncode == 1
    assert "refused" in proc.stderr and "stdin is not a terminal" in proc.stderr
    assert list(journal.events(require_repo(git_repo), kind="approve")) == []


def test_approve_refuses_inside_the_agent_wrapper_even_on_a_terminal(git_repo):
    env = {**os.environ, constants.ENV_WRAPPED: "1"}

    status, said = interlock_on_a_terminal(["approve", "0123456789"], git_repo, env)

    assert status == 1
    assert "inside the agent's wrapper" in said
    assert list(journal.events(require_repo(git_repo), kind="approve")) == []


def test_blocked_commit_goes_through_once_a_person_approves_the_finding(weakened, monkeypatch):
    monkeypatch.setenv(constants.ENV_MODE, "blocking")
    blocked = git(weakened, "commit", "-m", "weaken", check=False)
    assert blocked.returncode != 0
    assert "interlock: [self-authored] blocked commit" in blocked.stderr
    [finding] = approval.current_findings(require_repo(weakened))
    fid = approval.finding_id(finding)
    assert f"interlock approve {fid}" in blocked.stderr

    status, said = interlock_on_a_terminal(["approve", fid], weakened)

    assert status == 0, said
    assert f"approved {fid}" in said
    [event] = journal.events(require_repo(weakened), kind="approve")
    assert (event.data["id"], event.data["path"]) == (fid, "tests/test_app.py")
    assert git(weakened, "commit", "-q", "-m", "weaken, approved").returncode == 0


def test_approve_without_an_id_lists_pending_findings(weakened):
    [finding] = approval.current_findings(require_repo(weakened))

    proc = subprocess.run(
        [sys.executable, "-m", "interlock", "approve"],
        cwd=weakened,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
    )

    assert proc.returncode == 0
    assert proc.stdout.startswith(approval.finding_id(finding) + "  tests/test_app.py")


def test_approving_an_unknown_id_names_the_listing_command(weakened):
    status, said = interlock_on_a_terminal(["approve", "ffffffffff"], weakened)

    assert status == 1
    assert "matches no current finding" in said and "interlock approve" in said


def test_approve_refuses_inside_a_run_even_on_a_terminal(git_repo):
    env = {**os.environ, constants.ENV_RUN: "run-1"}

    status, said = interlock_on_a_terminal(["approve", "0123456789"], git_repo, env)

    assert status == 1
    assert "INTERLOCK_RUN is set" in said
    assert list(journal.events(require_repo(git_repo), kind="approve")) == []


def test_approve_refuses_under_an_agent_process_even_on_a_terminal(git_repo, tmp_path):
    # A real process named like an agent, whose child runs `interlock approve` on a terminal
    # with a clean environment: only the process tree gives it away.
    agent = tmp_path / "claude"
    agent.write_text('#!/bin/sh\n"$@"\n')
    agent.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith("INTERLOCK_W")}

    primary, secondary = os.openpty()
    try:
        proc = subprocess.run(
            [str(agent), sys.executable, "-m", "interlock", "approve", "0123456789"],
            cwd=git_repo,
            stdin=secondary,
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
        )
    finally:
        os.close(secondary)
        os.close(primary)

    assert proc.returncode == 1
    assert "runs under claude (pid" in proc.stderr
    assert list(journal.events(require_repo(git_repo), kind="approve")) == []


@pytest.mark.parametrize(
    ("cmdline", "agent"),
    [
        (("node", "/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js"), "claude"),
        (("/usr/local/bin/codex", "exec", "fix it"), "codex"),
        (("node", "/opt/@google/gemini-cli/dist/index.js"), "gemini"),
        (("python3", "-m", "aider"), "aider"),
        (("python3", "-m", "interlock.run", "--"), "interlock.run"),
        (("bash", "-l"), None),
        (("node", "server.js"), None),
        (("vim", "claude-notes.txt"), None),
    ],
)
def test_agent_processes_are_told_from_a_persons_programs(cmdline, agent):
    assert approval.agent_in(cmdline) == agent


def test_approve_takes_several_ids_and_approves_all_or_none(weakened):
    [finding] = approval.current_findings(require_repo(weakened))
    fid = approval.finding_id(finding)
    if approval.agent_ancestor() is not None:
        pytest.skip(f"the tests run under {approval.agent_ancestor()}: approve refuses there")

    status, said = interlock_on_a_terminal(["approve", fid, "ffffffffff"], weakened)
    assert status == 1 and "nothing was approved" in said
    assert list(journal.events(require_repo(weakened), kind="approve")) == []

    status, said = interlock_on_a_terminal(["approve", fid, fid[:6]], weakened)
    assert status == 0, said
    assert said.count(f"approved {fid}") == 1


ROOT = Path(__file__).resolve().parents[2]
STRIPPED = "env -u INTERLOCK_WRAPPED -u INTERLOCK_RUN -u INTERLOCK_ATTEMPT"


def _wrapper_forms(tmp_path: Path) -> dict[str, list[str]]:
    """The ways interlock's wrapper gets started: the launcher install.sh writes (here under
    another file name), the checkout's script, and the module."""
    from interlock.run.launcher import import_paths, render_direct

    launcher = tmp_path / "agent-shell"
    text = render_direct(sys.executable, import_paths())
    assert text is not None
    launcher.write_text(text)
    launcher.chmod(0o755)
    return {
        "installed launcher": [str(launcher)],
        "checkout script": [str(ROOT / "shell" / "interlock-sh")],
        "python -m": [sys.executable, "-m", "interlock.run.wrapper"],
    }


@pytest.mark.parametrize("form", ["installed launcher", "checkout script", "python -m"])
def test_approve_refuses_under_the_wrapper_however_it_was_started(git_repo, tmp_path, form):
    # The command unsets every variable the wrapper gives it and has a terminal: only the
    # process tree shows that it runs inside the agent's wrapper.
    wrapper = _wrapper_forms(tmp_path)[form]
    inner = f"{STRIPPED} {sys.executable} -m interlock approve 0123456789"
    primary, secondary = os.openpty()
    try:
        proc = subprocess.run(
            [*wrapper, "-c", inner],
            cwd=git_repo,
            stdin=secondary,
            capture_output=True,
            text=True,
            env={**os.environ, constants.ENV_PYTHON: sys.executable},
            timeout=120,
        )
    finally:
        os.close(secondary)
        os.close(primary)
    assert proc.returncode == 1, proc.stderr
    assert "runs under interlock-sh (pid" in proc.stderr
    assert list(journal.events(require_repo(git_repo), kind="approve")) == []


@pytest.mark.parametrize(
    "cmdline",
    [
        ("/opt/venv/bin/python", "-IS", "/home/me/bin/interlock-sh", "-c", "ls"),
        ("python3", "-I", "-S", "-c", "import sys\nfrom interlock.run.wrapper import main"),
        ("python3.11", "-Im", "interlock.run.wrapper", "-c", "ls"),
        ("python", "-X", "dev", "-W", "ignore", "-m", "interlock.run.wrapper"),
        ("/bin/sh", "/src/interlock/shell/interlock-sh", "-c", "ls"),
        ("/usr/local/bin/interlock-sh", "-lc", "ls"),
    ],
)
def test_each_way_of_starting_the_wrapper_is_told_from_its_command_line(cmdline):
    assert approval.agent_in(cmdline) == "interlock-sh"


@pytest.mark.parametrize(
    "cmdline",
    [
        ("python3", "-c", "print('interlock-sh')"),
        ("python3", "-W", "interlock.run.wrapper", "app.py"),
        ("python3", "-m", "interlock", "check", "ls"),
        ("bash", "-c", "interlock-sh -c ls"),
        ("python3",),
    ],
)
def test_programs_that_only_mention_the_wrapper_are_not_it(cmdline):
    assert approval.agent_in(cmdline) is None
