"""Refs moved or deleted by `git update-ref`, and refs named at run time, judged by the tree.

`git update-ref REF NEW` rewinds a branch exactly as `git branch -f` or `git reset --soft`
does, and moves a tag as `git tag -f` does: the commits only the old tip held become
unreferenced. It loses nothing when it creates the ref, when NEW contains the old tip, or when
another ref holds those commits. A ref or revision named at run time (`git branch -D "$B"`,
`git reset --hard "$R"`, `git update-ref --stdin`) may be any of them: unknown is not safe.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from interlock.engine.check import evaluate
from interlock.git import discover
from interlock.run.holds import hold_commits


def run_git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True
    ).stdout.strip()


def commit(repo: Path, message: str) -> str:
    run_git(repo, "commit", "-q", "--allow-empty", "-m", message)
    return run_git(repo, "rev-parse", "HEAD")


@pytest.fixture
def refs_repo(git_repo: Path) -> Path:
    """main: initial, shared, ahead (only main holds `ahead`); topic: shared, topic-only;
    tag v1 alone holds `tagged` (off every branch); the tree is clean."""
    commit(git_repo, "shared")
    run_git(git_repo, "branch", "topic")
    run_git(git_repo, "switch", "-q", "--detach")
    commit(git_repo, "tagged")
    run_git(git_repo, "tag", "v1")
    run_git(git_repo, "switch", "-q", "topic")
    commit(git_repo, "topic-only")
    run_git(git_repo, "switch", "-q", "main")
    commit(git_repo, "ahead")
    return git_repo


def verdict(command: str, cwd: Path) -> tuple[str, list[str]]:
    result = evaluate(command, str(cwd), mode="blocking").result
    return result.verdict, [f"{f.rule}: {f.reason}" for f in result.findings]


@pytest.mark.parametrize(
    ("command", "rule", "lost"),
    [
        ("git update-ref HEAD HEAD~1", "git.update-ref-move", "1 commit no other ref holds"),
        ("git update-ref refs/heads/main HEAD~1", "git.update-ref-move", "1 commit"),
        ("git update-ref refs/heads/topic main", "git.update-ref-move", "1 commit"),
        ("git update-ref -m why refs/heads/topic HEAD~1", "git.update-ref-move", "1 commit"),
        ("git update-ref refs/tags/v1 HEAD", "git.update-ref-move", "1 commit"),
        ("git update-ref -d HEAD", "git.update-ref-delete", "1 commit"),
        ("git update-ref -d refs/tags/v1", "git.update-ref-delete", "1 commit"),
        ("git update-ref -d refs/heads/topic", "git.update-ref-delete", "1 commit"),
    ],
)
def test_update_ref_that_rewinds_or_deletes_a_ref_loses_the_commits_only_it_held(
    refs_repo: Path, command: str, rule: str, lost: str
):
    found, reasons = verdict(command, refs_repo)
    assert found == "block", reasons
    assert any(r.startswith(rule) and lost in r for r in reasons), reasons


@pytest.mark.parametrize(
    "command",
    [
        "git update-ref refs/heads/new HEAD~1",  # creates a ref
        "git update-ref refs/heads/main HEAD",  # moves nowhere
        "git update-ref refs/heads/topic topic",
        "git update-ref refs/tags/v2 HEAD~1",
        "git update-ref refs/heads/main no-such-rev",  # git refuses
        "git update-ref -d refs/heads/no-such-branch",
        "git update-ref refs/remotes/origin/x HEAD",
    ],
)
def test_update_ref_that_loses_no_commit_is_allowed(refs_repo: Path, command: str):
    assert verdict(command, refs_repo) == ("allow", [])


def test_update_ref_to_a_descendant_of_the_old_tip_is_allowed(refs_repo: Path):
    run_git(refs_repo, "branch", "behind", "HEAD~1")
    assert verdict("git update-ref refs/heads/behind main", refs_repo) == ("allow", [])
    assert verdict("git update-ref refs/heads/main behind", refs_repo)[0] == "block"


def test_update_ref_rewinding_a_branch_another_ref_holds_is_allowed(refs_repo: Path):
    run_git(refs_repo, "tag", "keep", "topic")
    assert verdict("git update-ref refs/heads/topic main", refs_repo) == ("allow", [])


def test_update_ref_to_a_tree_keeps_nothing_of_the_old_tip(refs_repo: Path):
    tree = run_git(refs_repo, "rev-parse", "HEAD^{tree}")
    assert verdict(f"git update-ref refs/tags/v1 {tree}", refs_repo)[0] == "block"
    assert verdict(f"git update-ref refs/tags/v1 {tree[:7]}0000bad", refs_repo) == ("allow", [])


def test_update_ref_of_a_detached_head_loses_the_commits_only_it_holds(refs_repo: Path):
    run_git(refs_repo, "switch", "-q", "--detach")
    commit(refs_repo, "detached-only")
    found, reasons = verdict("git update-ref HEAD main", refs_repo)
    assert found == "block" and any("1 commit" in r for r in reasons), reasons
    assert verdict("git update-ref -d HEAD", refs_repo)[0] == "block"


def test_update_ref_is_judged_like_branch_force_and_tag_force(refs_repo: Path):
    for first, second in [
        ("git branch -f topic main", "git update-ref refs/heads/topic main"),
        ("git tag -f v1 HEAD", "git update-ref refs/tags/v1 HEAD"),
    ]:
        assert verdict(first, refs_repo)[0] == verdict(second, refs_repo)[0] == "block"


@pytest.mark.parametrize(
    "command",
    [
        "git update-ref --stdin",
        "echo 'delete refs/heads/topic' | git update-ref --stdin",
        'git update-ref -d "$R"',
        'git update-ref "$R" HEAD~1',
        'git update-ref refs/heads/topic "$X"',
        'git reset --hard "$R"',
        'git branch -D "$B"',
        'git branch -f "$B" HEAD~1',
        'git tag -d "$T"',
        "git branch -D topic $(cat names)",
    ],
)
def test_a_ref_named_at_run_time_may_be_one_that_alone_holds_commits(refs_repo: Path, command: str):
    found, reasons = verdict(command, refs_repo)
    assert found == "block", reasons
    assert any("commit" in r for r in reasons), reasons


def test_a_ref_named_at_run_time_loses_nothing_when_every_commit_is_held_twice(git_repo: Path):
    run_git(git_repo, "branch", "copy")
    run_git(git_repo, "tag", "t1")
    for command in ('git branch -D "$B"', 'git tag -d "$T"', 'git reset --hard "$R"'):
        assert verdict(command, git_repo) == ("allow", []), command


def test_a_tag_named_at_run_time_is_judged_among_tags_only(refs_repo: Path):
    run_git(refs_repo, "tag", "v1-copy", "v1")
    assert verdict('git tag -d "$T"', refs_repo) == ("allow", [])  # `ahead`: no tag's
    assert verdict('git branch -D "$B"', refs_repo)[0] == "block"


def test_hold_for_update_ref_keeps_the_moved_ref_not_head(refs_repo: Path):
    loc = discover(str(refs_repo))
    assert loc is not None
    topic_only = run_git(refs_repo, "rev-parse", "topic")
    kept, loose = hold_commits(
        loc, ("refs/heads/topic", "main"), "git.update-ref-move", [topic_only]
    )
    assert loose == []
    assert len(kept) == 1 and kept[0].startswith(f"topic at {topic_only[:12]}"), kept


@pytest.mark.parametrize(
    "command",
    [
        "git checkout -B topic main",
        "git switch -C topic main",
        "git switch --force-create=topic main",
        "git worktree add -B topic ../wt main",
        "git checkout -B main HEAD~1",
        "git switch -C main HEAD~1",
        "git branch -f topic main",
        "git branch --force topic",
        'git checkout -B "$B" main',
        'git switch -C topic "$START"',
    ],
)
def test_resetting_an_existing_branch_loses_the_commits_only_it_held(refs_repo: Path, command: str):
    found, reasons = verdict(command, refs_repo)
    assert found == "block", reasons
    assert any(r.startswith("git.branch-force-move") and "commit" in r for r in reasons), reasons


@pytest.mark.parametrize(
    "command",
    [
        "git checkout -B fresh main",
        "git switch -C fresh HEAD~1",
        "git worktree add -B fresh ../wt",
        "git checkout -B main",
        "git switch -C topic topic",
        "git branch -f topic topic",
        "git worktree add -b other ../wt",
    ],
)
def test_creating_or_resetting_a_branch_in_place_loses_nothing(refs_repo: Path, command: str):
    assert verdict(command, refs_repo) == ("allow", [])


def test_a_branch_reset_to_a_descendant_loses_nothing(refs_repo: Path):
    run_git(refs_repo, "branch", "behind", "HEAD~1")
    assert verdict("git checkout -B behind main", refs_repo) == ("allow", [])
    assert verdict("git branch -f behind main", refs_repo) == ("allow", [])


@pytest.mark.parametrize(
    "command",
    [
        'git fetch origin "+$B:$B"',
        'git fetch -f origin "$SPEC"',
        'git fetch . "+refs/heads/*:refs/heads/*"',
    ],
)
def test_a_forced_fetch_into_branches_named_at_run_time_may_overwrite_any(
    refs_repo: Path, command: str
):
    found, reasons = verdict(command, refs_repo)
    assert found == "block", reasons
    assert any(r.startswith("git.fetch-force") and "commit" in r for r in reasons), reasons


def test_an_unforced_fetch_of_a_run_time_name_is_allowed(refs_repo: Path):
    assert verdict('git fetch origin "$B"', refs_repo) == ("allow", [])


@pytest.mark.parametrize(
    ("command", "rule"),
    [
        ('git push origin "+$B"', "git.push-force"),
        ('git push origin ":$B"', "git.push-force"),
        ('git push --repo="$R" "+main"', "git.push-force"),
        ('git gc --prune="$WHEN"', "git.gc-prune-now"),
    ],
)
def test_a_run_time_refspec_or_expiry_keeps_what_it_surely_says(
    refs_repo: Path, command: str, rule: str
):
    found, reasons = verdict(command, refs_repo)
    assert found == "block", reasons
    assert any(r.startswith(rule) for r in reasons), reasons


def test_a_push_or_gc_with_a_plain_run_time_value_is_allowed(refs_repo: Path):
    assert verdict('git push origin "$B"', refs_repo) == ("allow", [])
    assert verdict("git gc --prune=2.weeks.ago", refs_repo) == ("allow", [])


def test_past_64_candidates_a_ref_named_at_run_time_is_taken_to_lose_something(git_repo: Path):
    head = run_git(git_repo, "rev-parse", "HEAD")
    stdin = "".join(f"create refs/heads/b{n} {head}\n" for n in range(63))
    subprocess.run(
        ["git", "update-ref", "--stdin"], cwd=git_repo, input=stdin, text=True, check=True
    )
    assert verdict('git branch -D "$B"', git_repo) == ("allow", [])  # main + 63: 64 judged
    run_git(git_repo, "branch", "b63")
    found, reasons = verdict('git branch -D "$B"', git_repo)
    assert found == "block" and any("among 65" in r for r in reasons), reasons


def test_a_forced_fetch_named_at_run_time_is_judged_among_branches(refs_repo: Path):
    run_git(refs_repo, "branch", "keep-ahead", "main")
    run_git(refs_repo, "branch", "keep-topic", "topic")
    assert verdict('git fetch -f origin "$S"', refs_repo) == ("allow", [])  # v1: a tag's
    assert verdict('git update-ref -d "$R"', refs_repo)[0] == "block"  # any ref: v1's commit
