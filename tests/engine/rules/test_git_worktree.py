"""What the working-tree rules (engine.rules.git.worktree) say a command destroys, by text:
the kind of work, the paths, whether the whole tree or run-time targets are involved, and the
suggestion."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from interlock.engine.findings import Finding
from interlock.engine.invocation import Invocation
from interlock.engine.rules import index as rules
from interlock.engine.rules.git.worktree import looks_like_path
from interlock.shell.model import Word


@pytest.fixture(scope="session")
def found(inv: Callable[..., Invocation]) -> Callable[..., list[Finding]]:
    def discards(cmd: str, **kw: object) -> list[Finding]:
        return [f for f in rules.check_invocation(inv(cmd, **kw)) if f.kind == "discard"]

    return discards


def one(found, cmd: str, **kw: object) -> Finding:
    result = found(cmd, **kw)
    assert len(result) == 1, (cmd, result)
    return result[0]


def shape(found, cmd: str, **kw: object):
    finding = one(found, cmd, **kw)
    t = finding.targets
    assert t is not None
    return (finding.rule, t.destroys, t.paths, t.whole_tree, t.unknown, t.refs, t.git_dir_flag)


@pytest.mark.parametrize(
    ("cmd", "expected"),
    [
        ("git reset --hard", ("git.reset-hard", "tracked", (), True, False, (), False)),
        ("git reset --hard HEAD", ("git.reset-hard", "tracked", (), True, False, (), False)),
        ("git reset --hard @", ("git.reset-hard", "tracked", (), True, False, (), False)),
        (
            "git reset --merge HEAD~2",
            ("git.reset-hard", "tracked", (), True, False, ("HEAD~2",), False),
        ),
        (
            "git reset --hard HEADS",
            ("git.reset-hard", "tracked", (), True, False, ("HEADS",), False),
        ),
        ("git reset --hard v1 x", ("git.reset-hard", "tracked", (), True, False, ("v1",), False)),
        ('git reset --hard "$R"', ("git.reset-hard", "tracked", (), True, True, ('"$R"',), False)),
        ("git --git-dir=x reset --hard", ("git.reset-hard", "tracked", (), True, False, (), True)),
        (
            "git checkout -- a.py b",
            ("git.checkout-discard", "unstaged", ("a.py", "b"), False, False, (), False),
        ),
        (
            "git checkout HEAD -- a.py",
            ("git.checkout-discard", "tracked", ("a.py",), False, False, (), False),
        ),
        (
            "git checkout --ours HEAD -- a.py",
            ("git.checkout-discard", "unstaged", ("a.py",), False, False, (), False),
        ),
        (
            "git checkout --theirs -- a.py",
            ("git.checkout-discard", "unstaged", ("a.py",), False, False, (), False),
        ),
        ("git checkout .", ("git.checkout-discard", "unstaged", (".",), False, False, (), False)),
        (
            "git checkout main a.py",
            ("git.checkout-discard", "tracked", ("a.py",), False, False, (), False),
        ),
        (
            "git checkout a.py b.py",
            ("git.checkout-discard", "unstaged", ("a.py", "b.py"), False, False, (), False),
        ),
        ("git checkout -p", ("git.checkout-discard", "unstaged", (), True, False, (), False)),
        (
            "git checkout --pathspec-from-file=f",
            ("git.checkout-discard", "unstaged", (), False, True, (), False),
        ),
        (
            "git checkout $(git diff --name-only)",
            (
                "git.checkout-discard",
                "unstaged",
                ("$(git diff --name-only)",),
                False,
                True,
                (),
                False,
            ),
        ),
        (
            'git checkout -- "$F"',
            ("git.checkout-discard", "unstaged", ('"$F"',), False, True, (), False),
        ),
        ("git checkout -f main", ("git.checkout-discard", "tracked", (), True, False, (), False)),
        (
            "git --work-tree=x checkout .",
            ("git.checkout-discard", "unstaged", (".",), False, False, (), True),
        ),
        (
            "git restore a.py",
            ("git.restore-worktree", "unstaged", ("a.py",), False, False, (), False),
        ),
        (
            "git restore -s HEAD a.py",
            ("git.restore-worktree", "tracked", ("a.py",), False, False, (), False),
        ),
        (
            "git restore -SW a.py",
            ("git.restore-worktree", "tracked", ("a.py",), False, False, (), False),
        ),
        ("git restore -p", ("git.restore-worktree", "unstaged", (), True, False, (), False)),
        (
            "git restore --pathspec-from-file=f",
            ("git.restore-worktree", "unstaged", (), False, True, (), False),
        ),
        (
            'git restore "$F"',
            ("git.restore-worktree", "unstaged", ('"$F"',), False, True, (), False),
        ),
        (
            "git --git-dir=x restore a",
            ("git.restore-worktree", "unstaged", ("a",), False, False, (), True),
        ),
        ("git switch -f main", ("git.switch-discard", "tracked", (), True, False, (), False)),
        (
            "git --git-dir=x switch --discard-changes m",
            ("git.switch-discard", "tracked", (), True, False, (), True),
        ),
        ("git clean -f", ("git.clean-force", "untracked", (".",), False, False, (), False)),
        (
            "git clean -fx a",
            ("git.clean-force", "untracked+ignored", ("a",), False, False, (), False),
        ),
        ("git clean -fX", ("git.clean-force", "ignored", (".",), False, False, (), False)),
        (
            "git clean -fxX",
            ("git.clean-force", "untracked+ignored", (".",), False, False, (), False),
        ),
        ('git clean -f "$D"', ("git.clean-force", "untracked", ('"$D"',), False, True, (), False)),
        (
            "git --git-dir=x clean -f",
            ("git.clean-force", "untracked", (".",), False, False, (), True),
        ),
        ("git stash drop", ("git.stash-drop", "stash", (), False, False, ("stash@{0}",), False)),
        (
            "git stash drop -q stash@{2}",
            ("git.stash-drop", "stash", (), False, False, ("stash@{2}",), False),
        ),
        ("git stash clear", ("git.stash-clear", "stash", (), False, False, ("refs/stash",), False)),
        ('git stash "$A"', ("git.stash-clear", "stash", (), False, False, ("refs/stash",), False)),
        (
            "git --git-dir=x stash drop",
            ("git.stash-drop", "stash", (), False, False, ("stash@{0}",), True),
        ),
        (
            "git --git-dir=x stash clear",
            ("git.stash-clear", "stash", (), False, False, ("refs/stash",), True),
        ),
        ("git rm -f a b", ("git.rm-force", "tracked", ("a", "b"), False, False, (), False)),
        (
            "git rm -f --pathspec-from-file=f",
            ("git.rm-force", "tracked", (), False, True, (), False),
        ),
        ('git rm -f "$F"', ("git.rm-force", "tracked", ('"$F"',), False, True, (), False)),
        ("git --git-dir=x rm -f a", ("git.rm-force", "tracked", ("a",), False, False, (), True)),
        (
            "git checkout-index -f -a",
            ("git.checkout-index-force", "tracked", (), True, False, (), False),
        ),
        (
            "git checkout-index -f a.py",
            ("git.checkout-index-force", "tracked", ("a.py",), False, False, (), False),
        ),
        (
            "git checkout-index -f --stdin",
            ("git.checkout-index-force", "tracked", (), False, True, (), False),
        ),
        (
            "git checkout-index -f --prefix=./ -a",
            ("git.checkout-index-force", "tracked", (), True, False, (), False),
        ),
        (
            "git checkout-index -f --prefix= a",
            ("git.checkout-index-force", "tracked", ("a",), False, False, (), False),
        ),
        (
            "git --git-dir=x checkout-index -f -a",
            ("git.checkout-index-force", "tracked", (), True, False, (), True),
        ),
        (
            "git read-tree --reset -u HEAD",
            ("git.read-tree-reset", "tracked", (), True, False, (), False),
        ),
        (
            "git --git-dir=x read-tree --reset -u HEAD",
            ("git.read-tree-reset", "tracked", (), True, False, (), True),
        ),
        ("git mv -f a b", ("git.mv-force", "files", ("b",), False, False, (), False)),
        ('git mv -f a "$D"', ("git.mv-force", "files", ('"$D"',), False, True, (), False)),
        ("git --git-dir=x mv -f a b", ("git.mv-force", "files", ("b",), False, False, (), True)),
    ],
)
def test_what_a_worktree_discard_targets(found, cmd: str, expected) -> None:
    assert shape(found, cmd) == expected


def test_run_time_arguments_make_the_targets_unknown(found) -> None:
    for cmd in ("git checkout --", "git restore", "git rm -f", "git clean -f", "git mv -f a b"):
        targets = one(found, cmd, extra_args=True).targets
        assert targets is not None and targets.unknown and not targets.whole_tree, cmd
    targets = one(found, "git checkout", extra_args=True).targets
    assert targets is not None and targets.unknown


def test_git_mv_force_writes_each_source_name_into_a_directory(found) -> None:
    targets = one(found, "git mv --force a/x.py b/y.py dest/").targets
    assert targets is not None and targets.single
    assert (targets.paths, targets.into) == (("dest/",), ("x.py", "y.py"))


def test_a_single_ambiguous_operand_is_a_candidate(found) -> None:
    assert one(found, "git checkout a.py").targets.candidate
    assert one(found, "git checkout $(pick)").targets.candidate
    assert not one(found, "git checkout $(pick)").targets.by_tree_only
    assert not one(found, "git checkout a.py").targets.by_tree_only
    assert not one(found, "git checkout src/").targets.by_tree_only
    assert not one(found, "git checkout a.py b.py").targets.candidate
    assert not one(found, "git checkout -p").targets.candidate
    assert not one(found, "git checkout -p main").targets.candidate
    assert not one(found, "git checkout main a.py").targets.candidate


def test_suggestions_name_the_paths_and_the_revision(found) -> None:
    assert "git reset --keep HEAD~2" in one(found, "git reset --hard HEAD~2").instead
    assert "git reset --keep HEAD" in one(found, "git reset --hard").instead
    assert (
        "git stash push -m 'before checkout' -- a.py 'b c'"
        in one(found, "git checkout -- a.py 'b c'").instead
    )
    assert "or git diff -- a.py to look first" in one(found, "git checkout -- a.py").instead
    assert "git stash push -m 'before restore' -- a.py" in one(found, "git restore a.py").instead
    assert one(found, "git checkout -f main").instead.startswith(
        "git stash push -m 'before checkout' (keeps"
    )
    assert "--force switches" in one(found, "git checkout -f main").reason
    assert "git clean -n -d -x -- src to see" in one(found, "git clean -fdx src").instead
    assert "git clean -n -X -- . to see" in one(found, "git clean -fX").instead


@pytest.mark.parametrize(
    "cmd",
    [
        "git reset",
        "git reset --soft HEAD~1",
        "git reset --hard --keep",
        "git reset --keep --hard --mixed",
        "git checkout",
        "git checkout -b x a.py",
        "git checkout -b x -p",
        "git checkout --orphan x",
        "git checkout -b x",
        "git restore",
        "git restore --staged a.py",
        "git restore -S -p",
        "git restore --no-worktree a.py",
        "git restore -W --no-worktree a.py",
        "git switch main",
        "git switch -c x",
        "git clean -n",
        "git clean -fn",
        "git clean --dry-run -f",
        "git stash",
        "git stash list",
        "git stash pop",
        "git stash push -m drop",
        "git rm a",
        "git rm -f --cached a",
        "git rm -f -n a",
        "git rm -f --dry-run a",
        "git checkout-index -a",
        "git checkout-index -f",
        "git checkout-index -f --prefix=out/ -a",
        "git read-tree --reset HEAD",
        "git read-tree -u -m HEAD",
        "git mv a b",
        "git mv -f a",
        "git mv -f -n a b",
        "git reset --hard -h",
        "git --help reset --hard",
        "git checkout --help .",
    ],
)
def test_worktree_forms_that_destroy_nothing(found, cmd: str) -> None:
    assert found(cmd) == []


@pytest.mark.parametrize(
    "cmd",
    ["git checkout main", "git checkout origin/main", "git checkout HEAD~1", 'git checkout "$B"'],
)
def test_a_checkout_operand_that_reads_as_a_branch_is_left_to_the_tree(found, cmd: str) -> None:
    # a switch by text alone; the tree decides whether it names no commit but a dirty path
    [finding] = found(cmd)
    assert finding.targets.candidate and finding.targets.by_tree_only


@pytest.mark.parametrize(
    ("text", "path"),
    [
        (".", True),
        ("..", True),
        ("./a", True),
        ("../a", True),
        ("/abs", True),
        (":/a", True),
        (":(top)a", True),
        ("~/a", True),
        ("a/", True),
        ("src/.", True),
        ("src//lib", True),
        ("a/.hidden", True),
        (".env", True),
        ("src/*", True),
        ("a?b", True),
        ("x[ab]", True),
        ("app.py", True),
        ("feature/a.py", True),
        ("Makefile", True),
        ("docs/README", True),
        ("main", False),
        ("origin/main", False),
        ("feature/x", False),
        ("v1.2.3", False),
        ("HEAD~1", False),
        ("HEAD^", False),
        ("@{-1}", False),
        ("main@{1}", False),
        ("HEAD~1:app.py", False),  # a revision's blob, not a file name
        ("v2^{}:lib/x.py", False),
        ("x.tooLongExtension", False),
    ],
)
def test_looks_like_path(text: str, path: bool) -> None:
    assert looks_like_path(Word(text, text, has_glob=False)) is path


def test_an_unquoted_glob_or_a_run_time_tilde_is_a_path() -> None:
    assert looks_like_path(Word("*", "*", has_glob=True))
    assert looks_like_path(Word('"$D"/*', None, has_glob=True))
    assert not looks_like_path(Word('"$B"', None))
    assert looks_like_path(Word('"$D"/a.py', None))
    assert not looks_like_path(Word('"$B"~1', None))
