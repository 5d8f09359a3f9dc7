"""The journal: an append-only SQLite log of what interlock saw and decided, per worktree.

Tables (rows are appended, never rewritten; `interlock.run.records` reads and writes the run
tables):
- `events`: time, run id, kind (`check`, `snapshot`, `restore`, `hook`, `message`,
  `reconcile`, ...) and a JSON payload;
- `runs`: one row per run (id, start, end, who started it, baseline snapshot, the config
  resolved at the baseline);
- `attempts`: one row per command a run tried, written before it runs (command, cwd, time,
  verdict, findings, the wrapper's pid), with the outer attempt for a nested wrapper;
- `completions`: at most one row per attempt, written after it ends (exit status, duration,
  outcome, green or why not). An attempt without one is still running, or unresolved: the
  wrapper died.

SQLite in WAL mode, so many wrappers and the daemon write at once. A journal that is not a
database, or whose pages are corrupt (`PRAGMA quick_check` when `verify` is asked, or any
statement failing with "malformed"), is moved aside (kept, never deleted) and a new one
started; the process that moved it says so, once. The journal is bounded: rows older than
JOURNAL_KEEP_DAYS, and the oldest beyond JOURNAL_MAX_BYTES, are pruned (`prune()`), except
side-effect attempts still unresolved.
"""

from __future__ import annotations

import contextlib
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

