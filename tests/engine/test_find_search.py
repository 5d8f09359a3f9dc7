"""Deletions whose targets a file search chooses (`find ... -delete`, `find -exec rm {} +`,
`fd -x rm`, `find | xargs rm`, `git ls-files | xargs rm`, and `sed -i`/`truncate` on what they
find): judged by evaluating the search on the paths that hold unsaved work, in real
repositories; when the expression is not understood, every unsaved path under the start."""

from __future__ import annotations

from pathlib import Path

import pytest

from interlock.engine.check import evaluate
from interlock.engine.findexpr import find_search
from interlock.engine.findmatch import selects
from interlock.shell.parse import parse

IGNORES = "__pycache__/\n*.pyc\nbuild/\n"


def words(text: str):
    return parse(text).root.words[1:]  # type: ignore[union-attr]


def search(text: str, **kw):
    return find_search(words(text), "", **kw)


@pytest.fixture
def tree(git_repo: Path, git) -> Path:
    """A repository whose build output is ignored, with a person's unsaved work: notes.md
    (untracked), src/app.py (edited), keep/notes.md (untracked), draft/ (an untracked
    directory git reports as one entry) and compiled files that git ignores."""
    (git_repo / ".gitignore").write_text(IGNORES)
    git(git_repo, "add", ".gitignore")
    git(git_repo, "commit", "-qm", "ignores")
    (git_repo / "notes.md").write_text("notes\n")
    (git_repo / "src" / "app.py").write_text("print('edited')\n")
    (git_repo / "keep").mkdir()
    (git_repo / "keep" / "notes.md").write_text("kept notes\n")
    (git_repo / "draft").mkdir()
    (git_repo / "draft" / "plan.txt").write_text("plan\n")
    (git_repo / "draft" / "tool.py").write_text("print(1)\n")
    for where in (git_repo / "src" / "__pycache__", git_repo / "draft" / "__pycache__"):
        where.mkdir()
        (where / "app.cpython-311.pyc").write_bytes(b"\0")
    return git_repo


def lost(repo: Path, line: str) -> set[str]:
    result = evaluate(line, str(repo), mode="blocking").result
    return {p for f in result.findings for p in f.lost}


def rel(repo: Path, *paths: str) -> set[str]:
    return {str(repo / p) for p in paths}


@pytest.mark.parametrize(
    "line",
    [
        "find . -name '__pycache__' -type d -exec rm -rf {} +",
        "find . -type d -name __pycache__ -prune -exec rm -rf {} \\;",
        "find . -name '*.pyc' -delete",
        "find . -iname '*.PYC' -exec rm -f {} +",
        "find src -name '*.pyc' -o -name '*.pyo' | xargs rm -f",
        "find . -name '*.pyc' -print0 | xargs -0 rm -f",
        "find . -name '*.pyc' | grep -v venv | xargs rm",
        "find . -regex '.*\\.py[co]' -delete",
        "find . -path '*/__pycache__/*' -delete",
        "find . -name '*.orig' -o -name '*.rej' -delete",
        "fd -e pyc -x rm",
        "fd -t d __pycache__ -X rm -rf",
        "git ls-files '*.txt' | xargs rm",
        "git ls-files -d | xargs rm",
    ],
)
def test_a_cleanup_of_build_output_is_allowed_beside_unsaved_work(tree, line):
    result = evaluate(line, str(tree), mode="blocking").result
    assert result.verdict == "allow", result.findings


@pytest.mark.parametrize(
    ("line", "paths"),
    [
        ("find . -name '*.md' -delete", ("notes.md", "keep/notes.md")),
        ("find . -maxdepth 1 -name '*.md' -delete", ("notes.md",)),
        ("find . -mindepth 2 -name '*.md' -delete", ("keep/notes.md",)),
        ("find . -path ./keep -prune -o -name '*.md' -exec rm {} +", ("notes.md",)),
        ("find . -name keep -prune -o -name '*.md' -print | xargs rm", ("notes.md",)),
        ("find . -type f ! -name '*.md' ! -name '*.pyc' -path '*src*' -delete", ("src/app.py",)),
        ("find . -not -name '*.md' -name 'app.*' -delete", ("src/app.py",)),
        (
            "find . \\( -name '*.txt' -o -name '*.md' \\) -mindepth 2 -delete",
            ("keep/notes.md", "draft/plan.txt"),
        ),
        ("find . -name keep -type d -exec rm -r {} +", ("keep",)),  # git's one entry
        ("find . -name keep -exec rm {} \\;", ()),  # rm without -r does not remove a directory
        ("find draft -name '*.py' -delete", ("draft/tool.py",)),  # inside an untracked dir
        ("find . -name '*.md' -newer README.md -delete", ("notes.md", "keep/notes.md")),
        ("find . -regex '.*/keep/.*' -delete", ("keep/notes.md",)),
        ("find . -name '*.md' -exec truncate -s 0 {} +", ("notes.md", "keep/notes.md")),
        ("find . -name 'app.py' | xargs sed -i '/./d'", ("src/app.py",)),
        ("fd -e md -x rm", ("notes.md", "keep/notes.md")),
        ("fd '^app' src -X rm -f", ("src/app.py",)),
        ("git ls-files -m | xargs rm", ("src/app.py",)),
        (
            "git ls-files -o --exclude-standard | xargs rm -f",
            ("notes.md", "keep/notes.md", "draft/plan.txt", "draft/tool.py"),
        ),
        ("git ls-files -o --exclude-standard -- '*.py' | xargs rm", ("draft/tool.py",)),
    ],
)
def test_only_the_unsaved_paths_the_search_selects_count(tree, line, paths):
    assert lost(tree, line) == rel(tree, *paths)


