"""The recorder index itself (interlock/memory/recindex.py), in a real repository's state dir:
the schema's one-time upgrade, the stat that proves a file unchanged, the reads the recorder
starts from, and the sessions `recover` uses to say when nothing was recording."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from interlock.git import discover
from interlock.memory import recindex


@pytest.fixture
def loc(git_repo: Path):
    found = discover(git_repo)
    assert found is not None
    return found


@pytest.fixture
def conn(loc):
    connection, warning = recindex.open_db(loc)
    assert warning is None
    yield connection
    connection.close()


def _anchors(conn) -> list[tuple[bytes, int]]:
    rows = conn.execute("SELECT path, anchored FROM versions ORDER BY id")
    return [(bytes(path), anchored) for path, anchored in rows]


def _add(conn, path: bytes, when: float, oid: str | None, anchored: int = 0, **kw) -> None:
    event = kw.get("event", "modified" if oid else "deleted")
    conn.execute(
        "INSERT INTO versions(path, time, event, oid, mode, size, anchored) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        (path, when, event, oid, kw.get("mode", 0o100644), kw.get("size", 3), anchored),
    )


# --- the schema ---------------------------------------------------------------------------


def test_an_index_of_schema_1_has_its_rows_anchored_again_once(loc):
    """Schema 1 marked an anchored row with 1, not with its hour: opening it upgrades it once,
    so the next anchor names the hour whose chain holds the blob; rows that name an hour, and
    every row of an index already upgraded, are left as they are."""
    conn, _ = recindex.open_db(loc)
    _add(conn, b"old.txt", 1.0, "a" * 40, anchored=1)
    _add(conn, b"hour.txt", 2.0, "b" * 40, anchored=2025013114)
    conn.execute("PRAGMA user_version=1")
    conn.close()

    conn, _ = recindex.open_db(loc)
    assert _anchors(conn) == [(b"old.txt", 0), (b"hour.txt", 2025013114)]
    assert recindex.unanchored_oids(conn) == {"a" * 40}
    assert conn.execute("PRAGMA user_version").fetchone() == (2,)
    conn.execute("UPDATE versions SET anchored = 1 WHERE path = ?", (b"old.txt",))
    conn.execute("PRAGMA user_version=2")  # as this version writes it
    conn.close()

    conn, _ = recindex.open_db(loc)  # schema 2 is upgraded: opening it changes no row
    assert _anchors(conn) == [(b"old.txt", 1), (b"hour.txt", 2025013114)]
    conn.close()


def test_exists_says_whether_anything_ever_opened_the_index(loc):
    assert not recindex.exists(loc)
    loc.state_dir.mkdir()
    conn, _ = recindex.open_db(loc)
    conn.close()
    assert recindex.exists(loc)


def test_hours_are_stamped_in_utc():
    assert recindex.hour_of(0) == 1970010100
    assert recindex.hour_of(86400 * 365 + 3600 * 5 + 59) == 1971010105


# --- the stat that proves a file unchanged -----------------------------------------------


def test_a_stat_read_more_than_the_racy_window_after_the_write_proves_the_file_unchanged(
    git_repo,
):
    path = git_repo / "f.txt"
    path.write_text("x\n")
    st = os.lstat(path)
    written = max(st.st_mtime_ns, st.st_ctime_ns)
    assert recindex.Stat.of(st, written + recindex.RACY_NS + 1).matches(st)
    # read within the same clock tick as the write: another write may follow unseen
    assert not recindex.Stat.of(st, written + recindex.RACY_NS).matches(st)
    assert not recindex.Stat.of(st, written).matches(st)


def test_the_racy_window_is_a_tenth_of_a_second(git_repo):
    path = git_repo / "f.txt"
    path.write_text("x\n")
    st = os.lstat(path)
    written = max(st.st_mtime_ns, st.st_ctime_ns)
    assert recindex.Stat.of(st, written + 100_000_001).matches(st)
    assert not recindex.Stat.of(st, written + 100_000_000).matches(st)


def test_a_recent_inode_change_keeps_an_old_mtime_from_proving_anything(git_repo):
    """`touch -d 2001-01-01` after a write: the mtime is old, but the ctime says the file
    changed a moment ago, so the stat proves nothing until the window has passed."""
    path = git_repo / "f.txt"
    path.write_text("x\n")
    os.utime(path, ns=(10**9, 10**9))
    st = os.lstat(path)
    assert st.st_ctime_ns > st.st_mtime_ns + recindex.RACY_NS
    assert not recindex.Stat.of(st, st.st_ctime_ns + 10).matches(st)
    assert recindex.Stat.of(st, st.st_ctime_ns + recindex.RACY_NS + 1).matches(st)


@pytest.mark.parametrize("change", ["content", "size", "inode", "mtime"])
def test_any_moved_stat_field_means_the_file_must_be_read_again(git_repo, change):
    path = git_repo / "f.txt"
    path.write_text("x\n")
    os.utime(path, ns=(10**9, 10**9))
    before = os.lstat(path)
    seen = recindex.Stat.of(before, time.time_ns() + 10 * recindex.RACY_NS)
    assert seen.matches(before)
    if change == "content":
        path.write_text("y\n")
        os.utime(path, ns=(10**9, 10**9))  # same size and mtime: the ctime moved
    elif change == "size":
        path.write_text("longer\n")
    elif change == "inode":
        (git_repo / "g.txt").write_text("x\n")
        os.replace(git_repo / "g.txt", path)
        os.utime(path, ns=(10**9, 10**9))
    else:
        os.utime(path, ns=(2 * 10**9, 2 * 10**9))
    assert not seen.matches(os.lstat(path))


# --- what the recorder starts from ------------------------------------------------------


def test_the_newest_version_of_each_path_is_what_the_recorder_starts_from(conn):
    _add(conn, b"a", 1.0, "1" * 40, mode=0o100644)
    _add(conn, b"b", 2.0, "2" * 40, mode=0o100755)
    _add(conn, b"a", 3.0, "3" * 40, mode=0o100755)
    _add(conn, b"b", 4.0, None, mode=None)
    assert recindex.newest_by_path(conn) == {b"a": ("3" * 40, 0o100755), b"b": (None, None)}


def test_seen_stats_are_kept_per_path_and_forgotten_when_the_file_is_gone(conn):
    one, two = recindex.Stat(1, 2, 3, 4, 5), recindex.Stat(6, 7, 8, 9, 10)
    recindex.put_seen(conn, [(b"a", one), (b"b", two)])
    assert recindex.seen_stats(conn) == {b"a": one, b"b": two}
    newer = recindex.Stat(11, 12, 13, 14, 15)
    recindex.put_seen(conn, [(b"a", None), (b"b", newer)])
    assert recindex.seen_stats(conn) == {b"b": newer}


def test_unanchored_oids_are_the_blobs_of_rows_no_commit_keeps_yet(conn):
    _add(conn, b"a", 1.0, "1" * 40)
    _add(conn, b"b", 1.0, "1" * 40)
    _add(conn, b"c", 1.0, "2" * 40, anchored=2025013114)
    _add(conn, b"d", 1.0, None)
    _add(conn, b"e", 1.0, "3" * 40)
    assert recindex.unanchored_oids(conn) == {"1" * 40, "3" * 40}


def test_inserted_versions_read_back_whole_newest_first(conn):
    recindex.insert_versions(
        conn,
        [
            (b"a", 1.5, "created", "1" * 40, 0o100644, 7),
            (b"a", 2.5, "modified", "2" * 40, 0o100755, 9),
            (b"a", 3.5, "deleted", None, None, None),
        ],
    )
    assert recindex.versions_of(conn, [b"a"]) == [
        (b"a", 3.5, "deleted", None, None, None),
        (b"a", 2.5, "modified", "2" * 40, 0o100755, 9),
        (b"a", 1.5, "created", "1" * 40, 0o100644, 7),
    ]
    assert recindex.versions_of(conn, None) == recindex.versions_of(conn, [b"a"])


def test_versions_of_many_paths_gives_every_version_once(conn):
    paths = [b"f%04d" % i for i in range(1203)]
    recindex.insert_versions(conn, [(p, 1.0, "created", "1" * 40, 0o100644, 1) for p in paths])
    found = recindex.versions_of(conn, paths)
    assert sorted(row[0] for row in found) == paths
    assert [row[0] for row in recindex.versions_of(conn, paths[499:502])] == [
        b"f0501",
        b"f0500",
        b"f0499",
    ]


def test_since_keeps_every_version_of_the_paths_whose_newest_is_that_recent(conn):
    _add(conn, b"recent", 10.0, "1" * 40)
    _add(conn, b"recent", 50.0, "2" * 40)
    _add(conn, b"old", 10.0, "3" * 40)
    _add(conn, b"old", 20.0, "4" * 40)
    _add(conn, b"edge", 40.0, "5" * 40)
    for paths in ([b"recent", b"old", b"edge"], None):
        found = recindex.versions_of(conn, paths, since=40.0)
        assert sorted((row[0], row[1]) for row in found) == [
            (b"edge", 40.0),
            (b"recent", 10.0),
            (b"recent", 50.0),
        ]
    assert recindex.versions_of(conn, [b"old"], since=20.5) == []


# --- sessions -----------------------------------------------------------------------------


def _sessions(conn) -> list[tuple[float, float, float | None]]:
    return list(conn.execute("SELECT started, alive, ended FROM sessions ORDER BY id"))


def test_a_session_records_its_start_its_signs_of_life_and_its_end(conn):
    session = recindex.begin_session(conn, 100.0)
    assert _sessions(conn) == [(100.0, 100.0, None)]
    recindex.touch_session(conn, session, 110.0)
    assert _sessions(conn) == [(100.0, 110.0, None)]
    recindex.touch_session(conn, session, 115.0, ended=True)
    assert _sessions(conn) == [(100.0, 115.0, 115.0)]
    assert recindex.sessions_between(conn, 0.0, 1000.0) == [(100.0, 115.0)]


def test_a_session_left_open_by_a_killed_recorder_ended_at_its_last_sign_of_life(conn):
    killed = recindex.begin_session(conn, 100.0)
    recindex.touch_session(conn, killed, 130.0)
    second = recindex.begin_session(conn, 200.0)
    assert second != killed
    recindex.touch_session(conn, second, 210.0)
    assert _sessions(conn) == [(100.0, 130.0, 130.0), (200.0, 210.0, None)]


def test_sessions_between_are_those_overlapping_the_stretch(conn):
    for start, end in ((10.0, 20.0), (30.0, 40.0), (50.0, 60.0)):
        session = recindex.begin_session(conn, start)
        recindex.touch_session(conn, session, end, ended=True)
    assert recindex.sessions_between(conn, 20.0, 50.0) == [
        (10.0, 20.0),
        (30.0, 40.0),
        (50.0, 60.0),
    ]
    assert recindex.sessions_between(conn, 21.0, 49.0) == [(30.0, 40.0)]
    assert recindex.sessions_between(conn, 61.0, 70.0) == []


def test_the_whole_tree_among_other_folders_gives_every_path(conn):
    """`recover . src`: the root covers everything, including paths that sort after "0"."""
    recindex.insert_versions(
        conn, [(p, 1.0, "created", "1" * 40, 0o100644, 1) for p in (b"src/a", b"docs/b", b"0")]
    )
    found = {row[0] for row in recindex.versions_under(conn, [b"src", b""])}
    assert found == {b"src/a", b"docs/b", b"0"}
