"""Precision for single files, devices, links and archives, in real repositories: a named
file written over or deleted is a discard only when it holds work that exists nowhere else,
and the finding says exactly which paths (absolute) and which of them are too large to keep."""

from __future__ import annotations

import io
import os
import subprocess
import tarfile
import zipfile
from pathlib import Path

import pytest

from interlock.engine import precision
from interlock.engine.check import evaluate
from interlock.engine.findings import Finding
from interlock.engine.precision import archive_members, physical


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True
    ).stdout


@pytest.fixture
def tree(git_repo: Path) -> Path:
    """src/app.py modified, src/clean.py committed and clean, notes.md untracked, .env ignored
    and hand-made, build/out.o ignored build output, staged.py with a staged-only change."""
    (git_repo / ".gitignore").write_text("build/\n.env\n")
    (git_repo / "src" / "clean.py").write_text("clean\n")
    (git_repo / "staged.py").write_text("one\n")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-qm", "more")
    (git_repo / "src" / "app.py").write_text("edited\n")
    (git_repo / "notes.md").write_text("untracked notes\n")
    (git_repo / ".env").write_text("SECRET=1\n")
    (git_repo / "build").mkdir()
    (git_repo / "build" / "out.o").write_text("obj")
    (git_repo / "staged.py").write_text("two\n")
    git(git_repo, "add", "staged.py")
    return git_repo


def judged(command: str, cwd: Path) -> list[Finding]:
    return [
        f
        for f in evaluate(command, str(cwd), mode="blocking").result.findings
        if f.kind == "discard"
    ]


def lost(command: str, cwd: Path) -> set[str]:
    return {p for f in judged(command, cwd) for p in f.lost}


def real(path: Path) -> str:
    return str(path.resolve())


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("rm src/app.py", {"src/app.py"}),
        ("rm notes.md", {"notes.md"}),
        ("rm .env", {".env"}),
        ("rm -f src/clean.py", set()),
        ("rm build/out.o", set()),
        ("rm staged.py", set()),  # the index keeps the staged content
        ("rm no-such-file.txt", set()),
        ("rm src", set()),  # rm without -r does not delete a directory
        ("unlink notes.md", {"notes.md"}),
        ("echo x > src/app.py", {"src/app.py"}),
        ("echo x > src/clean.py", set()),
        ("echo x > brand-new.py", set()),
        ("cat > notes.md <<'EOF'\nnew\nEOF", {"notes.md"}),
        ("> src/app.py", {"src/app.py"}),
        ("truncate -s 0 src/clean.py", set()),
        ("cp README.md src/app.py", {"src/app.py"}),
        ("cp README.md src/", set()),  # src/README.md does not exist
        ("cp notes.md src/", set()),
        ("mv README.md notes.md", {"notes.md"}),
        ("sed -i '/x/d' src/app.py", {"src/app.py"}),
        ("sed -i '/x/d' src/clean.py", set()),
        ("git show HEAD:src/app.py > src/app.py", {"src/app.py"}),
        ("curl -o notes.md https://example.com/x", {"notes.md"}),
        ("tee notes.md < /dev/null", {"notes.md"}),
    ],
)
def test_a_file_is_lost_only_when_it_holds_unsaved_work(tree, command, expected):
    assert lost(command, tree) == {real(tree / p) for p in expected}


def test_a_copy_into_a_directory_loses_the_file_of_the_same_name_there(tree):
    (tree / "src" / "notes.md").write_text("another untracked file\n")
    assert lost("cp notes.md src/", tree) == {real(tree / "src" / "notes.md")}
    assert lost("cp -r src /tmp/elsewhere-that-does-not-exist", tree) == set()


def test_the_facts_judge_from_the_directory_the_line_runs_in(tree):
    assert lost("rm app.py", tree / "src") == {real(tree / "src" / "app.py")}
    assert lost("cd src && echo x > app.py", tree) == {real(tree / "src" / "app.py")}


def test_a_write_through_a_symlink_is_judged_at_the_file_it_reaches(tree):
    os.symlink("notes.md", tree / "alias.md")
    assert lost("echo x > alias.md", tree) == {real(tree / "notes.md")}
    assert lost("cp README.md alias.md", tree) == {real(tree / "notes.md")}
    # rm and mv replace the link itself: the untracked link is what goes
    assert lost("rm alias.md", tree) == {str(tree.resolve() / "alias.md")}


