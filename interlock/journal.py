"""The journal: an append-only SQLite log of what interlock saw and decided, per worktree.

One table, `events`: time, run id, kind (`check`, `snapshot`, `restore`, `hook`, `approve`,
`push-attempt`, ...) and a JSON payload. Entries are never rewritten. A corrupt journal is
moved aside (kept, never deleted) and a new one started, with a warning.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from interlock import constants, sqlitedb
from interlock.git import RepoLocation
from interlock.state import repo_state_dir

_SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    time REAL NOT NULL,
    run TEXT,
    kind TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_kind ON events(kind, time);
CREATE INDEX IF NOT EXISTS events_run ON events(run, time);
"""


@dataclass(frozen=True)
class Event:
    """One journal entry."""

    id: int
    time: float
    run: str | None
    kind: str
    data: Mapping[str, Any]


def journal_path(loc: RepoLocation) -> Path:
    return repo_state_dir(loc) / constants.JOURNAL_FILE


def open_journal(loc: RepoLocation) -> tuple[sqlite3.Connection, str | None]:
    """Open (creating) the journal; a corrupt file is moved aside. Returns (conn, warning)."""
    return sqlitedb.open_db(journal_path(loc), _SCHEMA, 1, "journal")


def record(loc: RepoLocation, kind: str, data: Mapping[str, Any], run: str | None = None) -> int:
    """Append one event; returns its id."""
    conn, _ = open_journal(loc)
    try:
        cursor = conn.execute(
            "INSERT INTO events(time, run, kind, data) VALUES (?, ?, ?, ?)",
            (time.time(), run or os.environ.get(constants.ENV_RUN), kind, json.dumps(data)),
        )
        return int(cursor.lastrowid or 0)
    finally:
        conn.close()


def events(
    loc: RepoLocation,
    kind: str | None = None,
    run: str | None = None,
    since: float | None = None,
    limit: int | None = None,
    newest_first: bool = False,
) -> Iterator[Event]:
    """Events matching the filters, oldest first unless newest_first."""
    conn, _ = open_journal(loc)
    try:
        clauses: list[str] = []
        params: list[object] = []
        if kind is not None:
            clauses.append("kind = ?")
            params.append(kind)
        if run is not None:
            clauses.append("run = ?")
            params.append(run)
        if since is not None:
            clauses.append("time >= ?")
            params.append(since)
        sql = "SELECT id, time, run, kind, data FROM events"
        if clauses:
            sql += " WHERE " + " AND ".join(clauses)
        sql += " ORDER BY id " + ("DESC" if newest_first else "ASC")
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        rows = conn.execute(sql, params).fetchall()
    finally:
        conn.close()
    for row in rows:
        yield Event(row[0], row[1], row[2], row[3], json.loads(row[4]))
