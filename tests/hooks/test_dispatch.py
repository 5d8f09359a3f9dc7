"""What the installed hooks do, through real git commands: push guard, journal, guard env."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from interlock import constants, journal
from interlock.commands.hooks import install_hooks
from interlock.git import require_repo
from interlock.hooks.prepush import Lease, parse_leases


def run_git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=check)


def said(result: subprocess.CompletedProcess[str]) -> str:
    return result.stdout + result.stderr


def head(repo: Path, rev: str = "HEAD") -> str:
    return run_git(repo, "rev-parse", rev).stdout.strip()


def hook_events(repo: Path, hook: str) -> list[dict]:
    return [
        dict(e.data)
        for e in journal.events(require_repo(repo), kind="hook")
        if e.data.get("hook") == hook
    ]


@pytest.fixture
def pushed(git_repo: Path, tmp_path: Path, cap_out) -> tuple[Path, Path]:
    """A clone with interlock's hooks whose main is pushed to a local bare remote."""
    remote = tmp_path / "remote.git"
    run_git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    run_git(git_repo, "remote", "add", "origin", str(remote))
    run_git(git_repo, "commit", "-q", "--allow-empty", "-m", "shared one")
    run_git(git_repo, "push", "-q", "-u", "origin", "main")
    install_hooks(git_repo)
    return git_repo, remote


def rewrite_last_commit(repo: Path) -> None:
    run_git(repo, "commit", "-q", "--no-verify", "--allow-empty", "--amend", "-m", "rewritten")


def test_force_push_that_drops_remote_commits_is_blocked(pushed, monkeypatch):
    repo, remote = pushed
    before = head(remote, "main")
    rewrite_last_commit(repo)
    monkeypatch.setenv(constants.ENV_MODE, "blocking")

    result = run_git(repo, "push", "--force", "origin", "main", check=False)

    assert result.returncode != 0
    assert (
        "interlock: [discard] blocked: git push would drop 1 commit from origin's main"
        in result.stderr
    )
    assert f"--force-with-lease=main:{before}" in result.stderr
    assert head(remote, "main") == before
    assert hook_events(repo, "pre-push")[-1]["verdict"] == "block"


def test_force_push_in_advisory_mode_warns_and_goes_ahead(pushed):
    repo, remote = pushed
    rewrite_last_commit(repo)

    result = run_git(repo, "push", "--force", "origin", "main")

    assert "warning (advisory mode, the push goes ahead)" in result.stderr
    assert head(remote, "main") == head(repo)
    event = hook_events(repo, "pre-push")[-1]
    assert (event["verdict"], event["would_block"]) == ("warn", True)


def test_fast_forward_push_is_allowed_silently(pushed, monkeypatch):
    repo, remote = pushed
    run_git(repo, "commit", "-q", "--no-verify", "--allow-empty", "-m", "more")
    monkeypatch.setenv(constants.ENV_MODE, "blocking")

    result = run_git(repo, "push", "origin", "main")

    assert "interlock" not in said(result)
    assert head(remote, "main") == head(repo)
    assert hook_events(repo, "pre-push")[-1]["verdict"] == "allow"


def test_force_with_lease_naming_the_replaced_commit_is_allowed(pushed, monkeypatch):
    repo, remote = pushed
    expected = head(remote, "main")
    rewrite_last_commit(repo)
    monkeypatch.setenv(constants.ENV_MODE, "blocking")

    result = run_git(
        repo, "push", f"--force-with-lease=main:{expected}", "origin", "main", check=False
    )

    assert result.returncode == 0, said(result)
    assert head(remote, "main") == head(repo)
    assert hook_events(repo, "pre-push")[-1]["updates"][0]["leased"] is True


def test_bare_force_with_lease_after_reset_soft_is_blocked_since_it_drops_the_remote_commit(
    pushed, monkeypatch
):
    # issue 10: the tracking ref matches the remote, so git's own lease check passes, and the
    # commit the remote holds is dropped all the same
    repo, remote = pushed
    dropped = head(remote, "main")
    run_git(repo, "reset", "-q", "--soft", "HEAD~1")
    run_git(repo, "commit", "-q", "--no-verify", "--allow-empty", "-m", "redone")
    monkeypatch.setenv(constants.ENV_MODE, "blocking")

    result = run_git(repo, "push", "--force-with-lease", "origin", "main", check=False)

    assert result.returncode != 0, said(result)
    assert "would drop 1 commit from origin's main" in result.stderr
    assert f"--force-with-lease=main:{dropped}" in result.stderr
    assert head(remote, "main") == dropped
    assert hook_events(repo, "pre-push")[-1]["updates"][0]["leased"] is False


