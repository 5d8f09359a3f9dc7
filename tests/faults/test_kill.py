"""kill -9 at random moments of a snapshot, a restore, the recorder and a git hook; then
`git fsck`, and a byte-level check that nothing was lost: each file is its old or its new
content, every version the user had is in the worktree or reachable from a ref, and the next
operation clears what the killed one left and works.

Each kill lands at a random delay (seeded: see conftest.py) within the time the same operation
took uninterrupted, on a tree big enough to take a while (hundreds of files and a file large
enough to be streamed). `-m slow` repeats every scenario many times.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import time
from pathlib import Path

import pytest

ROUNDS = 2  # kills per scenario in the default run (more when none landed midway)
SLOW_ROUNDS = 25
FILES = 400
BIG = 10 << 20  # over the 8 MiB streaming size: one pack of its own


def _git(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=check)


def _make_repo(root: Path, rng: random.Random) -> None:
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    for i in range(FILES):
        path = root / f"d{i % 20}" / f"f{i}.txt"
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(rng.randbytes(rng.randrange(10, 3000)))
    (root / "big.bin").write_bytes(rng.randbytes(BIG))
    os.symlink("d0/f0.txt", root / "link")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "base")


def _mutate(root: Path, rng: random.Random, tag: int) -> None:
    """Rewrite a third of the files, delete a few, add a few, give the big file new bytes."""
    files = sorted(p for p in root.glob("d*/f*.txt"))
    for path in rng.sample(files, len(files) // 3):
        path.write_bytes(rng.randbytes(rng.randrange(10, 3000)))
    for path in rng.sample(files, 5):
        path.unlink()
    for i in range(5):
        (root / f"new{tag}" / f"n{i}.txt").parent.mkdir(exist_ok=True)
        (root / f"new{tag}" / f"n{i}.txt").write_bytes(rng.randbytes(200))
    (root / "big.bin").write_bytes(rng.randbytes(BIG))


def _snapshot_refs(root: Path) -> dict[str, str]:
    out = _git(root, "for-each-ref", "--format=%(refname) %(objectname)", "refs/interlock/").stdout
    return {ref: oid for ref, oid in (line.split() for line in out.splitlines())}


def _files_in(root: Path, commit: str) -> dict[str, str]:
    out = _git(root, "ls-tree", "-r", "-z", commit).stdout
    found = {}
    for record in out.split("\0"):
        if record:
            meta, path = record.split("\t", 1)
            found[path] = meta.split()[2]
    return found


def _ids(kit, tree: dict[str, bytes]) -> dict[str, str]:
    return {p: kit.blob_id(d[3:] if d.startswith(b"-> ") else d) for p, d in tree.items()}


def _rounds(wanted: int) -> range:
    return range(wanted + 3)  # up to three more when no kill landed midway


# --- snapshot ---


def _snapshot_scenario(root: Path, kit, rng: random.Random, rounds: int) -> int:
    """Each round checked as it goes; returns how many kills landed while a snapshot was running."""
    _mutate(root, rng, 0)
    took = kit.timed(lambda: kit.run_interlock(root, "snapshot"))
    hits = 0
    for r in _rounds(rounds):
        if r >= rounds and hits:
            break
        _mutate(root, rng, r + 1)
        expected = kit.tree_of(root)
        before = _snapshot_refs(root)
        killed = kit.kill_after(kit.interlock_proc(root, "snapshot"), rng.uniform(0, took))
        hits += killed
        record = kit.lock_record(root)

        kit.fsck(root)
        assert kit.tree_of(root) == expected, "a snapshot changed the worktree"
        for ref in set(_snapshot_refs(root)) - set(before):  # a ref is only ever complete
            assert _files_in(root, ref) == _ids(kit, expected), ref
        done = kit.run_interlock(root, "snapshot", "--json")
        assert done.returncode == 0, done.stderr
        assert ("was interrupted" in done.stderr) == bool(record.strip()), done.stderr
        assert kit.temp_files(root) == [] and kit.lock_record(root) == ""
        snap = json.loads(done.stdout)
        assert _files_in(root, snap["oid"]) == _ids(kit, expected)
    return hits


def test_kill_9_at_random_points_of_a_snapshot_loses_nothing(tmp_path, kit, rng):
    root = tmp_path / "repo"
    _make_repo(root, rng)
    assert _snapshot_scenario(root, kit, rng, ROUNDS) > 0, "no kill landed while a snapshot was running"


@pytest.mark.slow
def test_kill_9_at_random_points_of_a_snapshot_many_times(tmp_path, kit, rng):
    root = tmp_path / "repo"
    _make_repo(root, rng)
    assert _snapshot_scenario(root, kit, rng, SLOW_ROUNDS) > 0, "no kill landed while a snapshot was running"


# --- restore ---


def _snapshot_id(kit, root: Path, message: str) -> str:
    done = kit.run_interlock(root, "snapshot", "--json", "-m", message)
    assert done.returncode == 0, done.stderr
    return str(json.loads(done.stdout)["id"])


def _check_restore_state(kit, root: Path, old: dict[str, bytes], new: dict[str, bytes]) -> None:
    """Each file holds its content before or after the restore (absent included), and when
    anything moved, the state before the restore is reachable from a ref."""
    now = {p: d for p, d in kit.tree_of(root).items() if ".interlock-restore-" not in p}
    for path in set(old) | set(new) | set(now):
        assert now.get(path) in (old.get(path), new.get(path)), f"{path} is neither state"
    if now != old:  # the restore began writing: the tree before it must be kept
        reachable = kit.reachable_blobs(root)
        lost = [p for p, oid in _ids(kit, old).items() if oid not in reachable]
        assert not lost, f"versions of {lost[:5]} are neither in the tree nor kept"


def _restore_scenario(root: Path, kit, rng: random.Random, rounds: int) -> int:
    """Each round checked as it goes; returns how many kills landed while a restore was running."""
    target_state = kit.tree_of(root)
    target = _snapshot_id(kit, root, "target")
    _mutate(root, rng, 0)
    took = kit.timed(lambda: kit.run_interlock(root, "restore", target))
    assert kit.tree_of(root) == target_state
    hits = 0
    for r in _rounds(rounds):
        if r >= rounds and hits:
            break
        _mutate(root, rng, r + 1)
        before = kit.tree_of(root)
        kill_at = rng.uniform(0, took)
        killed = kit.kill_after(kit.interlock_proc(root, "restore", target), kill_at)
        hits += killed

        kit.fsck(root)
        _check_restore_state(kit, root, before, target_state)
        record = kit.lock_record(root)
        done = kit.run_interlock(root, "snapshot")  # the next lock holder clears the temps
        assert done.returncode == 0, done.stderr
        if '"undo"' in record:
            assert "a restore of snapshot" in done.stderr and "interlock restore" in done.stderr
        assert kit.temp_files(root) == [] and kit.lock_record(root) == ""
        again = kit.run_interlock(root, "restore", target)
        assert again.returncode == 0, again.stderr
        assert kit.tree_of(root) == target_state
    return hits


def test_kill_9_at_random_points_of_a_restore_leaves_each_file_old_or_new(tmp_path, kit, rng):
    root = tmp_path / "repo"
    _make_repo(root, rng)
    assert _restore_scenario(root, kit, rng, ROUNDS) > 0, "no kill landed while a restore was running"


@pytest.mark.slow
def test_kill_9_at_random_points_of_a_restore_many_times(tmp_path, kit, rng):
    root = tmp_path / "repo"
    _make_repo(root, rng)
    assert _restore_scenario(root, kit, rng, SLOW_ROUNDS) > 0, "no kill landed while a restore was running"


# --- the recorder (the daemon) ---


def _burst(root: Path, rng: random.Random, tag: int) -> None:
    """Changes the recorder must keep: a third of the files rewritten, new files, the big one."""
    files = sorted(p for p in root.glob("d*/f*.txt"))
    for path in rng.sample(files, len(files) // 3):
        path.write_bytes(rng.randbytes(rng.randrange(10, 3000)))
    for i in range(20):
        (root / f"burst{tag}").mkdir(exist_ok=True)
        (root / f"burst{tag}" / f"b{i}.txt").write_bytes(rng.randbytes(300))
    (root / "big.bin").write_bytes(rng.randbytes(BIG))


def _recorder_rows_name_stored_blobs(root: Path) -> None:
    import sqlite3

    conn = sqlite3.connect(root / ".git" / "interlock" / "recorder.db")
    try:
        oids = [
            r[0] for r in conn.execute("SELECT DISTINCT oid FROM versions WHERE oid IS NOT NULL")
        ]
    finally:
        conn.close()
    check = subprocess.run(
        ["git", "cat-file", "--batch-check"],
        cwd=root,
        input="".join(f"{o}\n" for o in oids),
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    missing = [line for line in check.splitlines() if line.endswith("missing")]
    assert not missing, f"recorder rows name blobs that are not stored: {missing[:3]}"


def _record_scenario(
    root: Path, kit, rng: random.Random, daemons, rounds: int, poll, pid_alive
) -> list[str]:
    """kill -9 of the recording daemon, then a discard outside interlock and `recover`, each
    round; returns the files not recovered, over all rounds."""
    from interlock.daemon import client
    from interlock.git import discover

    loc = discover(root)
    daemons.start(root)

    def busy() -> bool:
        rec = (client.request(loc, "status") or {}).get("recorder") or {}
        return not rec.get("idle")

    def settle() -> None:
        while busy():
            pass

    took = kit.timed(lambda: (_burst(root, rng, 0), settle()))
    lost: list[str] = []
    for r in range(rounds):
        pid = daemons.pid_of(root)
        _burst(root, rng, r + 1)
        expected = kit.tree_of(root)
        time.sleep(rng.uniform(0, took))  # the daemon is not our child: kill it by pid
        os.kill(pid, signal.SIGKILL)
        poll(lambda pid=pid: not pid_alive(pid), what="the daemon to die")

        kit.fsck(root)
        _recorder_rows_name_stored_blobs(root)
        daemons.start(root)  # clears leftovers, rescans what changed while it was down
        settle()
        assert kit.temp_files(root) == []
        _git(root, "checkout", "--", ".")  # a discard typed outside interlock
        _git(root, "clean", "-fdq")
        done = kit.run_interlock(root, "recover", "--since", "1h")
        assert done.returncode == 0, done.stderr
        now = kit.tree_of(root)
        lost += [p for p in expected if now.get(p) != expected[p]]
    return lost


def test_kill_9_of_the_daemon_while_it_records_loses_no_version(
    tmp_path, kit, rng, daemons, poll, pid_alive
):
    root = tmp_path / "repo"
    _make_repo(root, rng)
    lost = _record_scenario(root, kit, rng, daemons, 1, poll, pid_alive)
    assert lost == [], f"{len(lost)} files not recovered after the kill: {lost[:5]}"


@pytest.mark.slow
def test_kill_9_of_the_daemon_while_it_records_many_times(
    tmp_path, kit, rng, daemons, poll, pid_alive
):
    root = tmp_path / "repo"
    _make_repo(root, rng)
    lost = _record_scenario(root, kit, rng, daemons, SLOW_ROUNDS, poll, pid_alive)
    assert lost == [], f"{len(lost)} files not recovered after the kill: {lost[:5]}"


# --- git hooks ---


def _quiet(root: Path, *args: str) -> None:
    """A setup step, not under test: without hooks, so each round costs only its own."""
    _git(root, "-c", "core.hooksPath=/dev/null", *args)


def _hooked_repo(root: Path, kit, rng: random.Random) -> None:
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    for i in range(50):
        (root / f"f{i}.py").write_text(f"value = {i}\n")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "base")
    done = kit.run_interlock(root, "hooks", "install")
    assert done.returncode == 0, done.stderr


def _commit_round(root: Path, kit, rng: random.Random, took: float, tag: int) -> bool:
    for path in rng.sample(sorted(root.glob("f*.py")), 5):
        path.write_text(f"value = {rng.random()}\n")
    _git(root, "add", "-A")
    staged = _git(root, "write-tree").stdout.strip()
    head = _git(root, "rev-parse", "HEAD").stdout.strip()
    worktree = kit.tree_of(root)
    proc = subprocess.Popen(["git", "commit", "-qm", f"c{tag}"], cwd=root)
    killed = kit.kill_descendants_after(proc, rng.uniform(0, took))
    proc.wait()

    kit.fsck(root)
    assert kit.tree_of(root) == worktree
    assert not (root / ".git" / "index.lock").exists()
    now = _git(root, "rev-parse", "HEAD").stdout.strip()
    if now != head:  # the commit went through: whole
        assert _git(root, "rev-parse", "HEAD^{tree}").stdout.strip() == staged
    else:  # it did not: the index is as it was
        assert _git(root, "write-tree").stdout.strip() == staged
        _quiet(root, "commit", "-qm", f"c{tag} again")
    return killed


def _branch_round(root: Path, kit, rng: random.Random, took: float, tag: int) -> bool:
    branch = f"feature{tag}"
    _quiet(root, "checkout", "-q", "-b", branch)
    (root / f"feature{tag}.txt").write_text("work only this branch has\n")
    _git(root, "add", "-A")
    _quiet(root, "commit", "-qm", f"feature {tag}")
    tip = _git(root, "rev-parse", "HEAD").stdout.strip()
    _quiet(root, "checkout", "-q", "main")
    proc = subprocess.Popen(["git", "branch", "-q", "-D", branch], cwd=root)
    killed = kit.kill_descendants_after(proc, rng.uniform(0, took))
    proc.wait()

    kit.fsck(root)
    pending = root / ".git" / "interlock" / "reftx"
    for entry in pending.iterdir() if pending.is_dir() else []:
        os.utime(entry, (entry.stat().st_mtime - 3600,) * 2)  # as if the hook died long ago
    _git(root, "update-ref", "refs/heads/settle", "HEAD")  # any later transaction settles it
    _git(root, "update-ref", "-d", "refs/heads/settle")
    still = _git(root, "rev-parse", "-q", "--verify", f"refs/heads/{branch}", check=False)
    kept = _git(root, "for-each-ref", "--points-at", tip, "refs/interlock/").stdout
    assert still.stdout.strip() == tip or f"/lost/{branch}/" in kept, "the branch tip was lost"
    return killed


def _hook_scenario(root: Path, kit, rng: random.Random, rounds: int) -> int:
    """Each round checked as it goes; returns how many kills landed while a hook was running."""
    took_commit = kit.timed(lambda: _commit_round(root, kit, rng, 1e9, 0))
    took_branch = kit.timed(lambda: _branch_round(root, kit, rng, 1e9, 0))
    hits = 0
    for r in _rounds(rounds):
        if r >= rounds and hits:
            break
        hits += _commit_round(root, kit, rng, took_commit, r + 1)
        hits += _branch_round(root, kit, rng, took_branch, r + 1)
    return hits


def test_kill_9_at_random_points_of_git_hooks_loses_no_commit_or_branch(tmp_path, kit, rng):
    root = tmp_path / "repo"
    _hooked_repo(root, kit, rng)
    assert _hook_scenario(root, kit, rng, ROUNDS) > 0, "no kill landed while a hook was running"


@pytest.mark.slow
def test_kill_9_at_random_points_of_git_hooks_many_times(tmp_path, kit, rng):
    root = tmp_path / "repo"
    _hooked_repo(root, kit, rng)
    assert _hook_scenario(root, kit, rng, SLOW_ROUNDS) > 0, "no kill landed while a hook was running"
