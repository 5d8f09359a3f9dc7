"""The flight recorder's index, `<git-dir>/interlock/recorder.db` (SQLite): read by `recover`
and `daemon status` without a daemon, written by the recorder.

Tables:
- versions: one row per recorded version - path (bytes), time, event (`baseline`, `created`,
  `modified`, `deleted`), blob id, mode, size, and `anchored`: 0 while no recorder commit keeps
  the blob alive yet, else the hour (`YYYYmmddHH` as an integer) of the recorder ref whose
  chain holds it (see interlock/memory/recorder.py);
- seen: per path, the file's stat (mtime, ctime, size, inode) when its content was last read,
  and when: a rescan re-reads only the paths whose stat moved since (its "last known point");
- sessions: when a recorder ran (start, last sign of life, end), so `recover` can say when
  nothing was recording.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from interlock import constants, sqlitedb
from interlock.git import RepoLocation
from interlock.state import repo_state_dir

SCHEMA_VERSION = 2
_SCHEMA = """
CREATE TABLE IF NOT EXISTS versions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    path BLOB NOT NULL,
    time REAL NOT NULL,
    event TEXT NOT NULL,
    oid TEXT,
    mode INTEGER,
    size INTEGER,
    anchored INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS versions_path ON versions(path, id);
CREATE INDEX IF NOT EXISTS versions_unanchored ON versions(anchored) WHERE anchored = 0;
CREATE INDEX IF NOT EXISTS versions_time ON versions(time);
CREATE TABLE IF NOT EXISTS seen (
    path BLOB PRIMARY KEY,
    mtime_ns INTEGER NOT NULL,
    ctime_ns INTEGER NOT NULL,
    size INTEGER NOT NULL,
    ino INTEGER NOT NULL,
    checked_ns INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS sessions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    pid INTEGER NOT NULL,
    started REAL NOT NULL,
    alive REAL NOT NULL,
    ended REAL
);
-- Rows anchored before anchors named their hour (schema 1 wrote 1): anchor them again.
UPDATE versions SET anchored = 0 WHERE anchored = 1;
"""
# A file whose mtime is this close to the moment it was read may have been written again in
# the same clock tick: its stat alone cannot prove it unchanged (git's "racy" entries).
RACY_NS = 100_000_000


@dataclass(frozen=True)
class Stat:
    """What a rescan compares: the file's stat when its content was read, and when."""

    mtime_ns: int
    ctime_ns: int
    size: int
    ino: int
    checked_ns: int

    @classmethod
    def of(cls, st: os.stat_result, checked_ns: int) -> Stat:
        return cls(st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino, checked_ns)

    def matches(self, st: os.stat_result) -> bool:
        """True when st proves the file unchanged since it was read."""
        same = (self.mtime_ns, self.ctime_ns, self.size, self.ino) == (
            st.st_mtime_ns,
            st.st_ctime_ns,
            st.st_size,
            st.st_ino,
        )
        return same and self.checked_ns - max(self.mtime_ns, self.ctime_ns) > RACY_NS


def open_db(loc: RepoLocation) -> tuple[sqlite3.Connection, str | None]:
    """Open (creating) the index; a corrupt file is moved aside, never deleted."""
    return sqlitedb.open_db(
        repo_state_dir(loc) / constants.RECORDER_FILE, _SCHEMA, SCHEMA_VERSION, "recorder index"
    )


def exists(loc: RepoLocation) -> bool:
    return (loc.state_dir / constants.RECORDER_FILE).exists()


def hour_of(when: float) -> int:
    """The hour stamp of a recorder ref, as stored in `versions.anchored`."""
    return int(time.strftime("%Y%m%d%H", time.gmtime(when)))


# --- reads ---


def newest_by_path(conn: sqlite3.Connection) -> dict[bytes, tuple[str | None, int | None]]:
    rows = conn.execute(
        "SELECT path, oid, mode FROM versions WHERE id IN "
        "(SELECT MAX(id) FROM versions GROUP BY path)"
    ).fetchall()
    return {bytes(r[0]): (r[1], r[2]) for r in rows}


def seen_stats(conn: sqlite3.Connection) -> dict[bytes, Stat]:
    rows = conn.execute("SELECT path, mtime_ns, ctime_ns, size, ino, checked_ns FROM seen")
    return {bytes(r[0]): Stat(*r[1:]) for r in rows}


def unanchored_oids(conn: sqlite3.Connection) -> set[str]:
    rows = conn.execute("SELECT DISTINCT oid FROM versions WHERE anchored = 0 AND oid IS NOT NULL")
    return {r[0] for r in rows}


