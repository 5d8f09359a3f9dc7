"""What a command that surely succeeded saved before a discard on the same line: which git
commands (`git add` then `stash`/`commit`, `git diff --binary > f`) and copies (`cp`, `mv`,
`rsync`, `cat f > g`, `tar -c`, `zip`) hold which kinds of work at which paths. By text: the
discard after a save is allowed exactly when the save holds all it destroys."""

from __future__ import annotations

from pathlib import Path

import pytest

from interlock.engine.check import evaluate


def verdict(command: str, cwd: str = "/", *, assume_dirty: bool = True) -> str:
    return evaluate(command, cwd, mode="blocking", assume_dirty=assume_dirty).result.verdict


def rules_of(command: str) -> set[str]:
    result = evaluate(command, "/", mode="blocking", assume_dirty=True).result
    return {f.rule for f in result.findings}


SAVED = [
    # git add, then a stash or commit that takes the index with it
    ("git add --all && git stash && git clean -fd", "the index holds the untracked files"),
    ("git add notes.md && git stash && git clean -f notes.md", "the one file added"),
    ("git add -u && git commit -m x && git checkout -- .", "-u staged the tracked changes"),
    ("git add . && git commit -m wip && git clean -fd", "a commit takes the index"),
    ("git add --chmod=+x a.sh && git commit -m x && git checkout -- a.sh", "--chmod takes a value"),
    # git stash
    ("git stash save && git checkout -- .", "save stashes the whole tree"),
    ("git stash save wip && git checkout -- .", "save's word is a message, not a path"),
    ("git stash -m wip && git checkout -- .", "-m takes the message"),
    ("git stash push src && git checkout -- src", "a pathspec without --"),
    ("git stash -- src && git checkout -- src", "-- without push"),
    ("git stash --include-untracked && git clean -f", "-u"),
    ("git stash -a && git clean -fdX", "-a keeps ignored files"),
    ("git stash --all && git clean -fdx", "--all keeps both"),
    ("git stash --staged && git restore --staged .", "the index is in the stash"),
    # git commit
    ("git commit --all -m x && git checkout -- .", "--all"),
    ("git commit -a -F msg.txt && git checkout -- .", "-F takes the message file"),
    ("git commit -a --author me -m x && git checkout -- .", "--author takes a value"),
    ("git commit -a -C HEAD && git checkout -- .", "-C takes a commit"),
    ("git commit -m x src && git checkout -- src", "the paths named, staged or not"),
    ("git commit --amend -a --no-edit && git checkout -- .", "an amend still holds the work"),
    ("git commit -am x && git reset HEAD -- f && git reset --hard HEAD~1", "paths: HEAD stays"),
    ("git commit -am x && git reset -q && git reset --hard HEAD~1", "no rev: HEAD stays"),
    ("git commit -am x && git checkout -b y HEAD && git reset --hard HEAD~1", "not back"),
    # git diff
    ("git diff --binary HEAD > p && git reset --hard", "against HEAD: staged and unstaged"),
    ("git diff --binary --cached > p && git restore --staged .", "the index"),
    ("git diff --binary --output=p && git checkout -- .", "--output writes the file"),
    ("git diff --binary -O order.txt > p && git checkout -- .", "-O takes a file"),
    # copies
    ("cp -t /tmp/b f && rm f", "-t names the destination"),
    ("cp --target-directory=/tmp/b f && rm f", "--target-directory"),
    ("cp -S .bak f /tmp/f && rm f", "-S takes the suffix"),
    ("rsync -a src/ /tmp/b && rm -rf src", "rsync"),
    ("zip -r /tmp/b.zip src && rm -rf src", "zip"),
    ("tar -c -f /tmp/b.tar src && rm -rf src", "tar -c -f"),
    ("tar --create --file=/tmp/b.tar src && rm -rf src", "tar --create --file"),
    ("gtar czf /tmp/b.tgz src && rm -rf src", "gtar"),
    ("bsdtar czf /tmp/b.tgz src && rm -rf src", "bsdtar"),
    ("cat f >| /tmp/g && rm f", ">| writes too"),
    ("git commit --dry-run -m x && git stash && git checkout -- .", "a dry run, then a save"),
    ('git commit -m x "$f" && git stash && git checkout -- .', "an unknown commit, then a save"),
    ("git diff --binary --cached > p && git stash && git checkout -- .", "the index, then a save"),
    (
        "git diff --binary > /dev/null && git stash && git checkout -- .",
        "no diff kept, then a save",
    ),
    ("git diff --stat > p && git stash && git checkout -- .", "a stat, then a save"),
    ("git diff --binary --no-index a b > p && git stash && git checkout -- a", "then a save"),
    ("cp --target-directory /tmp/b f && rm f", "--target-directory takes the next word"),
    ("tar --create --file /tmp/b.tar src && rm -rf src", "--file takes the next word"),
    ("git add --chmod +x -A && git stash && git clean -fd", "--chmod takes the next word"),
    ("git add --update && git commit -m x && git checkout -- .", "--update stages the tree"),
    ("git stash push --message wip && git checkout -- .", "--message takes the next word"),
    ("git commit -am x && git checkout -- HEAD~1 && git reset --hard HEAD~1", "a path, not a rev"),
]


