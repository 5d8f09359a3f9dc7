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
