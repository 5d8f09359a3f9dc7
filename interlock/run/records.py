"""The run tables of the journal: runs, attempts and completions, as typed records.

This is the seam the agent adapters and the run monitor read: a run's commands, verdicts,
outcomes, greens and failing sets, in order, by run id (`attempts_of(journal, run)`).

- Run: one agent session in one worktree; `config` is the config resolved at its baseline.
- Attempt: one command a run tried, journaled before it ran. `parent` names the outer attempt
  when a wrapper ran inside another wrapper's command (a nested `$SHELL -c`).
- Completion: how an attempt ended: `exited` (exit status), `signalled`, `refused` (never
  ran), `reconciled` (a person or a reconciliation settled an attempt whose wrapper died).
An attempt with no completion is `running` while its wrapper lives, else `unresolved`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from interlock.journal import Journal
from interlock.run import agent

SAME_WRAPPER_SECONDS = 3600.0  # how far back a wrapper's earlier write of its attempt is sought


@dataclass(frozen=True)
class Run:
    """One run, e.g. `r-20261201-101500-3fa2`, started by an agent (pid:start) at a baseline."""

    id: str
    started: float
    ended: float | None
    end_reason: str | None
    origin: str  # start (interlock run start) | env (INTERLOCK_RUN) | agent (its process)
    agent: str | None  # pid:start of the agent process (origin agent)
    pinned: bool  # started by a person: every wrapper without INTERLOCK_RUN joins it
    baseline: str | None  # the baseline snapshot's commit id
    head: str | None  # HEAD at the baseline
    config: Mapping[str, Any]
    data: Mapping[str, Any] = field(default_factory=dict)

    @property
    def is_open(self) -> bool:
        return self.ended is None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "started": self.started,
            "ended": self.ended,
            "end_reason": self.end_reason,
            "origin": self.origin,
            "agent": self.agent,
            "agent_name": self.data.get("agent_name"),
            "agent_pid": self.data.get("agent_pid"),
            "pinned": self.pinned,
            "baseline": self.baseline,
            "head": self.head,
            "config": dict(self.config),
        }


@dataclass(frozen=True)
class Completion:
    """How an attempt ended."""

    status: str  # exited | signalled | refused | reconciled
    time: float
    exit: int | None
    signal: int | None
    duration: float | None
    green: str | None  # the green snapshot this command made, if it made the tree green
    data: Mapping[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "time": self.time,
            "exit": self.exit,
            "signal": self.signal,
            "duration": self.duration,
            "green": self.green,
            **{k: v for k, v in self.data.items() if k not in ("status",)},
        }


@dataclass(frozen=True)
class Attempt:
    """One command a run tried, with its completion when it has one."""

    id: int
    run: str
    parent: int | None
    time: float
    command: str
    cwd: str
    pid: int | None
    pid_start: int | None
    verdict: str
    would_block: bool
    effect: str | None
    data: Mapping[str, Any]
    completion: Completion | None = None

    @property
    def state(self) -> str:
        """done | refused | running | unresolved."""
        if self.completion is not None:
            return "refused" if self.completion.status == "refused" else "done"
        return "running" if agent.is_running(self.pid, self.pid_start) else "unresolved"

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "run": self.run,
            "parent": self.parent,
            "time": self.time,
            "command": self.command,
            "cwd": self.cwd,
            "pid": self.pid,
            "verdict": self.verdict,
            "would_block": self.would_block,
            "side_effects": [
                dict(zip(("tool", "args", "cwd"), key.split("\0"), strict=False))
                for key in (self.effect or "").split("\n")
                if key
            ],
            "state": self.state,
            **dict(self.data),
            "completion": self.completion.to_json() if self.completion else None,
        }


_RUN_COLUMNS = "id, started, ended, end_reason, origin, agent, pinned, baseline, head, config, data"


def _run(row: tuple[Any, ...]) -> Run:
    return Run(
        id=row[0],
        started=row[1],
        ended=row[2],
        end_reason=row[3],
        origin=row[4],
        agent=row[5],
        pinned=bool(row[6]),
        baseline=row[7],
        head=row[8],
        config=json.loads(row[9]),
        data=json.loads(row[10]),
    )


def insert_run(journal: Journal, run: Run) -> None:
    journal.execute(
        f"INSERT INTO runs({_RUN_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            run.id,
            run.started,
            run.ended,
            run.end_reason,
            run.origin,
            run.agent,
            int(run.pinned),
            run.baseline,
            run.head,
            json.dumps(dict(run.config)),
            json.dumps(dict(run.data)),
        ),
    )


def end_run(journal: Journal, run_id: str, reason: str, when: float | None = None) -> None:
    """Close a run (its one update: the end, set once)."""
    journal.execute(
        "UPDATE runs SET ended = ?, end_reason = ? WHERE id = ? AND ended IS NULL",
        (time.time() if when is None else when, reason, run_id),
    )


def get_run(journal: Journal, run_id: str) -> Run | None:
    row = journal.execute(f"SELECT {_RUN_COLUMNS} FROM runs WHERE id = ?", (run_id,)).fetchone()
    return _run(row) if row else None


def open_runs(journal: Journal) -> list[Run]:
    """Runs not ended, newest first."""
    rows = journal.execute(
        f"SELECT {_RUN_COLUMNS} FROM runs WHERE ended IS NULL ORDER BY started DESC"
    ).fetchall()
    return [_run(r) for r in rows]


def list_runs(journal: Journal, limit: int | None = None) -> list[Run]:
    """Every run, newest first."""
    sql = f"SELECT {_RUN_COLUMNS} FROM runs ORDER BY started DESC"
    if limit is not None:
        sql += f" LIMIT {int(limit)}"
    return [_run(r) for r in journal.execute(sql).fetchall()]


def run_activity(journal: Journal, run_id: str) -> tuple[int, float | None]:
    """(number of top-level attempts, time of the last attempt) of a run."""
    row = journal.execute(
        "SELECT COUNT(*) FILTER (WHERE parent IS NULL), MAX(time) FROM attempts WHERE run = ?",
        (run_id,),
    ).fetchone()
    return int(row[0] or 0), row[1]


def insert_attempt(
    journal: Journal,
    *,
    run: str,
    parent: int | None,
    command: str,
    cwd: str,
    pid: int | None,
    pid_start: int | None,
    verdict: str,
    would_block: bool,
    effect: str | None,
    data: Mapping[str, Any],
) -> int:
    """Journal an attempt; its id."""
    return claim_attempt(
        journal,
        once=False,
        run=run,
        parent=parent,
        command=command,
        cwd=cwd,
        pid=pid,
        pid_start=pid_start,
        verdict=verdict,
        would_block=would_block,
        effect=effect,
        data=data,
    )[0]


def claim_attempt(
    journal: Journal,
    *,
    once: bool,
    run: str,
    parent: int | None,
    command: str,
    cwd: str,
    pid: int | None,
    pid_start: int | None,
    verdict: str,
    would_block: bool,
    effect: str | None,
    data: Mapping[str, Any],
) -> tuple[int, bool]:
    """(attempt id, whether this call wrote it). `once`: `pid` and `pid_start` name a wrapper
    process, which makes one attempt: when the daemon answers late and the wrapper also judged
    inline, the second writer gets the first one's row instead of a duplicate left unresolved.
    Not for an agent's hook events, whose pid is the agent's: its commands are many."""
    with journal.transaction():
        earlier = attempt_of_wrapper(journal, pid, pid_start, command, cwd) if once else None
        if earlier is not None:
            return earlier.id, False
        cursor = journal.execute(
            "INSERT INTO attempts(run, parent, time, command, cwd, pid, pid_start, verdict,"
            " would_block, effect, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                run,
                parent,
                time.time(),
                command,
                cwd,
                pid,
                pid_start,
                verdict,
                int(would_block),
                effect,
                json.dumps(dict(data)),
            ),
        )
    return int(cursor.lastrowid or 0), True


def attempt_of_wrapper(
    journal: Journal, pid: int | None, pid_start: int | None, command: str, cwd: str
) -> Attempt | None:
    """The attempt the wrapper process `pid` (started at `pid_start` clock ticks after boot)
    made for this command, if it made one. The same command and cwd, within the hour: a pid
    and start time seen again after a reboot are another process."""
    if pid is None or pid_start is None:
        return None
    rows = journal.execute(
        f"{_ATTEMPT_SELECT} WHERE a.pid = ? AND a.pid_start = ? AND a.time > ? ORDER BY a.id",
        (pid, pid_start, time.time() - SAME_WRAPPER_SECONDS),
    ).fetchall()
    for row in rows:
        found = _attempt(row)
        if found.command == command and found.cwd == cwd:
            return found
    return None


def insert_completion(
    journal: Journal,
    attempt: int,
    run: str,
    status: str,
    *,
    exit: int | None = None,
    signal: int | None = None,
    duration: float | None = None,
    green: str | None = None,
    data: Mapping[str, Any] | None = None,
) -> bool:
    """Record how an attempt ended; False when it already has a completion (kept as is)."""
    cursor = journal.execute(
        "INSERT OR IGNORE INTO completions(attempt, run, time, status, exit, signal, duration,"
        " green, data) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (attempt, run, time.time(), status, exit, signal, duration, green, json.dumps(data or {})),
    )
    return cursor.rowcount == 1


_ATTEMPT_SELECT = (
    "SELECT a.id, a.run, a.parent, a.time, a.command, a.cwd, a.pid, a.pid_start, a.verdict,"
    " a.would_block, a.effect, a.data, c.status, c.time, c.exit, c.signal, c.duration, c.green,"
    " c.data FROM attempts a LEFT JOIN completions c ON c.attempt = a.id"
)


def _attempt(row: tuple[Any, ...]) -> Attempt:
    completion = None
    if row[12] is not None:
        completion = Completion(
            status=row[12],
            time=row[13],
            exit=row[14],
            signal=row[15],
            duration=row[16],
            green=row[17],
            data=json.loads(row[18]),
        )
    return Attempt(
        id=row[0],
        run=row[1],
        parent=row[2],
        time=row[3],
        command=row[4],
        cwd=row[5],
        pid=row[6],
        pid_start=row[7],
        verdict=row[8],
        would_block=bool(row[9]),
        effect=row[10],
        data=json.loads(row[11]),
        completion=completion,
    )


def attempts_of(journal: Journal, run: str, limit: int | None = None) -> list[Attempt]:
    """A run's attempts in the order they were made (the last `limit` of them)."""
    sql = f"{_ATTEMPT_SELECT} WHERE a.run = ? ORDER BY a.id DESC"
    if limit is not None:
        sql += f" LIMIT {int(limit)}"
    return [_attempt(r) for r in reversed(journal.execute(sql, (run,)).fetchall())]


