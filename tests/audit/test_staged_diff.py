"""The index's changes as the pre-commit audit reads them (git.staged_changes): in process
through libgit2 where it gives git's answer, by `git diff --raw --cached` elsewhere. Every
case compares with git itself on a real repository, and says which way it was read."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from interlock import git
from interlock.audit import audit_staged
from interlock.git import RepoLocation, require_repo

APP = "def total(lines):\n    return sum(q * p for _, q, p in lines)\n"
STRONG = (
    "from app import total\n\n\ndef test_total():\n    assert total([('pen', 2, 1.5)]) == 3.0\n"
)
WEAK = "from app import total\n\n\ndef test_total():\n    assert total([('pen', 2, 1.5)])\n"


def run_git(repo: Path, *args: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        ["git", *args], cwd=repo, check=True, capture_output=True, text=True, env=env
    )
    return done.stdout


def head(repo: Path) -> str:
    return run_git(repo, "rev-parse", "HEAD").strip()


def by_git(loc: RepoLocation, rev: str, index_file: str | None = None) -> list[tuple[str, ...]]:
    return sorted(git.diff_raw(loc, ["--cached", rev], index_file))


def assert_in_process(repo: Path, rev: str, index_file: str | None = None) -> None:
    """libgit2 answered, and its answer is git's."""
    loc = require_repo(repo)
    found = git._staged_in_process(loc, rev, index_file)
    assert found is not None, "expected the in-process diff to answer"
    assert sorted(found) == by_git(loc, rev, index_file)
    assert sorted(git.staged_changes(loc, rev, index_file)) == by_git(loc, rev, index_file)


def assert_by_git(repo: Path, rev: str) -> list[tuple[str, ...]]:
    """libgit2 declined, and staged_changes gave git's answer."""
    loc = require_repo(repo)
    assert git._staged_in_process(loc, rev, None) is None
    expected = by_git(loc, rev)
    assert sorted(git.staged_changes(loc, rev)) == expected
    return expected


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    run_git(root, "init", "-q", "-b", "main")
    (root / "app.py").write_text(APP)
    (root / "pytest.ini").write_text("[pytest]\npythonpath = .\n")
    (root / "with space.py").write_text("y = 2\n")
    (root / "tests").mkdir()
    (root / "tests" / "test_app.py").write_text(STRONG)
    os.symlink("app.py", root / "link")
    run_git(root, "add", "-A")
    run_git(root, "commit", "-q", "-m", "initial")
    return root


def test_staged_changes_of_an_unborn_branch_are_read_in_process_as_git_reads_them(tmp_path):
    root = tmp_path / "unborn"
    root.mkdir()
    run_git(root, "init", "-q", "-b", "main")
    (root / "a.py").write_text("a\n")
    (root / "b\nnewline.py").write_text("b\n")
    run_git(root, "add", "-A")
    assert_in_process(root, git.EMPTY_TREE_OID)
    assert {p for _, p, _, _ in git.staged_changes(require_repo(root), git.EMPTY_TREE_OID)} == {
        "a.py",
        "b\nnewline.py",
    }


def test_modified_added_deleted_retyped_and_rechmoded_paths_match_git(repo):
    (repo / "app.py").write_text("x = 2\n")
    (repo / "new.py").write_text("n\n")
    (repo / "with space.py").unlink()
    (repo / "link").unlink()
    (repo / "link").write_text("a file now\n")
    (repo / "tests" / "test_app.py").chmod(0o755)
    (repo / "caf\u00e9.py").write_text("c\n")
    run_git(repo, "add", "-A")
    assert_in_process(repo, head(repo))
    statuses = {p: s for s, p, _, _ in git.staged_changes(require_repo(repo), head(repo))}
    assert statuses == {
        "app.py": "M",
        "new.py": "A",
        "with space.py": "D",
        "link": "T",
        "tests/test_app.py": "M",
        "caf\u00e9.py": "A",
    }


def test_a_temporary_index_of_commit_a_is_read_in_process(repo, tmp_path):
    index = tmp_path / "commit-a-index"
    shutil.copyfile(repo / ".git" / "index", index)
    (repo / "app.py").write_text("x = 3\n")
    run_git(repo, "add", "app.py", env={**os.environ, "GIT_INDEX_FILE": str(index)})
    assert_in_process(repo, head(repo), str(index))
    assert git.staged_changes(require_repo(repo), head(repo)) == []  # .git/index is unchanged