def test_the_message_says_the_targets_are_chosen_at_run_time(tree):
    result = evaluate("find . -name '*.md' -exec rm -rf {} +", str(tree), mode="blocking").result
    [finding] = result.findings
    assert "among what find selects at run time" in finding.reason
    assert "whole worktree" not in finding.reason
    assert "notes.md" in finding.reason and "src/app.py" not in finding.reason


def test_a_search_that_reaches_git_s_own_files_destroys_them(tree):
    (tree / ".git" / "debug.log").write_text("kept by git\n")
    result = evaluate("find . -name '*.log' -delete", str(tree), mode="blocking").result
    assert result.verdict == "block"
    assert ".git (git's own data)" in result.findings[0].reason
    assert (
        evaluate("find . -name HEAD -delete", str(tree), mode="blocking").result.verdict == "block"
    )
    # fd skips hidden entries unless told
    assert evaluate("fd -e log -x rm", str(tree), mode="blocking").result.verdict == "allow"
    assert evaluate("fd -H -e log -x rm", str(tree), mode="blocking").result.verdict == "block"


@pytest.mark.parametrize(
    "line",
    [
        "find . -name '*.pyc' -foo -delete",  # an unknown primary
        "find -L . -name '*.pyc' -delete",  # follows links anywhere
        'find . -name "$PAT" -delete',  # a pattern known at run time
        "find . -name '*.pyc' | sed 's/c$//' | xargs rm",  # the list is rewritten
        "find . -name '*.pyc' -printf '%f\\n' | xargs rm",  # prints something else
        "fd -p 'src/.*' -x rm",  # matched on the absolute path
        "fd -x rm {/}",  # not the path found
    ],
)
def test_a_search_that_is_not_understood_counts_every_unsaved_path_under_its_start(tree, line):
    found = lost(tree, line)
    assert rel(tree, "notes.md", "src/app.py") <= found


def test_the_fallback_names_the_unsaved_paths_not_the_whole_worktree(tree):
    result = evaluate("find . -foo -delete", str(tree), mode="blocking").result
    [finding] = result.findings
    assert rel(tree, "notes.md", "src/app.py", "keep", "draft") <= set(finding.lost)
    assert "whole worktree" not in finding.reason
    assert "among what find selects at run time" in finding.reason


def test_by_text_alone_a_search_outside_temp_dirs_is_still_a_discard():
    for line in ("find . -name '*.pyc' -delete", "fd -e md -x rm", "find . | xargs sed -i d"):
        assert evaluate(line, "/", mode="blocking", assume_dirty=True).result.verdict == "block"
    free = "find /tmp/build -name '*.o' -exec rm {} +"
    assert evaluate(free, "/", mode="blocking", assume_dirty=True).result.verdict == "allow"


@pytest.mark.parametrize(
    ("text", "understood"),
    [
        ("find . -name x -delete", True),
        ("find . ! -name x -a \\( -type f -o -type l \\) , -print -delete", True),
        ("find . -not -path './.git/*' -mmin +5 -size +1M -empty -delete", True),
        ("find . -regextype posix-extended -regex '.*\\.(py|md)' -delete", True),
        ("find . -name x -fls out -delete", True),
        ("find . -name", False),
        ("find . \\( -name x -delete", False),
        ("find . -name x -regextype sed -regex y -delete", False),
        ("find . -follow -delete", False),
        ("find . -bogus -delete", False),
    ],
)
def test_find_expressions_are_read_or_refused_whole(text, understood):
    found = search(text, target=-1)
    assert found is not None and found.understood is understood


def test_evaluation_follows_find_semantics_on_one_path():
    prune = search("find . -path ./vendor -prune -o -name '*.py' -exec rm {} +", target=0)
    assert prune is not None
    assert selects(prune, ".", "src/a.py", "f")
    assert not selects(prune, ".", "vendor/a.py", "f")  # pruned before it is reached
    depth = search("find . -delete -path ./vendor -prune", target=-1)
    assert depth is not None and selects(depth, ".", "vendor/a.py", "f")  # -delete: -depth
    typed = search("find . -type d -name build -exec rm -r {} +", target=0, subtree=True)
    assert typed is not None
    assert selects(typed, ".", "pkg/build/x.o", "f")  # its directory matches
    assert not selects(typed, ".", "pkg/build", "f")  # a file named build is not -type d