@pytest.mark.parametrize(("command", "why"), SAVED)
def test_a_save_that_holds_what_the_discard_destroys_allows_it(command, why):
    assert verdict(command) == "allow", (why, rules_of(command))


NOT_SAVED = [
    # git add
    ("git add -n . && git stash && git clean -fd", "a dry run adds nothing"),
    ("git add --dry-run -A && git stash && git clean -fd", "nor --dry-run"),
    ("git add -N notes.md && git stash && git clean -fd", "intent to add keeps no content"),
    ("git add --intent-to-add -A && git stash && git clean -fd", "nor --intent-to-add"),
    ("git add -p && git stash && git clean -fd", "a patch adds what the user picks"),
    ("git add --patch && git stash && git clean -fd", "nor --patch"),
    ("git add -u && git stash && git clean -fd", "-u adds no untracked file"),
    ("git add --update && git stash && git clean -fd", "nor --update"),
    ("git add && git stash && git clean -fd", "nothing named, nothing added"),
    ('git add "$f" && git stash && git clean -fd', "a path named at run time"),
    ("git add --pathspec-from-file=l && git stash && git clean -fd", "paths read from a file"),
    ("git add notes.md && git stash && git clean -fd", "only notes.md was added"),
    # git stash
    ("git stash list && git checkout -- .", "list saves nothing"),
    ("git stash show && git checkout -- .", "nor show"),
    ("git stash list && git checkout -- list", "list is a subcommand, not a path it stashed"),
    ("git stash clear && git checkout -- clear", "nor clear"),
    ("git stash --patch && git checkout -- .", "a patch stash may keep nothing"),
    ("git stash --staged && git checkout -- .", "the unstaged changes stay in the tree"),
    ("git stash -S && git reset --hard", "nor with -S"),
    ("git stash push src && git checkout -- .", "a pathspec stash covers its paths"),
    ("git stash -m wip -- src && git checkout -- .", "with a message too"),
    ('git stash push -- "$f" && git checkout -- .', "a path named at run time"),
    ("git stash --pathspec-from-file=list && git checkout -- .", "paths read from a file"),
    ("git stash push --pathspec-from-file list && git checkout -- .", "in two words too"),
    ("git stash -u && git clean -fdX", "-u keeps no ignored file"),
    # git commit
    ("git commit --dry-run -am x && git checkout -- .", "a dry run commits nothing"),
    ("git commit -p -m x && git checkout -- .", "a patch commits what the user picks"),
    ("git commit --patch -m x && git checkout -- .", "nor --patch"),
    ("git commit --interactive && git checkout -- .", "nor --interactive"),
    ("git commit -m x src && git checkout -- .", "the paths named only"),
    ('git commit -m x "$f" && git checkout -- .', "a path named at run time"),
    ('git add -A && git commit -m x "$f" && git clean -fd', "it may commit none of the index"),
    ("git commit -m x --pathspec-from-file=l && git checkout -- .", "paths read from a file"),
    ("git commit -m x && git reset --hard", "without -a the unstaged work is not in it"),
    ("git commit -am x && git reset --hard HEAD~1 && git reset --hard HEAD~1", "HEAD moved back"),
    ("git commit -am x && git reset --soft HEAD~1 && git reset --hard HEAD~1", "softly too"),
    ("git commit -am x; git reset HEAD^; git reset --hard HEAD~1", "whether or not it ran"),
    ("git commit -am x && git checkout HEAD~1 && git reset --hard HEAD~1", "checked out back"),
    ("git commit -am x && git switch --detach HEAD~1 && git reset --hard HEAD~1", "switched"),
    ("git diff --binary > /tmp/p > /tmp/q && git checkout -- .", "only the last gets the diff"),
    ("rsync -a -f '- x' src/ /tmp/b && rm -rf src", "-f filters"),
    # git diff
    ("git diff --binary > /dev/null && git checkout -- .", "nothing kept"),
    ("git diff --binary 2> p && git checkout -- .", "only the errors go to p"),
    ("git diff --binary 0> p && git checkout -- .", "nor with fd 0"),
    ("git diff --binary --output=/dev/null > p && git checkout -- .", "--output wins"),
    ("git diff --binary --name-only > p && git checkout -- .", "names only"),
    ("git diff --binary --name-status > p && git checkout -- .", "names and status only"),
    ("git diff --binary -s > p && git checkout -- .", "no diff at all"),
    ("git diff --binary > p && git reset --hard", "the index is not in a plain diff"),
    ("git diff --binary --cached > p && git checkout -- .", "--cached shows the index only"),
    ("git diff --binary --staged HEAD > p && git reset --hard", "so does --staged HEAD"),
    ("git diff --binary HEAD~1 HEAD > p && git reset --hard", "between two commits"),
    ("git diff --binary --no-index a b > p && git checkout -- a", "two files, not a's changes"),
    ('git diff --binary -- "$f" > p && git checkout -- .', "a path named at run time"),
    ("git diff --binary src > p && git checkout -- README.md", "the diff covers src only"),
    # copies
    ("cp -i f /tmp/f && rm f", "-i may refuse"),
    ("cp --no-clobber f /tmp/f && rm f", "--no-clobber may skip"),
    ("cp --update f /tmp/f && rm f", "--update may skip"),
    ("cp --interactive f /tmp/f && rm f", "--interactive may refuse"),
    ("rsync -a --existing src/ /tmp/b && rm -rf src", "--existing copies only some"),
    ("rsync -a --ignore-existing src/ /tmp/b && rm -rf src", "--ignore-existing too"),
    ("rsync -a --include=x src/ /tmp/b && rm -rf src", "--include filters"),
    ("rsync -a --filter='- x' src/ /tmp/b && rm -rf src", "--filter filters"),
    ("rsync -a --exclude-from=l src/ /tmp/b && rm -rf src", "--exclude-from filters"),
    ("rsync -a --include-from=l src/ /tmp/b && rm -rf src", "--include-from filters"),
    ("cp f && rm f", "no destination"),
    ('cp f "$d" && rm f', "a destination named at run time may be /dev/null"),
    ('cp -t "$d" f && rm f', "so may a target directory"),
    ("cp *.py /tmp/b && rm a.py", "a glob may not match a.py"),
    ("cat a b > /tmp/c && rm a", "two files in one"),
    ("cat f > /dev/null && rm f", "nothing kept"),
    ("cat -n f > /tmp/g && rm f", "numbered lines are not the file"),
    ("cat f && rm f", "printed, not kept"),
    ('cat f > "$g" && rm f', "a copy named at run time"),
    ("zip -r /tmp/b.zip src -x '*.env' && rm -rf src", "excluded files"),
    ("zip -r /tmp/b.zip src --exclude '*.env' && rm -rf src", "excluded files"),
    ("zip - src > /dev/null && rm -rf src", "the archive went to stdout"),
    ("zip && rm -rf src", "no archive"),
    ("tar xf /tmp/b.tar && rm -rf src", "extracts, keeps nothing"),
    ("tar -c src && rm -rf src", "no file: the archive goes to stdout"),
    ("tar czf - src && rm -rf src", "to stdout"),
    ("tar czf /dev/null src && rm -rf src", "to nowhere"),
    ('tar czf "$a" src && rm -rf src', "an archive named at run time"),
    ("tar czf /tmp/b.tgz -X l src && rm -rf src", "-X excludes"),
    ("tar czf /tmp/b.tgz --exclude-from=l src && rm -rf src", "--exclude-from excludes"),
    ("tar czf /tmp/b.tgz --exclude-vcs src && rm -rf src", "--exclude-vcs excludes"),
    ("tar czf /tmp/b.tgz --exclude-ignore=.x src && rm -rf src", "--exclude-ignore excludes"),
    ("tar czf /tmp/b.tgz -C /elsewhere . && rm -rf src", "-C reads another directory"),
    ("tar czf /tmp/b.tgz --directory=other src && rm -rf src", "and so does --directory"),
]


