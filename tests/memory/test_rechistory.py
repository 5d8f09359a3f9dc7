"""What the flight recorder keeps (interlock/memory/rechistory.py), in a real repository: the
versions read back, the hourly anchor commits that keep their blobs alive against `git gc`,
pruning by age and size that never loses the newest content of a path nor a blob the index
still names, and "is this path's content recorded?"."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from interlock import git as gitmod
from interlock.errors import GitError
from interlock.git import discover
from interlock.memory import recindex
from interlock.memory.rechistory import (
    Policy,
    Version,
    _rows_to_drop,
    is_recorded,
    prune,
    prune_index,
    recorded_versions,
    recorder_ref,
    referenced_hours,
    write_anchor,
)

DAY = 86400.0
OLD_HOUR = 2000010100
OLD_REF = "refs/interlock/main/recorder/20000101T00"


def git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=check)


@pytest.fixture
def loc(git_repo: Path):
    found = discover(git_repo)
    assert found is not None
    found.state_dir.mkdir()
    return found


@pytest.fixture
def repo(loc):
    return gitmod.open_repo(loc)


@pytest.fixture
def conn(loc):
    connection, _ = recindex.open_db(loc)
    yield connection
    connection.close()


def _record(conn, repo, path: bytes, content: bytes | None, when: float) -> str | None:
    """One version in the index, its blob in the object store (None: a deletion)."""
    oid = None if content is None else gitmod.write_blob(repo, content)
    size = None if content is None else len(content)
    mode = None if content is None else gitmod.FILE_MODE
    event = "deleted" if content is None else "modified"
    recindex.insert_versions(conn, [(path, when, event, oid, mode, size)])
    return oid


def _anchor(conn, repo, loc) -> str | None:
    conn.execute("BEGIN")
    commit = write_anchor(repo, loc, conn, recindex.unanchored_oids(conn))
    conn.execute("COMMIT")
    return commit


def _age(git_repo: Path, conn, loc) -> None:
    """As if everything had been recorded a month ago and anchored in the hour 2000-01-01T00."""
    current = recorder_ref(loc, time.time())
    git(git_repo, "update-ref", OLD_REF, current)
    git(git_repo, "update-ref", "-d", current)
    conn.execute("UPDATE versions SET time = time - 30 * 86400, anchored = ?", (OLD_HOUR,))


def _prune(conn, repo, loc, policy: Policy):
    conn.execute("BEGIN")
    done = prune(repo, loc, conn, policy)
    conn.execute("COMMIT")
    return done


def _recorder_refs(git_repo: Path) -> list[str]:
    out = git(git_repo, "for-each-ref", "--format=%(refname)", "refs/interlock/").stdout
    return sorted(out.split())


def _gc_now(git_repo: Path) -> None:
    git(git_repo, "-c", "gc.reflogExpire=now", "gc", "-q", "--prune=now")


def _exists(git_repo: Path, oid: str) -> bool:
    return git(git_repo, "cat-file", "-e", oid, check=False).returncode == 0


# --- versions read back -------------------------------------------------------------------


def test_a_version_lists_as_json_with_its_mode_in_octal():
    kept = Version(b"src/a.py", 12.5, "snapshot", "modified", "ab" * 20, 0o100755, 7, "snap1")
    assert kept.to_json() == {
        "path": "src/a.py",
        "time": 12.5,
        "source": "snapshot",
        "event": "modified",
        "blob": "ab" * 20,
        "mode": "100755",
        "size": 7,
        "snapshot": "snap1",
    }
    gone = Version(b"src/a.py", 13.0, "recorder", "deleted", None, None, None)
    assert gone.to_json()["mode"] is None and gone.to_json()["blob"] is None


def test_recorded_versions_are_read_whole_newest_first(loc, conn, repo):
    assert recorded_versions(loc, b"a.txt") == []
    one = _record(conn, repo, b"a.txt", b"one\n", 10.0)
    _record(conn, repo, b"b.txt", b"other\n", 11.0)
    _record(conn, repo, b"a.txt", None, 12.0)
    assert recorded_versions(loc, b"a.txt") == [
        Version(b"a.txt", 12.0, "recorder", "deleted", None, None, None),
        Version(b"a.txt", 10.0, "recorder", "modified", one, gitmod.FILE_MODE, 4),
    ]


def test_recorded_versions_without_an_index_are_none_and_create_no_index(git_repo):
    loc = discover(git_repo)
    assert recorded_versions(loc, b"README.md") == []
    assert not is_recorded(loc, b"README.md")  # a file, but nothing ever recorded
    assert referenced_hours(loc) == set()
    assert prune_index(loc) is None
    assert not recindex.exists(loc)


# --- anchors ------------------------------------------------------------------------------


def test_anchors_of_one_hour_chain_onto_each_other_and_keep_every_blob(git_repo, loc, conn, repo):
    first_blob = _record(conn, repo, b"a.txt", b"first\n", time.time())
    first = _anchor(conn, repo, loc)
    second_blob = _record(conn, repo, b"a.txt", b"second\n", time.time())
    second = _anchor(conn, repo, loc)
    ref = recorder_ref(loc, time.time())
    assert gitmod.ref_target(repo, ref) == second
    assert git(git_repo, "rev-parse", f"{second}^").stdout.strip() == first
    assert git(git_repo, "ls-tree", "--name-only", second).stdout.split() == [second_blob]
    message = git(git_repo, "log", "-1", "--format=%B", second).stdout
    assert message.startswith("interlock recorder snapshot: 1 blobs\n\n{")
    assert '"kind": "recorder"' in message and '"scope": []' in message
    hour = recindex.hour_of(time.time())
    assert {r[0] for r in conn.execute("SELECT anchored FROM versions")} == {hour}
    _gc_now(git_repo)
    assert _exists(git_repo, first_blob) and _exists(git_repo, second_blob)
    assert git(git_repo, "fsck", "--no-progress").returncode == 0


def test_an_anchor_with_no_blobs_writes_no_commit_and_marks_the_rows_anchored(
    git_repo, loc, conn, repo
):
    _record(conn, repo, b"gone.txt", None, time.time())
    assert _anchor(conn, repo, loc) is None
    assert _recorder_refs(git_repo) == []
    assert referenced_hours(loc) == {recindex.hour_of(time.time())}


# --- the policy ---------------------------------------------------------------------------


def test_the_policy_says_what_it_keeps():
    assert Policy(7.0, 1 << 30).describe() == (
        "keep 7 days, at most 1024 MiB; the newest version of each file is always kept"
    )
    assert Policy(1.5, 3 << 20).describe().startswith("keep 1.5 days, at most 3 MiB;")


def test_the_policy_is_read_from_the_config(git_repo, loc):
    (git_repo / ".interlock.toml").write_text(
        'recorder_keep_days = 2.5\nrecorder_max_bytes = "3 MiB"\n'
    )
    assert Policy.of(loc) == Policy(2.5, 3 << 20)


def _ids(conn) -> dict[tuple[bytes, float], int]:
    return {(bytes(p), t): i for i, p, t in conn.execute("SELECT id, path, time FROM versions")}


def test_versions_older_than_keep_days_go_but_one_at_the_cutoff_stays(conn, repo):
    now = 1000 * DAY
    for when in (now - 3 * DAY - 1, now - 3 * DAY, now - DAY, now):
        _record(conn, repo, b"a", b"%d" % when, when)
    ids = _ids(conn)
    assert _rows_to_drop(conn, Policy(3.0, 1 << 30), now) == [ids[(b"a", now - 3 * DAY - 1)]]


def test_the_size_budget_counts_from_the_newest_and_a_version_that_fills_it_exactly_stays(
    conn, repo
):
    for i, size in enumerate((5, 4, 3, 2)):  # the newest is 2 bytes
        _record(conn, repo, b"a", b"x" * size, float(i))
    ids = _ids(conn)
    assert _rows_to_drop(conn, Policy(365.0, 2 + 3 + 4), 10.0) == [ids[(b"a", 0.0)]]
    assert _rows_to_drop(conn, Policy(365.0, 2 + 3 + 4 - 1), 10.0) == [
        ids[(b"a", 1.0)],
        ids[(b"a", 0.0)],
    ]


def test_the_newest_content_of_each_path_stays_past_any_budget_and_age(conn, repo):
    _record(conn, repo, b"a", b"old a\n", 1.0)
    _record(conn, repo, b"b", b"only b, larger than the budget\n", 2.0)
    _record(conn, repo, b"a", b"new a\n", 3.0)
    ids = _ids(conn)
    assert _rows_to_drop(conn, Policy(1.0, 1), 100 * DAY) == [ids[(b"a", 1.0)]]
    # the newest versions' bytes fill the budget first: an older one no longer fits
    assert _rows_to_drop(conn, Policy(365.0, 6 + 31 + 6), 10.0) == []
    assert _rows_to_drop(conn, Policy(365.0, 6 + 31 + 6 - 1), 10.0) == [ids[(b"a", 1.0)]]


# --- prune --------------------------------------------------------------------------------


def test_prune_of_more_than_a_chunk_of_versions_leaves_the_newest(git_repo, loc, conn, repo):
    for i in range(1203):
        _record(conn, repo, b"notes.txt", b"version %d\n" % i, time.time())
    _anchor(conn, repo, loc)
    _age(git_repo, conn, loc)

    done = _prune(conn, repo, loc, Policy(7.0, 1 << 30))

    assert (done.versions, done.refs, done.kept_bytes) == (1202, 1, len(b"version 1202\n"))
    [newest] = recorded_versions(loc, b"notes.txt")
    assert gitmod.read_blob(repo, newest.oid) == b"version 1202\n"
    hour = recindex.hour_of(time.time())
    assert _recorder_refs(git_repo) == [recorder_ref(loc, time.time())]
    assert referenced_hours(loc) == {hour}
    _gc_now(git_repo)
    assert _exists(git_repo, newest.oid)
    assert git(git_repo, "fsck", "--no-progress").returncode == 0


def test_prune_in_the_hour_that_anchored_the_versions_keeps_the_survivors_alive(
    git_repo, loc, conn, repo
):
    """The open hour's chain keeps growing: its rows stay named by it, its ref stays."""
    kept = [_record(conn, repo, b"a.txt", b"v%d\n" % i, time.time()) for i in range(3)]
    _anchor(conn, repo, loc)
    refs = _recorder_refs(git_repo)

    done = _prune(conn, repo, loc, Policy(7.0, len(b"v2\nv1\n")))

    assert (done.versions, done.refs) == (1, 0)
    assert _recorder_refs(git_repo) == refs
    assert [v.oid for v in recorded_versions(loc, b"a.txt")] == kept[:0:-1]
    _gc_now(git_repo)
    assert _exists(git_repo, kept[2]) and _exists(git_repo, kept[1])


