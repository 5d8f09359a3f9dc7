from __future__ import annotations

import dataclasses
import subprocess
from pathlib import Path

import pytest

from interlock.engine.check import evaluate
from interlock.engine.facts import collect_facts, parse_porcelain
from interlock.engine.findings import Finding, Targets
from interlock.engine.precision import (
    Judge,
    Judgement,
    _glob_hits,
    _overlaps,
    describe,
    is_temp_path,
)
from interlock.git import discover


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True
    ).stdout


def finding(
    destroys: str, *paths: str, rule: str = "fs.rm-recursive", cwd: str | None = "", **kw
) -> Finding:
    return Finding(
        kind="discard",
        rule=rule,
        text="x",
        reason="destroys",
        instead="y",
        targets=Targets(destroys=destroys, paths=paths, **kw),  # type: ignore[arg-type]
        cwd=cwd,
    )


def judge(repo: Path, f: Finding, start: Path | None = None):
    return Judge(str(start or repo)).judge(f)


def test_porcelain_parser_splits_states_and_skips_rename_sources():
    raw = b" M a.py\0M  b.py\0R  new.py\0old.py\0?? c/\0!! build/\0MM d.py\0"
    unstaged, staged, untracked, ignored = parse_porcelain(raw)
    assert unstaged == {"a.py", "d.py"}
    assert staged == {"b.py", "new.py", "d.py"}
    assert untracked == {"c/"}
    assert ignored == {"build/"}


def test_checkout_of_unmodified_file_loses_nothing(git_repo):
    assert (
        judge(git_repo, finding("unstaged", "src/app.py", rule="git.checkout-discard")).lost == ()
    )


def test_checkout_of_modified_file_loses_it(git_repo):
    (git_repo / "src/app.py").write_text("changed\n")
    result = judge(git_repo, finding("unstaged", "src/app.py", rule="git.checkout-discard"))
    assert result.lost == ("src/app.py",)
    assert "src/app.py" in result.summary


def test_checkout_dot_in_subdirectory_only_counts_files_under_it(git_repo):
    (git_repo / "README.md").write_text("changed\n")
    assert judge(git_repo, finding("unstaged", ".", cwd="src")).lost == ()
    (git_repo / "src/app.py").write_text("changed\n")
    result = judge(git_repo, finding("unstaged", ".", cwd="src"))
    assert result.lost == ("src/app.py",)
    assert "under src/" in result.summary


def test_staged_change_is_lost_to_tracked_discard_but_not_unstaged_one(git_repo):
    (git_repo / "src/app.py").write_text("staged\n")
    git(git_repo, "add", "src/app.py")
    assert judge(git_repo, finding("unstaged", "src/app.py")).lost == ()
    assert judge(git_repo, finding("tracked", whole_tree=True, rule="git.reset-hard")).lost == (
        "src/app.py",
    )


def test_rm_of_ignored_build_output_loses_nothing(git_repo):
    (git_repo / ".gitignore").write_text("build/\n.env\n")
    git(git_repo, "add", ".gitignore")
    git(git_repo, "commit", "-qm", "ignore")
    (git_repo / "build").mkdir()
    (git_repo / "build/out.o").write_text("x")
    assert judge(git_repo, finding("all", "build")).lost == ()
    (git_repo / ".env").write_text("SECRET=1\n")
    assert judge(git_repo, finding("all", ".env")).lost == (".env",)


def test_rm_of_untracked_file_inside_untracked_directory_is_lost(git_repo):
    (git_repo / "new").mkdir()
    (git_repo / "new/notes.txt").write_text("mine")
    assert judge(git_repo, finding("all", "new/notes.txt")).lost == ("new/",)
    assert judge(git_repo, finding("untracked", "src")).lost == ()


def test_glob_target_matches_only_unsaved_paths_it_reaches(git_repo):
    (git_repo / "src/app.py").write_text("changed\n")
    assert judge(git_repo, finding("all", "*.md")).lost == ()
    assert judge(git_repo, finding("all", "./*")).lost == ("src/app.py",)
    assert judge(git_repo, finding("all", "src/*.py")).lost == ("src/app.py",)


def test_unknown_targets_count_every_unsaved_path(git_repo):
    assert judge(git_repo, finding("all", unknown=True)).lost == ()
    (git_repo / "x.txt").write_text("new")
    assert judge(git_repo, finding("all", unknown=True)).lost == ("x.txt",)
    # in a directory known only at run time: this tree's work, and the target wherever it is
    elsewhere = "(src in a directory known only at run time)"
    assert judge(git_repo, finding("all", "src", cwd=None)).lost == (elsewhere, "x.txt")
    # an absolute target is judged where it says, as without the `cd`
    assert judge(git_repo, finding("all", "/opt/x", cwd=None)) == judge(
        git_repo, finding("all", "/opt/x")
    )
    assert judge(git_repo, finding("all", "/tmp/x", cwd=None)).lost == ()
    assert judge(git_repo, finding("all", "~/x", cwd=None)) == judge(
        git_repo, finding("all", "~/x")
    )
    assert "x.txt" not in judge(git_repo, finding("all", "~/x", cwd=None)).lost
    assert judge(git_repo, finding("all", str(git_repo / "src"), cwd=None)).lost == ()
    assert judge(git_repo, finding("all", str(git_repo), cwd=None)).lost != ()