@pytest.mark.parametrize(("command", "why"), NOT_SAVED)
def test_a_save_that_may_not_hold_what_the_discard_destroys_does_not_count(command, why):
    assert verdict(command) == "block", why


@pytest.mark.parametrize(
    "command",
    [
        "git tag keep && git reset --hard HEAD~1",
        "git branch keep && git reset --hard HEAD~1",
    ],
)
def test_a_new_branch_or_tag_keeps_the_commits_a_reset_leaves(git_repo, git, command):
    (git_repo / "README.md").write_text("second\n")
    git(git_repo, "commit", "-qam", "second")
    assert verdict(command, str(git_repo), assume_dirty=False) == "allow"


@pytest.mark.parametrize(
    "command",
    [
        "git branch -v && git reset --hard HEAD~1",  # lists
        "git tag -l && git reset --hard HEAD~1",
        "git branch && git reset --hard HEAD~1",
        'git branch "$b" && git reset --hard HEAD~1',  # may be a listing option
    ],
)
def test_a_branch_or_tag_command_that_makes_no_ref_keeps_nothing(git_repo, git, command):
    (git_repo / "README.md").write_text("second\n")
    git(git_repo, "commit", "-qam", "second")
    assert verdict(command, str(git_repo), assume_dirty=False) == "block"


def test_what_a_stash_took_before_it_was_popped_is_not_a_save(git_repo: Path):
    (git_repo / "README.md").write_text("edited\n")
    repo = str(git_repo)
    assert verdict("git stash && git checkout -- .", repo, assume_dirty=False) == "allow"
    command = "git stash && git stash pop && git checkout -- ."
    assert verdict(command, repo, assume_dirty=False) == "block"


def test_a_reset_after_head_moved_back_on_the_line_reaches_that_much_further(git_repo, git):
    for n in (1, 2):
        (git_repo / "README.md").write_text(f"commit {n}\n")
        git(git_repo, "commit", "-qam", f"commit {n}")
    repo = str(git_repo)
    (one,) = evaluate("git reset --hard HEAD~1", repo, mode="blocking").result.findings
    assert one.reason.endswith("1 commit no other ref holds")
    command = "git reset --soft HEAD~1 && git reset --hard HEAD~1"
    (two,) = evaluate(command, repo, mode="blocking").result.findings
    assert two.reason.endswith("2 commits no other ref holds")
