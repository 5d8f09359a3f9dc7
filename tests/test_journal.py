"""The journal: damage is detected, set aside and said once; rows are bounded by age and
size; a side effect still unresolved is never pruned."""

from __future__ import annotations

import os
import sqlite3
import time

from interlock.git import require_repo
from interlock.journal import Journal, append_event, journal_path, opened, prune, record
from interlock.run import records


def _garble_pages(path, keep=100):
    """Overwrite every page but the first (the header) with garbage: the file still opens."""
    data = bytearray(path.read_bytes())
    for i in range(keep, len(data)):
        data[i] = (i * 7 + 13) % 256
    path.write_bytes(bytes(data))


def _fill(loc, n=300):
    with opened(loc) as journal:
        for i in range(n):
            append_event(journal, "check", {"i": i, "pad": "x" * 200})


def test_a_journal_with_garbage_pages_is_set_aside_and_said_once(git_repo):
    loc = require_repo(git_repo)
    _fill(loc)
    with opened(loc) as journal:  # checkpoint the write-ahead log into the file
        journal.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    path = journal_path(loc)
    _garble_pages(path, keep=4096)
    sqlite3.connect(path).close()  # it still opens
    first = Journal(loc, verify=True)
    try:
        assert first.warning is not None and "damaged" in first.warning
        assert first.execute("SELECT COUNT(*) FROM events").fetchone()[0] == 0
    finally:
        first.close()
    kept = [p for p in os.listdir(path.parent) if p.startswith("journal.db.corrupt-")]
    assert kept and (path.parent / kept[0]).stat().st_size > 4096
    second = Journal(loc, verify=True)
    try:
        assert second.warning is None
    finally:
        second.close()


def test_a_file_that_is_not_a_database_is_set_aside(git_repo):
    loc = require_repo(git_repo)
    path = journal_path(loc)
    path.write_bytes(b"this is not sqlite" * 100)
    journal = Journal(loc)
    try:
        assert journal.warning and "journal.db.corrupt-" in journal.warning
        record(loc, "check", {"ok": True})
    finally:
        journal.close()


def test_malformed_pages_met_while_writing_are_set_aside_and_the_write_retried(git_repo):
    loc = require_repo(git_repo)
    _fill(loc)
    with opened(loc) as journal:
        journal.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    _garble_pages(journal_path(loc), keep=4096)
    journal = Journal(loc)  # not verified: the damage shows on first use
    try:
        append_event(journal, "check", {"after": "damage"})
        assert journal.warning is not None
        rows = journal.execute("SELECT kind FROM events").fetchall()
        assert rows == [("check",)]
    finally:
        journal.close()


def _attempt(journal, run, when, effect=None):
    attempt = records.insert_attempt(
        journal,
        run=run,
        parent=None,
        command="git push origin main" if effect else "true",
        cwd="/",
        pid=None,
        pid_start=None,
        verdict="allow",
        would_block=False,
        effect=effect,
        data={},
    )
    journal.execute("UPDATE attempts SET time = ? WHERE id = ?", (when, attempt))
    return attempt


def test_old_rows_are_pruned_but_an_unresolved_side_effect_is_kept(git_repo):
    loc = require_repo(git_repo)
    old = time.time() - 60 * 86400
    with opened(loc) as journal:
        done = _attempt(journal, "r-old", old)
        records.insert_completion(journal, done, "r-old", "exited", exit=0)
        pending = _attempt(journal, "r-old", old, effect="git push\0origin main\0/")
        fresh = _attempt(journal, "r-new", time.time())
        append_event(journal, "check", {})
        journal.execute("UPDATE events SET time = ?", (old,))
        assert prune(journal) >= 3
        ids = [row[0] for row in journal.execute("SELECT id FROM attempts ORDER BY id")]
        assert ids == [pending, fresh]
        assert journal.execute("SELECT COUNT(*) FROM completions").fetchone()[0] == 0
        assert journal.execute("SELECT COUNT(*) FROM events").fetchone()[0] == 0


def test_the_journal_is_pruned_down_to_its_size_bound(git_repo):
    loc = require_repo(git_repo)
    with opened(loc) as journal:
        for i in range(2000):
            append_event(journal, "check", {"pad": "y" * 500, "i": i})
        before = journal.execute("SELECT COUNT(*) FROM events").fetchone()[0]
        prune(journal, max_bytes=256 << 10)
        after = journal.execute("SELECT COUNT(*) FROM events").fetchone()[0]
        newest = journal.execute("SELECT MAX(id) FROM events").fetchone()[0]
    assert after < before / 2
    assert newest == before  # the newest rows stay