def test_prune_deletes_the_refs_of_hours_no_version_names_but_not_the_open_hour_or_others(
    git_repo, loc, conn, repo
):
    blob = _record(conn, repo, b"a.txt", b"a\n", time.time())
    commit = _anchor(conn, repo, loc)
    current = recorder_ref(loc, time.time())
    prefix = "refs/interlock/main/recorder/"
    for name in ("20000101T00", "legacy", "12345", "20000101T0x"):
        git(git_repo, "update-ref", prefix + name, commit)
    conn.execute("UPDATE versions SET anchored = 0")  # the open hour's ref is named by none

    done = _prune(conn, repo, loc, Policy(7.0, 1 << 30))

    assert (done.versions, done.refs) == (0, 1)
    kept = {prefix + n for n in ("legacy", "12345", "20000101T0x")} | {current}
    assert set(_recorder_refs(git_repo)) == kept
    assert _exists(git_repo, blob)


def test_prune_that_drops_only_unanchored_versions_writes_no_anchor(git_repo, loc, conn, repo):
    old = time.time() - 30 * DAY
    _record(conn, repo, b"a.txt", b"old\n", old)
    _record(conn, repo, b"a.txt", b"new\n", old + 1)

    done = _prune(conn, repo, loc, Policy(7.0, 1 << 30))

    assert (done.versions, done.refs) == (1, 0)
    assert _recorder_refs(git_repo) == []
    assert recindex.unanchored_oids(conn) == {gitmod.hash_blob(b"new\n")}