def test_bare_force_with_lease_naming_the_branch_still_needs_an_expected_value(pushed, monkeypatch):
    repo, remote = pushed
    dropped = head(remote, "main")
    rewrite_last_commit(repo)
    monkeypatch.setenv(constants.ENV_MODE, "blocking")

    result = run_git(repo, "push", "--force-with-lease=main", "origin", "main", check=False)

    assert result.returncode != 0, said(result)
    assert head(remote, "main") == dropped


def test_a_lease_push_that_contains_the_remote_tip_drops_nothing(pushed, monkeypatch):
    repo, remote = pushed
    run_git(repo, "commit", "-q", "--no-verify", "--allow-empty", "-m", "on top")
    monkeypatch.setenv(constants.ENV_MODE, "blocking")

    result = run_git(repo, "push", "--force-with-lease", "origin", "main", check=False)

    assert result.returncode == 0, said(result)
    assert head(remote, "main") == head(repo)


def test_force_push_over_commits_never_fetched_is_blocked(pushed, monkeypatch, tmp_path):
    repo, remote = pushed
    other = tmp_path / "other"
    run_git(tmp_path, "clone", "-q", str(remote), str(other))
    run_git(other, "commit", "-q", "--allow-empty", "-m", "pushed by someone else")
    run_git(other, "push", "-q", "origin", "main")
    theirs = head(remote, "main")
    run_git(repo, "commit", "-q", "--no-verify", "--allow-empty", "-m", "ours")
    monkeypatch.setenv(constants.ENV_MODE, "blocking")

    result = run_git(repo, "push", "--force", "origin", "main", check=False)

    assert result.returncode != 0
    assert "the remote has commits this clone never fetched" in result.stderr
    assert head(remote, "main") == theirs


def test_deleting_a_remote_branch_is_blocked(pushed, monkeypatch):
    repo, remote = pushed
    monkeypatch.setenv(constants.ENV_MODE, "blocking")
    run_git(repo, "push", "-q", "origin", "main:feature")

    result = run_git(repo, "push", "origin", "--delete", "feature", check=False)

    assert result.returncode != 0
    assert "deletes the branch on the remote" in result.stderr
    assert head(remote, "feature") == head(repo)


def test_chained_pre_push_hook_reads_the_same_lines(pushed, monkeypatch):
    repo, remote = pushed
    hooks = repo / ".git" / "hooks"
    seen = repo.parent / "legacy-saw.txt"
    (hooks / "pre-push.legacy").write_text(f'#!/bin/sh\necho "$1" > {seen}\ncat >> {seen}\n')
    (hooks / "pre-push.legacy").chmod(0o755)
    rewrite_last_commit(repo)
    monkeypatch.setenv(constants.ENV_MODE, "blocking")

    result = run_git(repo, "push", "--force", "origin", "main", check=False)

    assert result.returncode != 0 and "blocked" in result.stderr
    first, line = seen.read_text().splitlines()
    assert first == "origin"
    assert line.split() == ["refs/heads/main", head(repo), "refs/heads/main", head(remote, "main")]


def test_post_checkout_and_post_rewrite_are_journaled(git_repo, cap_out):
    install_hooks(git_repo)
    old = head(git_repo)
    run_git(git_repo, "checkout", "-q", "-b", "topic")
    run_git(git_repo, "commit", "-q", "--allow-empty", "--amend", "-m", "amended")

    [checkout] = hook_events(git_repo, "post-checkout")
    assert (checkout["previous"], checkout["new"], checkout["branch_checkout"]) == (old, old, True)
    [rewrite] = hook_events(git_repo, "post-rewrite")
    assert (rewrite["command"], rewrite["rewritten"]) == ("amend", [[old, head(git_repo)]])


def test_mode_off_journals_nothing(git_repo, cap_out, monkeypatch):
    install_hooks(git_repo)
    monkeypatch.setenv(constants.ENV_MODE, "off")

    run_git(git_repo, "checkout", "-q", "-b", "topic")

    assert hook_events(git_repo, "post-checkout") == []


