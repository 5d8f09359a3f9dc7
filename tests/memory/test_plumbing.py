"""The cold snapshot's git reader (interlock.plumbing): a snapshot taken through git's own
processes (`cat-file --batch-command`, `update-ref --stdin`, `config`) records exactly the
tree, metadata, ref and skipped lists that one taken through pygit2 records, on every kind of
repository; a reader that fails gives way to pygit2; a cold `interlock snapshot` process
never imports pygit2."""

from __future__ import annotations

import datetime
import json
import os
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from interlock.git import RepoLocation, discover
from interlock.memory import prescan
from interlock.memory.catalog import SnapshotInfo, iso_time
from interlock.memory.snapshot import changed_vs_head, snapshot_tree_files, take_snapshot
from interlock.plumbing import GitReader, ReaderBroken, blob_id_of_file

Git = Callable[..., subprocess.CompletedProcess[str]]


def _loc(path: Path) -> RepoLocation:
    loc = discover(path)
    assert loc is not None
    return loc


def _meta(info: SnapshotInfo, git: Git, cwd: Path) -> dict[str, object]:
    message = git(cwd, "cat-file", "commit", info.oid).stdout.partition("\n\n")[2]
    return dict(json.loads(message.partition("\n\n")[2]))


def _both_ways(path: Path, git: Git, *, pygit2_asked: bool = False) -> SnapshotInfo:
    """Take a snapshot through the reader, then one through pygit2, and check they record the
    same; returns the reader's. pygit2_asked: the reader may ask pygit2 (submodules)."""
    loc = _loc(path)
    loc.state_dir.mkdir(parents=True, exist_ok=True)  # the prescan needs it: nothing else
    early = prescan.start(str(loc.worktree), str(loc.git_dir))
    assert early is not None and early.reader is not None
    reader = early.reader
    try:
        fed = take_snapshot(loc, message="both ways", prescan=early)
        fed_changed = changed_vs_head(loc, fed, reader.use(loc))
        assert not reader.broken, "the reader failed: the snapshot was taken by pygit2"
        assert reader.opened_pygit2 == pygit2_asked
    finally:
        early.close()
    ordinary = take_snapshot(loc, message="both ways")
    assert fed.tree == ordinary.tree
    assert fed.skipped == ordinary.skipped
    assert fed.head == ordinary.head
    assert (fed.how, fed.base, fed.kind, fed.worktree) == (
        ordinary.how,
        ordinary.base,
        "manual",
        ordinary.worktree,
    )
    assert fed_changed == changed_vs_head(loc, ordinary)
    fed_meta, ordinary_meta = _meta(fed, git, path), _meta(ordinary, git, path)
    assert fed_meta.keys() == ordinary_meta.keys()
    assert {k: v for k, v in fed_meta.items() if k != "time"} == {
        k: v for k, v in ordinary_meta.items() if k != "time"
    }
    assert fed.ref == f"refs/interlock/{loc.worktree_id}/snapshots/manual/{fed.oid}"
    assert git(path, "rev-parse", "--verify", fed.ref).stdout.strip() == fed.oid
    parents = git(path, "rev-list", "--parents", "-n1", fed.oid).stdout.split()[1:]
    assert parents == ([fed.head] if fed.head else [])
    assert snapshot_tree_files(loc, fed) == snapshot_tree_files(loc, ordinary)
    git(path, "fsck", "--no-dangling")
    return fed


def test_unborn_head_is_read_through_git_as_through_pygit2(tmp_path: Path, git: Git) -> None:
    repo = tmp_path / "fresh"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "staged.txt").write_text("staged\n")
    git(repo, "add", "staged.txt")
    (repo / "loose.txt").write_text("untracked\n")
    info = _both_ways(repo, git)
    assert info.head is None
    assert sorted(snapshot_tree_files(_loc(repo), info)) == [b"loose.txt", b"staged.txt"]


