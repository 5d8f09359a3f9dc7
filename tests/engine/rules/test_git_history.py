"""What the history and ref rules (engine.rules.git.history) say a command destroys, by text:
the rule, the refs, whether a target is named at run time, and whether it points elsewhere."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from interlock.engine.findings import Finding
from interlock.engine.invocation import Invocation
from interlock.engine.rules import index as rules


@pytest.fixture(scope="session")
def found(inv: Callable[..., Invocation]) -> Callable[..., list[Finding]]:
    def discards(cmd: str, **kw: object) -> list[Finding]:
        return [f for f in rules.check_invocation(inv(cmd, **kw)) if f.kind == "discard"]

    return discards


def shape(found, cmd: str, **kw: object) -> tuple[str, str, tuple[str, ...], bool, bool]:
    result = found(cmd, **kw)
    assert len(result) == 1, (cmd, result)
    targets = result[0].targets
    assert targets is not None
    return (result[0].rule, targets.destroys, targets.refs, targets.unknown, targets.git_dir_flag)


@pytest.mark.parametrize(
    ("cmd", "expected"),
    [
        ("git branch -D a b", ("git.branch-force-delete", "commits", ("a", "b"), False, False)),
        (
            'git branch -D a "$B"',
            ("git.branch-force-delete", "commits", ("a", '"$B"'), True, False),
        ),
        ("git branch -d -f a", ("git.branch-force-delete", "commits", ("a",), False, False)),
        (
            "git --git-dir=x branch -D a",
            ("git.branch-force-delete", "commits", ("a",), False, True),
        ),
        ("git branch -M a b", ("git.branch-force-rename", "commits", ("b",), False, False)),
        ("git branch -C a b", ("git.branch-force-rename", "commits", ("b",), False, False)),
        ("git branch -m -f a b", ("git.branch-force-rename", "commits", ("b",), False, False)),
        ("git branch -c --force a b", ("git.branch-force-rename", "commits", ("b",), False, False)),
        ('git branch -M "$B"', ("git.branch-force-rename", "commits", ('"$B"',), True, False)),
        ("git branch -f a", ("git.branch-force-move", "commits", ("a", "HEAD"), False, False)),
        ("git branch -f a b~1", ("git.branch-force-move", "commits", ("a", "b~1"), False, False)),
        ('git branch -f a "$S"', ("git.branch-force-move", "commits", ("a",), True, False)),
        ('git branch -f "$B" x', ("git.branch-force-move", "commits", (), True, False)),
        (
            "git tag -d v1 v2",
            ("git.tag-delete", "commits", ("refs/tags/v1", "refs/tags/v2"), False, False),
        ),
        ('git tag -d "$T"', ("git.tag-delete", "commits", ('refs/tags/"$T"',), True, False)),
        (
            'git tag -d v1 "$T"',
            ("git.tag-delete", "commits", ("refs/tags/v1", 'refs/tags/"$T"'), True, False),
        ),
        (
            "git tag -f v1 HEAD~1",
            ("git.tag-force-move", "commits", ("refs/tags/v1",), False, False),
        ),
        ('git tag -f "$T"', ("git.tag-force-move", "commits", ('refs/tags/"$T"',), True, False)),
        (
            "git update-ref -d refs/heads/x",
            ("git.update-ref-delete", "commits", ("refs/heads/x",), False, False),
        ),
        ('git update-ref -d "$R"', ("git.update-ref-delete", "commits", (), True, False)),
        (
            "git update-ref -d HEAD old",
            ("git.update-ref-delete", "commits", ("HEAD",), False, False),
        ),
        ("git update-ref --stdin", ("git.update-ref-delete", "commits", (), True, False)),
        (
            "git update-ref refs/heads/x y",
            ("git.update-ref-move", "commits", ("refs/heads/x", "y"), False, False),
        ),
        (
            "git update-ref -m why HEAD y",
            ("git.update-ref-move", "commits", ("HEAD", "y"), False, False),
        ),
        (
            'git update-ref refs/tags/v "$Y"',
            ("git.update-ref-move", "commits", ("refs/tags/v",), True, False),
        ),
        ('git update-ref "$R" y', ("git.update-ref-move", "commits", (), True, False)),
        (
            "git worktree add -B t ../wt",
            ("git.branch-force-move", "commits", ("t", "HEAD"), False, False),
        ),
        ("git checkout -B t m x", ("git.branch-force-move", "commits", ("t", "m"), False, False)),
        ("git switch -C t m x", ("git.branch-force-move", "commits", ("t", "m"), False, False)),
        (
            "git worktree add -B t ../wt m",
            ("git.branch-force-move", "commits", ("t", "m"), False, False),
        ),
        (
            "git worktree add -f -B t ../wt m",
            ("git.branch-force-move", "commits", ("t", "m"), False, False),
        ),
        ('git worktree add -B "$B" ../wt', ("git.branch-force-move", "commits", (), True, False)),
        ("git reflog expire --all", ("git.reflog-expire", "unreachable", (), False, False)),
        ("git reflog drop --all", ("git.reflog-expire", "unreachable", (), False, False)),
        ('git reflog "$ACTION"', ("git.reflog-expire", "unreachable", (), False, False)),
        (
            "git -C x --work-tree=y reflog delete HEAD@{1}",
            ("git.reflog-expire", "unreachable", (), False, True),
        ),
        ("git gc --prune=now", ("git.gc-prune-now", "unreachable", (), False, False)),
        ("git --git-dir=x gc --prune=now", ("git.gc-prune-now", "unreachable", (), False, True)),
        ("git prune", ("git.prune", "unreachable", (), False, False)),
        ("git --git-dir=x prune", ("git.prune", "unreachable", (), False, True)),
        ("git prune --expire=3.days.ago", ("git.prune", "unreachable", (), False, False)),
        ('git prune --expire="$W"', ("git.prune", "unreachable", (), False, False)),
        ("git filter-branch HEAD", ("git.history-rewrite", "unreachable", (), False, False)),
        ("git repack -a -d", ("git.repack-drop", "unreachable", (), False, False)),
        ("git merge --abort", ("git.operation-abort", "tracked", (), False, False)),
        ("git --work-tree=x rebase --skip", ("git.operation-abort", "tracked", (), False, True)),
        (
            "git worktree remove -f ../wt",
            ("git.worktree-remove-force", "worktree", (), False, False),
        ),
        (
            "git --git-dir=x worktree remove -f ../wt",
            ("git.worktree-remove-force", "worktree", (), False, True),
        ),
        ("git submodule deinit -f lib", ("git.submodule-force", "all", (), False, False)),
        ('git submodule deinit -f "$S"', ("git.submodule-force", "all", (), True, False)),
        ("git --git-dir=x submodule update -f", ("git.submodule-force", "all", (), False, True)),
    ],
)
def test_what_a_history_discard_targets(found, cmd: str, expected) -> None:
    assert shape(found, cmd) == expected


def test_paths_of_submodules_and_worktrees(found) -> None:
    assert found("git submodule deinit -f lib/a lib/b")[0].targets.paths == ("lib/a", "lib/b")
    assert found("git submodule --quiet update --force")[0].targets.paths == (".",)
    assert found("git worktree remove --force ../wt")[0].targets.paths == ("../wt",)


def test_run_time_arguments_make_branch_and_tag_targets_unknown(found) -> None:
    for cmd in ("git branch -D", "git tag -d", "git branch -f a", "git tag -f v1"):
        result = found(cmd, extra_args=True)
        assert len(result) == 1 and result[0].targets.unknown, cmd
    assert found("git update-ref refs/heads/x y", extra_args=True)[0].targets.unknown
    assert found("git update-ref -d", extra_args=True)[0].rule == "git.update-ref-delete"


@pytest.mark.parametrize(
    "cmd",
    [
        "git branch -d a",
        "git branch -f",
        "git branch --list -f",
        "git branch -l -f x",
        "git branch -m a b",
        "git branch -c a b",
        "git branch -M",
        "git tag -f",
        "git tag -l -d x",
        "git tag -v -f x",
        "git tag --verify x",
        "git update-ref",
        "git update-ref refs/heads/x",
        "git update-ref -d",
        "git update-ref refs/remotes/o/x y",
        "git update-ref -d refs/remotes/o/x",
        "git worktree add -b t ../wt",
        "git worktree add ../wt",
        "git worktree list",
        "git worktree move -f ../a ../b",
        "git worktree remove ../wt",
        "git worktree",
        "git reflog",
        "git reflog show",
        "git reflog expire -n --all",
        "git reflog expire --dry-run --all",
        "git gc",
        "git gc --prune",
        "git gc --prune=2.weeks.ago",
        "git gc --prune=3.days.ago",
        "git gc --prune=never",
        "git gc --no-prune",
        "git -c gc.pruneExpire=2.weeks.ago gc",
        "git -c gc.auto=0 gc",
        "git prune -n",
        "git prune --dry-run",
        "git prune --expire=2.weeks.ago",
        "git prune --expire=1.month.ago",
        "git filter-repo --analyze",
        "git filter-repo --dry-run --path x",
        "git merge --skip",
        "git merge --continue",
        "git rebase --quit",
        "git submodule deinit lib",
        "git submodule update -q",
        "git submodule status -f",
        "git submodule",
        "git repack -A -d",
        "git repack -a",
        "git status",
    ],
)
def test_history_forms_that_destroy_nothing(found, cmd: str) -> None:
    assert found(cmd) == []


@pytest.mark.parametrize(
    "cmd",
    [
        "git gc --prune=now",
        "git gc --prune=all",
        "git gc --prune=0",
        "git gc --prune=1.second.ago",
        "git gc --no-prune --prune=now",
        'git gc --prune="$W"',
        'git -c gc.pruneExpire="$W" gc',
        "git -c gc.reflogExpire=now gc --no-prune",
        "git -c gc.worktreePruneExpire=now gc",
        "git -c gc.reflogExpireUnreachable=now gc",
        "git maintenance run --task=gc --prune=now",
    ],
)
def test_gc_without_a_grace_period(found, cmd: str) -> None:
    assert [f.rule for f in found(cmd)] == ["git.gc-prune-now"]


@pytest.mark.parametrize(
    ("cmd", "dropped"),
    [
        ("git repack -a -d", True),
        ("git repack -ad", True),
        ("git repack -A -d --unpack-unreachable=now", True),
        ('git repack -A -d --unpack-unreachable="$W"', True),
        ("git repack -A -a -d", True),
        ("git repack -a -A -d", False),
        ("git repack -A -d --unpack-unreachable=2.weeks.ago", False),
        ("git repack -A -d", False),
        ("git repack -a -d --cruft", False),
        ("git repack -a -d --keep-unreachable", False),
        ("git repack -a -d -n", False),
        ("git repack -d", False),
        ("git repack -a", False),
    ],
)
def test_repack(found, cmd: str, dropped: bool) -> None:
    assert [f.rule for f in found(cmd)] == (["git.repack-drop"] if dropped else [])


def test_sequencer_aborts(found) -> None:
    assert found("git merge --abort")[0].targets.whole_tree
    for sub in ("merge", "rebase", "cherry-pick", "revert", "am"):
        assert [f.rule for f in found(f"git {sub} --abort")] == ["git.operation-abort"], sub
    for sub in ("rebase", "cherry-pick", "revert", "am"):
        assert [f.rule for f in found(f"git {sub} --skip")] == ["git.operation-abort"], sub


def test_moves_are_instead_a_new_branch(found) -> None:
    assert "git branch NEW-NAME REV" in found("git branch -f a b")[0].instead
    assert found("git checkout -B a b")[0].targets.creates
    assert not found("git branch -f a b")[0].targets.creates
