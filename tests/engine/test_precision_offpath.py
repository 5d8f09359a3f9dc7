"""Precision off the happy path (issue 14), through `evaluate` in real repositories: commands
run from a subdirectory, git pathspec magic, the kinds of loss that are not files, a
repository named by --git-dir/--work-tree, lines outside any repository, unknown targets,
an unborn HEAD and revisions that do not resolve, and globs other than `*`."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from interlock.engine.check import evaluate
from interlock.engine.findings import Finding


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True
    ).stdout


@pytest.fixture
def tree(git_repo: Path) -> Path:
    """src/app.py modified, sub/clean.py committed and clean, notes/ wholly untracked (git
    shows it as one entry), xa.py untracked."""
    (git_repo / "sub").mkdir()
    (git_repo / "sub" / "clean.py").write_text("clean\n")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-qm", "sub")
    (git_repo / "src" / "app.py").write_text("edited\n")
    (git_repo / "notes").mkdir()
    (git_repo / "notes" / "todo.md").write_text("todo\n")
    (git_repo / "notes" / "x1.py").write_text("1\n")
    (git_repo / "xa.py").write_text("untracked\n")
    return git_repo


def discards(command: str, cwd: Path) -> list[Finding]:
    result = evaluate(command, str(cwd), mode="blocking").result
    return [f for f in result.findings if f.kind == "discard"]


def lost(command: str, cwd: Path) -> set[str]:
    """The worktree-relative paths a line would lose (as the finding's reason names them)."""
    root = cwd
    while not (root / ".git").exists():
        root = root.parent
    return {
        str(Path(p).relative_to(root.resolve())) for f in discards(command, cwd) for p in f.lost
    }


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("git clean -fd :/", {"notes", "xa.py"}),
        ("git clean -fd :/notes", {"notes"}),
        ("git clean -fd ':(top)notes'", {"notes"}),
        ("git clean -fd ':(top,glob)x*.py'", {"xa.py"}),
        ("git clean -fd ':/:xa.py'", {"xa.py"}),
        ("git checkout -- :/", {"src/app.py"}),
        ("git checkout -- :/src", {"src/app.py"}),
        ("git restore --source=HEAD :/", {"src/app.py"}),
        ("git rm -rf :/src", {"src/app.py"}),
        ("git checkout -- :/sub", set()),
        ("git checkout -- :clean.py", set()),  # `:x` without magic is x, here in sub/
    ],
)
def test_a_pathspec_from_the_root_reaches_the_whole_tree_from_a_subdirectory(
    tree, command, expected
):
    # issue 14: `:/` was joined to the subdirectory, so `git clean -fd :/` lost "nothing"
    assert lost(command, tree / "sub") == expected


@pytest.mark.parametrize(
    "command",
    ["git clean -fd ':!notes'", "git clean -fd ':(exclude)notes'", "git clean -fd ':^notes'"],
)
def test_an_exclusion_pathspec_reaches_the_whole_tree(tree, command):
    """git reads a line with only exclusions as the whole tree minus them; what they spare
    is not known from the text, so everything unsaved counts."""
    assert lost(command, tree / "sub") == {"notes", "xa.py"}


def test_pathspec_magic_interlock_does_not_follow_reaches_the_whole_tree(tree):
    assert lost("git clean -fd ':(icase)XA.PY'", tree / "sub") == {"notes", "xa.py"}
    assert lost("git checkout -- ':(top'", tree / "sub") == {"src/app.py"}


def reasons(command: str, cwd: Path) -> list[str]:
    return [f.reason for f in discards(command, cwd)]


@pytest.mark.parametrize(
    "command",
    [
        "git --git-dir=.git --work-tree=. reset --hard",
        "git --work-tree=. clean -fd",
        "GIT_DIR=.git git checkout -- .",
    ],
)
def test_a_repository_named_by_git_dir_is_lost_whatever_the_tree_holds(git_repo, command):
    (found,) = discards(command, git_repo)  # the tree is clean: only the flag decides
    assert found.lost == ()
    # issue 14: the stand-in was described as a file "under (a repository named by --git-dir/"
    assert found.reason.endswith("; unsaved here: a repository named by --git-dir/--work-tree")