def get_attempt(journal: Journal, attempt: int) -> Attempt | None:
    row = journal.execute(f"{_ATTEMPT_SELECT} WHERE a.id = ?", (attempt,)).fetchone()
    return _attempt(row) if row else None


def pending_effects(journal: Journal, effect: str) -> list[Attempt]:
    """Attempts of this side effect that have no completion yet, oldest first."""
    rows = journal.execute(
        f"{_ATTEMPT_SELECT} WHERE a.effect = ? AND c.attempt IS NULL AND a.verdict != 'block'"
        " ORDER BY a.id",
        (effect,),
    ).fetchall()
    return [_attempt(r) for r in rows]


def unresolved(journal: Journal, run: str | None = None) -> list[Attempt]:
    """Attempts whose wrapper died before recording how they ended."""
    sql = f"{_ATTEMPT_SELECT} WHERE c.attempt IS NULL AND a.verdict != 'block'"
    params: tuple[Any, ...] = ()
    if run is not None:
        sql += " AND a.run = ?"
        params = (run,)
    found = [_attempt(r) for r in journal.execute(sql + " ORDER BY a.id", params).fetchall()]
    return [a for a in found if a.state == "unresolved"]


def open_count(journal: Journal, run: str, recent: int = 64) -> int:
    """How many of a run's last `recent` top-level attempts have no completion yet (running,
    or their wrapper died): the turns that may still be counted before a new one's."""
    row = journal.execute(
        "SELECT COUNT(*) FROM (SELECT id, parent, verdict FROM attempts WHERE run = ?"
        " ORDER BY id DESC LIMIT ?) a LEFT JOIN completions c ON c.attempt = a.id"
        " WHERE c.attempt IS NULL AND a.parent IS NULL AND a.verdict != 'block'",
        (run, int(recent)),
    ).fetchone()
    return int(row[0] or 0)


def count_events(journal: Journal, run: str, kind: str, key: str) -> int:
    """How many `kind` events of a run carry data.key (a message budget, e.g. tag:kind)."""
    row = journal.execute(
        "SELECT COUNT(*) FROM events WHERE run = ? AND kind = ? AND json_extract(data, '$.key') = ?",
        (run, kind, key),
    ).fetchone()
    return int(row[0] or 0)