def test_referenced_hours_are_the_hours_the_index_names(loc, conn, repo):
    for anchored in (0, 2025013114, 2025013115, 2025013114, 1):
        _record(conn, repo, b"a", b"%d" % anchored, 1.0)
        conn.execute("UPDATE versions SET anchored = ? WHERE id = last_insert_rowid()", (anchored,))
    assert {r[0] for r in conn.execute("SELECT anchored FROM versions")} == {
        0,
        1,
        2025013114,
        2025013115,
    }
    assert referenced_hours(loc) == {1, 2025013114, 2025013115}


def test_prune_index_prunes_and_commits_under_the_configured_policy(git_repo, loc, conn, repo):
    (git_repo / ".interlock.toml").write_text("recorder_keep_days = 7\n")
    for text in (b"one\n", b"two\n", b"three\n"):
        _record(conn, repo, b"notes.txt", text, time.time())
    _anchor(conn, repo, loc)
    _age(git_repo, conn, loc)

    done = prune_index(loc)

    assert done is not None and (done.versions, done.refs) == (2, 1)
    assert [v.size for v in recorded_versions(loc, b"notes.txt")] == [6]
    assert _recorder_refs(git_repo) == [recorder_ref(loc, time.time())]


def test_prune_index_that_cannot_delete_a_ref_changes_nothing(git_repo, loc, conn, repo):
    for text in (b"one\n", b"two\n"):
        _record(conn, repo, b"notes.txt", text, time.time())
    _anchor(conn, repo, loc)
    _age(git_repo, conn, loc)
    lock = git_repo / ".git" / (OLD_REF + ".lock")
    lock.write_text("")  # another git holds the ref
    before = recorded_versions(loc, b"notes.txt")

    with pytest.raises(GitError):
        prune_index(loc)

    assert recorded_versions(loc, b"notes.txt") == before
    assert referenced_hours(loc) == {OLD_HOUR}
    lock.unlink()
    assert prune_index(loc).versions == 1


