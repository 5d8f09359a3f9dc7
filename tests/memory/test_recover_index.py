"""The recorder index's lookups for `interlock recover` of folders and `--since`: through the
path and time indexes, with the same rows as reading the whole table."""

from __future__ import annotations

import random
import time

import pytest

from interlock.git import discover
from interlock.memory import recindex


@pytest.fixture
def conn(git_repo):
    loc = discover(git_repo)
    connection, _ = recindex.open_db(loc)
    yield connection
    connection.close()


def _insert(conn, rows: list[tuple[bytes, float]]) -> None:
    conn.executemany(
        "INSERT INTO versions(path, time, event, oid, mode, size) "
        "VALUES (?, ?, 'modified', ?, 33188, 1)",
        [(path, when, f"{i:040x}") for i, (path, when) in enumerate(rows)],
    )
    conn.commit()


def test_a_folder_holds_its_own_paths_and_not_its_siblings_with_the_same_start(conn):
    now = time.time()
    names = [b"d", b"d/a", b"d/e/b", b"d.txt", b"d-x/c", b"dd/a", b"e/d/a", b"d0"]
    _insert(conn, [(name, now) for name in names])
    found = {row[0] for row in recindex.versions_under(conn, [b"d"])}
    assert found == {b"d", b"d/a", b"d/e/b"}
    assert recindex.has_under(conn, b"d") and recindex.has_under(conn, b"d/e")
    assert not recindex.has_under(conn, b"d/a") and not recindex.has_under(conn, b"e/d/a")


def test_overlapping_folders_give_each_version_once_newest_first(conn):
    now = time.time()
    _insert(conn, [(b"d/e/a", now - 5), (b"d/e/a", now - 1), (b"d/b", now)])
    rows = recindex.versions_under(conn, [b"d", b"d/e"])
    assert [(r[0], r[1]) for r in rows] == [(b"d/b", now), (b"d/e/a", now - 1), (b"d/e/a", now - 5)]


def test_indexed_lookups_match_reading_the_whole_table(conn):
    rng = random.Random(7)
    now = time.time()
    folders = [b"", b"src", b"src/m1", b"docs", b"src.bak"]
    rows = []
    for _ in range(3000):
        folder = rng.choice(folders)
        name = b"f%d.py" % rng.randrange(200)
        rows.append(((folder + b"/" if folder else b"") + name, now - rng.uniform(0, 7200)))
    _insert(conn, rows)

    def under(path: bytes, prefixes: list[bytes]) -> bool:
        return any(not p or path == p or path.startswith(p + b"/") for p in prefixes)

    for prefixes in ([b""], [b"src"], [b"src/m1", b"docs"], [b"src/m1/f1.py"], [b"nothing"]):
        for since in (None, now - 600, now - 3600, now + 1):
            everything = recindex.versions_of(conn, None, since)
            expected = [row for row in everything if under(row[0], prefixes)]
            got = recindex.versions_under(conn, prefixes, since)
            assert sorted(got) == sorted(expected), (prefixes, since)
            for path in {row[0] for row in got}:  # each path's versions in the same order
                assert [r for r in got if r[0] == path] == [r for r in expected if r[0] == path]


@pytest.mark.parametrize("prefixes, since", [([b"src"], None), ([b""], 0.0), ([b"src"], 0.0)])
def test_folder_and_since_lookups_never_scan_the_whole_table(conn, prefixes, since):
    _insert(conn, [(b"src/a", time.time()), (b"b", time.time())])
    queries: list[str] = []
    conn.set_trace_callback(queries.append)
    try:
        recindex.versions_under(conn, prefixes, since)
        assert recindex.has_under(conn, b"src") is True
    finally:
        conn.set_trace_callback(None)
    assert queries
    for query in queries:
        plan = " ".join(str(row[3]) for row in conn.execute(f"EXPLAIN QUERY PLAN {query}"))
        assert "SCAN" not in plan, (query, plan)
