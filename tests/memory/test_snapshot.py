"""Snapshots: what they hold, where they live, and that taking one touches nothing."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from interlock import constants
from interlock.cli import run_cli
from interlock.errors import InterlockError
from interlock.git import discover
from interlock.memory import pack as packfile
from interlock.memory.snapshot import (
    REGENERABLE,
    diff_snapshot,
    list_snapshots,
    resolve_snapshot,
    snapshot_tree_files,
    take_snapshot,
    worktree_tree,
)


def git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=check)


def files_of(repo: Path, snap: str) -> dict[bytes, tuple[int, str]]:
    return snapshot_tree_files(discover(repo), snap)


def blob(repo: Path, oid: str) -> bytes:
    return subprocess.run(
        ["git", "cat-file", "blob", oid], cwd=repo, capture_output=True, check=True
    ).stdout


def untouched_state(repo: Path) -> tuple[bytes, str, str, str]:
    index = (repo / ".git" / "index").read_bytes()
    return (
        index,
        git(repo, "rev-parse", "HEAD").stdout,
        git(repo, "status", "--porcelain").stdout,
        git(repo, "branch", "-a").stdout,
    )


def test_snapshot_holds_tracked_untracked_and_hand_made_ignored_files(git_repo: Path) -> None:
    (git_repo / ".gitignore").write_text(".env\nnode_modules/\nbuild/\n*.pyc\nsecrets/\n")
    git(git_repo, "add", ".gitignore")
    git(git_repo, "commit", "-qm", "ignore")
    (git_repo / "src" / "app.py").write_text("print('changed')\n")
    (git_repo / "notes.txt").write_text("untracked\n")
    (git_repo / ".env").write_text("TOKEN=1\n")
    (git_repo / "secrets").mkdir()
    (git_repo / "secrets" / "local.json").write_text("{}\n")
    (git_repo / "node_modules" / "pkg").mkdir(parents=True)
    (git_repo / "node_modules" / "pkg" / "index.js").write_text("x\n")
    (git_repo / "build").mkdir()
    (git_repo / "build" / "out.o").write_bytes(b"\0")
    (git_repo / "src" / "app.pyc").write_bytes(b"\0")
    before = untouched_state(git_repo)

    info = take_snapshot(discover(git_repo), message="before refactor")

    files = files_of(git_repo, info.id)
    assert sorted(files) == [
        b".env",
        b".gitignore",
        b"README.md",
        b"notes.txt",
        b"secrets/local.json",
        b"src/app.py",
    ]
    assert blob(git_repo, files[b"src/app.py"][1]) == b"print('changed')\n"
    assert untouched_state(git_repo) == before
    assert info.kind == "manual" and info.message == "before refactor" and len(info.id) == 12


def test_snapshot_records_exec_bits_symlinks_and_deletions(git_repo: Path) -> None:
    (git_repo / "run.sh").write_text("#!/bin/sh\n")
    (git_repo / "run.sh").chmod(0o755)
    os.symlink("src/app.py", git_repo / "link")
    (git_repo / "README.md").unlink()
    (git_repo / "emptydir").mkdir()

    files = files_of(git_repo, take_snapshot(discover(git_repo)).id)

    assert files[b"run.sh"][0] == 0o100755
    assert files[b"src/app.py"][0] == 0o100644
    assert files[b"link"][0] == 0o120000 and blob(git_repo, files[b"link"][1]) == b"src/app.py"
    assert b"README.md" not in files
    assert not any(p.startswith(b"emptydir") for p in files)


def test_snapshot_commit_has_head_as_parent_and_a_ref_per_worktree_and_kind(git_repo: Path) -> None:
    info = take_snapshot(discover(git_repo), kind="green", run="run-1", command="pytest")

    assert info.ref == f"refs/interlock/main/snapshots/green/{info.oid}"
    assert git(git_repo, "rev-parse", info.ref).stdout.strip() == info.oid
    assert (
        git(git_repo, "rev-parse", f"{info.oid}^").stdout
        == git(git_repo, "rev-parse", "HEAD").stdout
    )
    body = git(git_repo, "log", "-1", "--format=%B", info.oid).stdout
    meta = json.loads(body.partition("\n\n")[2])
    assert meta["kind"] == "green" and meta["run"] == "run-1" and meta["command"] == "pytest"
    assert meta["head"] == git(git_repo, "rev-parse", "HEAD").stdout.strip()
    assert meta["worktree"] == "main" and meta["version"] == constants.VERSION
    assert git(git_repo, "fsck", "--strict").returncode == 0


def test_snapshot_on_an_unborn_head_holds_the_files(tmp_path: Path) -> None:
    repo = tmp_path / "fresh"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "a.txt").write_text("a\n")
    (repo / "staged.txt").write_text("s\n")
    git(repo, "add", "staged.txt")

    info = take_snapshot(discover(repo))

    assert info.head is None
    assert sorted(files_of(repo, info.id)) == [b"a.txt", b"staged.txt"]
    assert git(repo, "cat-file", "-p", info.oid).stdout.count("parent ") == 0


def test_snapshot_mid_merge_holds_the_conflicted_file_as_it_is_on_disk(git_repo: Path) -> None:
    git(git_repo, "checkout", "-qb", "other")
    (git_repo / "README.md").write_text("other\n")
    git(git_repo, "commit", "-qam", "other")
    git(git_repo, "checkout", "-q", "main")
    (git_repo / "README.md").write_text("main\n")
    git(git_repo, "commit", "-qam", "main")
    assert git(git_repo, "merge", "other", check=False).returncode != 0
    on_disk = (git_repo / "README.md").read_bytes()
    assert b"<<<<<<<" in on_disk

    files = files_of(git_repo, take_snapshot(discover(git_repo)).id)

    assert blob(git_repo, files[b"README.md"][1]) == on_disk
    assert (git_repo / ".git" / "MERGE_HEAD").exists()


def test_snapshots_of_linked_worktrees_are_kept_apart(git_repo: Path, tmp_path: Path) -> None:
    linked = tmp_path / "wt"
    git(git_repo, "worktree", "add", "-q", str(linked), "-b", "feature")
    (linked / "feature.txt").write_text("f\n")
    (git_repo / "main.txt").write_text("m\n")

    main_snap = take_snapshot(discover(git_repo))
    linked_snap = take_snapshot(discover(linked))

    assert linked_snap.worktree == "wt" and linked_snap.ref is not None
    assert linked_snap.ref.startswith("refs/interlock/wt/snapshots/")
    assert b"feature.txt" in files_of(linked, linked_snap.id) and b"main.txt" not in files_of(
        linked, linked_snap.id
    )
    assert [s.oid for s in list_snapshots(discover(git_repo))] == [main_snap.oid]
    assert [s.oid for s in list_snapshots(discover(linked))] == [linked_snap.oid]
    assert resolve_snapshot(discover(git_repo), linked_snap.id[:8]).oid == linked_snap.oid


def test_submodule_is_skipped_and_reported_never_corrupted(git_repo: Path, tmp_path: Path) -> None:
    sub = tmp_path / "subrepo"
    sub.mkdir()
    git(sub, "init", "-q", "-b", "main")
    (sub / "lib.txt").write_text("lib\n")
    git(sub, "add", "-A")
    git(sub, "commit", "-qm", "lib")
    git(
        git_repo,
        "-c",
        "protocol.file.allow=always",
        "submodule",
        "add",
        "-q",
        str(sub),
        "vendor/lib",
    )
    git(git_repo, "commit", "-qm", "submodule")
    (git_repo / "vendor" / "lib" / "lib.txt").write_text("changed inside the submodule\n")
    gitlink = git(git_repo, "rev-parse", "HEAD:vendor/lib").stdout.strip()
    inner_status = git(git_repo / "vendor" / "lib", "status", "--porcelain").stdout

    info = take_snapshot(discover(git_repo))

    files = files_of(git_repo, info.id)
    assert files[b"vendor/lib"] == (0o160000, gitlink)
    assert not any(p.startswith(b"vendor/lib/") for p in files)
    assert "vendor/lib" in info.skipped.get("submodules", [])
    assert git(git_repo / "vendor" / "lib", "status", "--porcelain").stdout == inner_status


def test_crlf_files_under_autocrlf_are_stored_as_the_bytes_on_disk(git_repo: Path) -> None:
    git(git_repo, "config", "core.autocrlf", "true")
    (git_repo / "win.txt").write_bytes(b"one\r\ntwo\r\n")
    git(git_repo, "add", "win.txt")
    git(git_repo, "commit", "-qm", "crlf")
    assert git(git_repo, "status", "--porcelain").stdout == ""

    files = files_of(git_repo, take_snapshot(discover(git_repo)).id)

    assert blob(git_repo, files[b"win.txt"][1]) == b"one\r\ntwo\r\n"


def test_files_over_the_caps_are_skipped_and_reported(
    git_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(constants, "SNAPSHOT_IGNORED_MAX_BYTES", 100)
    monkeypatch.setattr(constants, "SNAPSHOT_UNTRACKED_MAX_BYTES", 1000)
    (git_repo / ".gitignore").write_text("*.env\n")
    (git_repo / "small.env").write_text("x" * 10)
    (git_repo / "big.env").write_text("x" * 101)
    (git_repo / "big.bin").write_bytes(b"y" * 1001)
    (git_repo / "README.md").write_text("z" * 5000)  # tracked: no cap

    info = take_snapshot(discover(git_repo))

    files = files_of(git_repo, info.id)
    assert b"small.env" in files and b"README.md" in files
    assert b"big.env" not in files and b"big.bin" not in files
    assert sorted(info.skipped["oversize"]) == ["big.bin", "big.env"]


def test_odd_file_names_survive_a_snapshot(git_repo: Path) -> None:
    names = [
        b"with space.txt",
        b"new\nline.txt",
        b"\xff\xfebytes.txt",
        b"-leading-dash",
        "ünïcødé.txt".encode(),
    ]
    root = os.fsencode(git_repo)
    for name in names:
        with open(root + b"/" + name, "wb") as handle:
            handle.write(name)

    files = files_of(git_repo, take_snapshot(discover(git_repo)).id)

    for name in names:
        assert blob(git_repo, files[name][1]) == name
    assert git(git_repo, "fsck", "--strict").returncode == 0


def test_resolve_accepts_prefixes_and_names_and_refuses_unknown_or_ambiguous(
    git_repo: Path,
) -> None:
    loc = discover(git_repo)
    first = take_snapshot(loc, kind="baseline")
    (git_repo / "x").write_text("x")
    green = take_snapshot(loc, kind="green")
    (git_repo / "y").write_text("y")
    latest = take_snapshot(loc)

    assert resolve_snapshot(loc, first.id[:4]).oid == first.oid
    assert resolve_snapshot(loc, first.oid).oid == first.oid
    assert resolve_snapshot(loc, "green").oid == green.oid
    assert resolve_snapshot(loc, "baseline").oid == first.oid
    assert resolve_snapshot(loc, "latest").oid == latest.oid
    assert resolve_snapshot(loc, latest.ref or "").oid == latest.oid
    with pytest.raises(InterlockError, match="no snapshot"):
        resolve_snapshot(loc, "deadbeef")
    with pytest.raises(InterlockError, match="no pre-restore snapshot"):
        resolve_snapshot(loc, "pre-restore")


def test_incremental_snapshot_rereads_the_changed_paths_and_equals_a_cold_one(
    git_repo: Path,
) -> None:
    loc = discover(git_repo)
    base = take_snapshot(loc)
    (git_repo / "src" / "app.py").write_text("print('edited')\n")
    (git_repo / "src" / "new").mkdir()
    (git_repo / "src" / "new" / "mod.py").write_text("new\n")
    (git_repo / "README.md").unlink()

    inc = take_snapshot(loc, changed=["src/app.py", b"src/new", "README.md"], base=base.id)

    assert inc.base == base.oid and inc.how == "incremental"
    assert inc.tree == worktree_tree(loc)


def test_incremental_removal_below_a_path_that_is_a_file_keeps_the_file(git_repo: Path) -> None:
    loc = discover(git_repo)
    (git_repo / "README.md").rename(git_repo / "notes")
    base = take_snapshot(loc)

    inc = take_snapshot(loc, changed=["notes/never-created.txt"], base=base.id)

    assert inc.tree == worktree_tree(loc) == base.tree


def test_incremental_snapshot_goes_cold_when_ignore_rules_change(git_repo: Path) -> None:
    loc = discover(git_repo)
    (git_repo / "keep.log").write_text("log\n")
    base = take_snapshot(loc)
    (git_repo / ".gitignore").write_text("*.log\nbuild/\n")

    inc = take_snapshot(loc, changed=[".gitignore"], base=base.id)

    assert inc.how == "cold" and inc.tree == worktree_tree(loc)


def test_incremental_snapshot_with_an_unreadable_base_goes_cold(git_repo: Path) -> None:
    loc = discover(git_repo)
    (git_repo / "n.txt").write_text("n\n")

    info = take_snapshot(loc, changed=["n.txt"], base="0123456789ab")

    assert info.how == "cold" and b"n.txt" in files_of(git_repo, info.id)


def test_unknown_kind_is_refused(git_repo: Path) -> None:
    with pytest.raises(InterlockError, match="unknown snapshot kind"):
        take_snapshot(discover(git_repo), kind="weird")


def test_diff_lists_what_changed_since_a_snapshot(git_repo: Path) -> None:
    loc = discover(git_repo)
    snap = take_snapshot(loc)
    (git_repo / "README.md").write_text("changed\n")
    (git_repo / "src" / "app.py").chmod(0o755)
    (git_repo / "added.txt").write_text("a\n")

    changes = {c.path: (c.old, c.new) for c in diff_snapshot(loc, snap.id)}

    assert set(changes) == {b"README.md", b"src/app.py", b"added.txt"}
    assert changes[b"added.txt"][0] is None
    old, new = changes[b"src/app.py"]
    assert old is not None and new is not None and old[1] == new[1] and new[0] == 0o100755


def test_regenerable_is_exported_as_data() -> None:
    assert (
        "node_modules/" in REGENERABLE and "__pycache__/" in REGENERABLE and "*.pyc" in REGENERABLE
    )


def test_corrupt_state_dir_is_rebuilt_with_a_warning(git_repo: Path, cap_out) -> None:
    state = git_repo / ".git" / "interlock"
    state.write_text("not a directory")

    take_snapshot(discover(git_repo))

    assert state.is_dir()
    assert "rebuilt" in cap_out[1].getvalue()
    assert any(p.name.startswith("interlock.corrupt-") for p in (git_repo / ".git").iterdir())


def _cli_env(repo: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("INTERLOCK_RUN", None)
    return env


def test_eight_concurrent_snapshot_processes_all_succeed_with_distinct_refs(git_repo: Path) -> None:
    for i in range(30):
        (git_repo / f"f{i}.txt").write_text(f"{i}\n")
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "interlock", "snapshot", "--json", "-m", f"p{i}"],
            cwd=git_repo,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=_cli_env(git_repo),
        )
        for i in range(8)
    ]
    results = [p.communicate(timeout=60) for p in procs]

    assert [p.returncode for p in procs] == [0] * 8, [r[1][-600:] for r in results]
    ids = {json.loads(out)["id"] for out, _ in results}
    assert len(ids) == 8
    refs = git(git_repo, "for-each-ref", "refs/interlock/").stdout.splitlines()
    assert len(refs) == 8
    assert git(git_repo, "fsck", "--strict").returncode == 0


def test_kill_9_in_the_middle_of_a_snapshot_leaves_fsck_clean(git_repo: Path) -> None:
    big = git_repo / "big"
    big.mkdir()
    for i in range(4000):
        (big / f"f{i:05}.txt").write_bytes(os.urandom(256))
    lock = git_repo / ".git" / "interlock" / constants.SNAPSHOT_LOCK_FILE
    proc = subprocess.Popen(
        [sys.executable, "-m", "interlock", "snapshot"],
        cwd=git_repo,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=_cli_env(git_repo),
    )
    deadline = time.monotonic() + 30
    while not lock.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.001)  # the lock file appears when the snapshot starts reading the tree
    time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()

    assert proc.returncode == -signal.SIGKILL, "the snapshot finished before it could be killed"
    assert git(git_repo, "for-each-ref", "refs/interlock/").stdout == ""
    assert git(git_repo, "fsck", "--strict").returncode == 0
    info = take_snapshot(discover(git_repo))  # the next snapshot works
    assert len([p for p in files_of(git_repo, info.id) if p.startswith(b"big/")]) == 4000


def test_a_pack_cut_short_leaves_fsck_clean_and_the_objects_are_written_again(
    git_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (git_repo / "new.txt").write_text("new content\n")
    real_write = packfile._write_new

    def die_after_pack(path: Path, data: bytes) -> None:
        if path.suffix == ".idx":
            raise KeyboardInterrupt  # killed between the .pack and its .idx
        real_write(path, data)

    monkeypatch.setattr(packfile, "_write_new", die_after_pack)
    with pytest.raises(KeyboardInterrupt):
        take_snapshot(discover(git_repo))
    monkeypatch.setattr(packfile, "_write_new", real_write)

    assert git(git_repo, "fsck", "--strict").returncode == 0
    info = take_snapshot(discover(git_repo))
    assert blob(git_repo, files_of(git_repo, info.id)[b"new.txt"][1]) == b"new content\n"
    assert git(git_repo, "fsck", "--strict").returncode == 0


def test_cli_snapshot_json_has_id_kind_changed_count_and_time(git_repo: Path, cap_out) -> None:
    (git_repo / "README.md").write_text("changed\n")

    assert run_cli(["snapshot", "--json", "-m", "msg", "--cwd", str(git_repo)]) == 0

    data = json.loads(cap_out[0].getvalue())
    assert len(data["id"]) == 12 and data["kind"] == "manual" and data["message"] == "msg"
    assert data["changed"] == 1 and data["ms"] > 0


def test_cli_snapshots_json_lists_id_time_kind_message_run(
    git_repo: Path, cap_out, monkeypatch
) -> None:
    monkeypatch.setenv("INTERLOCK_RUN", "run-7")
    assert run_cli(["snapshot", "--kind", "green", "--cwd", str(git_repo)]) == 0
    cap_out[0].truncate(0)
    cap_out[0].seek(0)

    assert run_cli(["snapshots", "--json", "--cwd", str(git_repo)]) == 0

    [item] = json.loads(cap_out[0].getvalue())
    assert item["kind"] == "green" and item["run"] == "run-7" and item["message"] is None
    assert item["time"].endswith("Z") and item["time"][:4].isdigit() and "T" in item["time"]


def test_cli_diff_defaults_to_the_last_green(git_repo: Path, cap_out) -> None:
    take_snapshot(discover(git_repo), kind="green")
    (git_repo / "README.md").unlink()

    assert run_cli(["diff", "--json", "--cwd", str(git_repo)]) == 0

    data = json.loads(cap_out[0].getvalue())
    assert data["changes"] == [
        {"path": "README.md", "status": "deleted", "old_mode": "100644", "new_mode": None}
    ]


def test_cli_diff_without_a_green_snapshot_says_what_to_do(git_repo: Path, cap_out) -> None:
    assert run_cli(["diff", "--cwd", str(git_repo)]) == 1
    assert "no green snapshot" in cap_out[1].getvalue()


def test_small_packs_are_folded_together_and_every_snapshot_stays_readable(
    git_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(packfile, "SMALL_PACKS_MERGE_AT", 3)
    loc = discover(git_repo)
    taken = []
    for i in range(10):
        (git_repo / f"n{i}.txt").write_text(f"content {i}\n")
        taken.append(take_snapshot(loc))

    packs = list((git_repo / ".git" / "objects" / "pack").glob("*.idx"))
    assert len(packs) < 4
    assert git(git_repo, "fsck", "--strict").returncode == 0
    for i, info in enumerate(taken):
        assert (
            blob(git_repo, files_of(git_repo, info.id)[f"n{i}.txt".encode()][1])
            == f"content {i}\n".encode()
        )
    assert "garbage: 0" in git(git_repo, "count-objects", "-v").stdout.splitlines()


def _listed(repo: Path) -> list[str]:
    registry = repo / ".git" / "interlock" / "packs.list"
    return registry.read_text().split() if registry.exists() else []


def _packs(repo: Path) -> set[str]:
    return {p.stem for p in (repo / ".git" / "objects" / "pack").glob("*.idx")}


def test_small_packs_are_folded_when_exactly_that_many_are_listed(
    git_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(packfile, "SMALL_PACKS_MERGE_AT", 3)
    loc = discover(git_repo)
    for i in range(2):
        (git_repo / f"n{i}.txt").write_text(f"content {i}\n")
        take_snapshot(loc)
    assert len(_listed(git_repo)) == 2 and set(_listed(git_repo)) <= _packs(git_repo)
    (git_repo / "n2.txt").write_text("content 2\n")
    take_snapshot(loc)  # the third small pack: the three are folded into one
    assert len(_packs(git_repo)) == 1
    assert _listed(git_repo) == sorted(_packs(git_repo))
    assert git(git_repo, "fsck", "--strict").returncode == 0


def test_packs_too_large_to_be_folded_are_not_listed(
    git_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(packfile, "SMALL_PACKS_MERGE_AT", 3)
    monkeypatch.setattr(packfile, "SMALL_PACK_BYTES", 3000)
    loc = discover(git_repo)
    (git_repo / "big.bin").write_bytes(os.urandom(6000))  # does not compress: a large pack
    take_snapshot(loc)
    assert _listed(git_repo) == []
    for i in range(3):
        (git_repo / f"n{i}.txt").write_text(f"content {i}\n")
        take_snapshot(loc)
    assert len(_packs(git_repo)) == 2  # the large pack, and the three small ones folded
    assert len(_listed(git_repo)) == 1 and set(_listed(git_repo)) < _packs(git_repo)
    for i in range(3, 5):  # with the fold, three small packs: folded into a large one
        (git_repo / f"n{i}.txt").write_text(f"content {i}\n")
        take_snapshot(loc)
    assert len(_packs(git_repo)) == 2
    assert _listed(git_repo) == []
    assert git(git_repo, "fsck", "--strict").returncode == 0


def _packed_blobs(repo: Path, since: set[str]) -> list[str]:
    """The blob ids in the packs written after `since` (a set of pack names)."""
    pack_dir = repo / ".git" / "objects" / "pack"
    found = []
    for idx in sorted(pack_dir.glob("*.idx")):
        if idx.stem in since:
            continue
        listing = git(repo, "verify-pack", "-v", str(idx)).stdout.splitlines()
        found += [line.split()[0] for line in listing if " blob " in line]
    return found


def test_an_incremental_snapshot_stores_a_named_files_new_bytes_and_not_the_bases(
    git_repo: Path,
) -> None:
    loc = discover(git_repo)
    (git_repo / "a.txt").write_text("first\n")
    (git_repo / "b.txt").write_text("kept\n")
    base = take_snapshot(loc)
    (git_repo / "a.txt").write_text("second\n")
    before = _packs(git_repo)
    inc = take_snapshot(loc, changed=["a.txt", "b.txt"], base=base.id)
    second = git(git_repo, "hash-object", "a.txt").stdout.strip()
    assert _packed_blobs(git_repo, before) == [second]  # b.txt's bytes are the base's
    assert files_of(git_repo, inc.id)[b"a.txt"][1] == second
    # back to bytes the repository holds, but not the base: stored again (not asked for)
    (git_repo / "a.txt").write_text("first\n")
    before = _packs(git_repo)
    again = take_snapshot(loc, changed=["a.txt"], base=inc.id)
    first = git(git_repo, "hash-object", "a.txt").stdout.strip()
    assert _packed_blobs(git_repo, before) == [first]
    assert blob(git_repo, files_of(git_repo, again.id)[b"a.txt"][1]) == b"first\n"
    assert git(git_repo, "fsck", "--strict").returncode == 0


_PACK_WRITER = """
import sys
from pathlib import Path
from interlock.memory import pack
from interlock.objectformat import BLOB
pack.SMALL_PACKS_MERGE_AT = 3
objects, tag = Path(sys.argv[1]), sys.argv[2]
for i in range(40):
    batch = pack.PackBatch(objects)
    print(batch.add(BLOB, f"{tag} {i}\\n".encode()), flush=True)
    batch.flush()
"""


def test_writers_in_several_processes_fold_packs_without_failing_or_losing_an_object(
    git_repo: Path,
) -> None:
    """The daemon's recorder and snapshots, a cold snapshot and a hook all write packs of one
    repository and fold them: a fold must neither fail another writer (two once wrote the same
    temp list, and one's rename found it gone) nor drop an object or a listed pack."""
    objects = git_repo / ".git" / "objects"
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", _PACK_WRITER, str(objects), f"w{n}"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(4)
    ]
    written = []
    for proc in writers:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        written += out.split()
    assert len(written) == 160
    check = subprocess.run(
        ["git", "cat-file", "--batch-check"],
        cwd=git_repo,
        input="\n".join(written) + "\n",
        capture_output=True,
        text=True,
        check=True,
    )
    assert "missing" not in check.stdout and check.stdout.count(" blob ") == 160
    assert len(_packs(git_repo)) < 40  # folded as they went
    assert set(_listed(git_repo)) <= _packs(git_repo)
    assert git(git_repo, "fsck", "--strict").returncode == 0