def test_a_snapshot_like_base_revision_is_diffed_by_its_tree(repo):
    first = head(repo)
    (repo / "app.py").write_text("x = 4\n")
    run_git(repo, "commit", "-q", "-am", "second")
    (repo / "new.py").write_text("n\n")
    run_git(repo, "add", "new.py")
    assert_in_process(repo, first)
    tree = run_git(repo, "rev-parse", f"{first}^{{tree}}").strip()
    assert_in_process(repo, tree)


def test_intent_to_add_entries_are_left_to_git(repo):
    (repo / "planned.py").write_text("p\n")
    run_git(repo, "add", "-N", "planned.py")
    (repo / "app.py").write_text("x = 5\n")
    run_git(repo, "add", "app.py")
    assert [p for _, p, _, _ in assert_by_git(repo, head(repo))] == ["app.py"]


def test_an_index_in_version_4_is_left_to_git(repo):
    run_git(repo, "update-index", "--index-version", "4")
    (repo / "app.py").write_text("x = 6\n")
    run_git(repo, "add", "app.py")
    assert len(assert_by_git(repo, head(repo))) == 1


def test_a_large_index_is_left_to_git_which_skips_unchanged_trees(repo):
    (repo / "many").mkdir()
    for i in range(600):  # long names: an index past the in-process limit in few files
        (repo / "many" / f"{i:04d}{'x' * 200}.py").write_text(f"{i}\n")
    run_git(repo, "add", "many")
    assert os.path.getsize(repo / ".git" / "index") > git._IN_PROCESS_INDEX_BYTES
    assert len(assert_by_git(repo, head(repo))) == 600


def test_a_split_index_is_left_to_git_and_its_return_to_one_file_is_read_in_process(repo):
    run_git(repo, "update-index", "--split-index")
    (repo / "app.py").write_text("x = 7\n")
    run_git(repo, "add", "app.py")
    assert len(assert_by_git(repo, head(repo))) == 1
    run_git(repo, "update-index", "--no-split-index")
    assert_in_process(repo, head(repo))


def test_a_sparse_checkout_is_left_to_git(repo):
    run_git(repo, "sparse-checkout", "set", "--no-cone", "app.py")
    assert assert_by_git(repo, head(repo)) == []


def test_an_index_with_conflicts_is_left_to_git(repo):
    run_git(repo, "checkout", "-q", "-b", "other")
    (repo / "app.py").write_text("x = 'other'\n")
    run_git(repo, "commit", "-q", "-am", "other")
    run_git(repo, "checkout", "-q", "main")
    (repo / "app.py").write_text("x = 'main'\n")
    run_git(repo, "commit", "-q", "-am", "main")
    subprocess.run(["git", "merge", "-q", "other"], cwd=repo, capture_output=True)
    assert [s for s, _, _, _ in assert_by_git(repo, head(repo))] == ["U"]


def test_a_changed_submodule_pointer_is_left_to_git(repo, tmp_path):
    sub = tmp_path / "sub"
    sub.mkdir()
    run_git(sub, "init", "-q", "-b", "main")
    (sub / "f").write_text("1\n")
    run_git(sub, "add", "f")
    run_git(sub, "commit", "-q", "-m", "one")
    run_git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub), "sub")
    run_git(repo, "commit", "-q", "-m", "submodule")
    assert_in_process(repo, head(repo))  # a submodule that did not move: nothing to say
    (repo / "sub" / "f").write_text("2\n")
    run_git(repo / "sub", "commit", "-q", "-am", "two")
    run_git(repo, "add", "sub")
    assert assert_by_git(repo, head(repo)) == []  # git ignores submodules here


@pytest.mark.parametrize("setup", ["in-process", "intent-to-add", "index-v4", "split-index"])
def test_a_staged_weakened_test_is_found_whichever_way_the_index_is_read(repo, setup):
    if setup == "intent-to-add":
        (repo / "later.py").write_text("l\n")
        run_git(repo, "add", "-N", "later.py")
    elif setup == "index-v4":
        run_git(repo, "update-index", "--index-version", "4")
    elif setup == "split-index":
        run_git(repo, "update-index", "--split-index")
    (repo / "tests" / "test_app.py").write_text(WEAK)
    run_git(repo, "add", "tests/test_app.py")
    report = audit_staged(require_repo(repo))
    assert report.verdict == "tampered"
    assert [f.path for f in report.findings] == ["tests/test_app.py"]
