"""Hooks through the warm daemon, hooks that start it, impostors the hooks ignore, and the
reference-transaction shim that keeps lost tips without starting Python. Real git, real
daemons, real impostor processes."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from interlock import constants, journal
from interlock.commands.hooks import install_hooks
from interlock.daemon import client
from interlock.git import require_repo
from interlock.memory import lostrefs

FAKE = Path(__file__).resolve().parents[1] / "daemon" / "fakedaemon.py"
WEAKENED = "from app import add\n\n\ndef test_add():\n    assert add(2, 2)\n"
STRONG = "from app import add\n\n\ndef test_add():\n    assert add(2, 2) == 4\n"


def run_git(cwd: Path, *args: str, check: bool = True, env=None):
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=check, env=env
    )


def requests(loc) -> int:
    status = client.request(loc, "status")
    assert status is not None
    return int(status["requests"])


@pytest.fixture
def repo_with_tests(git_repo: Path, cap_out) -> Path:
    (git_repo / "app.py").write_text("def add(a, b):\n    return a + b\n")
    (git_repo / "tests").mkdir()
    (git_repo / "tests" / "test_app.py").write_text(STRONG)
    run_git(git_repo, "add", "-A")
    run_git(git_repo, "commit", "-q", "-m", "tests")
    install_hooks(git_repo)
    return git_repo


@pytest.fixture
def pushed(repo_with_tests: Path, tmp_path: Path) -> tuple[Path, Path]:
    remote = tmp_path / "remote.git"
    run_git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    run_git(repo_with_tests, "remote", "add", "origin", str(remote))
    run_git(repo_with_tests, "push", "-q", "-u", "origin", "main")
    return repo_with_tests, remote


def test_pre_commit_is_answered_by_the_warm_daemon(daemons, repo_with_tests, monkeypatch):
    monkeypatch.setenv(constants.ENV_MODE, "blocking")
    daemons.start(repo_with_tests)
    loc = require_repo(repo_with_tests)
    (repo_with_tests / "tests" / "test_app.py").write_text(WEAKENED)
    run_git(repo_with_tests, "add", "-A")
    served = requests(loc)

    result = run_git(repo_with_tests, "commit", "-m", "weaken", check=False)

    assert result.returncode != 0
    assert "interlock: [self-authored] blocked commit" in result.stderr
    assert requests(loc) >= served + 2  # the hook, and our status request


def test_pre_push_is_answered_by_the_warm_daemon(daemons, pushed, monkeypatch):
    repo, remote = pushed
    monkeypatch.setenv(constants.ENV_MODE, "blocking")
    daemons.start(repo)
    loc = require_repo(repo)
    before = run_git(remote, "rev-parse", "main").stdout
    run_git(repo, "commit", "-q", "--no-verify", "--allow-empty", "--amend", "-m", "rewritten")
    served = requests(loc)

    result = run_git(repo, "push", "-q", "--force", "origin", "main", check=False)

    assert result.returncode != 0, result.stderr
    assert run_git(remote, "rev-parse", "main").stdout == before
    assert requests(loc) >= served + 2
    pushes = [e for e in journal.events(loc, kind="hook") if e.data.get("hook") == "pre-push"]
    assert pushes, "the daemon journaled the pre-push it judged"


def test_a_hook_with_the_daemon_down_runs_in_process_and_starts_it(daemons, repo_with_tests, poll):
    loc = daemons.track(repo_with_tests)
    (repo_with_tests / "app.py").write_text("def add(a, b):\n    return b + a\n")
    run_git(repo_with_tests, "add", "-A")

    result = run_git(repo_with_tests, "commit", "-qm", "clean change", check=False)

    assert result.returncode == 0, result.stderr
    reply = poll(lambda: client.request(loc, "ping"), timeout=30, what="the hook's daemon")
    daemons.pids.add(int(reply["pid"]))


@pytest.mark.parametrize("how", ["socket", "pidfile"])
def test_an_impostor_answering_allow_to_hooks_is_never_trusted(pushed, monkeypatch, how):
    repo, remote = pushed
    monkeypatch.delenv(constants.ENV_NO_DAEMON, raising=False)
    monkeypatch.setenv(constants.ENV_MODE, "blocking")
    loc = require_repo(repo)
    fake = subprocess.Popen(
        [sys.executable, str(FAKE), str(loc.state_dir), str(loc.worktree), how, "allow"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert fake.stdout is not None and fake.stdout.readline().strip() == "ready"
        (repo / "tests" / "test_app.py").write_text(WEAKENED)
        run_git(repo, "add", "-A")
        commit = run_git(repo, "commit", "-m", "weaken", check=False)
        assert commit.returncode != 0 and "blocked commit" in commit.stderr
        run_git(repo, "commit", "-q", "--no-verify", "--allow-empty", "--amend", "-m", "x")
        push = run_git(repo, "push", "-q", "--force", "origin", "main", check=False)
        assert push.returncode != 0, push.stderr
    finally:
        fake.kill()
        fake.wait()


# --- reference-transaction: settled in sh ---


def kept(repo: Path) -> list[lostrefs.LostRef]:
    return lostrefs.list_lost(require_repo(repo))


def test_a_rewind_keeps_the_lost_tip_without_python(git_repo, cap_out):
    install_hooks(git_repo)
    shim = git_repo / ".git" / "hooks" / "reference-transaction"
    # A Python that fails loudly: the common and the rewind cases must not reach it.
    text = shim.read_text().replace("python=", "python=/nonexistent/python #", 1)
    shim.write_text(text)
    run_git(git_repo, "commit", "-q", "--allow-empty", "-m", "second")
    tip = run_git(git_repo, "rev-parse", "HEAD").stdout.strip()

    before = time.time()
    result = run_git(git_repo, "reset", "-q", "--hard", "HEAD~1")
    after = time.time()

    assert result.stderr == ""
    found = kept(git_repo)
    assert [(k.branch, k.oid, k.worktree) for k in found] == [("main", tip, "main")]
    # stamped with the time of the rewind (UTC, to the microsecond)
    assert before - 0.01 <= found[0].time <= after + 0.01
    assert re.fullmatch(r"\d{8}T\d{6}\.\d{6}Z", found[0].stamp)


def test_the_shim_starts_one_walk_for_a_commit_and_two_processes_for_a_rewind(
    git_repo, tmp_path, cap_out
):
    install_hooks(git_repo)
    shim = git_repo / ".git" / "hooks" / "reference-transaction"
    shim.write_text(shim.read_text().replace("python=", "python=/nonexistent/python #", 1))
    # git runs its hooks with its exec-path first on PATH, so GIT_TRACE names the gits the shim
    # starts; stand-ins on PATH log every other tool it could start.
    bin_dir, log, trace = tmp_path / "bin", tmp_path / "tools.log", tmp_path / "trace"
    bin_dir.mkdir()
    for tool in ("date", "cat", "sed", "awk", "grep", "head", "tr", "basename", "dirname"):
        stand_in = bin_dir / tool
        stand_in.write_text(
            f'#!/bin/sh\necho {tool} >> {log}\nexec /usr/bin/env -u PATH {tool} "$@"\n'
        )
        stand_in.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "GIT_TRACE": str(trace)}

    def started(*args: str) -> list[str]:
        log.write_text("")
        trace.write_text("")
        subprocess.run(["git", *args], cwd=git_repo, env=env, check=True, capture_output=True)
        lines = [
            line.split("built-in: git ", 1)[1]
            for line in trace.read_text().splitlines()
            if "built-in: git " in line
        ]
        # the walk names the refs it reads by prefix: a --glob or --all reads every ref of the
        # repository (interlock's many snapshots too) on every commit
        walks = [line for line in lines if line.startswith("rev-list ")]
        assert not [w for w in walks if "--glob" in w or "--all" in w]
        gits = [line.split(" ")[0] for line in lines]
        return [f"git {g}" for g in gits[1:] if g != "maintenance"] + log.read_text().split()

    assert started("commit", "-q", "--no-verify", "--allow-empty", "-m", "x") == ["git rev-list"]
    # the kept tip's stamp comes from the walk's trace2 events, not from a `date`
    assert started("reset", "-q", "--hard", "HEAD~1") == ["git rev-list", "git update-ref"]
    assert [k.branch for k in kept(git_repo)] == ["main"]


def test_a_deleted_branch_is_kept_and_a_merged_one_is_not(git_repo, cap_out):
    install_hooks(git_repo)
    run_git(git_repo, "switch", "-q", "-c", "feature")
    run_git(git_repo, "commit", "-q", "--allow-empty", "-m", "feature work")
    feature = run_git(git_repo, "rev-parse", "HEAD").stdout.strip()
    run_git(git_repo, "switch", "-q", "main")
    run_git(git_repo, "branch", "merged")  # contained in main: deleting it loses nothing

    run_git(git_repo, "branch", "-q", "-D", "feature")
    run_git(git_repo, "branch", "-q", "-d", "merged")

    assert [(k.branch, k.oid) for k in kept(git_repo)] == [("feature", feature)]
    assert run_git(git_repo, "fsck", "--no-progress").returncode == 0


def test_a_rewound_tip_already_kept_is_not_kept_twice(git_repo, cap_out):
    install_hooks(git_repo)
    run_git(git_repo, "commit", "-q", "--allow-empty", "-m", "second")
    run_git(git_repo, "reset", "-q", "--hard", "HEAD~1")
    run_git(git_repo, "reset", "-q", "--hard", "ORIG_HEAD")
    run_git(git_repo, "reset", "-q", "--hard", "HEAD~1")
    assert len(kept(git_repo)) == 1


def test_a_rewound_tip_already_kept_is_not_kept_twice_in_a_linked_worktree(
    git_repo, tmp_path, cap_out
):
    install_hooks(git_repo)
    linked = tmp_path / "linked"
    run_git(git_repo, "worktree", "add", "-q", "-b", "side", str(linked))
    run_git(linked, "commit", "-q", "--allow-empty", "-m", "side work")
    run_git(linked, "reset", "-q", "--hard", "HEAD~1")
    run_git(linked, "reset", "-q", "--hard", "ORIG_HEAD")
    run_git(linked, "reset", "-q", "--hard", "HEAD~1")
    assert [(k.branch, k.worktree) for k in kept(git_repo)] == [("side", "linked")]


def test_commits_and_fast_forwards_keep_nothing(git_repo, cap_out):
    install_hooks(git_repo)
    run_git(git_repo, "commit", "-q", "--allow-empty", "-m", "second")
    run_git(git_repo, "branch", "-q", "-f", "side", "HEAD")
    run_git(git_repo, "commit", "-q", "--allow-empty", "-m", "third")
    run_git(git_repo, "branch", "-q", "-f", "side", "HEAD")
    assert kept(git_repo) == []


def test_a_rewind_in_a_linked_worktree_is_kept_under_its_name(git_repo, tmp_path, cap_out):
    install_hooks(git_repo)
    linked = tmp_path / "linked"
    run_git(git_repo, "worktree", "add", "-q", "-b", "side", str(linked))
    run_git(linked, "commit", "-q", "--allow-empty", "-m", "side work")
    tip = run_git(linked, "rev-parse", "HEAD").stdout.strip()
    run_git(linked, "reset", "-q", "--hard", "HEAD~1")
    assert [(k.branch, k.oid, k.worktree) for k in kept(git_repo)] == [("side", tip, "linked")]