# --- from a subdirectory -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("git reset --hard", {"src/app.py"}),  # the whole tree, wherever it starts
        ("git checkout -f", {"src/app.py"}),
        ("git switch --discard-changes main", {"src/app.py"}),
        ("git checkout .", set()),  # `.` is the subdirectory, which holds nothing unsaved
        ("git restore .", set()),
        ("git clean -fd", set()),
        ("git clean -fd ..", {"notes", "xa.py"}),
        ("git rm -rf .", set()),
        ("git rm -rf ../src", {"src/app.py"}),
        ("rm -rf ../src", {"src/app.py"}),
        ("rm -rf *", set()),
        ("find . -delete", set()),
    ],
)
def test_a_discard_from_a_subdirectory_reaches_what_git_or_the_path_reaches(
    tree, command, expected
):
    assert lost(command, tree / "sub") == expected


def test_a_finding_without_targets_from_a_subdirectory_counts_the_whole_worktree(tree):
    from interlock.engine.precision import Judge

    finding = Finding("discard", "fs.rm-recursive", "x", "destroys", "y", targets=None, cwd="")
    judged = Judge(str(tree / "sub")).judge(finding)
    assert judged.lost == ("notes/", "src/app.py", "xa.py")
    run_time = ", any of which may be among the targets chosen at run time"
    assert judged.summary == "3 files (notes/, src/app.py, xa.py)" + run_time


# --- kinds of loss that are not files ------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        "git push --force origin main",
        "git reflog expire --expire=now --all",
        "git worktree remove --force ../wt",
    ],
)
def test_history_kept_nowhere_else_is_lost_in_a_clean_tree(git_repo, command):
    (found,) = discards(command, git_repo)
    assert found.lost == ()
    assert found.reason.endswith("; unsaved here: history git keeps nowhere else")


# --- outside any repository ----------------------------------------------------------------


