"""git discards the tree decides, in `interlock check`.

A bare --force-with-lease is allowed by text alone and judged by the tree: it protects nothing
once the remote-tracking branch already holds the commit being replaced (after `reset --soft`,
an amend or a rebase), so it is a force push exactly when the pushed commit does not contain
the remote-tracking tip (issue 10). `--abort` of an operation loses the resolution work only
when an operation is in progress."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from interlock.engine.check import evaluate


def run_git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True
    ).stdout.strip()


@pytest.fixture
def pushed(git_repo: Path, tmp_path: Path) -> Path:
    remote = tmp_path / "remote.git"
    run_git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    run_git(git_repo, "remote", "add", "origin", str(remote))
    run_git(git_repo, "commit", "-q", "--allow-empty", "-m", "shared")
    run_git(git_repo, "push", "-q", "-u", "origin", "main")
    return git_repo


def verdict(command: str, cwd: Path) -> tuple[str, list[str]]:
    result = evaluate(command, str(cwd), mode="blocking").result
    return result.verdict, [f.reason for f in result.findings]


@pytest.mark.parametrize(
    "command",
    [
        "git push --force-with-lease",
        "git push --force-with-lease origin main",
        "git push --force-with-lease=main origin main",
        "git push --force-with-lease origin +main",
        "git push --force-with-lease --force-if-includes origin HEAD:main",
    ],
)
def test_a_bare_lease_after_reset_soft_is_a_force_push_that_drops_the_remote_commit(
    pushed: Path, command: str
):
    run_git(pushed, "reset", "-q", "--soft", "HEAD~1")
    run_git(pushed, "commit", "-q", "--allow-empty", "-m", "redone")
    found, reasons = verdict(command, pushed)
    assert found == "block"
    assert any("1 commit on origin/main (at " in r for r in reasons), reasons


def test_a_bare_lease_that_contains_the_remote_tip_is_allowed(pushed: Path):
    run_git(pushed, "commit", "-q", "--allow-empty", "-m", "on top")
    assert verdict("git push --force-with-lease origin main", pushed) == ("allow", [])
    assert verdict("git push --force-with-lease", pushed) == ("allow", [])


def test_a_lease_with_the_expected_commit_is_allowed_whatever_it_replaces(pushed: Path):
    expected = run_git(pushed, "rev-parse", "origin/main")
    run_git(pushed, "commit", "-q", "--amend", "--allow-empty", "-m", "amended")
    command = f"git push --force-with-lease=main:{expected} origin main"
    assert verdict(command, pushed) == ("allow", [])


def test_by_text_alone_a_bare_lease_is_allowed():
    result = evaluate("git push --force-with-lease", "/", mode="blocking", assume_dirty=True)
    assert result.result.verdict == "allow"


def test_a_plain_force_push_is_refused_even_when_it_drops_nothing(pushed: Path):
    run_git(pushed, "commit", "-q", "--allow-empty", "-m", "on top")
    assert verdict("git push --force origin main", pushed)[0] == "block"


def test_aborting_a_merge_with_resolution_work_is_refused_and_without_one_is_not(
    git_repo: Path,
):
    run_git(git_repo, "checkout", "-q", "-b", "topic")
    (git_repo / "README.md").write_text("topic\n")
    run_git(git_repo, "commit", "-q", "-am", "topic")
    run_git(git_repo, "checkout", "-q", "main")
    (git_repo / "README.md").write_text("main\n")
    run_git(git_repo, "commit", "-q", "-am", "main")
    # nothing in progress: git refuses `merge --abort`, nothing is lost
    (git_repo / "src" / "app.py").write_text("edited\n")
    assert verdict("git merge --abort", git_repo) == ("allow", [])
    subprocess.run(["git", "merge", "topic"], cwd=git_repo, capture_output=True, check=False)
    (git_repo / "README.md").write_text("resolved by hand\n")
    found, reasons = verdict("git merge --abort", git_repo)
    assert found == "block", reasons