def test_a_linked_worktree_snapshot_goes_to_its_own_refs(
    git_repo: Path, tmp_path: Path, git: Git
) -> None:
    linked = tmp_path / "linked wt"
    git(git_repo, "worktree", "add", "-q", "-b", "side", str(linked))
    (linked / "README.md").write_text("# changed in the linked worktree\n")
    (linked / "side.txt").write_text("new\n")
    info = _both_ways(linked, git)
    assert info.worktree == _loc(linked).worktree_id != "main"
    assert git(
        git_repo, "for-each-ref", "--format=%(refname)", f"refs/interlock/{info.worktree}/"
    ).stdout


def test_packed_refs_and_a_packed_head_branch(git_repo: Path, git: Git) -> None:
    take_snapshot(_loc(git_repo))
    git(git_repo, "pack-refs", "--all")
    assert not (git_repo / ".git" / "refs" / "heads" / "main").exists()
    (git_repo / "README.md").write_text("# after pack-refs\n")
    info = _both_ways(git_repo, git)
    listed = git(git_repo, "for-each-ref", "--format=%(refname)", "refs/interlock/").stdout.split()
    assert info.ref in listed and len(listed) == 3


def test_symlinks_executables_and_odd_names(git_repo: Path, git: Git) -> None:
    (git_repo / "run.sh").write_text("#!/bin/sh\n")
    (git_repo / "run.sh").chmod(0o755)
    (git_repo / "link").symlink_to("README.md")
    (git_repo / "dangling").symlink_to("nowhere")
    (git_repo / "with space.txt").write_text("a space\n")
    (git_repo / "new\nline.txt").write_text("a newline\n")
    (git_repo / "deep" / "er dir").mkdir(parents=True)
    (git_repo / "deep" / "er dir" / "x\ty.txt").write_text("a tab\n")
    git(git_repo, "add", "run.sh", "link")
    git(git_repo, "commit", "-q", "-m", "tools")
    (git_repo / "run.sh").chmod(0o644)  # a mode-only change
    (git_repo / "src" / "app.py").chmod(0o755)
    files = snapshot_tree_files(_loc(git_repo), _both_ways(git_repo, git))
    assert files[b"link"][0] == 0o120000 and files[b"dangling"][0] == 0o120000
    assert files[b"run.sh"][0] == 0o100644 and files[b"src/app.py"][0] == 0o100755
    assert {b"new\nline.txt", b"with space.txt", b"deep/er dir/x\ty.txt"} <= files.keys()


def test_a_submodule_keeps_its_gitlink_and_is_listed_as_skipped(
    git_repo: Path, tmp_path: Path, git: Git
) -> None:
    lib = tmp_path / "lib"
    lib.mkdir()
    git(lib, "init", "-q", "-b", "main")
    (lib / "lib.py").write_text("x = 1\n")
    git(lib, "add", "-A")
    git(lib, "commit", "-q", "-m", "lib")
    git(
        git_repo,
        "-c",
        "protocol.file.allow=always",
        "submodule",
        "add",
        "-q",
        str(lib),
        "vendor/lib",
    )
    git(git_repo, "commit", "-q", "-m", "submodule")
    (git_repo / "vendor" / "lib" / "lib.py").write_text("x = 2\n")  # inside: never read
    (git_repo / "README.md").write_text("# with a submodule\n")
    info = _both_ways(git_repo, git, pygit2_asked=True)  # libgit2's list of submodules
    assert info.skipped["submodules"] == ["vendor/lib"]
    assert snapshot_tree_files(_loc(git_repo), info)[b"vendor/lib"][0] == 0o160000


def test_gitattributes_with_eol_and_filter_rules_hash_every_tracked_file(
    git_repo: Path, git: Git
) -> None:
    (git_repo / "docs").mkdir()
    for i in range(30):
        (git_repo / "docs" / f"page{i}.txt").write_text(f"page {i}\n")
    (git_repo / ".gitattributes").write_text("*.txt text eol=crlf\n*.bin filter=lfs\n")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "attributes")
    (git_repo / "docs" / "page3.txt").write_bytes(b"page 3\r\n")  # status may call it clean
    (git_repo / "data.bin").write_bytes(b"\0binary\0")
    _both_ways(git_repo, git)


