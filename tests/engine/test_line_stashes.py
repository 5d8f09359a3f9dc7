"""A save and its own destruction on one line: what `git stash` put in an entry is destroyed
by a later `git stash drop|clear` on the same line, brought back by a `pop`, and commits made
on the line stay held by HEAD's reflog when their branch goes. Real repositories, the real
CLI, and real git to check the model against what git does."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from interlock.engine.check import evaluate


def judge(repo: Path, line: str):
    return evaluate(line, str(repo), mode="blocking").result


@pytest.fixture
def dirty(git_repo: Path) -> Path:
    """A repository with a person's untracked notes and an edited tracked file."""
    (git_repo / "notes.md").write_text("a person's notes\n")
    (git_repo / "src" / "app.py").write_text("print('edited')\n")
    return git_repo


def lost_of(result) -> set[str]:
    return {Path(p).name for f in result.findings for p in f.lost}


@pytest.mark.parametrize(
    ("line", "lost"),
    [
        ("git stash -u && git stash drop", {"notes.md", "app.py"}),
        ("git stash --include-untracked && git stash drop stash@{0}", {"notes.md", "app.py"}),
        ("git stash && git stash drop", {"app.py"}),  # a plain stash keeps no untracked file
        ("git stash; git stash drop", {"app.py"}),  # the stash may well have run
        ("git stash push -m wip && git stash clear", {"app.py"}),
        ("git stash -u -- notes.md && git stash drop 0", {"notes.md"}),
        ("git add -A && git stash && git stash drop", {"notes.md", "app.py"}),
        ("git stash -u && git stash show -p && git stash drop", {"notes.md", "app.py"}),
        ("bash -c 'git stash -u && git stash drop'", {"notes.md", "app.py"}),
    ],
)
def test_dropping_the_stash_the_line_made_destroys_what_it_took(dirty, line, lost):
    result = judge(dirty, line)
    assert result.verdict == "block"
    assert {f.rule for f in result.findings} <= {"git.stash-drop", "git.stash-clear"}
    assert lost_of(result) == lost
    assert "the `git stash` earlier on this line" in result.findings[0].reason


@pytest.mark.parametrize(
    "line",
    [
        "git stash && git stash pop",
        "git stash -u && git pull --rebase && git stash pop",
        "git stash && git stash apply && git checkout -- .",  # the entry still holds it
        "git stash && git stash branch wip",
        "git stash && git stash list",
    ],
)
def test_a_stash_the_line_gives_back_or_keeps_is_no_discard(dirty, line):
    result = judge(dirty, line)
    assert result.verdict == "allow", result.findings


def test_after_a_pop_the_work_is_in_the_tree_again_and_a_discard_reaches_it(dirty):
    result = judge(dirty, "git stash && git stash pop && git checkout -- .")
    assert [f.rule for f in result.findings] == ["git.checkout-discard"]
    assert lost_of(result) == {"app.py"}
    dropped = judge(dirty, "git stash && git stash drop && git reset --hard")
    assert {f.rule for f in dropped.findings} == {"git.stash-drop", "git.reset-hard"}


def test_a_drop_below_the_lines_own_entry_is_judged_as_before(dirty, git):
    assert judge(dirty, "git stash && git stash drop stash@{1}").verdict == "allow"
    git(dirty, "stash", "-q")  # an older entry, from before the line
    (dirty / "src" / "app.py").write_text("print('again')\n")
    result = judge(dirty, "git stash && git stash drop stash@{1}")
    assert result.verdict == "block" and "unsaved here: the stash" in result.findings[0].reason


def test_a_push_that_finds_nothing_makes_no_entry_so_the_drop_takes_an_older_one(git_repo, git):
    assert judge(git_repo, "git stash && git stash drop").verdict == "allow"
    (git_repo / "src" / "app.py").write_text("print('stashed before')\n")
    git(git_repo, "stash", "-q")
    result = judge(git_repo, "git stash && git stash drop")
    assert result.verdict == "block"
    assert "unsaved here: the stash" in result.findings[0].reason  # the entry made before the line


def test_git_keeps_the_entry_when_a_pop_conflicts(git_repo, git):
    """Why a pop is never a discard: on a conflict git applies what it can and keeps the
    entry in the list."""
    (git_repo / "src" / "app.py").write_text("print('mine')\n")
    line = (
        "git stash -q && echo 'print(1)' > src/app.py && git commit -qam other "
        "&& git stash pop; git stash list"
    )
    assert judge(git_repo, line).verdict == "allow"
    ran = subprocess.run(["bash", "-c", line], cwd=git_repo, capture_output=True, text=True)
    assert "stash@{0}" in ran.stdout
    shown = git(git_repo, "stash", "show", "-p").stdout
    assert "print('mine')" in shown