def versions_of(
    conn: sqlite3.Connection, paths: list[bytes] | None, since: float | None = None
) -> list[tuple[bytes, float, str, str | None, int | None, int | None]]:
    """(path, time, event, oid, mode, size) of every version of `paths` (None: every path),
    newest first per path; with `since`, only paths whose newest version is that recent."""
    columns = "SELECT path, time, event, oid, mode, size FROM versions"
    if paths is None:
        recent = "path IN (SELECT path FROM versions GROUP BY path HAVING MAX(time) >= ?)"
        query = columns + (f" WHERE {recent}" if since is not None else "")
        rows = conn.execute(query + " ORDER BY id DESC", () if since is None else (since,))
        return [_row(r) for r in rows]
    found = []
    for start in range(0, len(paths), 500):
        chunk = paths[start : start + 500]
        marks = ",".join("?" * len(chunk))
        query = f"{columns} WHERE path IN ({marks}) ORDER BY id DESC"
        found += [_row(r) for r in conn.execute(query, chunk)]
    if since is not None:
        newest: dict[bytes, float] = {}
        for row in found:
            newest[row[0]] = max(newest.get(row[0], row[1]), row[1])
        found = [row for row in found if newest[row[0]] >= since]
    return found


Row = tuple[bytes, float, str, str | None, int | None, int | None]


def _is_under(path: bytes, prefixes: list[bytes]) -> bool:
    return any(not p or path == p or path.startswith(p + b"/") for p in prefixes)


def versions_under(
    conn: sqlite3.Connection, prefixes: list[bytes], since: float | None = None
) -> list[Row]:
    """versions_of() for every path under the prefixes (b"": every path), read through the
    indexes: with `since`, the paths recorded since then (the time index), else each prefix's
    range of paths. The index may hold hundreds of thousands of rows; reading them all to
    keep a few costs seconds."""
    if since is not None:
        # Not DISTINCT: SQLite would then scan the path index, the whole table, to group.
        recent = conn.execute("SELECT path FROM versions WHERE time >= ? ORDER BY time", (since,))
        paths = dict.fromkeys(bytes(r[0]) for r in recent)
        return versions_of(conn, [p for p in paths if _is_under(p, prefixes)])
    if any(not p for p in prefixes):
        return versions_of(conn, None)
    found: dict[int, Row] = {}
    for prefix in prefixes:
        # "d" <= every path under d < "d0" ("0" follows "/"); "d.txt" is in the range too.
        rows = conn.execute(
            "SELECT id, path, time, event, oid, mode, size FROM versions "
            "WHERE path >= ? AND path < ?",
            (prefix, prefix + b"0"),
        )
        for row in rows:
            if _is_under(bytes(row[1]), [prefix]):
                found[row[0]] = _row(row[1:])
    return [found[key] for key in sorted(found, reverse=True)]


def has_under(conn: sqlite3.Connection, prefix: bytes) -> bool:
    """True when some path under the folder `prefix` was recorded."""
    row = conn.execute(
        "SELECT 1 FROM versions WHERE path > ? AND path < ? LIMIT 1",
        (prefix + b"/", prefix + b"0"),
    ).fetchone()
    return row is not None


def _row(row: tuple[Any, ...]) -> tuple[bytes, float, str, str | None, int | None, int | None]:
    return bytes(row[0]), float(row[1]), str(row[2]), row[3], row[4], row[5]


def sessions_between(
    conn: sqlite3.Connection, start: float, end: float
) -> list[tuple[float, float]]:
    """(started, last alive or ended) of the recorder sessions overlapping [start, end]."""
    rows = conn.execute(
        "SELECT started, COALESCE(ended, alive) FROM sessions WHERE started <= ? "
        "AND COALESCE(ended, alive) >= ? ORDER BY started",
        (end, start),
    ).fetchall()
    return [(float(a), float(b)) for a, b in rows]


# --- writes (the recorder thread, or a prune) ---


def insert_versions(conn: sqlite3.Connection, rows: Iterable[tuple[Any, ...]]) -> None:
    """rows: (path, time, event, oid, mode, size)."""
    conn.executemany(
        "INSERT INTO versions(path, time, event, oid, mode, size) VALUES (?, ?, ?, ?, ?, ?)",
        rows,
    )


def put_seen(conn: sqlite3.Connection, items: Iterable[tuple[bytes, Stat | None]]) -> None:
    gone, known = [], []
    for path, stat in items:
        if stat is None:
            gone.append((path,))
        else:
            known.append((path, stat.mtime_ns, stat.ctime_ns, stat.size, stat.ino, stat.checked_ns))
    conn.executemany("DELETE FROM seen WHERE path = ?", gone)
    conn.executemany(
        "INSERT OR REPLACE INTO seen(path, mtime_ns, ctime_ns, size, ino, checked_ns) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        known,
    )


def begin_session(conn: sqlite3.Connection, now: float) -> int:
    # A session left open by a killed recorder ended at its last sign of life.
    conn.execute("UPDATE sessions SET ended = alive WHERE ended IS NULL")
    cur = conn.execute(
        "INSERT INTO sessions(pid, started, alive) VALUES (?, ?, ?)", (os.getpid(), now, now)
    )
    session = cur.lastrowid
    assert session is not None  # an INSERT sets it
    return session


def touch_session(conn: sqlite3.Connection, session: int, now: float, ended: bool = False) -> None:
    column = "alive = ?, ended = ?" if ended else "alive = ?, ended = NULL"
    values: tuple[Any, ...] = (now, now, session) if ended else (now, session)
    conn.execute(f"UPDATE sessions SET {column} WHERE id = ?", values)