def test_core_autocrlf_and_an_attributes_file_from_config(
    git_repo: Path, tmp_path: Path, git: Git
) -> None:
    attributes = tmp_path / "attrs"
    attributes.write_text("*.py ident\n")
    git(git_repo, "config", "core.attributesFile", str(attributes))
    git(git_repo, "config", "core.autocrlf", "input")
    (git_repo / "src" / "app.py").write_text("print('changed')\n")
    _both_ways(git_repo, git)


def test_a_large_file_is_streamed_and_hashed_as_pygit2_hashes_it(git_repo: Path, git: Git) -> None:
    big = git_repo / "big.dat"
    big.write_bytes(random.Random(7).randbytes(9 << 20))  # over the streaming size
    git(git_repo, "add", "big.dat")
    git(git_repo, "commit", "-q", "-m", "big")
    with big.open("r+b") as handle:
        handle.write(b"changed")
    (git_repo / "untracked-big.dat").write_bytes(b"u" * (9 << 20))
    files = snapshot_tree_files(_loc(git_repo), _both_ways(git_repo, git))
    assert files[b"big.dat"][1] == blob_id_of_file(os.fsencode(big))
    assert (
        files[b"big.dat"][1]
        == git(git_repo, "hash-object", "--no-filters", "big.dat").stdout.strip()
    )


def test_staged_unstaged_untracked_and_ignored_paths(git_repo: Path, git: Git) -> None:
    (git_repo / ".gitignore").write_text(".env\nnotes/\nsecrets/\n__pycache__/\n")
    (git_repo / "secrets").mkdir()
    (git_repo / "secrets" / "tracked.txt").write_text("force-added\n")
    git(git_repo, "add", ".gitignore")
    git(git_repo, "add", "-f", "secrets/tracked.txt")
    git(git_repo, "commit", "-q", "-m", "ignores")
    (git_repo / "README.md").write_text("# unstaged\n")
    (git_repo / "src" / "app.py").write_text("print('staged')\n")
    git(git_repo, "add", "src/app.py")
    (git_repo / "src" / "app.py").write_text("print('staged, then changed again')\n")
    (git_repo / "secrets" / "tracked.txt").write_text("changed\n")
    (git_repo / "secrets" / "local.txt").write_text("ignored, hand-made\n")
    (git_repo / "notes" / "deeper").mkdir(parents=True)
    (git_repo / "notes" / "todo.md").write_text("ignored directory\n")
    (git_repo / "notes" / "deeper" / "more.md").write_text("deeper\n")
    (git_repo / ".env").write_text("SECRET=1\n")
    (git_repo / "__pycache__").mkdir()
    (git_repo / "__pycache__" / "x.pyc").write_bytes(b"\0")
    (git_repo / "new.txt").write_text("untracked\n")
    files = snapshot_tree_files(_loc(git_repo), _both_ways(git_repo, git))
    assert {
        b".env",
        b"notes/todo.md",
        b"notes/deeper/more.md",
        b"secrets/local.txt",
    } <= files.keys()
    assert b"__pycache__/x.pyc" not in files


def test_objects_only_in_packs_after_gc(git_repo: Path, git: Git) -> None:
    for i in range(5):
        (git_repo / "src" / f"m{i}.py").write_text(f"v = {i}\n")
        git(git_repo, "add", "-A")
        git(git_repo, "commit", "-q", "-m", f"c{i}")
    git(git_repo, "gc", "-q", "--prune=now")
    assert not [p for p in (git_repo / ".git" / "objects").iterdir() if len(p.name) == 2]
    (git_repo / "src" / "m2.py").write_text("v = 'changed'\n")
    (git_repo / "src" / "m4.py").unlink()
    _both_ways(git_repo, git)


def test_a_repository_mid_rebase_with_a_conflict(git_repo: Path, git: Git) -> None:
    git(git_repo, "checkout", "-q", "-b", "topic")
    (git_repo / "README.md").write_text("# topic\n")
    git(git_repo, "commit", "-q", "-am", "topic")
    git(git_repo, "checkout", "-q", "main")
    (git_repo / "README.md").write_text("# main\n")
    git(git_repo, "commit", "-q", "-am", "main")
    git(git_repo, "checkout", "-q", "topic")
    assert git(git_repo, "rebase", "main", check=False).returncode != 0
    assert (git_repo / ".git" / "rebase-merge").exists()
    info = _both_ways(git_repo, git)
    assert info.head == git(git_repo, "rev-parse", "HEAD").stdout.strip()


