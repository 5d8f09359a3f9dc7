"""Sequences on one line: a discard after a save that surely succeeded first is harmless, a
path through a link made earlier on the line is judged where it leads, and a command after a
`cd` that may fail is judged in both places. By text alone, and in real repositories."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from interlock.engine.check import evaluate


def verdict(command: str, cwd: str = "/", *, assume_dirty: bool = True) -> str:
    return evaluate(command, cwd, mode="blocking", assume_dirty=assume_dirty).result.verdict


def rules_of(command: str, cwd: str = "/", *, assume_dirty: bool = True) -> set[str]:
    result = evaluate(command, cwd, mode="blocking", assume_dirty=assume_dirty).result
    return {f.rule for f in result.findings}


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True
    ).stdout


SAVED_FIRST = [
    "git stash && git checkout -- .",
    "git stash push && git checkout -- .",
    "git stash push -m wip && git restore .",
    "git stash && git reset --hard",
    "git stash -u && git clean -fd",
    "git stash --include-untracked && git clean -fd && git checkout -- .",
    "git stash --all && git clean -fdx",
    "git add -A && git stash && git clean -fd",
    "git commit -am wip && git reset --hard HEAD~1",
    "git commit -a -m wip && git reset --hard HEAD^",
    "git add -A && git commit -m wip && git reset --hard HEAD~1",
    "git add . && git commit -m wip && git clean -fd",
    "git commit -am wip && git checkout -- .",
    "git stash push -- src/app.py && git checkout -- src/app.py",
    "git commit src/app.py -m wip && git checkout -- src/app.py",
    "cp src/app.py src/app.py.bak && git checkout -- src/app.py",
    "cp notes.md /tmp/notes.md && rm notes.md",
    "cat notes.md > /tmp/notes.md && rm notes.md",
    "cp -r src /tmp/src.bak && rm -rf src",
    "mv notes.md /tmp/ && git checkout -- notes.md",
    "tar czf /tmp/backup.tgz src && rm -rf src",
    "git diff --binary > /tmp/edits.patch && git checkout -- .",
    "git diff --binary -- src > edits.patch && git checkout -- src",
    "git diff --binary src > edits.patch && git checkout -- src",
    "git branch backup && git stash && git reset --hard origin/main",
    "set -e; git stash; git checkout -- .",
    "git stash || exit 1; git checkout -- .",
    "if git stash; then git checkout -- .; fi",
    "git stash && cd src && git checkout -- .",
    "bash -c 'git stash && git checkout -- .'",
    "git stash && bash -c 'git checkout -- .'",
]


@pytest.mark.parametrize("command", SAVED_FIRST)
def test_a_discard_after_a_save_that_surely_succeeded_is_allowed(command):
    assert verdict(command) == "allow", rules_of(command)


NOT_SAVED = [
    ("git stash; git checkout -- .", "a `;` does not wait for the stash to succeed"),
    ("git stash || true; git checkout -- .", "the line goes on if the stash failed"),
    ("git stash || git checkout -- .", "runs exactly when the stash failed"),
    ("git stash & git checkout -- .", "in the background: no order, no status"),
    ("git stash && git clean -fd", "a plain stash keeps no untracked files"),
    ("git stash && git clean -fdx", "nor ignored ones"),
    ("git stash -u && git clean -fdx", "-u keeps untracked, not ignored files"),
    ("git commit -am wip && git clean -fd", "commit -a takes tracked files only"),
    ("git commit -m wip && git checkout -- .", "a commit without -a keeps only the index"),
    ("git commit -am wip && git reset --hard HEAD~2", "HEAD~2 drops a commit made before"),
    ("git stash && git reset --hard HEAD~1", "the stash keeps no commits"),
    ("git stash push -- a.py && git checkout -- .", "a save covers only its own paths"),
    ("cp a.py a.py.bak && git checkout -- .", "one copy does not cover the tree"),
    ("cp a.py a.py.bak && rm b.py", "nor another file"),
    ("cp -r src src.bak && git clean -fd", "the copy is untracked and goes with the rest"),
    ("git stash && echo x > a.py && git checkout -- a.py", "written again after the save"),
    ("git stash && git stash drop", "dropping the stash destroys the save itself"),
    ("git stash -p && git checkout -- .", "an interactive stash may keep nothing"),
    ("git stash && git -C ../other checkout -- .", "another worktree was not saved"),
    ("cp f /dev/null && rm f", "/dev/null keeps nothing"),
    ("git diff --stat > x && git checkout -- .", "a stat is not the changes"),
    ("git diff > x.patch && git checkout -- .", "without --binary a binary change is only named"),
    ("git diff --binary src > x.patch && git checkout -- .", "the diff covers src only"),
    ("cp -n f /tmp/f && rm f", "cp -n skips an existing copy"),
    ("cp -u f /tmp/f && rm f", "cp -u skips a newer copy"),
    ("tar czf /tmp/b.tgz --exclude='*.env' src && rm -rf src", "excluded files are not saved"),
    ("rsync -a --exclude=x src/ /tmp/b && rm -rf src", "excluded files are not saved"),
    ("git add -A && git clean -fd", "the index is not a save until a stash or commit"),
    ("true && git stash drop", "no save at all"),
    ("cp f f.bak && rm f f.bak", "the backup goes with the file"),
    ("cp f f.bak && rm f && rm f.bak", "the backup is deleted after the file"),
    ("mv f /tmp/f.bak && rm /tmp/f.bak", "the moved file is the only copy, even in /tmp"),
    ("cat f > /tmp/g && rm f && rm /tmp/g", "a copy made by cat, then deleted"),
    ("cp f /tmp/f.bak && git checkout -- f && rm /tmp/f.bak", "restored, then the backup goes"),
]


@pytest.mark.parametrize(("command", "why"), NOT_SAVED)
def test_a_save_that_may_fail_or_does_not_cover_the_target_does_not_count(command, why):
    assert verdict(command) == "block", why


SAVE_EDGES_ALLOWED = [
    (
        "git diff --binary > edits.patch && git checkout -- .",
        "the save's own output is no new work",
    ),
    (
        "git stash && chmod +x src/app.py && git checkout -- src/app.py",
        "a mode change writes no content",
    ),
    ("cp notes.md notes.md.bak && rm notes.md", "a copy beside the file is not under it"),
    ("cp -r . /tmp/b && rm -rf *", "a copy of the whole directory covers each name in it"),
    ("rsync -a src/ src/bak/ && git checkout -- src", "a checkout keeps the untracked copy"),
    ("git commit -am wip && git reset --hard HEAD~", "a bare ~ is one commit: the line's own"),
    ("chmod +x f; cp f /tmp/f.bak && rm /tmp/f.bak", "f was changed before the copy, not after"),
    ("cp f /tmp/f.bak && chmod +x g && rm /tmp/f.bak", "another file changed: f still holds it"),
    ('git stash && git checkout -- "$f"', "a git discard stays in the worktree the stash took"),
]


@pytest.mark.parametrize(("command", "why"), SAVE_EDGES_ALLOWED)
def test_the_edges_of_what_a_save_covers_allow(command, why):
    assert verdict(command) == "allow", (why, rules_of(command))


SAVE_EDGES_BLOCKED = [
    ("git stash && echo x > a.py && git checkout -- .", "a file written after the stash"),
    ("git stash && echo x > a.py && git reset --hard", "so for a whole-tree discard too"),
    ("git stash && echo x > src/a.py && git checkout -- src", "written under the target"),
    ("git stash && cd src && echo x > app.py && git checkout -- app.py", "written where cd went"),
    ("rsync -a src/ src/bak/ && rm -rf src", "the copy is deleted with what it copied"),
    ("git stash -u && git stash apply && rm -rf src", "an apply credits a stash drop only"),
    ("git commit -am wip && git reset --hard origin/main", "another branch's commit"),
    ("git commit -am wip && git reset --hard HEAD^^", "two first parents back: one made before"),
    ("git commit -am wip && git reset --hard HEAD~~", "two commits back: one made before"),
    ('git stash -a && : > "$f"', "a file named at run time may lie in no stashed tree"),
    ('git stash -a && rm -rf "$d"', "nor a directory"),
    ('git stash -a && git submodule deinit -f "$m"', "nor a submodule named at run time"),
    ("git stash push -- a.py && git reset --hard", "one path's stash does not cover the tree"),
    ("cp -r . /tmp/b && git reset --hard", "the line may start below the worktree's top"),
    ('(cd "$d" && echo x > notes.md); rm notes.md', "written in a directory known at run time"),
    ("cp -r tmpl out && rm -f out", "cp -r may copy into a directory there, keeping the rest"),
    ('cp f /tmp/f.bak && chmod +x "$g" && rm /tmp/f.bak', "a file named at run time: maybe f"),
]


@pytest.mark.parametrize(("command", "why"), SAVE_EDGES_BLOCKED)
def test_the_edges_of_what_a_save_covers_block(command, why):
    assert verdict(command) == "block", why


@pytest.mark.parametrize(
    ("command", "stands_for"),
    [
        ("cp -r src /tmp/b && rm -rf src && rm -f /tmp/b/app.py", "src"),  # a part of the copy
        ("cp f /tmp/x/f.bak && rm f && rm -rf /tmp/x", "f"),  # the copy within the target
        ("cp f /tmp/f.bak && rm f && cd src && rm /tmp/f.bak", "../f"),  # from where rm runs
        (
            "cp /home/me/n.md /tmp/n.bak && rm /home/me/n.md && cd src && rm /tmp/n.bak",
            "/home/me/n.md",
        ),
    ],
)
def test_a_backup_whose_original_is_gone_is_judged_at_the_original(command, stands_for):
    (finding,) = evaluate(command, "/", mode="blocking", assume_dirty=True).result.findings
    assert finding.targets is not None
    assert finding.targets.paths[-1] == stands_for


def test_a_file_the_line_wrote_is_dropped_from_the_targets_the_others_stay():
    command = "echo x > a.txt && rm a.txt b.txt"
    (finding,) = evaluate(command, "/", mode="blocking", assume_dirty=True).result.findings
    assert finding.targets is not None and finding.targets.paths == ("b.txt",)


@pytest.mark.parametrize(
    "command",
    [
        "git checkout -b tmp && git branch -D tmp",
        "git switch -c tmp && git branch -D tmp",
        "git switch --create=tmp && git branch -D tmp",
        "git switch --create tmp && git branch -D tmp",
        "git branch tmp && git branch -D tmp",
        "git branch tmp main && git branch -D tmp",
        "git worktree add -b tmp ../w && git branch -D tmp",
    ],
)
def test_deleting_a_branch_the_line_created_loses_nothing_else(command):
    assert verdict(command) == "allow", rules_of(command)


@pytest.mark.parametrize(
    "command",
    [
        "git checkout -b tmp; git branch -D tmp",  # the name may be taken: tmp is an old branch
        "git checkout -b tmp && git branch -D other",
        'git checkout -b tmp && git branch -D "$b"',
        "git checkout -b tmp && git branch -D tmp other",
        "git branch -f tmp && git branch -D tmp",  # -f moves a branch that may exist
        "git branch tmp main -f && git branch -D tmp",  # so does a -f after the names
        "git branch tmp --force && git branch -D tmp",
        "git branch tmp main extra && git branch -D tmp",  # not a creation (git refuses it)
        "git checkout -b && git branch -D tmp",
        "git switch --create && git branch -D tmp",
        "git branch && git branch -D tmp",  # lists
    ],
)
def test_deleting_a_branch_the_line_did_not_surely_create_is_judged(command):
    assert "git.branch-force-delete" in rules_of(command)


@pytest.mark.parametrize(
    "command", ["git stash -p && git stash drop", 'git stash push -- "$f" && git stash drop']
)
def test_a_drop_after_a_stash_whose_take_is_unknown_is_judged_as_any_drop(command):
    (finding,) = evaluate(command, "/", mode="blocking", assume_dirty=True).result.findings
    assert finding.rule == "git.stash-drop"
    assert "earlier on this line" not in finding.reason


def test_a_save_before_it_leaves_a_finding_without_targets_as_it_is():
    assert rules_of("git stash && git config core.hooksPath /tmp/x") == {"selfdisable.hooks-path"}
    # after a cd into a place known only at run time, the stash covers nothing there
    assert rules_of('git stash && cd "$d" && git checkout -- .') == {"git.checkout-discard"}


def test_deleting_a_backup_after_its_original_went_stands_for_the_original():
    command = "cp src/app.py /tmp/a.bak && rm -rf src && rm /tmp/a.bak"
    result = evaluate(command, "/", mode="blocking", assume_dirty=True).result
    (last,) = [f for f in result.findings if f.text == "rm /tmp/a.bak"]
    assert last.targets is not None and "src/app.py" in last.targets.paths
    assert not last.targets.temp_only


@pytest.mark.parametrize(
    "command",
    [
        "find . -name '*.py' > list.txt; wc -l list.txt; rm list.txt",
        "python gen.py > out.json && jq . out.json && rm -f out.json",
        "cp template.cfg app.cfg && sed -i '/^#/d' app.cfg",
        "curl -o data.csv https://example.com/d.csv && sort -u -o data.csv data.csv",
        "echo x >| out.txt; rm out.txt",  # the shell truncates it before echo runs
        "ls -R &> list.txt; rm list.txt",
    ],
)
def test_a_file_written_earlier_on_the_line_holds_only_what_the_line_put_there(command):
    assert verdict(command) == "allow", rules_of(command)


@pytest.mark.parametrize(
    "command",
    [
        "echo x >> notes.md; rm notes.md",  # an append keeps what was there
        "rm notes.md; echo x > notes.md",  # deleted before it is written
        "cp a notes.md; rm notes.md",  # the copy may have failed
        "cat notes.md > /tmp/n; rm notes.md",  # a copy elsewhere is read, not this file
    ],
)
def test_a_file_not_surely_rewritten_on_the_line_keeps_its_old_content(command):
    assert verdict(command) == "block", command


@pytest.mark.parametrize(
    "command",
    [
        "ln -s /home/me/repo /tmp/x && rm -rf /tmp/x/src",
        "ln -s /home/me/repo /tmp/x; rm -rf /tmp/x/",
        "ln -sf ~/work /tmp/w && rm -rf /tmp/w/*",
        "ln -s /home/me/repo /tmp/x && cd /tmp/x && rm -rf src",
        "ln -s /home/me/repo /tmp/x && cd /tmp/x && git checkout -- .",
        "ln /home/me/repo/notes.md /tmp/n && : > /tmp/n",
        "ln -s /home/me/repo/src/app.py /tmp/a && truncate -s 0 /tmp/a",
        "ln -s /home/me/repo /tmp/x && find /tmp/x/ -delete",
        "cd /tmp && ln -s /home/me/repo r && rm -rf /tmp/r/src",
        "ln -s $HOME/repo /tmp/x && rm -rf /tmp/x/src",
        "sudo mount --bind /home/me/repo /tmp/x && rm -rf /tmp/x/src",
        "bindfs /home/me/repo /tmp/x; rm -rf /tmp/x/",
    ],
)
def test_a_temp_path_through_a_link_made_earlier_on_the_line_is_not_free(command):
    assert verdict(command) == "block", command


@pytest.mark.parametrize(
    "command",
    [
        "ln -s /tmp/a /tmp/b && rm -rf /tmp/b/x",
        "ln -s /opt/tool/bin/tool /tmp/bin/tool && rm -f /tmp/bin/tool",
        "rm -rf /tmp/x && ln -s /home/me/repo /tmp/x",
    ],
)
def test_links_within_temp_dirs_or_made_afterwards_change_nothing(command):
    assert verdict(command) == "allow", rules_of(command)


@pytest.mark.parametrize(
    "command",
    [
        "cd /tmp/work; rm -rf *",
        "cd /tmp/build\nrm -rf ./*",
        "cd $TMPDIR/x; rm -rf *",
        "cd /tmp && cd work; rm -rf *",
        "(cd /tmp/scratch; rm -f *.log)",
        "cd /tmp/w; git clean -fdx",
        "pushd /tmp/w; rm -rf *",
    ],
)
def test_after_a_cd_that_may_fail_the_command_is_judged_where_the_line_started(command):
    assert verdict(command) == "block", command
    reasons = " ".join(
        f.reason for f in evaluate(command, "/", mode="blocking", assume_dirty=True).result.findings
    )
    assert "if a `cd` before it fails" in reasons


@pytest.mark.parametrize(
    "command",
    [
        "cd /tmp/work && rm -rf *",
        "cd /tmp/work || exit 1; rm -rf *",
        "set -e; cd /tmp/work; rm -rf *",
        "cd /tmp/work; ls",
        "cd build; make",
    ],
)
def test_a_cd_that_stops_the_line_when_it_fails_leaves_one_place(command):
    assert verdict(command) == "allow", rules_of(command)


# --- in a real repository: the tree decides what is saved and where a path leads -----------


@pytest.fixture
def dirty(git_repo: Path) -> Path:
    (git_repo / "src" / "app.py").write_text("edited\n")
    (git_repo / "README.md").write_text("edited too\n")
    (git_repo / "notes.md").write_text("untracked notes\n")
    return git_repo


def test_a_partial_save_covers_its_paths_in_the_tree(dirty):
    repo = str(dirty)
    assert (
        verdict("git stash push -- src/app.py && git checkout -- .", repo, assume_dirty=False)
        == "block"
    )
    (dirty / "README.md").write_text("# demo\n")  # back to the committed text
    assert (
        verdict("git stash push -- src/app.py && git checkout -- .", repo, assume_dirty=False)
        == "allow"
    )
    assert (
        verdict("git stash push -- README.md && git checkout -- .", repo, assume_dirty=False)
        == "block"
    )


def test_reversing_a_diff_made_on_the_line_is_a_discard_unless_the_diff_saved_it(dirty):
    repo = str(dirty)
    result = evaluate("git diff > p && git apply -R p", repo, mode="blocking").result
    assert result.verdict == "block"
    assert {f.rule for f in result.findings} == {"overwrite.git-content"}
    assert str((dirty / "src" / "app.py").resolve()) in result.findings[0].lost
    saved = "git diff --binary > p && git apply -R p"  # the save sequence credits elsewhere
    assert verdict(saved, repo, assume_dirty=False) == "allow"
    git(dirty, "checkout", "--", ".")
    assert verdict("git diff > p && git apply -R p", repo, assume_dirty=False) == "allow"


def test_a_cd_into_a_directory_known_only_at_run_time_is_judged_as_unknown(dirty):
    repo = str(dirty)
    result = evaluate('cd "$d" && rm -rf src', repo, mode="blocking").result
    assert result.verdict == "block"
    (finding,) = result.findings
    # not this tree's src/ alone: all its unsaved work, and src wherever $d is
    assert "src in a directory known only at run time" in finding.reason
    assert str((dirty / "notes.md").resolve()) in finding.lost
    git(dirty, "checkout", "--", ".")
    (dirty / "notes.md").unlink()  # a clean tree: still unknown, not safe
    for command in ('cd "$d" && rm -rf src', 'cd "$d" && git reset --hard', 'cd "$d"; rm src'):
        assert verdict(command, repo, assume_dirty=False) == "block", command
    assert verdict('git -C "$d" reset --hard', repo, assume_dirty=False) == "block"
    assert verdict('cd "$d" && rm -rf /tmp/x', repo, assume_dirty=False) == "allow"


def test_a_cd_into_a_temp_dir_named_at_run_time_stays_in_a_temp_dir(dirty, monkeypatch):
    monkeypatch.setenv("TMPDIR", "/tmp/scratch")  # what the line's shell holds
    repo = str(dirty)
    for command in (
        'cd "$(mktemp -d)" && rm -rf src',
        'cd "$TMPDIR" && rm -rf src && git init -q && git reset --hard',
        'tmp=$(mktemp -d) && cd "$tmp" && rm -rf build',
    ):
        assert verdict(command, repo, assume_dirty=False) == "allow", command
    assert verdict('cd "$TMPDIR/$X" && rm -rf src', repo, assume_dirty=False) == "block"
    assert verdict('cd "$TMPDIR" && rm -rf ../../home/x', repo, assume_dirty=False) == "block"
    assert verdict('cd "$TMPDIR"; rm -rf src', repo, assume_dirty=False) == "block"  # may fail
    monkeypatch.delenv("TMPDIR")  # `cd ""` stays where it is
    assert verdict('cd "$TMPDIR" && rm -rf src', repo, assume_dirty=False) == "block"


def test_a_copy_covers_the_file_it_copied_in_the_tree(dirty):
    repo = str(dirty)
    command = "cp src/app.py /tmp/app.bak && git checkout -- ."
    result = evaluate(command, repo, mode="blocking").result
    (finding,) = result.findings
    assert finding.lost == (str((dirty / "README.md").resolve()),)


def test_a_cd_into_ignored_output_that_may_fail_is_judged_at_the_start(dirty):
    (dirty / ".gitignore").write_text("build/\n")
    git(dirty, "add", ".gitignore")
    git(dirty, "commit", "-qm", "ignore build")
    (dirty / "build").mkdir()
    (dirty / "build" / "out.o").write_text("x")
    repo = str(dirty)
    assert verdict("cd build && rm -rf *", repo, assume_dirty=False) == "allow"
    result = evaluate("cd build; rm -rf *", repo, mode="blocking").result
    assert result.verdict == "block"
    (finding,) = result.findings
    assert str((dirty / "notes.md").resolve()) in finding.lost


def test_a_link_made_on_the_line_into_the_repo_is_followed(dirty, tmp_path):
    link = tmp_path / "scratch-link"
    command = f"ln -s {dirty} {link} && rm -rf {link}/src"
    result = evaluate(command, str(tmp_path), mode="blocking").result
    assert result.verdict == "block"
    assert any(str((dirty / "src" / "app.py").resolve()) in f.lost for f in result.findings)
    assert not link.exists()


def test_deleting_the_only_copy_made_on_the_line_is_judged_at_the_original(dirty):
    repo = str(dirty)
    command = "cp notes.md /tmp/notes.bak && rm notes.md && rm /tmp/notes.bak"
    result = evaluate(command, repo, mode="blocking").result
    assert result.verdict == "block"
    assert str((dirty / "notes.md").resolve()) in result.findings[0].lost
    clean = "cp README.md /tmp/readme.bak && rm README.md && rm /tmp/readme.bak"
    (dirty / "README.md").write_text("# demo\n")  # committed content: nothing unsaved
    assert verdict(clean, repo, assume_dirty=False) == "allow"


def test_a_copy_deleted_with_its_original_saves_nothing_in_the_tree(dirty, tmp_path):
    backup = tmp_path / "notes.bak"
    command = f"cp notes.md {backup} && rm -f notes.md {backup}"
    result = evaluate(command, str(dirty), mode="blocking").result
    assert result.verdict == "block"
    assert {p for f in result.findings for p in f.lost} == {str((dirty / "notes.md").resolve())}


def test_deleting_a_copy_made_on_the_line_while_its_original_stays_loses_nothing(dirty):
    command = "rsync -a src/ src/bak/ && rm -rf src/bak"
    assert verdict(command, str(dirty), assume_dirty=False) == "allow"


def test_commits_made_on_the_line_move_head(dirty):
    repo = str(dirty)
    git(dirty, "commit", "-qam", "second")  # HEAD now has a parent
    (dirty / "src" / "app.py").write_text("third\n")
    assert (
        verdict("git commit -am wip && git reset --hard HEAD~1", repo, assume_dirty=False)
        == "allow"
    )
    # HEAD~2 from the new commit is HEAD~1 from today: `second` exists on no other ref
    assert (
        verdict("git commit -am wip && git reset --hard HEAD~2", repo, assume_dirty=False)
        == "block"
    )
    git(dirty, "branch", "keep")
    assert (
        verdict("git commit -am wip && git reset --hard HEAD~2", repo, assume_dirty=False)
        == "allow"
    )


def test_a_branch_made_first_on_the_line_keeps_the_commits_a_reset_leaves(git_repo):
    (git_repo / "README.md").write_text("second\n")
    git(git_repo, "commit", "-qam", "second")  # on main only
    repo = str(git_repo)
    assert verdict("git reset --hard HEAD~1", repo, assume_dirty=False) == "block"
    assert verdict("git branch backup && git reset --hard HEAD~1", repo, assume_dirty=False) == (
        "allow"
    )
    assert verdict("git branch backup; git reset --hard HEAD~1", repo, assume_dirty=False) == (
        "block"
    )


def test_symlinked_cwd_in_the_tree_is_judged_at_the_real_path(dirty, tmp_path):
    link = tmp_path / "via"
    os.symlink(dirty / "src", link)
    result = evaluate("rm -f app.py", str(link), mode="blocking").result
    (finding,) = result.findings
    assert finding.lost == (str((dirty / "src" / "app.py").resolve()),)


@pytest.fixture
def untracked_only(git_repo: Path) -> Path:
    """A repository whose only unsaved work is an untracked file."""
    (git_repo / "notes.md").write_text("untracked notes\n")
    return git_repo


@pytest.mark.parametrize(
    "command",
    [
        "git add -A && git reset --hard",
        "git add notes.md && git reset --hard",
        "git add . && git reset --hard HEAD",
        "git add notes.md; git reset --hard",  # the add may well have run
        "cd src && git add -A && git reset --hard",
        "git add -A && cd src && git reset --hard",
        "git add -A && git reset --merge",
        "git add notes.md && git rm -f notes.md",
        "git add notes.md && git restore -SW notes.md",
        "git add notes.md && git checkout -f main",
        "git add -A && git stash push -- src && git reset --hard",  # the stash took src only
        "git add -A; git commit -m x src; git reset --hard",  # the commit of src: not notes.md
        'git add "$f" && git reset --hard',  # named at run time: maybe notes.md
        "git add --all && git reset --hard",
        'git -C "$d" add -A && git reset --hard',  # maybe this tree
    ],
)
def test_a_git_add_on_the_line_puts_untracked_files_where_a_tracked_discard_deletes_them(
    untracked_only, command
):
    result = evaluate(command, str(untracked_only), mode="blocking").result
    assert result.verdict == "block", command
    lost = {p for f in result.findings for p in f.lost}
    assert lost == {str((untracked_only / "notes.md").resolve())}
    assert any("a `git add` earlier on this line" in f.reason for f in result.findings)
    # and git agrees: the untracked file is gone
    scratch = untracked_only.parent / "scratch"
    subprocess.run(["cp", "-r", str(untracked_only), str(scratch)], check=True)
    subprocess.run(["bash", "-c", command], cwd=scratch, env={**os.environ, "f": "notes.md"})
    assert not (scratch / "notes.md").exists(), command


@pytest.mark.parametrize(
    "command",
    [
        "git add -i && git reset --hard",  # the person picks: maybe notes.md
        "git add --interactive && git reset --hard",
        "git add --pathspec-from-file=list && git reset --hard",  # whatever the file names
    ],
)
def test_a_git_add_of_paths_chosen_at_run_time_may_have_added_any_new_file(untracked_only, command):
    result = evaluate(command, str(untracked_only), mode="blocking").result
    lost = {p for f in result.findings for p in f.lost}
    assert lost == {str((untracked_only / "notes.md").resolve())}


@pytest.mark.parametrize(
    "command",
    [
        "git add -A && git commit -m x && git reset --hard HEAD~1",  # the commit holds it
        "git add notes.md && git stash && git reset --hard",  # the stash holds it
        "git add -u && git reset --hard",  # -u adds no new file
        "git add -n notes.md && git reset --hard",  # a dry run adds nothing
        "git add --dry-run notes.md && git reset --hard",
        "git add -p && git reset --hard",  # a patch of tracked changes only
        "git add --patch && git reset --hard",
        "git add --update && git reset --hard",
        "git add && git reset --hard",  # adds nothing
        "git reset --hard && git add -A",  # added after the discard
        "git add src && git reset --hard",  # nothing new under src
        "git -C src add . && git reset --hard",
        "git add notes.md && git restore -SW src",  # the discard does not reach it
        "git add -A && git reset --keep",  # --keep keeps what is not in HEAD
        "git add -A && git checkout -- .",  # from the index: notes.md stays
    ],
)
def test_a_git_add_whose_new_files_the_discard_does_not_reach_changes_nothing(
    untracked_only, command
):
    assert verdict(command, str(untracked_only), assume_dirty=False) == "allow", command


@pytest.mark.parametrize(
    ("command", "lost"),
    [
        ("git add README.md && git stash -- src && git stash drop", {"app.py"}),
        ("git add -A && git stash -- src && git stash drop", {"app.py"}),
        ("git add notes.md && git stash -- notes.md src && git stash drop", {"notes.md", "app.py"}),
        ("git add -A && git stash -- . && git stash drop", {"notes.md", "app.py", "README.md"}),
    ],
)
def test_a_stash_of_some_paths_takes_only_their_part_of_the_index(dirty, command, lost):
    result = evaluate(command, str(dirty), mode="blocking").result
    assert {Path(p).name for f in result.findings for p in f.lost} == lost


def test_a_git_add_in_a_tree_named_by_its_absolute_path_is_followed(untracked_only):
    command = f"git -C {untracked_only} add -i && git -C {untracked_only} reset --hard"
    result = evaluate(command, str(untracked_only.parent), mode="blocking").result
    assert {p for f in result.findings for p in f.lost} == {
        str((untracked_only / "notes.md").resolve())
    }


@pytest.mark.parametrize(
    ("command", "lost"),
    [
        ("git add notes.md && cd src && git reset --hard", {"notes.md"}),  # from where it runs
        ("git add src/new.py && cd src && git restore -SW .", {"new.py"}),
        ("git add . && git restore -SW notes.md", {"notes.md"}),  # only what the discard names
        ("git add notes.md other.md && git restore -SW notes.md", {"notes.md"}),
    ],
)
def test_the_added_files_a_discard_deletes_are_where_both_reach(untracked_only, command, lost):
    (untracked_only / "other.md").write_text("other notes\n")
    (untracked_only / "src" / "new.py").write_text("new\n")
    result = evaluate(command, str(untracked_only), mode="blocking").result
    assert {Path(p).name for f in result.findings for p in f.lost} == lost, command


def test_a_forced_git_add_puts_ignored_files_where_a_tracked_discard_deletes_them(git_repo):
    (git_repo / ".gitignore").write_text("*.log\n")
    git(git_repo, "add", ".gitignore")
    git(git_repo, "commit", "-qm", "ignore logs")
    (git_repo / "build.log").write_text("a log\n")
    (git_repo / "notes.md").write_text("notes\n")
    repo = str(git_repo)
    for command, lost in [
        ("git add -f build.log && git reset --hard", {"build.log"}),
        ("git add --force build.log && git reset --hard", {"build.log"}),
        ("git add -A && git reset --hard", {"notes.md"}),  # -A leaves ignored files out
        ("git add -f -A && git reset --hard", {"build.log", "notes.md"}),
    ]:
        result = evaluate(command, repo, mode="blocking").result
        assert {Path(p).name for f in result.findings for p in f.lost} == lost, command


def test_a_stash_of_some_paths_credits_only_their_part_of_the_index(dirty):
    repo = str(dirty)
    command = "git add -A && git stash push -- src && git reset --hard"
    result = evaluate(command, repo, mode="blocking").result
    lost = {Path(p).name for f in result.findings for p in f.lost}
    assert lost == {"README.md", "notes.md"}  # still in the index, outside the stash's paths
    command = "git add -A && git stash push -- src && git checkout -- src"
    assert verdict(command, repo, assume_dirty=False) == "allow"


@pytest.fixture
def with_submodule(git_repo: Path, tmp_path: Path) -> Path:
    """git_repo with a real submodule `sub` whose working tree holds unsaved work (an edited
    tracked file and an untracked one), and an edit of its own (src/app.py)."""
    upstream = tmp_path / "upstream"
    upstream.mkdir()
    git(upstream, "init", "-q", "-b", "main")
    (upstream / "lib.py").write_text("committed\n")
    git(upstream, "add", "-A")
    git(upstream, "commit", "-qm", "lib")
    git(
        git_repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(upstream), "sub"
    )
    git(git_repo, "commit", "-qm", "sub")
    (git_repo / "sub" / "lib.py").write_text("edited in the submodule\n")
    (git_repo / "sub" / "new.py").write_text("untracked in the submodule\n")
    (git_repo / "src" / "app.py").write_text("edited\n")
    return git_repo


def lost_by(command: str, repo: Path) -> list[str]:
    result = evaluate(command, str(repo), mode="blocking").result
    return [p for f in result.findings if f.kind == "discard" for p in f.lost]


@pytest.mark.parametrize(
    "command",
    [
        "git submodule deinit -f sub",
        "git stash -a && git submodule deinit -f sub",
        "git stash -u && git submodule deinit --force -- sub",
        "git add -A && git stash && git submodule deinit -f sub",
        "git stash --all && rm -rf sub",
        "git stash -a && git submodule deinit -f sub && git stash pop",
    ],
)
def test_a_stash_of_the_superproject_does_not_hold_a_submodules_work(with_submodule, command):
    """`git stash -a && git submodule deinit -f sub` was allowed: the stash was read as
    holding the whole tree, but git stashes nothing inside a submodule, and deinit -f
    removes its working tree."""
    sub = with_submodule / "sub"
    assert {str(sub / "lib.py"), str(sub / "new.py")} <= set(lost_by(command, with_submodule))


@pytest.mark.parametrize(
    "command",
    [
        "git stash -a && git checkout -- .",  # the submodule's tree is not touched
        "git stash -u && git reset --hard",
        "git -C sub stash -u && git submodule deinit -f sub",  # kept in the submodule's stash
        "git stash -a && git clean -fdx",
    ],
)
def test_a_stash_still_holds_what_lies_in_its_own_worktree(with_submodule, command):
    assert lost_by(command, with_submodule) == []
    assert verdict(command, str(with_submodule), assume_dirty=False) == "allow"


def test_by_text_alone_a_whole_tree_stash_still_covers_its_discards():
    assert verdict("git stash -a && git submodule deinit -f sub") == "allow"
    assert verdict("git stash -a && rm -rf sub") == "allow"


def test_a_copy_made_on_the_line_covers_a_file_outside_every_worktree():
    """Judged only, never run: outside every worktree the facts layer counts any file lost,
    so the line's own copy is what makes the delete harmless."""
    assert verdict("rm etc/passwd", "/", assume_dirty=False) == "block"
    command = "cp etc/passwd /tmp/passwd.bak && rm etc/passwd"
    assert verdict(command, "/", assume_dirty=False) == "allow"
