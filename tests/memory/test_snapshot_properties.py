"""Property tests on real repositories: random shell edits, snapshot, more edits, restore.

Scale with INTERLOCK_HYPOTHESIS_MAX (examples of the default run); the `slow` variant runs
twenty times as many.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from interlock.errors import RestoreError
from interlock.git import discover
from interlock.memory.restore import restore_snapshot
from interlock.memory.snapshot import take_snapshot, worktree_tree

EXAMPLES = int(os.environ.get("INTERLOCK_HYPOTHESIS_MAX", "120"))

NAMES = [
    b"README.md",
    b"src/app.py",
    b"src/util.py",
    b"d2/sub/c",
    b"new.txt",
    b"sp ace.txt",
    b"new\nline",
    b"\xff\xfe.bin",
    b"-dash",
    "ünï/çødé.txt".encode(),
    b".env",
    b"x.log",
    b"build/out.o",
    b"win.txt",
    b"run.sh",
    b"link",
    b"deep/a/b/c.txt",
]
DIRS = [b"src", b"d2", b"d2/sub", b"deep", b"newdir", "ünï".encode()]
TEXTS = [b"", b"hello\n", b"a\r\nb\r\n", b"no newline", b"alpha beta\n" * 40, b"\xe2\x82\xac\xff\n"]
BINARIES = [bytes(range(256)), b"\0\0\0a", os.urandom(64)]
TARGETS = [b"README.md", b"src", b"missing", b"../outside", b"link", "ünï".encode()]


def _ignored(rel: bytes) -> bool:
    """What the template's .gitignore (`.env`, `*.log`, `build/`) ignores, at any depth."""
    parts = rel.split(b"/")
    return any(p == b".env" or p.endswith(b".log") for p in parts) or b"build" in parts[:-1]


def _regenerable(rel: bytes) -> bool:
    return rel == b"build" or rel.startswith(b"build/")


def _run(args: list[bytes], cwd: bytes) -> None:
    subprocess.run(args, cwd=cwd, capture_output=True, check=False)


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A committed repository that every example copies."""
    repo = tmp_path_factory.mktemp("template") / "repo"
    repo.mkdir()
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
    }
    env["GIT_COMMITTER_EMAIL"] = "t@t"

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, check=True)

    git("init", "-q", "-b", "main")
    (repo / ".gitignore").write_text(".env\n*.log\nbuild/\n")
    (repo / "README.md").write_text("# readme\nalpha\n")
    (repo / "src").mkdir()
    (repo / "src" / "app.py").write_text("print('a')\n")
    (repo / "src" / "util.py").write_bytes(b"x = 1\r\ny = 2\r\n")
    (repo / "d2" / "sub").mkdir(parents=True)
    (repo / "d2" / "sub" / "c").write_bytes(bytes(range(256)))
    (repo / "run.sh").write_text("#!/bin/sh\necho a\n")
    (repo / "run.sh").chmod(0o755)
    os.symlink("README.md", repo / "link")
    git("add", "-A")
    git("commit", "-qm", "template")
    return repo


def _has_symlinked_parent(root: bytes, rel: bytes) -> bool:
    parts = rel.split(b"/")
    for i in range(1, len(parts)):
        path = root + b"/" + b"/".join(parts[:i])
        if os.path.islink(path) or (os.path.lexists(path) and not os.path.isdir(path)):
            return True
    return False


def _prepare_parent(root: bytes, rel: bytes) -> bool:
    """Create rel's parent directories; False when that cannot be done cleanly."""
    if _has_symlinked_parent(root, rel):
        return False
    os.makedirs(os.path.dirname(root + b"/" + rel), exist_ok=True)
    return not os.path.isdir(root + b"/" + rel) or os.path.islink(root + b"/" + rel)


def _inside(root: bytes, path: bytes) -> bytes | None:
    real, top = os.path.realpath(path), os.path.realpath(root)
    return os.path.relpath(real, top) if real.startswith(top + b"/") else None


