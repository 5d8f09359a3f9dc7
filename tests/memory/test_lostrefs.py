"""Lost branch tips: kept by the real reference-transaction hook, listed, recovered."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from interlock.cli import run_cli
from interlock.commands.hooks import install_hooks
from interlock.errors import InterlockError
from interlock.git import require_repo
from interlock.memory import lostrefs


def git(cwd: Path, *args: str, check: bool = True) -> str:
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=check)
    return proc.stdout.strip()


def commit(repo: Path, message: str) -> str:
    """An empty commit; --no-verify skips only pre-commit (not under test here), not the
    reference-transaction hook."""
    git(repo, "commit", "-q", "--no-verify", "--allow-empty", "-m", message)
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture
def hooked(git_repo: Path, cap_out) -> Path:
    install_hooks(git_repo)
    return git_repo


def test_deleted_branch_is_kept_and_recovered(hooked):
    git(hooked, "checkout", "-q", "-b", "feature")
    tip = commit(hooked, "feature work")
    git(hooked, "checkout", "-q", "main")
    git(hooked, "branch", "-D", "feature")
    loc = require_repo(hooked)

    [lost] = lostrefs.list_lost(loc)
    assert (lost.branch, lost.oid, lost.subject, lost.worktree) == (
        "feature",
        tip,
        "feature work",
        "main",
    )
    assert lost.ref.startswith("refs/interlock/main/lost/feature/")

    assert lostrefs.recover_lost_ref(loc, "feature") == "feature"
    assert git(hooked, "rev-parse", "feature") == tip


def test_reset_hard_two_back_is_recovered_under_a_new_name(hooked):
    commit(hooked, "one")
    commit(hooked, "two")
    tip = commit(hooked, "three")
    git(hooked, "reset", "-q", "--hard", "HEAD~2")
    loc = require_repo(hooked)

    assert [(lost.branch, lost.oid) for lost in lostrefs.list_lost(loc)] == [("main", tip)]
    assert lostrefs.recover_lost_ref(loc, "main") == "main-recovered-1"
    assert lostrefs.recover_lost_ref(loc, "main") == "main-recovered-2"
    assert git(hooked, "rev-parse", "main-recovered-1") == tip
    assert git(hooked, "log", "-1", "--format=%s", "main") == "one"


def test_ordinary_commits_branches_and_pack_refs_keep_nothing(hooked):
    commit(hooked, "one")
    git(hooked, "checkout", "-q", "-b", "topic")
    commit(hooked, "two")
    git(hooked, "checkout", "-q", "main")
    git(hooked, "merge", "-q", "--ff-only", "topic")
    git(hooked, "pack-refs", "--all")
    git(hooked, "branch", "-d", "topic")  # merged: its tip is on main
    git(hooked, "gc", "-q")

    assert lostrefs.list_lost(require_repo(hooked)) == []
    assert not list((hooked / ".git/interlock/reftx").glob("*"))


def test_amend_and_branch_force_keep_the_replaced_tip(hooked):
    first = commit(hooked, "first wording")
    git(hooked, "commit", "-q", "--no-verify", "--allow-empty", "--amend", "-m", "second wording")
    git(hooked, "branch", "side")
    side_tip = commit(hooked, "only on main")
    git(hooked, "branch", "-f", "side", "HEAD~1")  # side moves forward: nothing lost
    git(hooked, "checkout", "-q", "side")
    commit(hooked, "only on side")
    git(hooked, "checkout", "-q", "main")
    git(hooked, "branch", "-f", "side", side_tip)  # side loses "only on side"

    kept = {(lost.branch, lost.subject) for lost in lostrefs.list_lost(require_repo(hooked))}
    assert kept == {("main", "first wording"), ("side", "only on side")}
    assert git(hooked, "cat-file", "-t", first) == "commit"


def test_a_packed_branch_deleted_is_kept_once(hooked):
    git(hooked, "branch", "packed")
    git(hooked, "checkout", "-q", "packed")
    tip = commit(hooked, "packed work")
    git(hooked, "checkout", "-q", "main")
    git(hooked, "pack-refs", "--all")
    git(hooked, "branch", "-D", "packed")

    assert [(lost.branch, lost.oid) for lost in lostrefs.list_lost(require_repo(hooked))] == [
        ("packed", tip)
    ]


def test_branch_deleted_in_a_linked_worktree_is_kept_under_its_id(hooked, tmp_path):
    linked = tmp_path / "wt"
    git(hooked, "worktree", "add", "-q", "-b", "wt-branch", str(linked))
    git(linked, "checkout", "-q", "-b", "doomed")
    tip = commit(linked, "linked work")
    git(linked, "checkout", "-q", "wt-branch")
    git(linked, "branch", "-D", "doomed")

    [lost] = lostrefs.list_lost(require_repo(hooked))
    assert (lost.worktree, lost.branch, lost.oid) == ("wt", "doomed", tip)


def test_lost_cli_lists_json_and_restores(hooked, cap_out):
    git(hooked, "checkout", "-q", "-b", "gone")
    tip = commit(hooked, "gone work")
    git(hooked, "checkout", "-q", "main")
    git(hooked, "branch", "-D", "gone")
    out, _ = cap_out
    out.truncate(0)
    out.seek(0)

    assert run_cli(["lost", "--json", "--cwd", str(hooked)]) == 0
    [entry] = json.loads(out.getvalue())
    assert (entry["branch"], entry["oid"], entry["subject"]) == ("gone", tip, "gone work")
    assert run_cli(["lost", "--cwd", str(hooked), "restore", entry["ref"]]) == 0
    assert "branch gone now points at" in out.getvalue()
    assert git(hooked, "rev-parse", "gone") == tip


def test_recovering_an_unknown_name_says_how_to_list(hooked):
    with pytest.raises(InterlockError) as caught:
        lostrefs.recover_lost_ref(require_repo(hooked), "never-existed")
    assert caught.value.hint and "interlock lost" in caught.value.hint


def test_rebase_keeps_the_tip_it_rewrote(hooked):
    git(hooked, "checkout", "-q", "-b", "topic")
    (hooked / "topic.txt").write_text("topic\n")
    git(hooked, "add", "topic.txt")
    git(hooked, "commit", "-q", "--no-verify", "-m", "topic work")
    old_tip = git(hooked, "rev-parse", "HEAD")
    git(hooked, "checkout", "-q", "main")
    commit(hooked, "main moved on")
    git(hooked, "rebase", "-q", "main", "topic")

    assert [(lost.branch, lost.oid) for lost in lostrefs.list_lost(require_repo(hooked))] == [
        ("topic", old_tip)
    ]


def test_recover_ref_cli_recreates_a_deleted_branch(hooked, cap_out):
    git(hooked, "checkout", "-q", "-b", "topic")
    tip = commit(hooked, "topic work")
    git(hooked, "checkout", "-q", "main")
    git(hooked, "branch", "-D", "topic")

    assert run_cli(["recover", "--ref", "topic", "--cwd", str(hooked)]) == 0
    assert git(hooked, "rev-parse", "topic") == tip
    assert "topic" in cap_out[0].getvalue()
    assert run_cli(["recover", "--ref", "topic", "src/app.py", "--cwd", str(hooked)]) == 2
    assert run_cli(["recover", "--cwd", str(hooked)]) == 2


def test_a_hook_killed_after_a_branch_went_leaves_its_tip_to_the_next_transaction(hooked):
    git(hooked, "checkout", "-q", "-b", "doomed")
    tip = commit(hooked, "work only doomed has")
    git(hooked, "checkout", "-q", "main")
    loc = require_repo(hooked)
    update = f"{tip} {'0' * 40} refs/heads/doomed\n".encode()
    assert lostrefs.note_prepared(loc, update) == {"refs/heads/doomed": tip}
    # The branch goes, and the hook that would settle it is killed before it runs:
    git(hooked, "-c", "core.hooksPath=/dev/null", "branch", "-q", "-D", "doomed")
    [pending] = (loc.state_dir / lostrefs.PENDING_DIR).iterdir()
    aged = pending.stat().st_mtime - lostrefs.PENDING_MAX_AGE - 1
    os.utime(pending, (aged, aged))

    commit(hooked, "any later transaction")

    [lost] = lostrefs.list_lost(loc)
    assert (lost.branch, lost.oid) == ("doomed", tip)
    assert not pending.exists()


def test_a_fresh_pending_file_of_a_transaction_in_progress_is_left_alone(hooked):
    loc = require_repo(hooked)
    tip = git(hooked, "rev-parse", "HEAD")
    git(hooked, "branch", "busy")
    update = f"{tip} {'0' * 40} refs/heads/busy\n".encode()
    lostrefs.note_prepared(loc, update)

    commit(hooked, "another transaction meanwhile")

    assert len(list((loc.state_dir / lostrefs.PENDING_DIR).iterdir())) == 1
    assert lostrefs.list_lost(loc) == []
