"""Tree diffs on real repositories: counting the changes agrees with listing them."""

from __future__ import annotations

import itertools
import os
from pathlib import Path

from interlock.git import open_repo, require_repo
from interlock.memory.store import ObjectStore
from interlock.memory.trees import count_changes, diff_trees


def _commit_tree(git, repo: Path, message: str) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message, "--allow-empty")
    return git(repo, "rev-parse", "HEAD^{tree}").stdout.strip()


def test_counting_changes_agrees_with_listing_them_for_every_kind_of_change(git, git_repo):
    trees = [git(git_repo, "rev-parse", "HEAD^{tree}").stdout.strip()]
    (git_repo / "a" / "b").mkdir(parents=True)
    for i in range(30):
        (git_repo / "a" / "b" / f"f{i}.txt").write_text(f"{i}\n")
    (git_repo / "top.txt").write_text("top\n")
    trees.append(_commit_tree(git, git_repo, "many files in a subtree"))
    (git_repo / "a" / "b" / "f3.txt").write_text("changed\n")
    (git_repo / "a" / "b" / "f4.txt").unlink()
    (git_repo / "a" / "new.txt").write_text("new\n")
    os.chmod(git_repo / "top.txt", 0o755)  # a mode change alone
    os.symlink("top.txt", git_repo / "link")
    trees.append(_commit_tree(git, git_repo, "edits, a removal, a mode, a symlink"))
    (git_repo / "top.txt").unlink()
    (git_repo / "top.txt").mkdir()  # a file replaced by a directory
    (git_repo / "top.txt" / "inner").write_text("inner\n")
    for path in (git_repo / "a" / "b").iterdir():
        path.unlink()
    (git_repo / "a" / "b").rmdir()
    (git_repo / "a" / "b").write_text("a directory replaced by a file\n")
    trees.append(_commit_tree(git, git_repo, "file <-> directory"))
    store = ObjectStore(open_repo(require_repo(git_repo)))
    for old, new in itertools.product([None, *trees], repeat=2):
        listed = diff_trees(store, old, new)
        assert count_changes(store, old, new) == len(listed), (old, new, listed)
    assert count_changes(store, trees[1], trees[2]) == 5  # f3, f4, new.txt, top.txt, link
