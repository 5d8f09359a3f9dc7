"""Restore off the happy path: submodules, symlinked directories, what is in the way, a
rollback that cannot finish, scopes, which state undo picks, and what is recorded."""

from __future__ import annotations

import dataclasses
import json
import os
import stat
import subprocess
from pathlib import Path

import pytest

from interlock import journal
from interlock.cli import run_cli
from interlock.errors import RestoreError
from interlock.git import discover, open_repo
from interlock.memory import staging
from interlock.memory.restore import last_undo_point, restore_snapshot, undo
from interlock.memory.snapshot import list_snapshots, record_snapshot, take_snapshot
from interlock.memory.store import ObjectStore
from interlock.memory.trees import apply_edits


def git(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True)


def listing(repo: Path) -> dict[str, tuple[str, bytes]]:
    """Every file and symlink under repo (outside .git): kind and content or target."""
    found: dict[str, tuple[str, bytes]] = {}
    for top, dirs, files in os.walk(repo):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in files + [d for d in dirs if os.path.islink(os.path.join(top, d))]:
            path = os.path.join(top, name)
            rel = os.path.relpath(path, repo)
            if os.path.islink(path):
                found[rel] = ("link", os.fsencode(os.readlink(path)))
            else:
                kind = "exec" if os.stat(path).st_mode & stat.S_IXUSR else "file"
                found[rel] = (kind, Path(path).read_bytes())
    return found


# --- what a restore reports ---


def test_a_result_is_frozen_and_verified_only_after_a_real_restore_that_matches(git_repo):
    loc = discover(git_repo)
    snap = take_snapshot(loc)
    (git_repo / "README.md").write_text("edited\n")

    dry = restore_snapshot(loc, snap.id, dry_run=True)
    assert dry.to_json()["verified"] is False and dry.to_json()["dry_run"] is True
    with pytest.raises(dataclasses.FrozenInstanceError):
        dry.dry_run = False  # type: ignore[misc]

    real = restore_snapshot(loc, snap.id)
    data = real.to_json()
    assert (data["verified"], data["dry_run"], data["mismatches"]) == (True, False, [])
    assert data["written"] == ["README.md"] and data["kept"] == [] and data["skipped"] == []


def test_bytes_that_do_not_verify_after_a_restore_are_reported_and_fail_the_cli(
    git_repo, cap_out, monkeypatch
):
    loc = discover(git_repo)
    snap = take_snapshot(loc)
    (git_repo / "README.md").write_text("edited\n")
    real_read = staging.read_blob
    # A disk that returns other bytes than it was given: the write "succeeds", verify must not.
    monkeypatch.setattr(staging, "read_blob", lambda repo, oid: real_read(repo, oid) + b"!")

    assert run_cli(["restore", snap.id, "--cwd", str(git_repo)]) == 1

    err = cap_out[1].getvalue()
    assert "after the restore, 1 path(s) do not match the snapshot: README.md" in err
    assert f"interlock diff {snap.id}" in err
    (event,) = journal.events(loc, kind="restore")
    assert event.data["mismatches"] == ["README.md"] and event.data["verified"] is False


# --- what is never touched, and what is in the way ---


def test_a_submodule_is_skipped_never_deleted(git_repo):
    loc = discover(git_repo)
    snap = take_snapshot(loc)  # before the submodule existed
    sub = git_repo / "sub"
    sub.mkdir()
    git(sub, "init", "-q", "-b", "main")
    (sub / "inside.txt").write_text("the submodule's own work\n")
    git(sub, "add", "-A")
    git(sub, "commit", "-q", "-m", "sub")
    git(git_repo, "add", "sub")  # a gitlink (mode 160000) in the index and then in HEAD
    git(git_repo, "commit", "-q", "-m", "add sub")

    result = restore_snapshot(loc, snap.id)

    assert result.skipped == (b"sub",) and b"sub" not in result.deleted
    assert (sub / "inside.txt").read_text() == "the submodule's own work\n"
    assert result.mismatches == ()


def test_a_symlink_to_a_directory_is_replaced_not_followed(git_repo, tmp_path):
    loc = discover(git_repo)
    (git_repo / "data").write_text("a file in the snapshot\n")
    snap = take_snapshot(loc)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "keep.txt").write_text("not the restore's to touch\n")
    (git_repo / "data").unlink()
    os.symlink(outside, git_repo / "data")

    result = restore_snapshot(loc, snap.id)

    assert (git_repo / "data").read_text() == "a file in the snapshot\n"
    assert not (git_repo / "data").is_symlink()
    assert (outside / "keep.txt").read_text() == "not the restore's to touch\n"
    assert result.written == (b"data",) and result.mismatches == ()