def test_replace_refs_are_not_followed_as_pygit2_does_not_follow_them(
    git_repo: Path, git: Git
) -> None:
    head = git(git_repo, "rev-parse", "HEAD").stdout.strip()
    (git_repo / "other.txt").write_text("another history\n")
    git(git_repo, "add", "other.txt")
    git(git_repo, "commit", "-q", "-m", "other")
    other = git(git_repo, "rev-parse", "HEAD").stdout.strip()
    git(git_repo, "reset", "-q", "--hard", head)
    git(git_repo, "replace", head, other)
    (git_repo / "README.md").write_text("# changed\n")
    info = _both_ways(git_repo, git)
    assert b"other.txt" not in snapshot_tree_files(_loc(git_repo), info)


def test_a_reader_that_died_gives_way_to_pygit2_and_the_same_snapshot(
    git_repo: Path, git: Git
) -> None:
    loc = _loc(git_repo)
    (git_repo / "src" / "app.py").write_text("print('changed')\n")  # a blob to ask about
    ordinary = take_snapshot(loc)
    early = prescan.start(str(loc.worktree), str(loc.git_dir))
    assert early is not None and early.reader is not None
    try:
        pid = early.reader.cat.proc.pid
        assert pid is not None
        os.kill(pid, 9)  # as an older git without --batch-command exits at once
        fed = take_snapshot(loc, prescan=early)
        assert early.reader.broken
        with pytest.raises(ReaderBroken):
            early.reader.missing(["0" * 40])
        assert changed_vs_head(loc, fed, early.reader) == changed_vs_head(loc, ordinary)
    finally:
        early.close()
    assert fed.tree == ordinary.tree and fed.how == "cold"
    assert git(git_repo, "rev-parse", "--verify", fed.ref).stdout.strip() == fed.oid