def test_guard_counts_only_when_it_names_an_ancestor(tmp_path):
    probe = "import sys; from interlock.hooks.dispatch import _is_nested; sys.exit(0 if _is_nested() else 1)"
    env = dict(os.environ)

    env[constants.ENV_HOOK_ACTIVE] = str(os.getpid())  # this test process: an ancestor
    assert subprocess.run([sys.executable, "-c", probe], env=env).returncode == 0
    sibling = subprocess.Popen(["sleep", "5"])
    try:
        env[constants.ENV_HOOK_ACTIVE] = str(sibling.pid)  # alive, not an ancestor: forged
        assert subprocess.run([sys.executable, "-c", probe], env=env).returncode == 1
    finally:
        sibling.kill()
        sibling.wait()
    env[constants.ENV_HOOK_ACTIVE] = "1"
    assert subprocess.run([sys.executable, "-c", probe], env=env).returncode == 1


def test_hook_run_rejects_an_unknown_hook_name(cap_out):
    from interlock.hooks.dispatch import shim_main

    assert shim_main(["pre-frobnicate"]) == 2
    assert "unknown hook" in cap_out[1].getvalue()


@pytest.mark.parametrize(
    ("argv", "leases"),
    [
        (["git", "push", "origin", "main"], []),
        (["git", "push", "--force-with-lease", "origin"], [Lease(None, None)]),
        (["git", "push", "--force-with-lease=main", "o"], [Lease("main", None)]),
        (["git", "push", "--force-with-lease=main:abc", "o"], [Lease("main", "abc")]),
        (["git", "push", "--force-with-lease=main:abc", "--no-force-with-lease", "o"], []),
        (["git", "-C", "x", "push", "-f", "o", "--", "--force-with-lease"], []),
        (["git", "status"], []),
    ],
)
def test_parse_leases_reads_the_push_command_line(argv, leases):
    assert parse_leases(argv) == leases


def test_verification_is_silent_without_green_points(git_repo):
    from interlock.hooks.precommit import is_verified

    (git_repo / "src" / "app.py").write_text("print('changed')\n")
    run_git(git_repo, "add", "-A")

    assert is_verified(require_repo(git_repo)) is None


def test_commit_of_the_green_tree_is_verified_despite_untracked_scratch_files(git_repo):
    from interlock.hooks.precommit import is_verified
    from interlock.memory.snapshot import take_snapshot

    loc = require_repo(git_repo)
    (git_repo / "src" / "app.py").write_text("print('fixed')\n")
    (git_repo / "scratch.txt").write_text("notes, never committed\n")
    take_snapshot(loc, kind="green", run="run-1")
    run_git(git_repo, "add", "src/app.py")

    assert is_verified(loc, run_id="run-1") is True
    (git_repo / "src" / "app.py").write_text("print('fixed, then edited again')\n")
    run_git(git_repo, "add", "src/app.py")
    assert is_verified(loc, run_id="run-1") is False
    assert is_verified(loc, run_id="another-run") is None  # greens of other runs do not count
    run_git(git_repo, "pack-refs", "--all")
    assert is_verified(loc, run_id="run-1") is False  # packed green refs are found too


def test_index_tree_reads_the_index_git_is_committing(git_repo):
    from interlock.hooks.precommit import index_tree

    loc = require_repo(git_repo)
    committed = index_tree(loc)
    index_before = (git_repo / ".git" / "index").read_bytes()
    (git_repo / "src" / "app.py").write_text("print('commit -a')\n")
    other = git_repo.parent / "other-index"
    env = {**os.environ, "GIT_INDEX_FILE": str(other)}
    subprocess.run(["git", "read-tree", "HEAD"], cwd=git_repo, env=env, check=True)
    subprocess.run(["git", "add", "src/app.py"], cwd=git_repo, env=env, check=True)

    assert index_tree(loc, str(other)) not in (None, committed)
    assert (git_repo / ".git" / "index").read_bytes() == index_before


TEST_BEFORE = """\
from app import add


def test_add():
    assert add(2, 2) == 4
"""
TEST_WEAKENED = """\
from app import add


def test_add():
    assert add(2, 2)
"""


