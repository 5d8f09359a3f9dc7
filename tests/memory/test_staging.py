"""The filesystem half of a restore, step by step: stage, commit, roll back, verify.

These drive memory/staging.py directly on a real repository and real files, so each step's
promise is pinned on its own: nothing changes until every file is staged, a failure midway
says how far it got, a rollback puts back what each step took, verify trusts only the bytes.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from interlock.git import EXEC_MODE, LINK_MODE, hash_blob, open_repo, write_blob
from interlock.memory import staging
from interlock.memory.staging import (
    FsPlan,
    MidwayError,
    commit,
    describe,
    discard,
    put_back,
    rollback,
    stage,
    verify,
)

FILE_MODE = 0o100644


@pytest.fixture
def repo(git_repo: Path):
    from interlock.git import discover

    loc = discover(git_repo)
    assert loc is not None
    return open_repo(loc)


@pytest.fixture(autouse=True)
def umask() -> Iterator[None]:
    old = os.umask(0o022)
    yield
    os.umask(old)


def plan_for(root: Path) -> FsPlan:
    return FsPlan(os.fsencode(root))


def blob(repo, data: bytes, mode: int = FILE_MODE) -> tuple[int, str]:
    return (mode, write_blob(repo, data))


def temps(root: Path) -> list[str]:
    return sorted(
        os.path.relpath(os.path.join(top, n), root)
        for top, dirs, files in os.walk(root)
        for n in files + dirs
        if n.startswith(".interlock-restore-")
    )


def perm(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


# --- describe ---


@pytest.mark.parametrize(
    ("code", "text"),
    [
        (errno.EROFS, "the filesystem is read-only"),
        (errno.EACCES, "permission denied"),
        (errno.EPERM, "operation not permitted (read-only or immutable)"),
        (errno.ENOSPC, "no space left on the device"),
        (errno.EDQUOT, "disk quota exceeded"),
        (errno.EFBIG, "file too large for the filesystem or the process's size limit"),
    ],
)
def test_describe_puts_the_errors_a_person_can_act_on_in_words(code, text):
    assert describe(OSError(code, os.strerror(code), "/w/a.txt")) == f"{text}: /w/a.txt"
    assert describe(OSError(code, os.strerror(code), b"/w/\xff")) == f"{text}: /w/\udcff"
    assert describe(OSError(code, os.strerror(code))) == text


def test_describe_falls_back_to_the_systems_words_then_to_the_exception():
    assert describe(OSError(errno.EIO, "Input/output error", "f")) == "Input/output error: f"
    assert describe(OSError("no errno at all")) == "no errno at all"
    assert describe(OSError(None, None)) == str(OSError(None, None))


def test_a_midway_error_says_its_cause_and_how_far_it_got():
    cause = OSError(errno.EIO, "Input/output error", "x")
    midway = MidwayError(b"b.txt", [("delete", b"a.txt")], cause)
    assert str(midway) == str(cause)
    assert (midway.rel, midway.done, midway.cause) == (b"b.txt", [("delete", b"a.txt")], cause)


# --- stage ---


def test_staging_writes_every_file_beside_its_target_and_changes_nothing_else(repo, git_repo):
    plan = plan_for(git_repo)
    plan.writes = {
        b"src/app.py": blob(repo, b"new app\n"),
        b"new/deep/file.txt": blob(repo, b"deep\n"),
        b"tool.sh": blob(repo, b"#!/bin/sh\n", EXEC_MODE),
        b"link": blob(repo, b"src/app.py", LINK_MODE),
    }
    staged = stage(repo, plan)

    assert sorted(staged) == sorted(plan.writes)
    assert os.path.dirname(staged[b"src/app.py"]) == os.fsencode(git_repo / "src")
    # new/ does not exist yet: the nearest existing directory is the root
    assert os.path.dirname(staged[b"new/deep/file.txt"]) == os.fsencode(git_repo)
    assert (git_repo / "src" / "app.py").read_text() == "print('hello')\n"
    assert not (git_repo / "new").exists() and not (git_repo / "tool.sh").exists()
    assert os.readlink(staged[b"link"]) == b"src/app.py"
    assert stat.S_IMODE(os.stat(staged[b"tool.sh"]).st_mode) == 0o755
    assert stat.S_IMODE(os.stat(staged[b"new/deep/file.txt"]).st_mode) == 0o644
    discard(staged)
    assert staged == {} and temps(git_repo) == []


def test_a_parent_that_is_a_file_or_a_symlink_is_not_a_staging_directory(repo, git_repo):
    (git_repo / "afile").write_text("x")
    os.symlink("src", git_repo / "alink")
    plan = plan_for(git_repo)
    plan.writes = {
        b"afile/inner.txt": blob(repo, b"a\n"),
        b"alink/inner.txt": blob(repo, b"b\n"),
        b"src/sub/inner.txt": blob(repo, b"c\n"),
    }
    staged = stage(repo, plan)
    assert os.path.dirname(staged[b"afile/inner.txt"]) == os.fsencode(git_repo)
    assert os.path.dirname(staged[b"alink/inner.txt"]) == os.fsencode(git_repo)
    assert os.path.dirname(staged[b"src/sub/inner.txt"]) == os.fsencode(git_repo / "src")
    discard(staged)


def test_a_failure_while_staging_removes_every_temp_file_and_raises(repo, git_repo, monkeypatch):
    plan = plan_for(git_repo)
    plan.writes = {name: blob(repo, name) for name in (b"a.txt", b"b.txt", b"c.txt")}
    real_fdopen = os.fdopen
    opened = []

    def failing_fdopen(fd, *args, **kwargs):
        opened.append(fd)
        if len(opened) == 2:
            os.close(fd)
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_fdopen(fd, *args, **kwargs)

    monkeypatch.setattr(staging.os, "fdopen", failing_fdopen)
    with pytest.raises(OSError, match="No space"):
        stage(repo, plan)
    assert temps(git_repo) == []


def test_a_write_that_fails_after_the_file_is_created_leaves_no_temp_file(
    repo, git_repo, monkeypatch
):
    (git_repo / "src" / "app.py").chmod(0o600)
    plan = plan_for(git_repo)
    plan.writes = {b"src/app.py": blob(repo, b"v2\n")}

    def failing_fchmod(fd, mode):
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(staging.os, "fchmod", failing_fchmod)
    with pytest.raises(OSError):
        stage(repo, plan)
    assert temps(git_repo) == []


# --- permissions of what is written ---


@pytest.mark.parametrize(
    ("before", "mode", "after"),
    [
        (0o600, EXEC_MODE, 0o700),  # private stays private; x only where r
        (0o640, EXEC_MODE, 0o750),
        (0o644, EXEC_MODE, 0o755),
        (0o444, EXEC_MODE, 0o555),
        (0o755, FILE_MODE, 0o644),
        (0o700, FILE_MODE, 0o600),
        (0o751, FILE_MODE, 0o640),
        (0o604, FILE_MODE, 0o604),
    ],
)
def test_a_rewritten_file_keeps_its_permission_bits_with_the_exec_bits_the_snapshot_says(
    repo, git_repo, before, mode, after
):
    target = git_repo / "f"
    target.write_text("old\n")
    target.chmod(before)
    plan = plan_for(git_repo)
    plan.writes = {b"f": blob(repo, b"new\n", mode)}
    commit(plan, stage(repo, plan))
    assert perm(target) == after
    assert target.read_text() == "new\n"


def test_a_file_that_replaces_a_symlink_or_a_new_file_gets_the_umask_permissions(repo, git_repo):
    os.symlink("README.md", git_repo / "was-link")
    plan = plan_for(git_repo)
    plan.writes = {
        b"was-link": blob(repo, b"now a file\n"),
        b"brand-new.sh": blob(repo, b"#!/bin/sh\n", EXEC_MODE),
    }
    plan.deletes = []
    commit(plan, stage(repo, plan))
    assert not os.path.islink(git_repo / "was-link")
    assert perm(git_repo / "was-link") == 0o644  # not the link's 0777 minus x
    assert perm(git_repo / "brand-new.sh") == 0o755


# --- commit ---


def test_commit_deletes_creates_directories_renames_and_prunes_what_it_emptied(repo, git_repo):
    (git_repo / "old" / "deeper").mkdir(parents=True)
    (git_repo / "old" / "deeper" / "gone.txt").write_text("gone\n")
    (git_repo / "keep").mkdir()
    (git_repo / "keep" / "gone.txt").write_text("gone\n")
    (git_repo / "keep" / "stays.txt").write_text("stays\n")
    plan = plan_for(git_repo)
    plan.deletes = [b"old/deeper/gone.txt", b"keep/gone.txt"]
    plan.writes = {b"made/here/new.txt": blob(repo, b"new\n")}
    staged = stage(repo, plan)

    commit(plan, staged)

    assert staged == {}
    assert (git_repo / "made" / "here" / "new.txt").read_text() == "new\n"
    assert not (git_repo / "old").exists()  # emptied by the deletion: pruned to the top
    assert (git_repo / "keep" / "stays.txt").exists() and not (git_repo / "keep/gone.txt").exists()
    assert verify(plan) == [] and temps(git_repo) == []


def test_commit_turns_a_directory_emptied_by_the_deletions_into_a_file(repo, git_repo):
    (git_repo / "thing" / "empty-sub").mkdir(parents=True)
    (git_repo / "thing" / "inner.txt").write_text("inner\n")
    plan = plan_for(git_repo)
    plan.deletes = [b"thing/inner.txt"]
    plan.writes = {b"thing": blob(repo, b"a file again\n")}
    plan.before = {b"thing/inner.txt": blob(repo, b"inner\n"), b"thing": None}

    commit(plan, stage(repo, plan))

    assert (git_repo / "thing").read_text() == "a file again\n"


def test_a_failure_midway_says_which_path_and_every_step_taken_in_order(
    repo, git_repo, monkeypatch
):
    (git_repo / "z-old.txt").write_text("old\n")
    plan = plan_for(git_repo)
    plan.deletes = [b"z-old.txt"]
    plan.writes = {b"a/new.txt": blob(repo, b"a\n"), b"b.txt": blob(repo, b"b\n")}
    staged = stage(repo, plan)
    real_replace = os.replace

    def failing_replace(src, dst):
        if dst.endswith(b"/b.txt"):
            raise OSError(errno.EIO, "Input/output error", dst)
        real_replace(src, dst)

    monkeypatch.setattr(staging.os, "replace", failing_replace)
    with pytest.raises(MidwayError) as caught:
        commit(plan, staged)

    assert caught.value.rel == b"b.txt"
    assert caught.value.done == [("delete", b"z-old.txt"), ("mkdir", b"a"), ("write", b"a/new.txt")]
    assert list(staged) == [b"b.txt"]  # the one not renamed is still staged, for discard()
    discard(staged)
    assert temps(git_repo) == []


def test_a_directory_removed_to_make_room_for_a_file_comes_back_on_rollback(
    repo, git_repo, monkeypatch
):
    (git_repo / "thing").mkdir()
    (git_repo / "thing" / "inner.txt").write_text("inner\n")
    plan = plan_for(git_repo)
    plan.deletes = [b"thing/inner.txt"]
    plan.writes = {b"thing": blob(repo, b"a file\n"), b"z.txt": blob(repo, b"z\n")}
    plan.before = {b"thing/inner.txt": blob(repo, b"inner\n"), b"thing": None, b"z.txt": None}
    staged = stage(repo, plan)
    real_replace = os.replace

    def failing_replace(src, dst):
        if dst.endswith(b"/z.txt"):
            raise OSError(errno.ENOSPC, "No space left on device", dst)
        real_replace(src, dst)

    monkeypatch.setattr(staging.os, "replace", failing_replace)
    with pytest.raises(MidwayError) as caught:
        commit(plan, staged)
    monkeypatch.setattr(staging.os, "replace", real_replace)
    discard(staged)

    assert caught.value.done == [
        ("delete", b"thing/inner.txt"),
        ("rmdir", b"thing"),
        ("write", b"thing"),
    ]
    assert rollback(repo, plan, caught.value.done) == []
    assert (git_repo / "thing" / "inner.txt").read_text() == "inner\n"
    assert not (git_repo / "z.txt").exists() and temps(git_repo) == []


def test_a_failure_on_the_first_deletion_has_taken_no_step(repo, git_repo, monkeypatch):
    (git_repo / "x.txt").write_text("x\n")
    plan = plan_for(git_repo)
    plan.deletes = [b"x.txt"]

    def failing_unlink(path):
        raise OSError(errno.EROFS, "Read-only file system", path)

    monkeypatch.setattr(staging.os, "unlink", failing_unlink)
    with pytest.raises(MidwayError) as caught:
        commit(plan, {})
    assert (caught.value.rel, caught.value.done) == (b"x.txt", [])


def test_deleting_what_is_already_gone_is_no_error(repo, git_repo):
    plan = plan_for(git_repo)
    plan.deletes = [b"never-there.txt"]
    commit(plan, {})
    assert verify(plan) == []


# --- rollback ---


def test_rollback_undoes_every_step_newest_first(repo, git_repo):
    (git_repo / "kept").mkdir()
    plan = plan_for(git_repo)
    old_readme = blob(repo, b"# demo\n")
    plan.before = {b"README.md": old_readme, b"gone.txt": blob(repo, b"gone\n"), b"n/x": None}
    # the state after: README rewritten, gone.txt deleted, n/ made with n/x, kept/ removed
    (git_repo / "README.md").write_text("rewritten\n")
    (git_repo / "n").mkdir()
    (git_repo / "n" / "x").write_text("new\n")
    (git_repo / "kept").rmdir()
    done = [
        ("delete", b"gone.txt"),
        ("write", b"README.md"),
        ("rmdir", b"kept"),
        ("mkdir", b"n"),
        ("write", b"n/x"),
    ]

    assert rollback(repo, plan, done) == []

    assert (git_repo / "README.md").read_text() == "# demo\n"
    assert (git_repo / "gone.txt").read_text() == "gone\n"
    assert (git_repo / "kept").is_dir()
    assert not (git_repo / "n").exists()
    assert temps(git_repo) == []


def test_rollback_goes_on_past_a_step_it_cannot_undo_and_names_it(repo, git_repo):
    plan = plan_for(git_repo)
    plan.before = {b"a.txt": blob(repo, b"a\n")}
    (git_repo / "full").mkdir()
    (git_repo / "full" / "f").write_text("not ours to remove\n")
    done = [("write", b"a.txt"), ("mkdir", b"full")]

    assert rollback(repo, plan, done) == [b"full"]
    assert (git_repo / "a.txt").read_text() == "a\n"  # the step after it was still undone


def test_put_back_restores_a_symlink_or_removes_a_path_that_was_not_there(repo, git_repo):
    plan = plan_for(git_repo)
    (git_repo / "l").write_text("a file now\n")
    put_back(repo, plan, b"l", blob(repo, b"README.md", LINK_MODE))
    assert os.readlink(git_repo / "l") == "README.md"
    put_back(repo, plan, b"l", None)
    assert not os.path.lexists(git_repo / "l")
    put_back(repo, plan, b"l", None)  # already gone: fine


def test_a_put_back_whose_rename_fails_leaves_no_temp_file(repo, git_repo, monkeypatch):
    plan = plan_for(git_repo)

    def failing_replace(src, dst):
        raise OSError(errno.EIO, "Input/output error", dst)

    monkeypatch.setattr(staging.os, "replace", failing_replace)
    with pytest.raises(OSError):
        put_back(repo, plan, b"README.md", blob(repo, b"x\n"))
    assert temps(git_repo) == []


# --- verify ---


def test_verify_trusts_only_the_bytes_the_kind_and_the_exec_bit(repo, git_repo):
    root = git_repo
    (root / "ok.txt").write_text("ok\n")
    (root / "bytes.txt").write_text("other\n")
    (root / "exec.sh").write_text("#!/bin/sh\n")
    (root / "exec.sh").chmod(0o644)  # the snapshot says executable
    (root / "plain.txt").write_text("plain\n")
    (root / "plain.txt").chmod(0o755)  # the snapshot says not executable
    os.symlink("ok.txt", root / "link-ok")
    os.symlink("elsewhere", root / "link-bad")
    (root / "was-link").write_text("ok.txt")  # a file where a symlink must be
    os.symlink("ok.txt", root / "was-file")  # a symlink where a file must be
    (root / "dir").mkdir()
    (root / "left.txt").write_text("should be deleted\n")
    (root / "emptied").mkdir()  # a directory left where a file was deleted: fine
    plan = plan_for(root)
    plan.writes = {
        b"ok.txt": (FILE_MODE, hash_blob(b"ok\n")),
        b"bytes.txt": (FILE_MODE, hash_blob(b"expected\n")),
        b"exec.sh": (EXEC_MODE, hash_blob(b"#!/bin/sh\n")),
        b"plain.txt": (FILE_MODE, hash_blob(b"plain\n")),
        b"link-ok": (LINK_MODE, hash_blob(b"ok.txt")),
        b"link-bad": (LINK_MODE, hash_blob(b"ok.txt")),
        b"was-link": (LINK_MODE, hash_blob(b"ok.txt")),
        b"was-file": (FILE_MODE, hash_blob(b"ok\n")),
        b"dir": (FILE_MODE, hash_blob(b"")),
        b"missing.txt": (FILE_MODE, hash_blob(b"x")),
    }
    plan.deletes = [b"left.txt", b"emptied", b"absent.txt"]

    assert verify(plan) == [
        b"bytes.txt",
        b"dir",
        b"exec.sh",
        b"link-bad",
        b"missing.txt",
        b"plain.txt",
        b"was-file",
        b"was-link",
        b"left.txt",
    ]