VERSION = 3
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
CREATE TABLE IF NOT EXISTS runs (
    id TEXT PRIMARY KEY,
    started REAL NOT NULL,
    ended REAL,
    end_reason TEXT,
    origin TEXT NOT NULL,
    agent TEXT,
    pinned INTEGER NOT NULL DEFAULT 0,
    baseline TEXT,
    head TEXT,
    config TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_agent ON runs(agent);
CREATE TABLE IF NOT EXISTS attempts (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    run TEXT NOT NULL,
    parent INTEGER,
    time REAL NOT NULL,
    command TEXT NOT NULL,
    cwd TEXT NOT NULL,
    pid INTEGER,
    pid_start INTEGER,
    verdict TEXT NOT NULL,
    would_block INTEGER NOT NULL,
    effect TEXT,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS attempts_run ON attempts(run, id);
CREATE INDEX IF NOT EXISTS attempts_effect ON attempts(effect);
CREATE INDEX IF NOT EXISTS attempts_wrapper ON attempts(pid, pid_start);
CREATE TABLE IF NOT EXISTS completions (
    attempt INTEGER PRIMARY KEY,
    run TEXT NOT NULL,
    time REAL NOT NULL,
    status TEXT NOT NULL,
    exit INTEGER,
    signal INTEGER,
    duration REAL,
    green TEXT,
    data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS completions_run ON completions(run, attempt);
"""
# Messages of SQLite errors that mean the file itself is damaged (not busy or locked).
_CORRUPT = ("malformed", "not a database", "disk image", "file is encrypted", "corrupt")


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


def is_corruption(exc: BaseException) -> bool:
    """An SQLite error that says the file is damaged, as opposed to busy or misused."""
    text = str(exc).lower()
    return isinstance(exc, sqlite3.DatabaseError) and any(word in text for word in _CORRUPT)


class Journal:
    """An open journal. One thread at a time (the daemon shares one under its own lock).

    `warning` is set once this process moved a damaged journal aside; show it to the user.
    """

    def __init__(self, loc: RepoLocation, *, verify: bool = False, shared: bool = False) -> None:
        self.path = journal_path(loc)
        self.warning: str | None = None
        self._shared = shared  # may pass between threads, one at a time (the daemon's pool)
        self._conn = self._open(verify)
        self._file = self._identity()

    def _identity(self) -> tuple[int, int] | None:
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return st.st_dev, st.st_ino

    def reusable(self) -> bool:
        """Fit to serve another request: no transaction left open, no warning still to show,
        and still the file at the journal's path (not one set aside since)."""
        return (
            not self._conn.in_transaction
            and self.warning is None
            and self._file is not None
            and self._identity() == self._file
        )

    def _open(self, verify: bool) -> sqlite3.Connection:
        conn, warning = sqlitedb.open_db(
            self.path, _SCHEMA, VERSION, "journal", shared=self._shared
        )
        if warning:
            self.warning = warning
        if verify:
            try:
                result = conn.execute("PRAGMA quick_check").fetchone()
            except sqlite3.DatabaseError as exc:
                result = (str(exc),)
            if result is None or result[0] != "ok":
                conn.close()
                return self._set_aside(f"quick_check: {result[0] if result else 'no answer'}")
        return conn

    def _set_aside(self, why: str) -> sqlite3.Connection:
        aside = self.path.with_name(f"{self.path.name}.corrupt-{int(time.time())}")
        os.replace(self.path, aside)
        for suffix in ("-wal", "-shm"):  # the old write-ahead log belongs to the damaged file
            with contextlib.suppress(FileNotFoundError):
                os.replace(f"{self.path}{suffix}", f"{aside}{suffix}")
        self.warning = (
            f"the journal {self.path} was damaged ({why}); kept it as {aside.name} and "
            "started a new one (earlier runs, attempts and greens are in the kept file)"
        )
        conn, _ = sqlitedb.open_db(self.path, _SCHEMA, VERSION, "journal", shared=self._shared)
        self._file = self._identity()
        return conn

    def execute(self, sql: str, params: tuple[Any, ...] | list[Any] = ()) -> sqlite3.Cursor:
        """Run one statement; a damaged file is set aside and the statement retried once."""
        try:
            return self._conn.execute(sql, params)
        except sqlite3.DatabaseError as exc:
            if not is_corruption(exc):
                raise
            self._conn.close()
            self._conn = self._set_aside(str(exc))
            return self._conn.execute(sql, params)

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """BEGIN IMMEDIATE ... COMMIT: statements inside see and write one consistent state."""
        self.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        self._conn.execute("COMMIT")

    def close(self) -> None:
        self._conn.close()


@contextlib.contextmanager
def opened(loc: RepoLocation, *, verify: bool = False) -> Iterator[Journal]:
    """A journal for the duration of a with-block."""
    journal = Journal(loc, verify=verify)
    try:
        yield journal
    finally:
        journal.close()


def append_event(
    journal: Journal, kind: str, data: Mapping[str, Any], run: str | None = None
) -> int:
    cursor = journal.execute(
        "INSERT INTO events(time, run, kind, data) VALUES (?, ?, ?, ?)",
        (time.time(), run, kind, json.dumps(data)),
    )
    return int(cursor.lastrowid or 0)


def record(loc: RepoLocation, kind: str, data: Mapping[str, Any], run: str | None = None) -> int:
    """Append one event; returns its id."""
    with opened(loc) as journal:
        return append_event(journal, kind, data, run or os.environ.get(constants.ENV_RUN))


def events(
    loc: RepoLocation,
    kind: str | None = None,
    run: str | None = None,
    since: float | None = None,
    limit: int | None = None,
    newest_first: bool = False,
) -> Iterator[Event]:
    """Events matching the filters, oldest first unless newest_first."""
    clauses: list[str] = []
    params: list[object] = []
    for column, value in (("kind = ?", kind), ("run = ?", run), ("time >= ?", since)):
        if value is not None:
            clauses.append(column)
            params.append(value)
    sql = "SELECT id, time, run, kind, data FROM events"
    if clauses:
        sql += " WHERE " + " AND ".join(clauses)
    sql += " ORDER BY id " + ("DESC" if newest_first else "ASC")
    if limit is not None:
        sql += f" LIMIT {int(limit)}"
    with opened(loc) as journal:
        rows = journal.execute(sql, params).fetchall()
    for row in rows:
        yield Event(row[0], row[1], row[2], row[3], json.loads(row[4]))


def _used_bytes(journal: Journal) -> int:
    pages = journal.execute("PRAGMA page_count").fetchone()[0]
    free = journal.execute("PRAGMA freelist_count").fetchone()[0]
    size = journal.execute("PRAGMA page_size").fetchone()[0]
    return int((pages - free) * size)


_KEEP_EFFECTS = (
    "id NOT IN (SELECT a.id FROM attempts a LEFT JOIN completions c ON c.attempt = a.id"
    " WHERE a.effect IS NOT NULL AND c.attempt IS NULL)"
)


def _drop_before(journal: Journal, cutoff: float) -> int:
    dropped = 0
    with journal.transaction():
        for sql in (
            f"DELETE FROM attempts WHERE time < ? AND {_KEEP_EFFECTS}",
            "DELETE FROM completions WHERE attempt NOT IN (SELECT id FROM attempts)",
            "DELETE FROM events WHERE time < ?",
            "DELETE FROM runs WHERE COALESCE(ended, started) < ?"
            " AND id NOT IN (SELECT run FROM attempts)",
        ):
            dropped += journal.execute(sql, (cutoff,) if "?" in sql else ()).rowcount
    return dropped


def prune(
    journal: Journal,
    now: float | None = None,
    keep_days: float = constants.JOURNAL_KEEP_DAYS,
    max_bytes: int = constants.JOURNAL_MAX_BYTES,
) -> int:
    """Drop rows older than keep_days, then the oldest tenth of what is left while the
    journal holds more than max_bytes. Returns how many rows were dropped."""
    now = time.time() if now is None else now
    dropped = _drop_before(journal, now - keep_days * 86400)
    for _ in range(10):
        if _used_bytes(journal) <= max_bytes:
            break
        times = [
            row[0]
            for row in journal.execute(
                "SELECT time FROM attempts UNION ALL SELECT time FROM events ORDER BY 1"
            ).fetchall()
        ]
        if not times:
            break
        dropped += _drop_before(journal, times[len(times) // 10])
    return dropped
