"""interlock.engine.treepaths: where paths really are, for precision (issue 14): temp dirs,
symlinks, the nearest existing ancestor, files too large for the recorder, archive members."""

from __future__ import annotations

import os
import tarfile

import pytest

from interlock.engine.treepaths import (
    archive_members,
    existing_ancestor,
    is_temp_path,
    physical,
    too_large,
)


@pytest.mark.parametrize("path", ["/var/tmp/build", "/dev/shm/x", "/tmp/a/../b"])
def test_a_path_inside_a_system_temp_dir_is_a_temp_path(path, monkeypatch):
    monkeypatch.delenv("TMPDIR", raising=False)
    assert is_temp_path(path)


@pytest.mark.parametrize("path", ["/var/tmp", "/dev/shm", "/tmp", "/tmp/", "/var/tmpfoo/x"])
def test_a_temp_dir_itself_is_not_a_temp_path(path, monkeypatch):
    monkeypatch.delenv("TMPDIR", raising=False)
    assert not is_temp_path(path)


def test_tmpdir_adds_a_temp_dir_of_its_own_but_not_the_dir_itself(monkeypatch):
    monkeypatch.setenv("TMPDIR", "/srv/scratch/")
    assert is_temp_path("/srv/scratch/job/out")
    assert not is_temp_path("/srv/scratch")
    monkeypatch.delenv("TMPDIR")
    assert not is_temp_path("/srv/scratch/job/out")


def test_physical_of_the_base_itself_is_the_resolved_base_without_a_trailing_slash(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    assert physical(str(tmp_path / "link"), "") == str(real.resolve())


def test_the_existing_ancestor_of_a_missing_path_is_its_nearest_existing_directory(tmp_path):
    assert existing_ancestor(str(tmp_path / "a" / "b" / "c")) == str(tmp_path)
    assert existing_ancestor(str(tmp_path)) == str(tmp_path)
    assert existing_ancestor("/no-such-top-dir/x") == "/"


def _write(path, size: int) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"x" * size)
    return str(path)


def test_a_file_is_too_large_only_above_the_cap_and_a_link_to_one_never(tmp_path):
    big = _write(tmp_path / "big.bin", 11)
    exact = _write(tmp_path / "exact.bin", 10)
    (tmp_path / "link.bin").symlink_to(big)
    assert too_large(big, 10) == [big]
    assert too_large(exact, 10) == []
    assert too_large(str(tmp_path / "link.bin"), 10) == []  # the link is what is lost
    assert too_large(str(tmp_path / "missing"), 10) == []


def test_a_directory_lists_its_files_above_the_cap_and_not_its_links(tmp_path):
    big = _write(tmp_path / "d" / "sub" / "big.bin", 11)
    _write(tmp_path / "d" / "exact.bin", 10)
    (tmp_path / "d" / "link.bin").symlink_to(big)
    assert too_large(str(tmp_path / "d"), 10) == [big]


@pytest.mark.parametrize(("before", "found"), [(1999, True), (2000, False)])
def test_a_directory_is_looked_at_for_two_thousand_files_then_no_further(tmp_path, before, found):
    # os.walk reads the top directory's files before its subdirectory's
    top = tmp_path / "d"
    top.mkdir()
    for k in range(before):
        (top / f"f{k}").touch()
    big = _write(top / "sub" / "big.bin", 11)
    assert too_large(str(top), 10) == ([big] if found else [])


def _tar(path, size: int) -> str:
    member = path.parent / "member.txt"
    member.write_text("hello\n")
    with tarfile.open(path, "w") as archive:
        archive.add(member, arcname="pkg/member.txt")
    os.truncate(path, size)  # zero blocks after the end: still the same archive
    return str(path)


def test_an_archive_up_to_64_mib_is_listed_and_a_larger_one_is_not(tmp_path):
    assert archive_members(_tar(tmp_path / "a.tar", 64 << 20)) == ["pkg/member.txt"]
    assert archive_members(_tar(tmp_path / "a.tar", 64 << 20), strip=1) == ["member.txt"]
    assert archive_members(_tar(tmp_path / "b.tar", (64 << 20) + 512)) is None