def test_a_directory_symlink_leads_into_another_repository(tree, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q")
    (other / "work.txt").write_text("unsaved elsewhere\n")
    os.symlink(other, tree / "vendor")
    assert real(other / "work.txt") in lost("rm -rf vendor/", tree)
    assert real(other / "work.txt") in lost("rm vendor/work.txt", tree)
    assert real(other / "work.txt") in lost("echo x > vendor/work.txt", tree)
    assert real(other / "work.txt") in lost("cd vendor && git clean -f", tree)


def test_a_tracked_symlink_to_a_temp_dir_does_not_make_work_free(tree, tmp_path):
    os.symlink(tree / "src", tmp_path / "short")
    assert lost(f"rm -f {tmp_path}/short/app.py", tmp_path) == {real(tree / "src" / "app.py")}


def test_outside_every_worktree_only_an_existing_file_counts(tmp_path, monkeypatch):
    # tests live under /tmp, which is free by itself: judge this one as if it were not
    monkeypatch.setattr(precision, "is_temp_path", lambda path: False)
    home = tmp_path / "home"
    home.mkdir()
    (home / "todo.txt").write_text("mine\n")
    (home / ".cache").mkdir()
    (home / ".cache" / "x").write_text("cached\n")
    assert lost("rm todo.txt", home) == {real(home / "todo.txt")}
    assert lost("echo x > todo.txt", home) == {real(home / "todo.txt")}
    assert lost("rm gone.txt", home) == set()
    assert lost("echo x > new.txt", home) == set()
    assert lost("rm .cache/x", home) == set()  # a cache is regenerable


def test_a_file_larger_than_the_recorder_keeps_is_reported_unrecoverable(tree):
    (tree / ".interlock.toml").write_text("recorder_max_file_size = 4096\n")
    big = tree / "data.bin"
    with big.open("wb") as handle:
        handle.truncate(4097)
    (finding,) = judged("rm data.bin notes.md", tree)
    assert set(finding.lost) == {real(big), real(tree / "notes.md")}
    assert finding.unrecoverable == (real(big),)
    assert "too large to keep a copy of" in finding.reason
    data = evaluate("rm data.bin", str(tree), mode="blocking").result.to_json()
    assert data["findings"][0]["unrecoverable"] == [real(big)]
    (tree / ".interlock.toml").write_text("recorder_max_file_size = 8192\n")  # the cap is read
    data = evaluate("rm data.bin", str(tree), mode="blocking").result.to_json()
    assert "unrecoverable" not in data["findings"][0]


def _tar(path: Path, members: dict[str, bytes]) -> None:
    with tarfile.open(path, "w:gz") as archive:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))


def test_an_archive_loses_only_the_files_it_holds(tree, tmp_path):
    archive = tmp_path / "vendor.tgz"
    _tar(archive, {"fresh/a.txt": b"a", "src/clean.py": b"c"})
    assert lost(f"tar -xzf {archive}", tree) == set()
    _tar(archive, {"notes.md": b"overwritten", "fresh/a.txt": b"a"})
    assert lost(f"tar xzf {archive}", tree) == {real(tree / "notes.md")}
    _tar(archive, {"pkg-1.0/notes.md": b"x"})
    assert lost(f"tar -xzf {archive} --strip-components=1", tree) == {real(tree / "notes.md")}
    zipped = tmp_path / "r.zip"
    with zipfile.ZipFile(zipped, "w") as handle:
        handle.writestr("src/app.py", "x")
    assert lost(f"unzip -o {zipped}", tree) == {real(tree / "src" / "app.py")}
    assert lost(f"unzip -o {zipped} -d /tmp/unpacked-elsewhere", tree) == set()


def test_an_archive_read_from_a_pipe_may_hold_anything_under_its_destination(tree):
    found = lost("curl -sL https://example.com/x.tgz | tar -xz -C src", tree)
    assert found == {real(tree / "src" / "app.py")}


def test_archive_members_skip_what_tar_refuses(tmp_path):
    archive = tmp_path / "a.tar"
    _tar(archive, {"../evil": b"x", "./ok/a": b"y", "/abs/b": b"z"})
    assert archive_members(str(archive)) == ["ok/a", "abs/b"]
    assert archive_members(str(tmp_path / "missing.tar")) is None
    (tmp_path / "not-an-archive").write_text("hello")
    assert archive_members(str(tmp_path / "not-an-archive")) is None


def test_physical_paths_follow_directory_links_and_trailing_slashes(tmp_path):
    (tmp_path / "real").mkdir()
    os.symlink(tmp_path / "real", tmp_path / "link")
    base = str(tmp_path)
    assert physical(base, "link/x") == str((tmp_path / "real" / "x").resolve())
    assert physical(base, "link") == str(tmp_path.resolve() / "link")
    assert physical(base, "link/") == str((tmp_path / "real").resolve())
    assert physical(base, "link", follows=True) == str((tmp_path / "real").resolve())


def test_a_device_is_lost_with_no_worktree_at_all(tmp_path):
    (finding,) = judged("wipefs -a /dev/sdz", tmp_path)
    assert finding.rule == "disk.format" and "/dev/sdz" in finding.reason


def test_a_temp_file_hard_linked_to_work_is_not_free(tree, tmp_path):
    os.link(tree / "notes.md", tmp_path / "h")
    assert lost(f": > {tmp_path}/h", tmp_path) == {real(tmp_path / "h")}
    (tmp_path / "plain").write_text("x")
    assert lost(f": > {tmp_path}/plain", tmp_path) == set()


@pytest.mark.parametrize("command", [': > "$F"', ": > `cat name`", ': > "${DIR}/out"'])
def test_emptying_a_file_named_only_at_run_time_may_empty_any_unsaved_file(tree, command):
    """`: > "$F"` empties whatever $F names: every unsaved file of the tree, as for `rm "$F"`
    (judged as if the name were known, "$F" names no file, and the line was allowed)."""
    every = lost('rm -f "$F"', tree)
    assert real(tree / "src" / "app.py") in every
    assert lost(command, tree) == every


def test_a_quoted_glob_empties_the_file_of_that_very_name_not_what_it_would_match(tree):
    """`: > 'n*.md'` creates or empties the file literally named `n*.md`; notes.md is safe."""
    assert lost(": > 'n*.md'", tree) == set()
    assert lost(": > n*.md", tree) == {real(tree / "notes.md")}
