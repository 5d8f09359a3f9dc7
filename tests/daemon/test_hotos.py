"""hotos, the hot client's os without `os`: each function answers what its namesake in os and
os.path answers, on real symlinks, loops, dangling links, `..`, relative and odd paths; and a
hot door's process never imports os."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from interlock.daemon import hotos

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def maze(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Directories and links of every kind, with the cwd inside."""
    (tmp_path / "real" / "deep" / "er").mkdir(parents=True)
    (tmp_path / "real" / "file").write_text("x")
    (tmp_path / "link").symlink_to("real")
    (tmp_path / "abs-link").symlink_to(tmp_path / "real" / "deep")
    (tmp_path / "up").symlink_to("real/deep/..")
    (tmp_path / "chain").symlink_to("link/deep")
    (tmp_path / "dangling").symlink_to("nowhere/at/all")
    (tmp_path / "loop-a").symlink_to("loop-b")
    (tmp_path / "loop-b").symlink_to("loop-a")
    (tmp_path / "self").symlink_to("self")
    (tmp_path / "with space").mkdir()
    (tmp_path / "with space" / "to-parent").symlink_to("..")
    monkeypatch.chdir(tmp_path / "real" / "deep")
    return tmp_path


def paths(root: Path) -> list[str]:
    names = [
        "real", "real/", "real//deep", "real/./deep/../deep", "link", "link/", "link/deep/er",
        "abs-link", "abs-link/..", "up", "up/deep", "chain", "chain/er/../..", "dangling",
        "dangling/more", "loop-a", "loop-a/x", "self", "self/..", "with space/to-parent",
        "with space/to-parent/real", "real/file", "real/file/", "real/file/x", "missing",
        "missing/..", "..", "../..", ".", "", "//x", "///x", "x//", "real\udcff",
    ]  # fmt: skip
    absolute = [str(root / n) for n in names]
    return names + absolute + ["/", "//", "/..", "/../..", str(root) + "/../" + root.name]


def test_realpath_and_abspath_answer_as_os_path(maze):
    for path in paths(maze):
        assert hotos.realpath(path) == os.path.realpath(path), path
        assert hotos.abspath(path) == os.path.abspath(path), path


def test_path_predicates_and_parts_answer_as_os_path(maze):
    for path in paths(maze):
        assert hotos.exists(path) == os.path.exists(path), path
        assert hotos.lexists(path) == os.path.lexists(path), path
        assert hotos.isdir(path) == os.path.isdir(path), path
        assert hotos.isfile(path) == os.path.isfile(path), path
        assert hotos.dirname(path) == os.path.dirname(path), path
        assert hotos.basename(path) == os.path.basename(path), path
        assert hotos.split(path) == os.path.split(path), path
        assert hotos._normpath(path) == os.path.normpath(path), path
        for other in ("x", "/abs", "", "a/b/", "with space"):
            assert hotos.join(path, other) == os.path.join(path, other), (path, other)
    assert hotos.exists("nul\0byte") is os.path.exists("nul\0byte") is False


def test_the_environment_and_file_names_decode_as_os_does():
    raw = b"caf\xc3\xa9 \xff\xfe"
    assert hotos.fsdecode(raw) == os.fsdecode(raw)
    assert hotos.fsencode(os.fsdecode(raw)) == raw
    assert hotos.environ() is os.environ  # os loaded: its live view, as a process changes it
    probe = (
        f"import sys; sys.path.append({str(ROOT)!r}); from interlock.daemon import hotos; "
        "env = dict(hotos.environ()); import os; "
        "print(env == dict(os.environ), 'os' in sys.modules, env['ODD'] == os.environ['ODD'])"
    )
    proc = subprocess.run(
        [sys.executable, "-I", "-S", "-c", probe],
        env={**os.environ, "ODD": os.fsdecode(b"\xff odd \xc3\xa9")},
        capture_output=True,
        text=True,
    )
    assert proc.stdout.split() == ["True", "True", "True"], proc.stderr


def test_one_variable_or_one_prefix_decodes_as_the_whole_environment_would():
    probe = (
        f"import sys; sys.path.append({str(ROOT)!r}); from interlock.daemon import hotos; "
        "got = [hotos.getenv('ODD'), hotos.getenv('NOPE', 'dflt'), hotos.environ_of('INTERLOCK_')]; "
        "decoded_all = bool(hotos._environ); env = dict(hotos.environ()); "
        "want = [env['ODD'], 'dflt', {k: v for k, v in env.items() if k.startswith('INTERLOCK_')}]; "
        "print(got == want, decoded_all, sorted(got[2]))"
    )
    odd = {"ODD": os.fsdecode(b"\xff odd \xc3\xa9"), "INTERLOCK_MODE": "blocking",
           "INTERLOCK_X": os.fsdecode(b"\xfe"), "NOT_INTERLOCK_Y": "no"}
    base = {k: v for k, v in os.environ.items() if not k.startswith("INTERLOCK_")}
    proc = subprocess.run(
        [sys.executable, "-I", "-S", "-c", probe], env={**base, **odd}, capture_output=True, text=True
    )
    assert proc.stdout.split() == ["True", "False", "['INTERLOCK_MODE',", "'INTERLOCK_X']"], proc.stderr


def test_a_hot_process_loads_neither_os_nor_hotlife():
    probe = (
        f"import sys; sys.path.append({str(ROOT)!r}); "
        "from interlock.daemon import hotclient; import interlock.__main__; "
        "import interlock.hooks.dispatch; "
        "print(sorted(m for m in ('os', 'posixpath', 'interlock.daemon.hotlife') "
        "if m in sys.modules))"
    )
    proc = subprocess.run([sys.executable, "-I", "-S", "-c", probe], capture_output=True, text=True)
    assert proc.stdout.strip() == "[]", proc.stderr
