from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from interlock.engine.facts import collect_facts, parse_porcelain
from interlock.engine.findings import Finding, Targets
from interlock.engine.precision import Judge, is_temp_path
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
    assert judge(git_repo, finding("all", "src", cwd=None)).lost == ("x.txt",)


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