def test_a_target_in_a_directory_known_only_at_run_time_is_never_free(git_repo):
    """`cd "$d" && rm -rf src` in a clean tree: src may lie in another worktree, or outside
    every one; an absolute target names its own place."""
    judged = judge(git_repo, finding("all", "src", "~/x", "/opt/y", cwd=None))
    assert judged.lost == ("(src in a directory known only at run time)",)
    assert "src in a directory known only at run time" in judged.summary
    assert judge(git_repo, finding("all", cwd=None, unknown=True)).lost == (
        "(. in a directory known only at run time)",
    )
    reset = finding("tracked", rule="git.reset-hard", cwd=None, whole_tree=True)
    assert judge(git_repo, reset).lost == (
        "(the repository of a directory known only at run time)",
    )
    (git_repo / "src" / "app.py").write_text("changed\n")
    assert judge(git_repo, reset).lost == (
        "(the repository of a directory known only at run time)",
        "src/app.py",
    )


def test_removing_the_worktree_root_always_loses_the_repository(git_repo):
    result = judge(git_repo, finding("all", "."))
    assert any(".git" in p for p in result.lost)
    assert judge(git_repo, finding("all", ".git")).lost
    assert judge(git_repo / "src", finding("all", "..")).lost


def test_git_command_is_judged_in_the_repository_it_targets(git_repo, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q")
    (other / "wip.txt").write_text("work")
    reset = finding("untracked", ".", rule="git.clean-force", cwd="../other")
    assert judge(git_repo, reset).lost == ("wip.txt",)
    assert judge(git_repo, finding("untracked", ".", rule="git.clean-force")).lost == ()


def test_rm_into_another_repository_uses_its_facts(git_repo, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q")
    (other / "keep").mkdir()
    (other / "keep/wip.txt").write_text("work")
    (other / "empty").mkdir()
    assert judge(git_repo, finding("all", "../other/keep")).lost == ("keep/",)
    assert judge(git_repo, finding("all", "../other/empty")).lost == ()


def test_temp_literal_targets_are_still_checked_against_a_worktree(git_repo):
    (git_repo / "src/app.py").write_text("changed\n")
    f = finding("all", str(git_repo / "src"), temp_only=True)
    assert judge(git_repo, f).lost == ("src/app.py",)


def test_outside_the_worktree_only_temp_dirs_are_free(git_repo, tmp_path):
    assert judge(git_repo, finding("all", "/tmp/build-cache")).lost == ()
    assert judge(git_repo, finding("all", str(tmp_path / "scratch"))).lost == ()
    assert judge(git_repo, finding("all", "/home/someone/project")).lost != ()


def test_temp_path_inside_another_worktree_is_not_free(git_repo, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q")
    assert judge(git_repo, finding("all", str(other / "src"))).lost == ()  # nothing there yet
    (other / "src").mkdir()
    (other / "src/new.py").write_text("work")
    assert judge(git_repo, finding("all", str(other / "src"))).lost == ("src/",)
    assert is_temp_path("/tmp/x") and not is_temp_path("/tmp") and not is_temp_path("/home/x")


def test_branch_delete_loses_commits_only_when_no_other_ref_holds_them(git_repo):
    git(git_repo, "branch", "merged")
    assert (
        judge(git_repo, finding("commits", refs=("merged",), rule="git.branch-force-delete")).lost
        == ()
    )
    git(git_repo, "checkout", "-qb", "topic")
    (git_repo / "t.txt").write_text("t")
    git(git_repo, "add", "t.txt")
    git(git_repo, "commit", "-qm", "topic work")
    git(git_repo, "checkout", "-q", "main")
    result = judge(git_repo, finding("commits", refs=("topic",), rule="git.branch-force-delete"))
    assert len(result.lost) == 1 and "commit" in result.summary
    assert (
        judge(git_repo, finding("commits", refs=("nosuch",), rule="git.branch-force-delete")).lost
        == ()
    )


def test_reset_hard_to_older_commit_loses_commits_and_changes(git_repo):
    (git_repo / "b.txt").write_text("b")
    git(git_repo, "add", "b.txt")
    git(git_repo, "commit", "-qm", "second")
    f = finding("tracked", whole_tree=True, refs=("HEAD~1",), rule="git.reset-hard")
    assert len(judge(git_repo, f).lost) == 1
    same = finding("tracked", whole_tree=True, refs=("HEAD",), rule="git.reset-hard")
    assert judge(git_repo, same).lost == ()


def test_stash_drop_loses_only_when_a_stash_exists(git_repo):
    f = finding("stash", rule="git.stash-drop")
    assert judge(git_repo, f).lost == ()
    (git_repo / "src/app.py").write_text("wip\n")
    git(git_repo, "stash", "-q")
    assert judge(git_repo, f).lost == ("refs/stash",)


def test_facts_work_on_an_unborn_head(tmp_path):
    repo = tmp_path / "unborn"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "a.txt").write_text("a")
    loc = discover(repo)
    assert loc is not None
    facts = collect_facts(loc)
    assert facts.unborn and facts.untracked == {"a.txt"}
    assert Judge(str(repo), facts).judge(finding("all", "a.txt")).lost == ("a.txt",)
    result = Judge(str(repo), facts).judge(
        finding("tracked", whole_tree=True, refs=("HEAD",), rule="git.reset-hard")
    )
    assert result.lost == ()


def test_linked_worktree_facts_are_its_own(git_repo, tmp_path):
    wt = tmp_path / "wt dir"
    git(git_repo, "worktree", "add", "-q", str(wt), "-b", "side")
    (wt / "src/app.py").write_text("in worktree\n")
    assert judge(wt, finding("unstaged", "src/app.py")).lost == ("src/app.py",)
    assert judge(git_repo, finding("unstaged", "src/app.py")).lost == ()


@pytest.mark.parametrize("name", ["with space.txt", "new\nline.txt"])
def test_odd_file_names_are_matched(git_repo, name):
    (git_repo / name).write_text("x")
    assert judge(git_repo, finding("all", name)).lost == (name,)


def test_describe_names_the_count_the_one_directory_and_at_most_three_paths():
    assert describe(["sub/a.py"]) == "1 file under sub/ (sub/a.py)"
    three = ["sub/a.py", "sub/b.py", "sub/c.py"]
    assert describe(three) == "3 files under sub/ (sub/a.py, sub/b.py, sub/c.py)"
    four = ["sub/a.py", "sub/b.py", "sub/c.py", "sub/d.py"]
    assert describe(four) == "4 files under sub/ (sub/a.py, sub/b.py, sub/c.py, ...)"
    assert describe(["a.py", "b.py"]) == "2 files (a.py, b.py)"  # the root is no "under ./"
    # a described entry is not a path: no directory is named for it
    mixed = ["sub/a.py", "sub/b (git's own data)"]
    assert describe(mixed) == "2 files (sub/a.py, sub/b (git's own data))"


def test_a_target_inside_a_collapsed_directory_entry_overlaps_it_but_not_inside_a_file():
    assert _overlaps("build/", "build/x.o")
    assert not _overlaps("a.py", "a.py/x")
    assert _glob_hits("src/", "src/*.py")  # an untracked directory the glob reaches into
    assert not _glob_hits("src", "src/*.py")


def test_a_shell_glob_matches_within_one_name_and_reaches_only_its_own_depth():
    """A file operand's glob is the shell's: `*` stops at `/` (git's pathspec `*` does not)."""
    assert not _glob_hits(".claude/", "*.egg-info", crosses=False)
    assert _glob_hits(".claude/", "*.egg-info")  # git clean -fd '*.egg-info' may reach in
    assert not _glob_hits("src/app.py", "*.py", crosses=False)
    assert _glob_hits("src/app.py", "*.py")
    assert _glob_hits("src/app.py", "s*/*.py", crosses=False)
    assert _glob_hits("src/app.py", "s*", crosses=False)  # an ancestor: rm -rf s*
    assert _glob_hits("src/", "s*/x/*.py", crosses=False)  # may reach into the entry
    assert not _glob_hits("src/app.py", "s*/app.py/x", crosses=False)  # not into a file
    assert not _glob_hits("src/", "t*/x.py", crosses=False)
    assert _glob_hits("src/", "s*/", crosses=False)
    assert _glob_hits("a/b/c.py", "**/c.py", crosses=False)  # globstar crosses


OUTSIDE = "/nonexistent-interlock-dir"  # outside any worktree and any temp dir


def test_a_file_a_command_creates_outside_any_worktree_loses_nothing_until_it_exists(git_repo):
    created = finding("files", f"{OUTSIDE}/out.txt", creates=True)
    assert judge(git_repo, created).lost == ()
    removed = finding("files", f"{OUTSIDE}/out.txt")  # rm -rf: whatever is there is gone
    assert judge(git_repo, removed).lost == (f"{OUTSIDE}/out.txt (outside any worktree)",)


def test_a_glob_outside_any_worktree_is_lost_work_with_no_path_to_save(git_repo):
    judged = judge(git_repo, finding("files", f"{OUTSIDE}/*.txt", creates=True))
    assert judged.lost == (f"{OUTSIDE}/*.txt (outside any worktree)",)
    assert judged.paths == ()  # a glob names no file a snapshot could copy


def test_a_lease_pushed_from_outside_any_repository_drops_nothing(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    lease = finding("remote", rule="git.push-force-lease", cwd=None, lease=True)
    assert Judge(str(elsewhere)).judge(lease) == Judgement((), "")
    assert Judge(str(elsewhere)).judge(lease).lost == ()


def test_a_lease_names_the_remote_and_the_refs_it_pushes(git_repo, tmp_path):
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(git_repo, "remote", "add", "origin", str(remote))
    git(git_repo, "commit", "-q", "--allow-empty", "-m", "ahead")
    git(git_repo, "push", "-q", "origin", "main")
    git(git_repo, "reset", "-q", "--hard", "HEAD~1")
    tip = git(git_repo, "rev-parse", "origin/main").strip()[:12]
    lease = finding("remote", rule="git.push-force-lease", lease=True, refs=("origin", "main"))
    dropped = f"1 commit on origin/main (at {tip}) that the pushed commit does not contain"
    assert judge(git_repo, lease).lost == (dropped,)
    other = finding("remote", rule="git.push-force-lease", lease=True, refs=("origin", "x"))
    assert judge(git_repo, other).lost == ()


def test_a_known_target_is_summarised_without_the_run_time_caveat(git_repo):
    (git_repo / "notes.txt").write_text("mine\n")
    judged = judge(git_repo, finding("files", "notes.txt"))
    assert (judged.lost, judged.summary) == (("notes.txt",), "1 file (notes.txt)")
    with pytest.raises(dataclasses.FrozenInstanceError):
        judged.summary = ""  # type: ignore[misc]


def test_the_judge_uses_the_facts_it_is_given_instead_of_reading_the_tree(git_repo):
    facts = dataclasses.replace(
        collect_facts(discover(git_repo)), untracked=frozenset({"ghost.txt"})
    )
    judged = Judge(str(git_repo), facts=facts).judge(finding("untracked", whole_tree=True))
    assert judged.lost == ("ghost.txt",)


def test_the_configured_recorder_cap_marks_a_larger_target_unrecoverable(git_repo):
    (git_repo / ".interlock.toml").write_text("recorder_max_file_size = 10\n")
    (git_repo / "big.bin").write_bytes(b"x" * 11)
    (git_repo / "small.bin").write_bytes(b"x" * 10)
    judged = judge(git_repo, finding("files", "big.bin", "small.bin"))
    assert judged.unrecoverable == (str(git_repo.resolve() / "big.bin"),)
    big = git_repo.resolve() / "big.bin"
    assert judged.summary == (
        f"2 files (big.bin, small.bin); too large to keep a copy of: 1 file under {big.parent}/"
        f" ({big})"
    )


def test_a_drop_of_the_lines_own_stash_spares_older_ones_and_a_clear_takes_them(git_repo):
    (git_repo / "src" / "app.py").write_text("older\n")
    git(git_repo, "stash", "-q")  # a stash from before this line
    (git_repo / "src" / "app.py").write_text("edited\n")
    [drop] = evaluate("git stash && git stash drop", str(git_repo), mode="blocking").result.findings
    assert drop.reason.endswith("unsaved here: 1 file under src/ (src/app.py)")
    [clear] = evaluate(
        "git stash && git stash clear", str(git_repo), mode="blocking"
    ).result.findings
    assert clear.reason.endswith("unsaved here: 1 file under src/ (src/app.py); the stash")


def test_a_reset_or_branch_delete_of_a_ref_that_does_not_exist_loses_no_commits(git_repo):
    reset = finding("commits", rule="git.reset-hard", refs=("no-such-ref",))
    assert judge(git_repo, reset).lost == ()
    delete = finding("commits", rule="git.branch-force-delete", refs=("no-such-branch",))
    assert judge(git_repo, delete).lost == ()


def test_a_stash_built_on_a_deleted_branch_does_not_count_as_keeping_its_commits(git_repo):
    git(git_repo, "checkout", "-q", "-b", "feature")
    git(git_repo, "commit", "-q", "--allow-empty", "-m", "only here")
    tip = git(git_repo, "rev-parse", "HEAD").strip()[:12]
    (git_repo / "README.md").write_text("wip\n")
    git(git_repo, "stash", "-q")  # its parent is the feature's tip
    git(git_repo, "checkout", "-q", "main")
    delete = finding("commits", rule="git.branch-force-delete", refs=("feature",))
    assert judge(git_repo, delete).lost == (f"commit {tip}",)


def test_a_pathspec_outside_the_worktree_is_named_as_such(git_repo):
    outside = str(git_repo.resolve().parent / "elsewhere")
    f = finding("unstaged", "../elsewhere", rule="git.checkout-discard")
    assert judge(git_repo, f).lost == (f"{outside} (outside the worktree)",)


def test_a_file_whose_name_starts_with_two_dots_is_inside_the_worktree(git_repo):
    (git_repo / "..foo").write_text("committed\n")
    git(git_repo, "add", "..foo")
    git(git_repo, "commit", "-qm", "dots")
    (git_repo / "..foo").write_text("edited\n")
    edited = finding("unstaged", "..foo", rule="git.checkout-discard")
    assert judge(git_repo, edited).lost == ("..foo",)
    missing = finding("unstaged", "..bar", rule="git.checkout-discard")
    assert judge(git_repo, missing).lost == ()


def test_a_reset_on_an_unborn_branch_leaves_no_commits_behind(git_repo):
    git(git_repo, "checkout", "-q", "--orphan", "fresh")
    reset = finding("commits", rule="git.reset-hard", refs=("main",))
    assert judge(git_repo, reset).lost == ()


def test_a_one_file_command_on_a_directory_or_a_new_file_loses_nothing(git_repo):
    (git_repo / "new").mkdir()
    (git_repo / "new" / "notes.txt").write_text("mine\n")  # git shows `?? new/`
    assert judge(git_repo, finding("files", "src", single=True)).lost == ()
    assert judge(git_repo, finding("files", "new/created.txt", single=True)).lost == ()
    assert judge(git_repo, finding("files", "new/notes.txt", single=True)).lost == ("new/",)


def test_emptying_a_run_time_name_outside_any_worktree_is_lost_work(git_repo):
    """`: > "$F"` outside every worktree: whatever $F names there is gone, file or not (not
    judged as one named file that does not exist)."""
    emptied = finding("files", f"{OUTSIDE}/$F", single=True, unknown=True)
    assert judge(git_repo, emptied).lost == (f"{OUTSIDE}/$F (outside any worktree)",)


def _two_commits_only_on(repo: Path, branch: str) -> list[str]:
    """`branch` made from main with two commits no other ref holds; their short ids, newest
    first. HEAD stays on main."""
    git(repo, "checkout", "-qb", branch)
    for n in (1, 2):
        git(repo, "commit", "-q", "--allow-empty", "-m", f"{branch} {n}")
    ids = git(repo, "rev-list", "-2", branch).split()
    git(repo, "checkout", "-q", "main")
    return [f"commit {c[:12]}" for c in ids]


def test_a_ref_moved_to_a_revision_loses_only_what_that_revision_does_not_hold(git_repo):
    """`git update-ref REF NEWREV` / `git branch -f NAME NEWREV`: NEWREV decides what is lost
    (its own history stays), not the ref alone; NEWREV only known at run time: all of it."""
    newest, older = _two_commits_only_on(git_repo, "feature")
    back_one = finding(
        "commits", refs=("refs/heads/feature", "feature~1"), rule="git.update-ref-move"
    )
    assert judge(git_repo, back_one).lost == (newest,)
    short = finding("commits", refs=("feature", "feature~1"), rule="git.branch-force-move")
    assert judge(git_repo, short).lost == (newest,)
    in_place = finding(
        "commits", refs=("refs/heads/feature", "feature"), rule="git.update-ref-move"
    )
    assert judge(git_repo, in_place).lost == ()
    anywhere = finding(
        "commits", refs=("refs/heads/feature",), unknown=True, rule="git.update-ref-move"
    )
    assert judge(git_repo, anywhere).lost == tuple(sorted((newest, older)))
    assert judge(git_repo, anywhere).summary == "2 commits no other ref holds"
    assert judge(git_repo, back_one).summary == "1 commit no other ref holds"


def test_each_ref_rule_reads_its_ref_name_as_git_does(git_repo):
    """update-ref takes REF as a full name (`HEAD` is HEAD, moving its branch); `branch -f`
    takes a short branch name (`feature` is refs/heads/feature); a tag rule a full one."""
    git(git_repo, "checkout", "-qb", "feature")
    git(git_repo, "commit", "-q", "--allow-empty", "-m", "only on feature")
    tip = f"commit {git(git_repo, 'rev-parse', 'HEAD').strip()[:12]}"
    move_head = finding("commits", refs=("HEAD", "HEAD~1"), rule="git.update-ref-move")
    assert judge(git_repo, move_head).lost == (tip,)
    delete_head = finding("commits", refs=("HEAD",), rule="git.update-ref-delete")
    assert judge(git_repo, delete_head).lost == (tip,)
    git(git_repo, "checkout", "-q", "main")
    force = finding("commits", refs=("feature", "main"), rule="git.branch-force-move")
    assert judge(git_repo, force).lost == (tip,)
    # the new place written in full does not make the branch's short name a full one
    full_new = finding("commits", refs=("feature", "refs/heads/main"), rule="git.branch-force-move")
    assert judge(git_repo, full_new).lost == (tip,)
    # a tag rule names its ref in full (refs/tags/v1), which is not read as a branch name
    git(git_repo, "tag", "v1", "feature")
    git(git_repo, "branch", "-qD", "feature")
    tag = finding("commits", refs=("refs/tags/v1",), rule="git.tag-delete")
    assert judge(git_repo, tag).lost == (tip,)


def test_a_glob_hits_a_path_through_any_ancestor_or_a_collapsed_entry_it_may_reach():
    assert _glob_hits("src/app.py", "sr?")  # the directory matches: all under it goes
    assert not _glob_hits("src/app.py", "x?")
    assert _glob_hits("new/", "n*/notes.txt")  # `?? new/`: git lists none of its files
    assert _glob_hits("new/", "ne?/notes.txt") and _glob_hits("new/", "n[e]w/x")
    assert not _glob_hits("new/", "m*/notes.txt")
    assert not _glob_hits("new/", "x/n*/notes.txt")


def reasons(command: str, repo: Path) -> list[str]:
    """What each blocked discard of `command` would lose there (the reason's tail)."""
    found = evaluate(command, str(repo), mode="blocking").result.findings
    return [f.reason.split("unsaved here: ")[-1] for f in found if f.kind == "discard"]


@pytest.fixture
def dirty(git_repo: Path) -> Path:
    """git_repo with an edited tracked file (src/app.py) and an untracked one (notes.txt)."""
    (git_repo / "src" / "app.py").write_text("edited\n")
    (git_repo / "notes.txt").write_text("mine\n")
    return git_repo


def test_a_search_chosen_at_run_time_loses_what_lies_under_where_it_starts(dirty):
    assert reasons('find src -name "$X" -delete', dirty) == [
        "1 file under src/ (src/app.py), among what find selects at run time"
    ]
    assert reasons('find . -name "$X" -delete', dirty) == [
        "2 files (notes.txt, src/app.py); .git (git's own data), among what find selects at "
        "run time"
    ]
    assert reasons('find .. -name "$X" -delete', dirty) == [
        "2 files (notes.txt, src/app.py); .git (git's own data), among what find selects at "
        "run time"
    ]
    assert reasons('find src -name "$X" -delete', dirty.parent) == []  # no worktree there


def test_work_saved_earlier_on_the_line_is_not_lost_but_what_the_save_missed_is(dirty):
    assert reasons("cp -r src /var/tmp/interlock-bak && rm -rf src", dirty) == []
    assert reasons("cp -r src /var/tmp/interlock-bak && rm -rf src notes.txt", dirty) == [
        "1 file (notes.txt)"
    ]
    assert reasons("git stash -u && rm -rf src notes.txt", dirty) == []
    # a stash without -u keeps the tracked change only
    assert reasons("git stash && rm -rf src notes.txt", dirty) == ["1 file (notes.txt)"]


def test_the_unsaved_entries_of_some_kinds_only(dirty):
    judge_ = Judge(str(dirty))
    loc = discover(str(dirty))
    assert loc is not None
    everything = [e for e, _ in judge_.unsaved_entries(loc, "all")]
    assert everything == ["notes.txt", "src/app.py"]
    untracked = judge_.unsaved_entries(loc, "all", kinds=frozenset({"untracked"}))
    assert untracked == [("notes.txt", str(dirty.resolve() / "notes.txt"))]


def test_git_in_a_repository_named_by_flags_or_at_run_time_or_in_none(dirty, tmp_path):
    assert reasons("git --git-dir=x reset --hard", dirty) == [
        "a repository named by --git-dir/--work-tree"
    ]
    reset = finding("tracked", whole_tree=True, rule="git.reset-hard", cwd=None)
    assert judge(dirty, reset).lost == (
        "(the repository of a directory known only at run time)",
        "src/app.py",
    )
    nowhere = tmp_path / "plain"
    nowhere.mkdir()
    assert judge(dirty, reset, start=nowhere).lost == ("(an unknown repository)",)
    here = finding("tracked", whole_tree=True, rule="git.reset-hard")
    assert judge(dirty, here, start=nowhere).lost == ()  # git refuses outside a repository
    rm = finding("files", unknown=True, cwd=None)
    assert judge(dirty, rm, start=nowhere).lost == ("(unknown paths outside any worktree)",)


def test_an_abort_loses_work_only_while_an_operation_is_in_progress(dirty):
    abort = finding("tracked", whole_tree=True, rule="git.operation-abort")
    assert judge(dirty, abort).lost == ()
    git(dirty, "checkout", "-q", "--", "src/app.py")
    git(dirty, "checkout", "-qb", "other")
    (dirty / "README.md").write_text("other\n")
    git(dirty, "commit", "-qam", "other")
    git(dirty, "checkout", "-q", "main")
    (dirty / "README.md").write_text("main\n")
    git(dirty, "commit", "-qam", "main")
    subprocess.run(["git", "merge", "other"], cwd=dirty, capture_output=True)  # conflicts
    assert judge(dirty, abort).lost == ("README.md",)


def test_a_checkout_of_one_operand_that_names_a_commit_is_a_switch(dirty):
    assert reasons("git checkout main", dirty) == []
    assert reasons("git checkout src", dirty) == ["1 file under src/ (src/app.py)"]
    (dirty / "-").write_text("a file named -\n")
    git(dirty, "add", "-")
    git(dirty, "commit", "-qm", "dash")
    (dirty / "-").write_text("edited\n")
    switch_back = finding("unstaged", "-", candidate=True, rule="git.checkout-discard")
    assert judge(dirty, switch_back).lost == ("-",)  # no branch before: `-` is the file
    git(dirty, "checkout", "-qb", "other")
    assert judge(dirty, switch_back).lost == ()  # `-` is main, the branch before


def test_history_outside_the_worktree_is_always_lost(git_repo):
    assert reasons("git reflog expire --expire=now --all", git_repo) == [
        "history git keeps nowhere else"
    ]
    for destroys in ("remote", "unreachable", "worktree"):
        assert judge(git_repo, finding(destroys)).lost == ("(history outside the worktree)",)


def _commit_on(repo: Path, ref: str) -> str:
    """A root commit held only by `ref`; its short id."""
    tree = git(repo, "rev-parse", "HEAD^{tree}").strip()
    sha = git(repo, "commit-tree", tree, "-m", ref).strip()
    git(repo, "update-ref", ref, sha)
    return f"commit {sha[:12]}"


def test_a_ref_named_at_run_time_may_be_any_ref_of_its_kind(git_repo):
    """branch: any branch; tag: any tag; update-ref: any ref or HEAD; a remote-tracking ref
    can be fetched again and is never counted; interlock's own refs and the stash hold no
    one's work."""
    main = f"commit {git(git_repo, 'rev-parse', 'HEAD').strip()[:12]}"
    tag_only = _commit_on(git_repo, "refs/tags/t1")
    _commit_on(git_repo, "refs/remotes/origin/gone")
    kept = _commit_on(git_repo, "refs/interlock/main/green/1")
    any_branch = finding("commits", unknown=True, rule="git.branch-force-delete")
    assert judge(git_repo, any_branch).lost == (main,)
    any_tag = finding("commits", unknown=True, rule="git.tag-delete")
    assert judge(git_repo, any_tag).lost == (tag_only,)
    any_ref = finding("commits", unknown=True, rule="git.update-ref-delete")
    assert set(judge(git_repo, any_ref).lost) == {main, tag_only, kept}  # a snapshot's ref too
    moved = finding("commits", unknown=True, rule="git.update-ref-move")
    assert set(judge(git_repo, moved).lost) == {main, tag_only, kept}
    tree = git(git_repo, "rev-parse", "HEAD^{tree}").strip()
    loose = git(git_repo, "commit-tree", tree, "-m", "held by HEAD alone").strip()
    git(git_repo, "checkout", "-q", "--detach", loose)
    held = f"commit {loose[:12]}"
    assert set(judge(git_repo, any_ref).lost) == {main, tag_only, kept, held}
    assert judge(git_repo, any_branch).lost == (main,)  # HEAD is no branch


def test_past_so_many_candidate_refs_a_ref_named_at_run_time_is_taken_to_lose_something(
    git_repo,
):
    head = git(git_repo, "rev-parse", "HEAD").strip()
    lines = "".join(f"create refs/heads/b{n} {head}\n" for n in range(63))
    subprocess.run(
        ["git", "update-ref", "--stdin"], cwd=git_repo, input=lines, text=True, check=True
    )
    any_branch = finding("commits", unknown=True, rule="git.branch-force-delete")
    assert judge(git_repo, any_branch).lost == ()  # 64 branches, all on one commit
    git(git_repo, "branch", "b63")
    assert judge(git_repo, any_branch).lost == ("(a ref named at run time, among 65)",)
    assert "a ref named at run time, among 65" in judge(git_repo, any_branch).summary


def test_a_move_to_a_revision_that_does_not_exist_loses_nothing(git_repo):
    _two_commits_only_on(git_repo, "feature")
    bad = finding("commits", refs=("refs/heads/feature", "no-such-rev"), rule="git.update-ref-move")
    assert judge(git_repo, bad).lost == ()
    reset = finding("commits", refs=("HEAD",), unknown=True, rule="git.reset-hard")
    assert judge(git_repo, reset).lost == ()  # main's commit: feature holds it too
    git(git_repo, "checkout", "-q", "feature")
    assert len(judge(git_repo, reset).lost) == 2  # to a revision named at run time


def test_a_search_that_reaches_beyond_every_worktree_counts_all_under_its_start(dirty):
    outside = f"{OUTSIDE} (outside any worktree), among what find selects at run time"
    assert reasons(f'find {OUTSIDE} -name "$X" -delete', dirty) == [outside]
    [everything] = reasons('find / -name "$X" -delete', dirty)
    assert everything.startswith(f"/ (outside any worktree); {dirty.resolve()} (the whole")
    assert reasons('cd "$D" && find . -name "$X" -delete', dirty) == [
        "2 files (notes.txt, src/app.py); . in a directory known only at run time, among what "
        "find selects at run time"
    ]


def test_a_directory_holding_a_git_directory_git_cannot_read_is_a_repository(git_repo, tmp_path):
    broken = tmp_path / "broken"
    (broken / ".git").mkdir(parents=True)  # empty: git finds no repository there
    assert discover(str(broken)) is None
    assert judge(git_repo, finding("all", str(broken))).lost == (f"{broken} (a git repository)",)


@pytest.mark.parametrize(
    "command",
    [
        'cd "$(git rev-parse --show-toplevel)" && git checkout -- f',
        "cd `git rev-parse --show-toplevel` && rm f",
        'cd "$(git rev-parse --show-cdup)" && git checkout -- f',
        'cd "$(git rev-parse --show-toplevel)" && cd src && rm -rf ../f',
        'cd "$(git rev-parse --show-toplevel)"; git checkout -- f',
    ],
)
def test_a_cd_to_the_top_of_the_worktree_judges_relative_targets_there(git_repo, command):
    """Started in a subdirectory: a clean f at the top loses nothing (it was refused, an
    unknown cwd making relative targets never free); an edited one is refused."""
    (git_repo / "f").write_text("committed\n")
    git(git_repo, "add", "f")
    git(git_repo, "commit", "-qm", "f")
    assert reasons(command, git_repo / "src") == []
    (git_repo / "f").write_text("edited\n")
    assert reasons(command, git_repo / "src") == ["1 file (f)"]


def test_the_top_of_the_worktree_is_unknown_outside_every_worktree_and_its_parent_is_not_it(
    git_repo, tmp_path
):
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "f").write_text("mine\n")
    top = 'cd "$(git rev-parse --show-toplevel)" && rm -rf f'
    assert reasons(top, plain) == ["unknown paths outside any worktree"]
    up = 'cd "$(git rev-parse --show-toplevel)" && cd .. && rm -rf repo'
    assert reasons(up, git_repo / "src") == [
        f"{git_repo.resolve()} (the whole worktree, .git included)"
    ]


def test_a_search_with_one_start_beyond_every_worktree_counts_all_under_each_start(dirty):
    """`find src / -name "$X" -delete`: one start reaches beyond the worktree, so each start
    counts everything unsaved under it (the worktree's top with git's own data)."""
    around = f"/ (outside any worktree); {dirty.resolve()} (the whole worktree, .git included)"
    run_time = ", among what find selects at run time"
    assert reasons('find src / -name "$X" -delete', dirty) == [
        f"1 file under src/ (src/app.py); {around}{run_time}"
    ]
    assert reasons('find . / -name "$X" -delete', dirty) == [
        f"2 files (notes.txt, src/app.py); .git (git's own data); {around}{run_time}"
    ]


@pytest.mark.parametrize(
    ("command", "start", "lost"),
    [
        ('git -C "$(git rev-parse --show-toplevel)" checkout -- src/app.py', "", "src/app.py"),
        ('git -C "$(git rev-parse --show-toplevel)" checkout -- src/app.py', "src", "src/app.py"),
        ('cd "$(git rev-parse --show-toplevel)" && git checkout -- .', "src", "src/app.py"),
        ('git -C "$(pwd)" checkout -- app.py', "src", "src/app.py"),
        ("git -C `pwd`/src checkout -- app.py", "", "src/app.py"),
        ('cd "$PWD" && git checkout -- .', "src", "src/app.py"),
        ('cd src && git -C "$PWD" checkout -- app.py', "", "src/app.py"),
        ('env -C "$PWD/src" git checkout -- app.py', "", "src/app.py"),
        ('cd "$(pwd)/src" && rm -f app.py', "", "src/app.py"),
    ],
)
def test_a_place_named_by_the_shells_own_directory_is_judged_there(
    git_repo, git, command, start, lost
):
    """The agent's idiom `git -C "$(git rev-parse --show-toplevel)" checkout -- f` was refused
    in a clean tree (a repository named at run time); now it is judged where it acts."""
    assert reasons(command, git_repo / start) == []
    (git_repo / "src" / "app.py").write_text("edited\n")
    assert reasons(command, git_repo / start) == [f"1 file under src/ ({lost})"]


@pytest.mark.parametrize(
    "command",
    [
        'git -C "$(git -C "$X" rev-parse --show-toplevel)" checkout -- src/app.py',
        'cd src; git -C "$PWD" checkout -- app.py',
    ],
)
def test_a_place_only_known_at_run_time_stays_unknown(git_repo, command):
    assert reasons(command, git_repo) != []