def test_a_commit_made_on_the_line_stays_in_heads_reflog_when_its_branch_goes(git_repo, git):
    (git_repo / "notes.md").write_text("a person's notes\n")
    line = "git checkout -qb tmp && git add -A && git commit -qm wip && git checkout -q - && git branch -qD tmp"
    assert judge(git_repo, line).verdict == "allow"
    subprocess.run(["bash", "-c", line], cwd=git_repo, check=True)
    kept = git(git_repo, "log", "-g", "--format=%s", "HEAD").stdout.split()
    assert "wip" in kept
    assert "a person's notes" in git(git_repo, "show", "HEAD@{1}:notes.md").stdout


def test_commits_that_were_there_before_the_line_still_count(git_repo, git):
    git(git_repo, "checkout", "-q", "-b", "feature")
    (git_repo / "README.md").write_text("feature work\n")
    git(git_repo, "commit", "-qam", "feature work")
    (git_repo / "notes.md").write_text("notes\n")
    line = "git add -A && git commit -qm wip && git checkout -q main && git branch -D feature"
    result = judge(git_repo, line)
    assert result.verdict == "block"
    assert [f.rule for f in result.findings] == ["git.branch-force-delete"]
    amend = judge(git_repo, "git commit --amend -qam x && git reset --hard HEAD~1")
    assert amend.verdict == "block"  # the amended-away tip was the branch's own commit


def test_through_the_real_cli_the_drop_is_refused_with_what_it_would_lose(dirty, interlock):
    got = interlock(dirty, "check", "--mode", "blocking", "git stash -u && git stash drop")
    assert got.returncode == 126
    assert "interlock: [discard] would block: git stash drop" in got.stderr
    assert "the `git stash` earlier on this line put the unsaved work there" in got.stderr
    assert "notes.md" in got.stderr and "src/app.py" in got.stderr
    ok = interlock(dirty, "check", "--mode", "blocking", "git stash -u && git stash pop")
    assert ok.returncode == 0, ok.stderr


@pytest.mark.parametrize(
    "line",
    [
        "git stash -u && git stash apply && git stash drop",
        "git stash && git stash apply -q && git stash list && git stash drop stash@{0}",
    ],
)
def test_a_drop_right_after_the_apply_that_put_the_work_back_is_a_pop_in_two_steps(
    dirty, git, line
):
    assert judge(dirty, line).verdict == "allow"
    subprocess.run(["bash", "-c", line], cwd=dirty, check=True, capture_output=True)
    assert (dirty / "src" / "app.py").read_text() == "print('edited')\n"  # git agrees
    assert git(dirty, "stash", "list").stdout == ""


@pytest.mark.parametrize(
    "line",
    [
        "git stash -u; git stash apply; git stash drop",  # the apply may have failed
        "git stash -u && git stash apply && git checkout -- . && git stash drop",
        "git stash -u && git stash apply && rm notes.md && git stash drop",
        "git stash && git stash apply && git stash && git stash drop",
        "git stash -u && git stash apply stash@{1}; git stash drop",
    ],
)
def test_a_drop_after_the_applied_work_may_be_gone_again_still_destroys_it(dirty, line):
    result = judge(dirty, line)
    assert result.verdict == "block"
    assert "git.stash-drop" in {f.rule for f in result.findings}


def test_a_drop_after_a_pop_that_conflicted_destroys_the_entry_git_kept(git_repo, git):
    (git_repo / "src" / "app.py").write_text("print('mine')\n")
    line = (
        "git stash -q && echo 'print(1)' > src/app.py && git commit -qam other "
        "&& git stash pop || git stash drop"
    )
    result = judge(git_repo, line)
    assert result.verdict == "block" and result.findings[0].rule == "git.stash-drop"
    assert lost_of(result) == {"app.py"}
    subprocess.run(["bash", "-c", line], cwd=git_repo, capture_output=True)
    assert git(git_repo, "stash", "list").stdout == ""  # git agrees: the entry is gone
    # and the person's edit survives only inside the conflict markers of an unmerged file
    assert "<<<<<<<" in (git_repo / "src" / "app.py").read_text()


@pytest.mark.parametrize(
    "line",
    [
        "git stash -u; git pull; git stash pop; git stash drop",
        "git stash -u && git pull --rebase && git stash pop; git stash drop",
        "git stash && git rebase main; git stash pop || git stash drop",
        "git stash -u && git stash branch tmp || git stash drop",
    ],
)
def test_a_pop_that_may_have_failed_leaves_the_entry_for_the_drop(dirty, line):
    result = judge(dirty, line)
    assert result.verdict == "block"
    assert "git.stash-drop" in {f.rule for f in result.findings}


def test_a_pop_that_surely_succeeded_took_the_entry_first(dirty):
    assert judge(dirty, "git stash -u && git pull && git stash pop && git stash drop").verdict == (
        "allow"
    )
