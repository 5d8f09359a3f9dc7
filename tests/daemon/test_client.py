"""The client for the full CLI, and the hot path's parsing of `check`: the daemon's answer is
exactly the full CLI's answer (what the hot client imports: test_hotclient.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from interlock import constants
from interlock.__main__ import parse_check_args
from interlock.daemon import client
from interlock.engine.facts import collect_facts
from interlock.git import discover


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["ls", "-la"], {"command": "ls -la", "json": False, "mode": None}),
        (
            ["--json", "--mode", "blocking", "rm -rf x"],
            {"command": "rm -rf x", "json": True, "mode": "blocking"},
        ),
        (
            ["--mode=off", "--assume-dirty", "--", "-x"],
            {"command": "-x", "mode": "off", "assume_dirty": True},
        ),
        (["git", "push", "--force"], {"command": "git push --force"}),
        (["ls", "--json"], {"command": "ls --json", "json": False}),
    ],
)
def test_check_arguments_are_parsed_like_the_full_cli(args, expected):
    parsed = parse_check_args(args)
    assert parsed is not None
    assert {k: parsed[k] for k in expected} == expected


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["--batch"],
        ["--help"],
        ["-h"],
        ["--json"],
        ["--mode"],
        ["--cwd", "/no/such/dir", "ls"],
        ["--what", "ls"],
    ],
)
def test_anything_unusual_goes_to_the_full_cli(args):
    assert parse_check_args(args) is None


def test_locate_finds_the_same_worktree_as_discover(git_repo, tmp_path, git):
    linked = tmp_path / "linked"
    git(git_repo, "worktree", "add", "-q", str(linked))
    (git_repo / "src" / "deep").mkdir()
    for start in (git_repo, git_repo / "src" / "deep", linked, git_repo / ".git", tmp_path):
        thin, full = client.locate(str(start)), discover(start)
        assert (thin is None) == (full is None), start
        if thin is not None and full is not None:
            assert (thin.worktree, thin.git_dir, thin.state_dir) == (
                full.worktree,
                full.git_dir,
                full.state_dir,
            )


def test_a_real_start_finds_what_resolving_it_finds_whatever_git_dir_it_has(
    git_repo, tmp_path, git
):
    # find(start, real=True) skips resolving a path getcwd() gave, and `<top>/.git` when it
    # is a directory itself: a symlinked .git, a gitfile (linked worktree) are still resolved
    from interlock.daemon import hotwhere

    real_tmp = tmp_path.resolve()
    linked = real_tmp / "linked"
    git(git_repo, "worktree", "add", "-q", str(linked))
    moved = real_tmp / "elsewhere.git"
    other = real_tmp / "other"
    git(real_tmp, "clone", "-q", str(git_repo), str(other))
    (other / ".git").rename(moved)
    (other / ".git").symlink_to(moved)
    via_link = real_tmp / "via-link"
    via_link.symlink_to(git_repo.resolve())
    (git_repo / "src" / "deep").mkdir()
    starts = [git_repo, git_repo / "src" / "deep", linked, other, other / "src", real_tmp]
    for start in [*starts, via_link, via_link / "src", other / ".git", moved]:
        path = str(start.resolve())
        found, resolved = hotwhere.find(path, real=True), hotwhere.find(str(start))
        full = discover(start)  # git.discover, on strings too: the same answer
        assert (found is None) == (resolved is None) == (full is None), start
        if found is not None and resolved is not None and full is not None:
            assert (found.worktree, found.git_dir) == (resolved.worktree, resolved.git_dir)
            assert (found.worktree, found.git_dir) == (str(full.worktree), str(full.git_dir))
    symlinked = hotwhere.find(str(other), real=True)
    assert symlinked is not None and symlinked.git_dir == str(moved)
    assert hotwhere.find(str(via_link)).worktree == str(git_repo.resolve())


def test_a_request_to_a_worktree_without_a_daemon_is_none(git_repo):
    assert client.request(discover(git_repo), "ping") is None


CHECKS = [
    ["ls -la"],
    ["--json", "git checkout -- ."],
    ["git checkout -- ."],
    ["--mode", "blocking", "git reset --hard"],
    ["--json", "--assume-dirty", "pytest || true"],
    ["--", "rm", "-rf", "src"],
]


def test_the_daemon_answers_checks_exactly_as_the_full_cli(daemons, git_repo, shell, interlock):
    shell(git_repo, "echo unsaved >> src/app.py")
    daemons.start(git_repo)
    for args in CHECKS:
        inline = interlock(git_repo, "check", *args, env={constants.ENV_NO_DAEMON: "1"})
        assert inline.returncode in (0, 126), inline.stderr
        served = interlock(git_repo, "check", *args)
        assert (served.stdout, served.stderr, served.returncode) == (
            inline.stdout,
            inline.stderr,
            inline.returncode,
        ), args
    requests = json.loads(interlock(git_repo, "daemon", "status", "--json").stdout)["requests"]
    assert requests >= len(CHECKS)


def test_the_client_environment_reaches_the_check(daemons, git_repo, shell, interlock):
    shell(git_repo, "echo unsaved >> src/app.py")
    daemons.start(git_repo)
    env = {constants.ENV_MODE: "blocking"}
    served = interlock(git_repo, "check", "git checkout -- .", env=env)
    inline = interlock(
        git_repo, "check", "git checkout -- .", env={**env, constants.ENV_NO_DAEMON: "1"}
    )
    assert served.returncode == inline.returncode == 126
    assert served.stderr == inline.stderr


def test_a_daemon_of_another_build_is_not_trusted_and_stops(daemons, git_repo, poll, pid_alive):
    pid = daemons.start(git_repo)
    loc = daemons.track(git_repo)
    stale = client.request(loc, "check", command="ls", cwd=str(git_repo), build="0.0.0:1")
    assert stale is not None and not stale.get("ok")
    poll(lambda: not pid_alive(pid), what="the stale daemon to stop")
    current = client.request(loc, "check", command="ls", cwd=str(git_repo))
    assert current is None  # gone: the next front door answers inline and starts a fresh one


def test_a_check_with_the_daemon_down_is_answered_inline_and_starts_it(
    daemons, git_repo, poll, interlock
):
    loc = daemons.track(git_repo)
    inline = interlock(git_repo, "check", "ls", env={constants.ENV_NO_DAEMON: "1"})
    first = interlock(git_repo, "check", "ls")
    assert (first.stdout, first.stderr, first.returncode) == (
        inline.stdout,
        inline.stderr,
        inline.returncode,
    )
    poll(lambda: client.request(loc, "ping"), what="the daemon a front door started")


def test_facts_over_the_socket_follow_the_tree_and_the_index(daemons, git_repo, git, shell, poll):
    daemons.start(git_repo)
    loc = discover(git_repo)

    def facts() -> dict:
        return client.call(loc, "facts")["facts"]

    assert facts() == collect_facts(loc).to_json()
    poll(lambda: client.call(loc, "facts")["warm"], what="warm facts")
    shell(git_repo, "echo new > untracked.txt")
    assert "untracked.txt" in facts()["untracked"]
    git(git_repo, "add", "untracked.txt")
    assert "untracked.txt" in facts()["staged"]
    assert facts() == collect_facts(loc).to_json()


def test_facts_are_served_for_a_linked_worktree_too(daemons, git_repo, tmp_path: Path, git, shell):
    linked = tmp_path / "linked"
    git(git_repo, "worktree", "add", "-q", str(linked))
    daemons.start(linked)
    loc = discover(linked)
    shell(linked, "echo x >> README.md")
    assert "README.md" in client.call(loc, "facts")["facts"]["unstaged"]
    assert client.call(loc, "facts")["facts"] == collect_facts(loc).to_json()