def test_a_git_without_batch_command_is_a_broken_reader_not_a_wrong_answer(
    git_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = tmp_path / "bin"
    fake.mkdir()
    real = subprocess.run(
        ["sh", "-c", "command -v git"], capture_output=True, text=True
    ).stdout.strip()
    (fake / "git").write_text(
        f'#!/bin/sh\nfor a; do [ "$a" = --batch-command ] && {{ echo "usage: old git" >&2; exit 129; }}; done\n'
        f'exec {real} "$@"\n'
    )
    (fake / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake}:{os.environ['PATH']}")
    loc = _loc(git_repo)
    reader = GitReader.start(str(loc.worktree), prescan.git_env())
    assert reader is not None
    try:
        assert reader.use(loc) is reader
        with pytest.raises(ReaderBroken):
            reader.head()
    finally:
        reader.close()


def test_a_sha256_repository_is_left_to_the_pygit2_path(tmp_path: Path, git: Git) -> None:
    repo = tmp_path / "sha256"
    repo.mkdir()
    git(repo, "init", "-q", "--object-format=sha256")
    loc = _loc(repo)
    reader = GitReader.start(str(loc.worktree), prescan.git_env())
    assert reader is not None
    try:
        assert reader.use(loc) is None
    finally:
        reader.close()


def test_many_objects_are_asked_in_batches_and_answered_in_order(git_repo: Path, git: Git) -> None:
    loc = _loc(git_repo)
    reader = GitReader.start(str(loc.worktree), prescan.git_env())
    assert reader is not None and reader.use(loc) is reader
    try:
        head, tree = reader.head()
        assert head == git(git_repo, "rev-parse", "HEAD").stdout.strip()
        assert tree == git(git_repo, "rev-parse", "HEAD^{tree}").stdout.strip()
        fake = [f"{i:040x}" for i in range(1, 1500)]
        asked = [tree, *fake, tree]
        assert reader.missing(asked) == set(fake)
        assert reader.read_many([tree] * 3, 2) == {tree: reader.read(tree, 2)}
        with pytest.raises(KeyError):
            reader.read(fake[0], 2)
        assert reader.commit(fake[0]) is None and reader.commit(tree) is None
        assert reader.config("core.autocrlf") is None
    finally:
        reader.close()


def test_small_data_is_hashed_without_openssl_to_the_same_digest() -> None:
    code = (
        "import hashlib as h, os, sys\n"
        "del sys.modules['hashlib']\n"
        "from interlock import objectformat as o\n"
        "for n in (0, 1, 100, 65536, 200000, 100000):\n"
        "    d = os.urandom(n)\n"
        "    assert o.sha1(d).hexdigest() == h.sha1(d).hexdigest(), n\n"
        "    print(n, 'hashlib' in sys.modules)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    # 256 KB by Python's own SHA-1, then OpenSSL's once that much was hashed
    assert proc.stdout.split("\n")[:6] == [
        "0 False",
        "1 False",
        "100 False",
        "65536 False",
        "200000 True",
        "100000 True",
    ]


def test_iso_time_writes_what_datetime_writes() -> None:
    rnd = random.Random(3)
    stamps = [0.0, 1.0000005, 1.9999995, 1796112901.9999996, 1700000000.4999995]
    stamps += [rnd.uniform(0, 4e9) for _ in range(20000)]
    stamps += [int(rnd.uniform(0, 4e9)) + rnd.randrange(0, 2_000_001) / 2e6 for _ in range(20000)]
    for when in stamps:
        expected = datetime.datetime.fromtimestamp(when, tz=datetime.UTC)
        assert iso_time(when) == expected.strftime("%Y-%m-%dT%H:%M:%S.%fZ"), when


def test_a_cold_snapshot_process_never_imports_pygit2(git_repo: Path, interlock) -> None:
    take_snapshot(_loc(git_repo))  # the state directory exists: the process prescans
    (git_repo / "README.md").write_text("# changed\n")
    code = (
        "import sys\n"
        "from interlock.__main__ import main\n"
        "code = main(['snapshot', '--json'])\n"
        "heavy = sorted(m for m in ('pygit2', 'typing', 'logging', 'tempfile', 'datetime', 'hashlib')"
        " if m in sys.modules)\n"
        "sys.stderr.write(f'exit={code} loaded={heavy}\\n')\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd=git_repo,
        capture_output=True,
        text=True,
        env={**os.environ, "INTERLOCK_NO_DAEMON": "1"},
        check=True,
    )
    assert proc.stderr.strip().endswith("exit=0 loaded=[]"), proc.stderr
    info = json.loads(proc.stdout)
    assert info["how"] == "cold" and info["changed"] == 1
    printed = interlock(git_repo, "snapshot")
    assert printed.returncode == 0 and printed.stdout.startswith("interlock: snapshot ")
    assert "(manual): 1 file differs from HEAD" in printed.stdout


def test_the_snapshot_ref_runs_no_reference_transaction_hook_as_pygit2_runs_none(
    git_repo: Path, git: Git
) -> None:
    seen = git_repo.parent / "hook-ran"
    hook = git_repo / ".git" / "hooks" / "reference-transaction"
    hook.write_text(f"#!/bin/sh\ncat >> '{seen}'\n")
    hook.chmod(0o755)
    git(git_repo, "update-ref", "refs/heads/probe", "HEAD")  # the hook itself works
    assert "refs/heads/probe" in seen.read_text()
    seen.unlink()
    (git_repo / "README.md").write_text("# changed\n")
    _both_ways(git_repo, git)
    assert not seen.exists()


def test_a_branch_at_a_missing_commit_is_not_taken_for_an_unborn_one(
    git_repo: Path, git: Git
) -> None:
    loc = _loc(git_repo)
    take_snapshot(loc)
    git(git_repo, "pack-refs", "--all")
    packed = git_repo / ".git" / "packed-refs"
    head = git(git_repo, "rev-parse", "HEAD").stdout.strip()
    packed.write_text(packed.read_text().replace(head, "1" * 40))  # a broken repository
    reader = GitReader.start(str(loc.worktree), prescan.git_env())
    assert reader is not None and reader.use(loc) is reader
    try:
        with pytest.raises(ReaderBroken, match="missing commit"):
            reader.head()  # pygit2 then reports it as it always did
    finally:
        reader.close()
