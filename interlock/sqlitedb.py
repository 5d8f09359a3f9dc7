"""SQLite files in the state dir (the journal, the recorder index): one way to open them.

WAL with synchronous=NORMAL: a row survives the process dying at any point; only a power cut
can lose the newest rows (an fsync per write would cost ~10 ms on every hook). The schema is
applied once per file (tracked by `user_version`). A file that is not a database is moved
aside, never deleted, and a new one started, with a warning for the caller to show.
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

_CORRUPT, _NOTADB = 11, 26  # SQLite's result codes for a damaged file and a non-database


def _connect(path: Path, schema: str, version: int, shared: bool) -> sqlite3.Connection:
    conn = sqlite3.connect(
        os.fspath(path), timeout=10, isolation_level=None, check_same_thread=not shared
    )
    conn.execute("PRAGMA busy_timeout=10000")
    conn.execute("PRAGMA synchronous=NORMAL")
    if conn.execute("PRAGMA user_version").fetchone()[0] != version:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.executescript(schema)
        conn.execute(f"PRAGMA user_version={int(version)}")
    return conn


def open_db(
    path: Path, schema: str, version: int, what: str, shared: bool = False
) -> tuple[sqlite3.Connection, str | None]:
    """(connection, warning); `what` names the file in the warning ("journal", ...).
    `shared`: the connection may pass from thread to thread (one at a time: a pool's)."""
    try:
        return _connect(path, schema, version, shared), None
    except sqlite3.DatabaseError as exc:
        damaged = (getattr(exc, "sqlite_errorcode", _NOTADB) & 0xFF) in (_CORRUPT, _NOTADB)
        not_a_file = os.path.lexists(path) and not path.is_file()  # a folder, a fifo...
        if not (damaged or not_a_file):
            raise  # a full disk, a read-only file, a lock: the file itself is fine, keep it
        aside = path.with_name(f"{path.name}.corrupt-{int(time.time())}")
        os.replace(path, aside)
        warning = f"{what} {path} was unreadable ({exc}); kept as {aside.name}"
        return _connect(path, schema, version, shared), warning
