"""Restore and undo: prove first, write atomically, never lose what was there."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from interlock.cli import run_cli
from interlock.errors import RestoreError
from interlock.git import discover, open_repo
from interlock.memory import staging as restorefs
from interlock.memory.restore import restore_snapshot, undo
from interlock.memory.snapshot import (
    list_snapshots,
    record_snapshot,
    snapshot_tree_files,
    take_snapshot,
)
from interlock.memory.store import ObjectStore
from interlock.memory.trees import apply_edits


def git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=check)


def listing(repo: Path) -> dict[str, tuple[str, bytes]]:
    """Every file under repo (outside .git): kind and content (symlink target)."""
    found: dict[str, tuple[str, bytes]] = {}
    for top, dirs, files in os.walk(repo):
        dirs[:] = [d for d in dirs if d != ".git" or top != str(repo)]
        for name in files + [d for d in dirs if os.path.islink(os.path.join(top, d))]:
            path = os.path.join(top, name)
            rel = os.path.relpath(path, repo)
            if os.path.islink(path):
                found[rel] = ("link", os.fsencode(os.readlink(path)))
            else:
                kind = "exec" if os.stat(path).st_mode & stat.S_IXUSR else "file"
                found[rel] = (kind, Path(path).read_bytes())
    return found


@pytest.fixture
def worked_repo(git_repo: Path) -> Path:
    """A repo with uncommitted work from before the run: a modified, an untracked, an
    executable, a symlink and an ignored .env."""
    (git_repo / ".gitignore").write_text(".env\n")
    git(git_repo, "add", ".gitignore")
    git(git_repo, "commit", "-qm", "ignore")
    (git_repo / "src" / "app.py").write_text("print('work in progress')\n")
    (git_repo / "draft.md").write_text("draft\n")
    (git_repo / "run.sh").write_text("#!/bin/sh\necho hi\n")
    (git_repo / "run.sh").chmod(0o755)
    os.symlink("src/app.py", git_repo / "app-link")
    (git_repo / ".env").write_text("TOKEN=before\n")
    return git_repo


def test_restore_brings_back_the_snapshot_exactly_and_keeps_later_ignored_files(
    worked_repo: Path,
) -> None:
    loc = discover(worked_repo)
    snap = take_snapshot(loc)
    expected = listing(worked_repo)
    (worked_repo / "src" / "app.py").write_text("broken\n")
    (worked_repo / "draft.md").unlink()
    (worked_repo / "run.sh").chmod(0o644)
    (worked_repo / "app-link").unlink()
    os.symlink("README.md", worked_repo / "app-link")
    (worked_repo / "junk").mkdir()
    (worked_repo / "junk" / "new.py").write_text("new\n")
    (worked_repo / ".env").unlink()
    (worked_repo / "later.env").write_text("x")
    (worked_repo / ".gitignore").write_text(".env\n*.env\n")  # later.env is ignored, not in snap

    result = restore_snapshot(loc, snap.id)

    assert result.mismatches == () and result.pre_restore is not None
    now = listing(worked_repo)
    assert now.pop("later.env") == ("file", b"x")
    assert now == expected
    assert not (worked_repo / "junk").exists()
    assert b"later.env" in result.kept
    pre = snapshot_tree_files(loc, result.pre_restore)
    assert b"junk/new.py" in pre and b"draft.md" not in pre


def test_the_pre_restore_state_is_itself_restorable(worked_repo: Path) -> None:
    loc = discover(worked_repo)
    snap = take_snapshot(loc)
    (worked_repo / "src" / "app.py").write_text("later edit\n")
    (worked_repo / "extra.txt").write_text("extra\n")
    later = listing(worked_repo)

    first = restore_snapshot(loc, snap.id)
    assert first.pre_restore is not None
    second = restore_snapshot(loc, first.pre_restore.id)

    assert second.mismatches == ()
    assert listing(worked_repo) == later


def test_undo_reverts_the_last_restore_and_undo_of_undo_redoes_it(worked_repo: Path) -> None:
    loc = discover(worked_repo)
    snap = take_snapshot(loc)
    restored_state = listing(worked_repo)
    (worked_repo / "src" / "app.py").write_text("after\n")
    (worked_repo / "added.txt").write_text("added\n")
    after_state = listing(worked_repo)
    restore_snapshot(loc, snap.id)
    assert listing(worked_repo) == restored_state

    undo(loc)
    assert listing(worked_repo) == after_state
    undo(loc)
    assert listing(worked_repo) == restored_state


def test_restore_of_some_paths_touches_only_those_and_undo_puts_them_back(
    worked_repo: Path,
) -> None:
    loc = discover(worked_repo)
    snap = take_snapshot(loc)
    (worked_repo / "src" / "app.py").write_text("edited\n")
    (worked_repo / "README.md").write_text("edited readme\n")
    (worked_repo / "src" / "extra.py").write_text("extra\n")

    result = restore_snapshot(loc, snap.id, paths=["src"])

    assert (worked_repo / "src" / "app.py").read_text() == "print('work in progress')\n"
    assert not (worked_repo / "src" / "extra.py").exists()
    assert (worked_repo / "README.md").read_text() == "edited readme\n"
    assert sorted(result.written) == [b"src/app.py"] and sorted(result.deleted) == [b"src/extra.py"]
    assert result.pre_restore is not None and result.pre_restore.scope == ("src",)

    undo(loc)
    assert (worked_repo / "src" / "app.py").read_text() == "edited\n"
    assert (worked_repo / "src" / "extra.py").read_text() == "extra\n"
    assert (worked_repo / "README.md").read_text() == "edited readme\n"


def test_dry_run_changes_nothing_and_saves_nothing(worked_repo: Path) -> None:
    loc = discover(worked_repo)
    snap = take_snapshot(loc)
    (worked_repo / "src" / "app.py").write_text("edited\n")
    before = listing(worked_repo)

    result = restore_snapshot(loc, snap.id, dry_run=True)

    assert result.written == (b"src/app.py",) and result.pre_restore is None
    assert listing(worked_repo) == before
    assert [s.kind for s in list_snapshots(loc)] == ["manual"]


def test_restore_declines_and_writes_nothing_when_content_is_missing(worked_repo: Path) -> None:
    loc = discover(worked_repo)
    snap = take_snapshot(loc)
    store = ObjectStore(open_repo(loc))  # a snapshot whose blob was pruned away
    tree = apply_edits(store, snap.tree, {b"pruned.txt": (0o100644, "ab" * 20)})
    pruned = record_snapshot(store, loc, tree, {"kind": "manual", "message": "pruned"})
    (worked_repo / "src" / "app.py").write_text("edited\n")
    before = listing(worked_repo)

    with pytest.raises(RestoreError, match="no longer in the object store"):
        restore_snapshot(loc, pruned.id)

    assert listing(worked_repo) == before
    assert [s.kind for s in list_snapshots(loc)] == ["manual", "manual"]


def test_file_and_directory_swaps_are_restored(git_repo: Path) -> None:
    loc = discover(git_repo)
    (git_repo / "thing").write_text("a file\n")
    snap = take_snapshot(loc)
    expected = listing(git_repo)
    (git_repo / "thing").unlink()
    (git_repo / "thing").mkdir()
    (git_repo / "thing" / "inner.txt").write_text("inner\n")
    shutil.rmtree(git_repo / "src")
    (git_repo / "src").write_text("src is a file now\n")

    assert restore_snapshot(loc, snap.id).mismatches == ()
    assert listing(git_repo) == expected


def test_an_unsaved_ignored_file_in_the_way_declines_the_restore(git_repo: Path) -> None:
    loc = discover(git_repo)
    (git_repo / ".gitignore").write_text("*.cache.bin\n")
    (git_repo / "thing").write_text("a file\n")
    snap = take_snapshot(loc)
    (git_repo / "thing").unlink()
    (git_repo / "thing").mkdir()
    (git_repo / "thing" / "x.cache.bin").write_bytes(b"\0" * 10)
    (git_repo / "thing" / "__pycache__").mkdir()
    (git_repo / "thing" / "__pycache__" / "m.pyc").write_bytes(b"\0")
    # __pycache__ is regenerable: never snapshotted, so nothing could bring it back
    before = listing(git_repo)

    with pytest.raises(RestoreError, match="in the way"):
        restore_snapshot(loc, snap.id)
    assert listing(git_repo) == before


def test_a_private_file_keeps_its_permissions(git_repo: Path) -> None:
    loc = discover(git_repo)
    secret = git_repo / "secret.txt"
    secret.write_text("v1\n")
    secret.chmod(0o600)
    snap = take_snapshot(loc)
    secret.write_text("v2\n")

    restore_snapshot(loc, snap.id)

    assert secret.read_text() == "v1\n" and stat.S_IMODE(secret.stat().st_mode) == 0o600


def test_odd_names_are_restored(git_repo: Path) -> None:
    loc = discover(git_repo)
    root = os.fsencode(git_repo)
    names = [b"sp ace", b"new\nline", b"\xff\xfe", b"-dash", "ü.txt".encode()]
    for name in names:
        with open(root + b"/" + name, "wb") as handle:
            handle.write(name * 3)
    snap = take_snapshot(loc)
    for name in names:
        os.unlink(root + b"/" + name)

    assert restore_snapshot(loc, snap.id).mismatches == ()
    for name in names:
        with open(root + b"/" + name, "rb") as handle:
            assert handle.read() == name * 3


def test_a_rename_failing_midway_is_rolled_back(
    worked_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    loc = discover(worked_repo)
    snap = take_snapshot(loc)
    (worked_repo / "src" / "app.py").write_text("edited\n")
    (worked_repo / "README.md").write_text("edited\n")
    (worked_repo / "draft.md").unlink()
    (worked_repo / "new.txt").write_text("new\n")
    before = listing(worked_repo)
    real_replace = os.replace
    calls = []

    def failing_replace(src: bytes, dst: bytes) -> None:
        if b"/.git/" not in os.fsencode(dst):
            calls.append(dst)
        if len(calls) == 2:
            raise OSError(28, "No space left on device", dst)
        real_replace(src, dst)

    monkeypatch.setattr(restorefs.os, "replace", failing_replace)
    with pytest.raises(RestoreError, match="rolled back"):
        restore_snapshot(loc, snap.id)
    monkeypatch.setattr(restorefs.os, "replace", real_replace)

    assert listing(worked_repo) == before


def _chattr(path: Path, flag: str) -> bool:
    return (
        shutil.which("chattr") is not None
        and subprocess.run(["chattr", flag, str(path)], capture_output=True).returncode == 0
    )


def test_restore_into_a_read_only_directory_fails_clearly_and_changes_nothing(
    worked_repo: Path,
) -> None:
    loc = discover(worked_repo)
    snap = take_snapshot(loc)
    (worked_repo / "src" / "app.py").write_text("edited\n")
    (worked_repo / "README.md").write_text("edited\n")
    before = listing(worked_repo)
    src = worked_repo / "src"
    if os.geteuid() == 0:
        if not _chattr(src, "+i"):
            pytest.skip(
                "running as root and chattr +i is not available to make a directory read-only"
            )
    else:
        src.chmod(0o555)
    try:
        with pytest.raises(RestoreError, match="nothing was changed") as caught:
            restore_snapshot(loc, snap.id)
    finally:
        if os.geteuid() == 0:
            _chattr(src, "-i")
        else:
            src.chmod(0o755)
    assert "src" in str(caught.value)
    assert listing(worked_repo) == before
    assert not [p for p in os.listdir(worked_repo) if p.startswith(".interlock-restore-")]


def test_restore_on_a_full_disk_fails_clearly_and_changes_nothing(worked_repo: Path) -> None:
    loc = discover(worked_repo)
    (worked_repo / "big.bin").write_bytes(os.urandom(300_000))
    snap = take_snapshot(loc)
    (worked_repo / "big.bin").unlink()
    (worked_repo / "README.md").write_text("edited\n")
    before = listing(worked_repo)
    script = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (100_000, 100_000))\n"
        "from interlock.cli import run_cli\n"
        f"sys.exit(run_cli(['restore', '{snap.id}', '--cwd', sys.argv[1]]))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script, str(worked_repo)], capture_output=True, text=True
    )

    assert proc.returncode == 1, proc.stderr
    assert "disk full" in proc.stderr and "nothing was changed" in proc.stderr
    assert "bug" not in proc.stderr
    assert listing(worked_repo) == before


def test_cli_restore_json_and_undo_with_nothing_to_undo(worked_repo: Path, cap_out) -> None:
    assert run_cli(["undo", "--cwd", str(worked_repo)]) == 1
    assert "nothing to undo" in cap_out[1].getvalue()
    snap = take_snapshot(discover(worked_repo))
    (worked_repo / "src" / "app.py").write_text("edited\n")

    assert (
        run_cli(["restore", snap.id, "--json", "--cwd", str(worked_repo), "--paths", "src/app.py"])
        == 0
    )

    data = json.loads(cap_out[0].getvalue())
    assert data["written"] == ["src/app.py"] and data["verified"] is True
    assert data["snapshot"] == snap.id and len(data["pre_restore"]) == 12


def test_cli_restore_paths_are_relative_to_the_current_directory(
    worked_repo: Path, cap_out, monkeypatch
) -> None:
    snap = take_snapshot(discover(worked_repo))
    (worked_repo / "src" / "app.py").write_text("edited\n")
    (worked_repo / "README.md").write_text("edited\n")
    monkeypatch.chdir(worked_repo / "src")

    assert run_cli(["restore", snap.id, "app.py"]) == 0

    assert (worked_repo / "src" / "app.py").read_text() == "print('work in progress')\n"
    assert (worked_repo / "README.md").read_text() == "edited\n"


def test_restoring_a_path_in_neither_the_snapshot_nor_the_tree_is_an_error(
    worked_repo: Path, cap_out
) -> None:
    snap = take_snapshot(discover(worked_repo))
    assert run_cli(["restore", snap.id, "--cwd", str(worked_repo), "--paths", "nope.txt"]) == 1
    assert "neither in snapshot" in cap_out[1].getvalue()


def test_undo_removes_an_ignored_file_the_restore_wrote_back(worked_repo: Path) -> None:
    loc = discover(worked_repo)
    snap = take_snapshot(loc)
    (worked_repo / ".env").unlink()
    restore_snapshot(loc, snap.id)
    assert (worked_repo / ".env").read_text() == "TOKEN=before\n"

    result = undo(loc)

    assert not (worked_repo / ".env").exists() and result.deleted == (b".env",)