@pytest.fixture
def outside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A directory in no repository, judged as if it were not under /tmp (which is free)."""
    from interlock.engine import precision

    monkeypatch.setattr(precision, "is_temp_path", lambda path: False)
    home = tmp_path / "home"
    home.mkdir()
    return home


@pytest.mark.parametrize("command", ["git reset --hard", "git clean -fdx", "git stash drop"])
def test_a_git_discard_outside_any_repository_loses_nothing_since_git_refuses(outside, command):
    assert discards(command, outside) == []


def test_a_git_discard_in_an_unknown_directory_outside_a_repository_is_lost(outside):
    (found,) = discards("cd $X && git reset --hard", outside)
    assert found.reason.endswith("; unsaved here: an unknown repository")


def test_unknown_paths_outside_any_repository_are_lost(outside):
    for command in ("cd $X && rm -rf build", "ls | xargs rm -rf"):
        (found,) = discards(command, outside)
        assert "; unsaved here: unknown paths outside any worktree" in found.reason
    (found,) = discards("rm -rf $X/src", outside)
    assert "/$X/src (outside any worktree)" in found.reason  # named, not "1 file under"
    assert "under" not in found.reason.rpartition("unsaved here:")[2]


def test_a_named_directory_outside_any_repository_is_lost_only_when_it_exists(outside):
    (outside / "proj").mkdir()
    (outside / "proj" / "a.txt").write_text("mine\n")
    (found,) = discards("rm -rf proj", outside)
    assert found.lost == (str(outside.resolve() / "proj"),)
    assert "(outside any worktree)" in found.reason


# --- unknown targets -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command", ["rm -rf $X/src", 'rm -rf "$DIR"/x', "rm -rf $(cat list)", "git clean -fd $X"]
)
def test_unknown_targets_count_every_unsaved_path_of_the_worktree(tree, command):
    assert lost(command, tree / "sub") >= {"notes", "xa.py"}


def test_unknown_git_targets_count_only_the_kind_the_command_destroys(tree):
    assert lost("git checkout -- $X", tree / "sub") == {"src/app.py"}


# --- unborn HEAD and revisions that do not resolve ---------------------------------------------


@pytest.fixture
def unborn(tmp_path: Path) -> Path:
    """A repository with no commit: a.txt staged then edited, u.txt untracked."""
    repo = tmp_path / "unborn"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "a.txt").write_text("staged\n")
    git(repo, "add", "a.txt")
    (repo / "a.txt").write_text("edited\n")
    (repo / "u.txt").write_text("untracked\n")
    return repo


def test_a_hard_reset_on_an_unborn_head_loses_the_staged_file_and_no_commit(unborn):
    # git really deletes a.txt here (there is no HEAD to reset it to)
    (found,) = discards("git reset --hard", unborn)
    assert found.lost == (str(unborn.resolve() / "a.txt"),)
    assert "commit" not in found.reason.split("unsaved here:")[1]


def test_a_branch_delete_on_an_unborn_head_loses_nothing(unborn):
    assert discards("git branch -D main", unborn) == []
    assert lost("git clean -f", unborn) == {"u.txt"}


def test_a_revision_that_does_not_resolve_still_loses_the_changes_but_no_commits(tree):
    # the revision may exist by the time the command runs (a fetch earlier on the line)
    (found,) = discards("git reset --hard no-such-rev", tree)
    assert lost("git reset --hard no-such-rev", tree) == {"src/app.py"}
    assert "commit" not in found.reason.split("unsaved here:")[1]
    assert discards("git branch -D no-such-branch", tree) == []


# --- globs other than `*` ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("rm -rf x?.py", {"xa.py"}),  # a mutant once raised IndexError here
        ("rm -f x[ab].py", {"xa.py"}),
        ("rm -f x[!a].py", set()),
        ("rm -f xb?.py", set()),
        ("git clean -f 'x?.py'", {"xa.py"}),
        ("git clean -f 'x[a-c].py'", {"xa.py"}),
        ("git checkout 'src/?pp.py'", {"src/app.py"}),
        ("git checkout 'src/[a]pp.py'", {"src/app.py"}),
        ("git checkout 'src/[b]pp.py'", set()),
        ("rm -rf no[t]es", {"notes"}),
    ],
)
def test_question_marks_and_brackets_match_like_the_shell_and_git(tree, command, expected):
    assert lost(command, tree) == expected


@pytest.mark.parametrize(
    "command",
    ["rm -rf notes/*.md", "rm -f notes/x?.py", "rm -f notes/[xz]1.py", "git clean -fd 'notes/z*'"],
)
def test_a_glob_into_a_wholly_untracked_directory_loses_that_directory(tree, command):
    """git shows notes/ as one entry: what the glob picks inside is not listed, so the whole
    entry counts."""
    assert lost(command, tree) == {"notes"}


@pytest.mark.parametrize(
    "command",
    [
        "git clean -fd 'n*/todo.md'",
        "git clean -fd 'no?es/todo.md'",
        "git clean -fd '*/todo.md'",
        "git clean -fd 'n[o]tes/todo.md'",
        "git clean -fd 'notes/t*'",
    ],
)
def test_a_glob_whose_wildcard_comes_before_the_untracked_directory_ends_reaches_into_it(
    tree, command
):
    """`git clean -fd 'n*/todo.md'` deletes notes/todo.md (git's `*` crosses `/`), though no
    ancestor of the collapsed entry `notes/` matches the whole pattern: the literal start `n`
    agrees with `notes/`, so the entry is lost. It was allowed (issue 14's mutants of the
    literal start)."""
    assert (
        subprocess.run(
            ["git", "clean", "-n", "-d", command.split("'")[1]],
            cwd=tree,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        == "Would remove notes/todo.md\n"
    )
    assert lost(command, tree) == {"notes"}


def test_a_glob_whose_literal_start_differs_from_the_untracked_directory_misses_it(tree):
    assert lost("git clean -fd 'nx*/todo.md'", tree) == set()
    assert lost("git clean -fd 'notesx*'", tree) == set()


def test_a_glob_into_another_directory_does_not_reach_the_untracked_one(tree):
    assert lost("rm -rf src/*.md", tree) == set()
    assert lost("rm -f nothere/x?.py", tree) == set()


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("rm -rf *.egg-info", set()),  # was "unsaved: notes/", which no such name can reach
        ("rm -f *.md", set()),  # notes/todo.md lies one level down
        ("rm -f *.py", {"xa.py"}),  # not src/app.py
        ("rm -rf */*.md", {"notes"}),  # reaches into the untracked directory
        ("rm -rf n*", {"notes"}),
        ("rm -rf */*.py", {"src/app.py", "notes"}),
        ("cd src && rm -f *.py", {"src/app.py"}),
    ],
)
def test_a_file_operand_glob_is_the_shells_and_matches_within_one_name(tree, command, expected):
    assert lost(command, tree) == expected


def test_a_search_from_outside_every_worktree_chosen_at_run_time_loses_what_lies_there(tree):
    """`find / -name "$X" -delete`: the selection is unknown, so whatever lies under the start
    is at stake: the whole worktree under it, and the files outside any worktree."""
    [found] = discards('find / -name "$X" -delete', tree)
    assert found.lost == ("/", str(tree.resolve()))
    assert f"{tree.resolve()} (the whole worktree, .git included)" in found.reason
    assert "/ (outside any worktree)" in found.reason
    [outside] = discards('find /nonexistent-interlock-dir -name "$X" -delete', tree)
    assert outside.lost == ("/nonexistent-interlock-dir",)


def test_a_reset_to_a_revision_named_at_run_time_may_leave_the_branch_commits_behind(git_repo):
    """`git reset --hard "$REV"` moves the branch anywhere: the commits only it holds are at
    stake, though "$REV" itself names nothing git can resolve now."""
    git(git_repo, "checkout", "-qb", "feature")
    (git_repo / "src" / "app.py").write_text("feature\n")
    git(git_repo, "commit", "-qam", "feature work")
    [found] = discards('git reset --hard "$REV"', git_repo)
    assert found.reason.endswith("unsaved here: 1 commit no other ref holds")
    assert discards("git reset --hard feature", git_repo) == []


@pytest.mark.parametrize(
    ("command", "loses"),
    [
        ("git branch -f ahead main", True),
        ("git branch -f feature ahead", False),  # forward: ahead holds feature's commit
        ('git branch -f "$B" main', True),  # any branch, feature among them
        ("git update-ref refs/heads/ahead main", True),
        ("git update-ref refs/heads/feature ahead", False),
        ('git update-ref "$R" main', True),
        ('git branch -D "$B"', True),  # any branch: ahead's commit among them
        ("git update-ref refs/heads/ahead no-such-rev", False),  # git refuses to move it
    ],
)
def test_a_ref_moved_by_force_loses_only_the_commits_its_new_place_does_not_hold(
    git_repo, command, loses
):
    git(git_repo, "checkout", "-qb", "feature")
    (git_repo / "src" / "app.py").write_text("feature\n")
    git(git_repo, "commit", "-qam", "feature work")
    git(git_repo, "checkout", "-qb", "ahead")
    (git_repo / "src" / "app.py").write_text("ahead\n")
    git(git_repo, "commit", "-qam", "more work")
    git(git_repo, "checkout", "-q", "main")
    found = discards(command, git_repo)
    if loses:
        assert [f.reason.split("unsaved here: ")[1] for f in found] == [
            "1 commit no other ref holds"
        ]
    else:
        assert found == []
