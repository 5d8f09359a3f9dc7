"""What the monitor keeps per run, in the run's journal.

- Attempt records (`monitor-record` events, append-only): the evidence the detector reads,
  one per validator run, each with the attempt id, time and tree it was taken on.
- Stops (`run-stop` events, append-only): the kill switch and the monitor's own stops, with
  the reason and the handoff written.
- Counters (`monitor` table, one row per run, rewritten): turns, tool calls since the last
  record, what progress was last seen, the notices spent, the recovery in progress. They are
  derived from the records and the journal, kept so each command costs one row read; the
  monitor lock (`monitor.lock` in the state dir) serialises their read-modify-write.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from interlock.git import RepoLocation
from interlock.journal import Journal, append_event
from interlock.monitor.trace import Record, record_from_json
from interlock.state import file_lock, repo_state_dir

RECORD_EVENT = "monitor-record"
STOP_EVENT = "run-stop"
LOCK_FILE = "monitor.lock"
SEEN_KEPT = 64  # attempt ids remembered as processed (a completion retried inline)
RECORDS_READ = 200  # at most this many newest records are read back for a verdict
_TABLE = "CREATE TABLE IF NOT EXISTS monitor (run TEXT PRIMARY KEY, data TEXT NOT NULL)"


@dataclass
class MonitorState:
    """The monitor's counters for one run (see the module docstring)."""

    turns: int = 0
    tool_calls: int = 0  # commands since the last record
    tool_errors: int = 0  # failed commands since the last record
    records: int = 0  # records closed so far
    segment: int = 0  # the first record the detector reads (after a recovery, a new start)
    segment_tree: str | None = None  # the tree when that segment began (None: the baseline)
    verdict: str = "running"  # the detector's verdict at the last record
    verdict_reason: str = ""
    prev_tree: str | None = None  # the tree at the last record
    prev_lines: int = 0  # its patch size against the baseline
    last_tree: str | None = None  # the tree at the last turn looked at (progress)
    touched: list[str] = field(default_factory=list)  # paths the run has mutated
    outstanding: int | None = None  # open objectives at the last look
    latch: str | None = None  # verification: green | red | None (no validator yet)
    last_progress: int | None = None  # turn of the last progress event (None: not armed)
    progress_what: str = ""
    stall_from: int | None = None  # turn from which the next stall counts
    stalls: int = 0
    budget: list[int] = field(default_factory=list)  # percents already announced
    streak: int = 0  # failing validator runs in a row
    streak_fired: bool = False  # the safe-state rung fired in this streak
    safe_states: int = 0
    step: str = ""
    pending_config: dict[str, Any] = field(default_factory=dict)  # carried by the next record
    next_experiment: bool = False
    recovery: dict[str, Any] | None = None  # the recovery awaiting its one attempt
    recoveries: list[dict[str, Any]] = field(default_factory=list)
    stuck_notices: int = 0
    info_turn: int | None = None  # turn a person last added information (todo add)
    reminders: int = 0  # one-line reminders of a stop given (advisory mode)
    seen: list[int] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        # Not dataclasses.asdict: its deep copy of the lists costs most of a command's budget.
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    @classmethod
    def from_json(cls, data: Any) -> MonitorState:
        """The state stored by to_json; unknown keys (another version) are dropped, missing
        ones take their defaults."""
        if not isinstance(data, dict):
            return cls()
        names = {f.name for f in dataclasses.fields(cls)}
        try:
            return cls(**{k: v for k, v in data.items() if k in names})
        except TypeError:
            return cls()


def _execute(journal: Journal, sql: str, params: tuple[Any, ...] = ()) -> sqlite3.Cursor:
    """A statement on the monitor table, made on first use (a journal made before the
    monitor, or one started anew after damage, has none)."""
    try:
        return journal.execute(sql, params)
    except sqlite3.OperationalError as exc:
        if "no such table" not in str(exc):
            raise
        journal.execute(_TABLE)
        return journal.execute(sql, params)


def load(journal: Journal, run: str) -> MonitorState:
    row = _execute(journal, "SELECT data FROM monitor WHERE run = ?", (run,)).fetchone()
    return MonitorState.from_json(json.loads(row[0])) if row else MonitorState()


def save(journal: Journal, run: str, state: MonitorState) -> None:
    _execute(
        journal,
        "INSERT OR REPLACE INTO monitor(run, data) VALUES (?, ?)",
        (run, json.dumps(state.to_json())),
    )


def forget_ended(journal: Journal) -> None:
    """Drop the counters of runs the journal no longer holds (pruned)."""
    _execute(journal, "DELETE FROM monitor WHERE run NOT IN (SELECT id FROM runs)")


@contextlib.contextmanager
def locked(loc: RepoLocation) -> Iterator[None]:
    """Hold the monitor lock of this worktree."""
    with file_lock(repo_state_dir(loc) / LOCK_FILE):
        yield


@dataclass(frozen=True)
class Stored:
    """An attempt record as the journal keeps it: the record and where it came from."""

    index: int  # 0-based position in the run
    attempt: int | None
    time: float
    tree: str | None
    record: Record
    extra: dict[str, Any]


def add_record(
    journal: Journal,
    run: str,
    index: int,
    attempt: int | None,
    tree: str | None,
    record: Record,
    extra: dict[str, Any],
) -> None:
    data = {"index": index, "attempt": attempt, "tree": tree, "record": record.to_json()}
    append_event(journal, RECORD_EVENT, {**data, "extra": extra}, run=run)


def read_records(journal: Journal, run: str, since: int = 0) -> list[Stored]:
    """The run's records from index `since` on (the newest RECORDS_READ), oldest first."""
    rows = journal.execute(
        "SELECT time, data FROM events WHERE run = ? AND kind = ? ORDER BY id DESC LIMIT ?",
        (run, RECORD_EVENT, RECORDS_READ),
    ).fetchall()
    found: list[Stored] = []
    for when, raw in reversed(rows):
        data = json.loads(raw)
        if int(data.get("index", 0)) < since:
            continue
        found.append(
            Stored(
                index=int(data.get("index", 0)),
                attempt=data.get("attempt"),
                time=float(when),
                tree=data.get("tree"),
                record=record_from_json(data.get("record") or {}),
                extra=dict(data.get("extra") or {}),
            )
        )
    return found


def add_stop(journal: Journal, run: str, data: dict[str, Any]) -> None:
    append_event(journal, STOP_EVENT, data, run=run)


def stop_of(journal: Journal, run: str) -> dict[str, Any] | None:
    """The first stop recorded for a run (a run stops once), or None."""
    row = journal.execute(
        "SELECT data FROM events WHERE run = ? AND kind = ? ORDER BY id LIMIT 1",
        (run, STOP_EVENT),
    ).fetchone()
    return dict(json.loads(row[0])) if row else None