def test_an_ignored_file_where_a_directory_must_go_declines_the_restore(git_repo):
    loc = discover(git_repo)
    (git_repo / "thing").mkdir()
    (git_repo / "thing" / "x.txt").write_text("x\n")
    snap = take_snapshot(loc)
    (git_repo / "thing" / "x.txt").unlink()
    (git_repo / "thing").rmdir()
    (git_repo / ".gitignore").write_text("thing\n")
    (git_repo / "thing").write_text("an ignored file, saved nowhere\n")
    before = listing(git_repo)

    with pytest.raises(RestoreError) as caught:
        restore_snapshot(loc, snap.id)

    assert "unsaved files are in the way: thing (in the way of thing/x.txt)" in str(caught.value)
    assert listing(git_repo) == before


def test_an_ignored_symlink_inside_a_directory_that_must_become_a_file_declines_the_restore(
    git_repo,
):
    # Regression: os.walk lists a symlink to a directory among the directories, so the proof
    # missed it, and the restore failed midway (rolled back) instead of declining up front.
    loc = discover(git_repo)
    (git_repo / "thing").write_text("a file in the snapshot\n")
    snap = take_snapshot(loc)
    (git_repo / "thing").unlink()
    (git_repo / "thing").mkdir()
    (git_repo / "target").mkdir()
    (git_repo / "target" / "precious.txt").write_text("precious\n")
    (git_repo / ".gitignore").write_text("link\n")
    os.symlink("../target", git_repo / "thing" / "link")
    before = listing(git_repo)

    with pytest.raises(RestoreError) as caught:
        restore_snapshot(loc, snap.id)

    assert "unsaved files are in the way: thing/link (in the way of thing)" in str(caught.value)
    assert "nothing was changed" in str(caught.value)
    assert listing(git_repo) == before
    assert list_snapshots(loc, "pre-restore") == []  # declined before anything was saved


def test_a_file_that_became_a_deep_directory_and_back_is_restored(git_repo):
    loc = discover(git_repo)
    (git_repo / "thing").mkdir()
    (git_repo / "thing" / "a").mkdir()
    (git_repo / "thing" / "a" / "b.txt").write_text("deep\n")
    snap = take_snapshot(loc)
    expected = listing(git_repo)
    for path in ("thing/a/b.txt",):
        (git_repo / path).unlink()
    (git_repo / "thing" / "a").rmdir()
    (git_repo / "thing").rmdir()
    (git_repo / "thing").write_text("now a file\n")

    assert restore_snapshot(loc, snap.id).mismatches == ()
    assert listing(git_repo) == expected


def test_refusals_name_at_most_five_paths(git_repo):
    loc = discover(git_repo)
    snap = take_snapshot(loc)
    store = ObjectStore(open_repo(loc))
    pruned = {f"p{i}.txt".encode(): (0o100644, f"{i:02d}" * 20) for i in range(6)}
    tree = apply_edits(store, snap.tree, pruned)
    gone = record_snapshot(store, loc, tree, {"kind": "manual", "message": "pruned"})
    with pytest.raises(RestoreError) as caught:
        restore_snapshot(loc, gone.id)
    text = str(caught.value)
    assert "the content of 6 path(s) is no longer in the object store" in text
    assert "(p0.txt, p1.txt, p2.txt, p3.txt, p4.txt)" in text

    for i in range(6):
        (git_repo / f"d{i}").mkdir()
        (git_repo / f"d{i}" / "f").write_text("x")
    snap_dirs = take_snapshot(loc)
    (git_repo / ".gitignore").write_text("d?\n")
    for i in range(6):
        (git_repo / f"d{i}" / "f").unlink()
        (git_repo / f"d{i}").rmdir()
        (git_repo / f"d{i}").write_text("ignored, in the way\n")
    with pytest.raises(RestoreError) as caught:
        restore_snapshot(loc, snap_dirs.id)
    blockers = str(caught.value).split("in the way: ")[1].split("; nothing")[0]
    assert blockers.count("(in the way of") == 5


# --- a rollback that cannot finish ---


def test_a_rollback_that_cannot_put_a_path_back_says_so_and_names_the_saved_state(
    git_repo, monkeypatch
):
    loc = discover(git_repo)
    (git_repo / "a.txt").write_text("a v1\n")
    (git_repo / "b.txt").write_text("b v1\n")
    snap = take_snapshot(loc)
    (git_repo / "a.txt").write_text("a v2\n")
    (git_repo / "b.txt").write_text("b v2\n")
    real_replace = os.replace
    calls: list[bytes] = []

    def failing_replace(src, dst):
        if b"/.git/" not in os.fsencode(dst):
            calls.append(os.fsencode(dst))
            if len(calls) >= 2:  # the second write fails, and so does every put-back
                raise OSError(5, "Input/output error", dst)
        real_replace(src, dst)

    monkeypatch.setattr(staging.os, "replace", failing_replace)
    with pytest.raises(RestoreError) as caught:
        restore_snapshot(loc, snap.id)
    monkeypatch.setattr(staging.os, "replace", real_replace)

    (pre,) = list_snapshots(loc, "pre-restore")
    assert "1 path(s) could not be put back" in str(caught.value)
    assert caught.value.hint == (
        f"the state before the restore is snapshot {pre.id}: interlock restore {pre.id}"
    )
    restore_snapshot(loc, pre.id)  # the promised way back works
    assert (git_repo / "a.txt").read_text() == "a v2\n"
    assert (git_repo / "b.txt").read_text() == "b v2\n"