def apply(root: bytes, op: tuple[str, int, int, int]) -> set[bytes]:
    """Run one operation (real bash, sed, rm, mv, chmod, ln); returns the paths it touched."""
    kind, a, b, c = op
    rel = NAMES[a % len(NAMES)]
    path = root + b"/" + rel
    touched = {rel}
    if kind in ("write", "append") and _prepare_parent(root, rel):
        target = _inside(root, path)
        touched |= {target} if target else set()
        redirect = b">" if kind == "write" else b">>"
        text = TEXTS[b % len(TEXTS)]
        _run([b"bash", b"-c", b'printf "%s" "$2" ' + redirect + b' "$1"', b"_", path, text], root)
    elif kind == "binary" and _prepare_parent(root, rel) and not os.path.islink(path):
        with open(path, "wb") as handle:
            handle.write(BINARIES[b % len(BINARIES)])
    elif kind == "sed" and os.path.isfile(path) and not os.path.islink(path):
        _run([b"sed", b"-i", b"-e", b"s/a/A/g", b"--", path], root)
    elif kind == "rm":
        _run([b"rm", b"-rf", b"--", path], root)
    elif kind == "rmdir":
        rel = DIRS[a % len(DIRS)]
        touched = {rel}
        _run([b"rm", b"-rf", b"--", root + b"/" + rel], root)
    elif kind == "mv":
        dest = (NAMES + DIRS)[b % (len(NAMES) + len(DIRS))]
        src = (NAMES + DIRS)[a % (len(NAMES) + len(DIRS))]
        touched = {src, dest}
        if os.path.lexists(root + b"/" + src) and not os.path.lexists(root + b"/" + dest):
            if _prepare_parent(root, dest) and not _has_symlinked_parent(root, src):
                _run([b"mv", b"--", root + b"/" + src, root + b"/" + dest], root)
    elif kind == "chmod" and os.path.isfile(path) and not os.path.islink(path):
        _run([b"chmod", b"+x" if b % 2 else b"-x", b"--", path], root)
    elif kind == "symlink" and _prepare_parent(root, rel):
        _run([b"ln", b"-sfn", b"--", TARGETS[b % len(TARGETS)], path], root)
    elif kind == "mkdir":
        rel = DIRS[a % len(DIRS)] + b"/f" + str(c % 3).encode()
        touched = {rel}
        if _prepare_parent(root, rel):
            with open(root + b"/" + rel, "wb") as handle:
                handle.write(TEXTS[b % len(TEXTS)])
    return touched


KINDS = ["write", "append", "binary", "sed", "rm", "rmdir", "mv", "chmod", "symlink", "mkdir"]
operation = st.tuples(
    st.sampled_from(KINDS), st.integers(0, 40), st.integers(0, 40), st.integers(0, 5)
)
operations = st.lists(operation, min_size=1, max_size=6)


def listing(root: bytes) -> dict[bytes, tuple[str, bytes]]:
    """Every file and symlink below root (outside .git, regenerable output aside)."""
    found: dict[bytes, tuple[str, bytes]] = {}
    for top, dirs, files in os.walk(root):
        if top == root:
            dirs[:] = [d for d in dirs if d != b".git"]
        for name in files + [d for d in dirs if os.path.islink(os.path.join(top, d))]:
            path = os.path.join(top, name)
            rel = os.path.relpath(path, root)
            if _regenerable(rel):
                continue
            if os.path.islink(path):
                found[rel] = ("link", os.readlink(path))
            else:
                is_exec = os.lstat(path).st_mode & stat.S_IXUSR
                with open(path, "rb") as handle:
                    found[rel] = ("exec" if is_exec else "file", handle.read())
    return found


@pytest.fixture
def checkout(template: Path) -> Iterator[callable]:
    made: list[str] = []

    def make() -> bytes:
        top = tempfile.mkdtemp(prefix="prop-")
        made.append(top)
        shutil.copytree(template, os.path.join(top, "repo"), symlinks=True)
        return os.fsencode(os.path.join(top, "repo"))

    yield make
    for top in made:
        shutil.rmtree(top, ignore_errors=True)


def check_snapshot_restore_round_trip(make: callable, before_ops: list, after_ops: list) -> None:
    root = make()
    loc = discover(os.fsdecode(root))
    for op in before_ops:  # uncommitted work from before the run
        apply(root, op)
    snap = take_snapshot(loc)
    at_snapshot = listing(root)
    assert take_snapshot(loc).tree == snap.tree  # equal trees give equal snapshot trees

    touched: set[bytes] = set()
    for op in after_ops:
        touched |= apply(root, op)
    incremental = take_snapshot(loc, changed=sorted(touched), base=snap.oid)
    assert incremental.tree == worktree_tree(loc)  # incremental == cold for the same tree
    after_edits = listing(root)

    try:
        result = restore_snapshot(loc, snap.id)
    except RestoreError as exc:  # declined: something unsaved is in the way; nothing changed
        assert "in the way" in str(exc)
        assert listing(root) == after_edits
        return
    assert result.mismatches == ()
    now = listing(root)
    for rel in list(now):
        if rel not in at_snapshot and _ignored(rel):
            assert now.pop(rel) == after_edits[rel]  # ignored and not in the snapshot: kept
    assert now == at_snapshot

    assert result.pre_restore is not None
    back = restore_snapshot(loc, result.pre_restore.id)  # the pre-restore state is restorable
    assert back.mismatches == ()
    assert listing(root) == after_edits


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(before_ops=operations, after_ops=operations)
def test_restore_gives_back_the_snapshot_byte_for_byte(checkout, before_ops, after_ops) -> None:
    check_snapshot_restore_round_trip(checkout, before_ops, after_ops)


@pytest.mark.slow
@settings(
    max_examples=EXAMPLES * 20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(before_ops=operations, after_ops=st.lists(operation, min_size=1, max_size=15))
def test_restore_gives_back_the_snapshot_byte_for_byte_many_examples(
    checkout, before_ops, after_ops
) -> None:
    check_snapshot_restore_round_trip(checkout, before_ops, after_ops)