@pytest.fixture
def repo_with_tests(git_repo: Path, cap_out) -> Path:
    """A repo with a real test, committed, and interlock's hooks installed."""
    (git_repo / "app.py").write_text("def add(a, b):\n    return a + b\n")
    (git_repo / "tests").mkdir()
    (git_repo / "tests" / "test_app.py").write_text(TEST_BEFORE)
    run_git(git_repo, "add", "-A")
    run_git(git_repo, "commit", "-q", "-m", "tests")
    install_hooks(git_repo)
    return git_repo


def test_commit_of_a_weakened_test_is_blocked_in_blocking_mode(repo_with_tests, monkeypatch):
    monkeypatch.setenv(constants.ENV_MODE, "blocking")
    before = head(repo_with_tests)
    (repo_with_tests / "tests" / "test_app.py").write_text(TEST_WEAKENED)
    run_git(repo_with_tests, "add", "-A")

    result = run_git(repo_with_tests, "commit", "-m", "weaken the test", check=False)

    assert result.returncode != 0
    assert "interlock: [self-authored] blocked commit" in result.stderr
    assert "tests/test_app.py" in result.stderr and "test_add" in result.stderr
    assert "interlock approve" in result.stderr
    assert head(repo_with_tests) == before
    event = hook_events(repo_with_tests, "pre-commit")[-1]
    assert (event["verdict"], event["would_block"]) == ("block", True)


def test_commit_all_of_a_weakened_test_is_blocked_too(repo_with_tests, monkeypatch):
    monkeypatch.setenv(constants.ENV_MODE, "blocking")
    (repo_with_tests / "tests" / "test_app.py").write_text(
        TEST_WEAKENED
    )  # not staged: commit -a stages it

    result = run_git(repo_with_tests, "commit", "-a", "-m", "weaken the test", check=False)

    assert result.returncode != 0
    assert "blocked commit" in result.stderr


def test_commit_of_a_weakened_test_is_warned_in_advisory_mode(repo_with_tests):
    (repo_with_tests / "tests" / "test_app.py").write_text(TEST_WEAKENED)
    run_git(repo_with_tests, "add", "-A")

    result = run_git(repo_with_tests, "commit", "-m", "weaken the test")

    assert "warning (advisory mode, the commit goes ahead)" in result.stderr
    assert run_git(repo_with_tests, "log", "-1", "--format=%s").stdout.strip() == "weaken the test"
    event = hook_events(repo_with_tests, "pre-commit")[-1]
    assert (event["verdict"], event["would_block"]) == ("warn", True)


def test_commit_of_a_stronger_test_passes_silently_in_blocking_mode(repo_with_tests, monkeypatch):
    monkeypatch.setenv(constants.ENV_MODE, "blocking")
    stronger = TEST_BEFORE + "    assert add(-1, 1) == 0\n"
    (repo_with_tests / "tests" / "test_app.py").write_text(stronger)
    run_git(repo_with_tests, "add", "-A")

    result = run_git(repo_with_tests, "commit", "-m", "one more assertion", check=False)

    assert result.returncode == 0, said(result)
    assert "interlock" not in said(result)


def test_commit_of_an_unverified_tree_gets_the_verify_before_done_note(
    repo_with_tests, monkeypatch
):
    from interlock.memory.snapshot import take_snapshot

    monkeypatch.setenv(constants.ENV_RUN, "run-7")
    take_snapshot(require_repo(repo_with_tests), kind="green", run="run-7")
    (repo_with_tests / "app.py").write_text("def add(a, b):\n    return b + a\n")
    run_git(repo_with_tests, "add", "-A")

    result = run_git(repo_with_tests, "commit", "-m", "untested edit")

    assert "interlock: [verify-before-done]" in result.stderr
    assert hook_events(repo_with_tests, "pre-commit")[-1]["verified"] is False


def test_a_lease_on_another_branch_does_not_cover_this_one(git_repo):
    from interlock.hooks.prepush import PushLine, lease_accepts

    loc = require_repo(git_repo)
    sha = head(git_repo)
    line = PushLine("refs/heads/feature/main", sha, "refs/heads/feature/main", sha)

    assert lease_accepts(loc, "origin", [Lease("main", sha)], line) is False
    assert lease_accepts(loc, "origin", [Lease("feature/main", sha)], line) is True
    assert lease_accepts(loc, "origin", [Lease("refs/heads/feature/main", sha[:12])], line) is True