# --- is it recorded? ------------------------------------------------------------------------


def _record_file(conn, repo, git_repo: Path, rel: str) -> None:
    full = git_repo / rel
    st = os.lstat(full)
    if os.path.islink(full):
        oid, mode = gitmod.write_blob(repo, os.readlink(full).encode()), gitmod.LINK_MODE
    else:
        oid = gitmod.write_blob(repo, full.read_bytes())
        mode = gitmod.EXEC_MODE if st.st_mode & 0o111 else gitmod.FILE_MODE
    recindex.insert_versions(conn, [(rel.encode(), 1.0, "modified", oid, mode, st.st_size)])


def test_a_path_is_recorded_when_its_newest_version_holds_its_bytes_and_mode(
    git_repo, loc, conn, repo
):
    assert not is_recorded(loc, b"a.txt")  # nothing there
    (git_repo / "a.txt").write_text("a\n")
    assert not is_recorded(loc, b"a.txt")  # never recorded
    _record_file(conn, repo, git_repo, "a.txt")
    assert is_recorded(loc, b"a.txt")
    (git_repo / "a.txt").write_text("b\n")
    assert not is_recorded(loc, b"a.txt")  # other bytes
    (git_repo / "a.txt").write_text("a\n")
    os.chmod(git_repo / "a.txt", 0o755)
    assert not is_recorded(loc, b"a.txt")  # another mode
    _record_file(conn, repo, git_repo, "a.txt")
    assert is_recorded(loc, b"a.txt")
    (git_repo / "a.txt").unlink()
    assert not is_recorded(loc, b"a.txt")  # gone: nothing there to keep
    (git_repo / "a.txt").write_text("a\n")
    os.chmod(git_repo / "a.txt", 0o755)
    recindex.insert_versions(conn, [(b"a.txt", 2.0, "deleted", None, None, None)])
    assert not is_recorded(loc, b"a.txt")  # the newest version is a deletion


@pytest.mark.parametrize("perm", [0o644, 0o646, 0o664, 0o744, 0o654, 0o645])
def test_any_execute_bit_and_no_other_makes_a_file_executable(git_repo, loc, conn, repo, perm):
    (git_repo / "a.sh").write_text("echo\n")
    os.chmod(git_repo / "a.sh", perm)
    _record_file(conn, repo, git_repo, "a.sh")
    assert is_recorded(loc, b"a.sh")


def test_a_symlink_is_recorded_as_its_target_and_a_directory_never(git_repo, loc, conn, repo):
    os.symlink("src/app.py", git_repo / "link")
    _record_file(conn, repo, git_repo, "link")
    assert is_recorded(loc, b"link")
    os.unlink(git_repo / "link")
    os.symlink("README.md", git_repo / "link")
    assert not is_recorded(loc, b"link")
    oid = gitmod.write_blob(repo, b"")
    recindex.insert_versions(conn, [(b"src", 1.0, "modified", oid, gitmod.FILE_MODE, 0)])
    assert not is_recorded(loc, b"src")


def test_a_path_whose_blob_left_the_object_store_is_not_recorded(git_repo, loc, conn):
    (git_repo / "a.txt").write_text("never stored\n")
    oid = gitmod.hash_blob(b"never stored\n")
    recindex.insert_versions(conn, [(b"a.txt", 1.0, "modified", oid, gitmod.FILE_MODE, 13)])
    assert not is_recorded(loc, b"a.txt")