# --- scopes ---


def test_a_named_path_deleted_since_the_snapshot_comes_back(git_repo):
    loc = discover(git_repo)
    snap = take_snapshot(loc)
    (git_repo / "README.md").unlink()
    (git_repo / "src" / "app.py").write_text("edited\n")

    result = restore_snapshot(loc, snap.id, paths=["README.md"])

    assert result.written == (b"README.md",) and result.deleted == ()
    assert (git_repo / "README.md").read_text() == "# demo\n"
    assert (git_repo / "src" / "app.py").read_text() == "edited\n"


def test_a_named_path_created_since_the_snapshot_is_removed(git_repo):
    loc = discover(git_repo)
    snap = take_snapshot(loc)
    (git_repo / "new.txt").write_text("new\n")

    result = restore_snapshot(loc, snap.id, paths=["new.txt"])

    assert result.deleted == (b"new.txt",) and not (git_repo / "new.txt").exists()


def test_the_pre_restore_snapshot_says_what_it_precedes_and_how_it_was_taken(git_repo):
    loc = discover(git_repo)
    snap = take_snapshot(loc)
    (git_repo / "README.md").write_text("edited\n")

    whole = restore_snapshot(loc, snap.id).pre_restore
    scoped = restore_snapshot(loc, snap.id, paths=["README.md", "src"]).pre_restore

    assert whole is not None and scoped is not None
    assert (whole.kind, whole.message, whole.how, whole.scope) == (
        "pre-restore",
        f"before restoring {snap.id}",
        "cold",
        None,
    )
    assert (scoped.how, scoped.scope) == ("scoped", ("README.md", "src"))


def test_a_restore_is_journaled_with_its_run_and_a_dry_run_is_not(git_repo):
    loc = discover(git_repo)
    snap = take_snapshot(loc)
    (git_repo / "README.md").write_text("edited\n")

    restore_snapshot(loc, snap.id, dry_run=True)
    assert list(journal.events(loc, kind="restore")) == []
    restore_snapshot(loc, snap.id, run="run-7")

    (event,) = journal.events(loc, kind="restore")
    assert event.run == "run-7"
    assert event.data["written"] == ["README.md"] and event.data["snapshot"] == snap.id


# --- which state undo puts back ---


def test_undo_after_a_discard_puts_back_the_exact_state_before_it(git_repo):
    loc = discover(git_repo)
    (git_repo / ".gitignore").write_text("*.log\n")
    (git_repo / "src" / "app.py").write_text("work the discard destroyed\n")
    before = take_snapshot(loc, kind="pre-discard", message="before git checkout -- .")
    git(git_repo, "checkout", "--", "src/app.py")
    (git_repo / "later.log").write_text("ignored, made after the discard\n")

    assert last_undo_point(loc) == before
    undo(loc)

    assert (git_repo / "src" / "app.py").read_text() == "work the discard destroyed\n"
    assert not (git_repo / "later.log").exists()  # exact: the state before, nothing added


def test_undo_picks_the_newest_of_a_discard_and_a_restore(git_repo):
    loc = discover(git_repo)
    take_snapshot(loc, kind="pre-discard")
    (git_repo / "README.md").write_text("v2\n")
    snap = take_snapshot(loc)
    (git_repo / "README.md").write_text("v3\n")
    restore_snapshot(loc, snap.id)
    assert (git_repo / "README.md").read_text() == "v2\n"

    point = last_undo_point(loc)
    assert point is not None and point.kind == "pre-restore"
    undo(loc)
    assert (git_repo / "README.md").read_text() == "v3\n"


def test_undo_as_json_reports_what_it_wrote(git_repo, cap_out):
    loc = discover(git_repo)
    snap = take_snapshot(loc)
    (git_repo / "README.md").write_text("edited\n")
    restore_snapshot(loc, snap.id)

    assert run_cli(["undo", "--json", "--cwd", str(git_repo)]) == 0

    data = json.loads(cap_out[0].getvalue())
    assert data["written"] == ["README.md"] and data["verified"] is True
    assert (git_repo / "README.md").read_text() == "edited\n"
