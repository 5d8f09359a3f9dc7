"""The stuck detector: a pure function of a run's attempt records and its settings, giving the
verdict for the trace as it stands at its last record (not latched: a later record can turn a
stuck trace back into a running one).

Settings in force at a record: the run's, then every per-step `config` carried by that record
or an earlier one (`settings.override`). The thresholds of the verdict are those in force at
the last record; what a record is (a material patch, tool-error dominated, an experiment
within the cap) is judged with the settings in force at that record.

Counted records: every record, except the first `experiment_cap` records marked as
experiments (later experiments count).

- `stuck_environment`: the last `repeat_threshold` counted records all failed (exit != 0)
  with the same call and the same normalised error, and `patch_distance` is 0 on all but the
  first of them; or those records are each tool-error dominated (tool_errors / tool_calls >=
  tool_error_ratio), with no edit between (the same distances).
- `stuck_search`: take the failing set of the last counted record (non-empty). Walk back over
  counted records: one with a different set stops the walk; one with the same set and
  `patch_distance < min_patch_distance` is skipped (it neither counts nor resets); one with the
  same set and a material patch counts. Stuck when the count reaches `flat_attempts` (for a
  validator slower than a minute, its default is one more), unless the monotone metric
  strictly decreases across the counted records, in chronological order.
- `stuck_environment` takes precedence; otherwise `running`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from interlock.monitor.errortext import normalise
from interlock.monitor.settings import Settings, override
from interlock.monitor.trace import Record

RUNNING = "running"
STUCK_ENVIRONMENT = "stuck_environment"
STUCK_SEARCH = "stuck_search"


@dataclass(frozen=True)
class Verdict:
    """The detector's answer: a status and the reason, with the records that show it
    (indexes into the records given, oldest first)."""

    status: str
    reason: str
    evidence: tuple[int, ...] = ()

    def to_json(self) -> dict[str, str]:
        return {"status": self.status, "reason": self.reason}


def settings_per_record(
    records: Sequence[Record], run: Settings, warn: Callable[[str], None] = lambda _: None
) -> list[Settings]:
    """The settings in force at each record (a record's own config applies to it)."""
    found: list[Settings] = []
    current = run
    for i, record in enumerate(records):
        if record.config:
            current = override(current, record.config, f"records[{i}].config", warn)
        found.append(current)
    return found


def counted(records: Sequence[Record], per: Sequence[Settings]) -> list[int]:
    """Indexes of the counted records: all but the first experiment_cap experiments."""
    kept: list[int] = []
    experiments = 0
    for i, record in enumerate(records):
        if record.experiment:
            experiments += 1
            if experiments <= per[i].experiment_cap:
                continue
        kept.append(i)
    return kept


class _Trace:
    """The records, their settings, the counted ones, and how a record is named in a reason
    (its step, unless the caller names them: the run's attempt numbers)."""

    def __init__(
        self,
        records: Sequence[Record],
        per: Sequence[Settings],
        labels: Sequence[str] | None,
    ) -> None:
        self.records = records
        self.per = per
        self.kept = counted(records, per)
        self.labels = labels

    def label(self, index: int) -> str:
        if self.labels is not None:
            return self.labels[index]
        return self.records[index].step or f"#{index + 1}"

    def span(self, indexes: Sequence[int]) -> str:
        first, last = self.label(indexes[0]), self.label(indexes[-1])
        return first if first == last else f"{first}..{last}"


def _no_edit_between(records: Sequence[Record], tail: Sequence[int]) -> bool:
    return all(records[i].patch_distance == 0 for i in tail[1:])


def _dominated(record: Record, ratio: float) -> bool:
    return record.tool_calls > 0 and record.tool_errors / record.tool_calls >= ratio


def environment(trace: _Trace) -> Verdict | None:
    """stuck_environment at the last record, or None."""
    records, per, kept = trace.records, trace.per, trace.kept
    need = per[-1].repeat_threshold
    if len(kept) < need:
        return None
    tail = list(kept[-need:])
    if not _no_edit_between(records, tail):
        return None
    rows = [records[i] for i in tail]
    calls = {" ".join(r.last_call.split()) for r in rows}
    errors = {normalise(r.last_error) for r in rows}
    if all(r.failed for r in rows) and len(calls) == 1 and len(errors) == 1:
        shown = rows[-1].last_call.strip() or "(no call recorded)"
        return Verdict(
            STUCK_ENVIRONMENT,
            f"the last {need} counted records ({trace.span(tail)}) failed the same way: "
            f"`{shown}`, exit {rows[-1].exit}, the same error, with no edit between",
            tuple(tail),
        )
    if all(_dominated(records[i], per[i].tool_error_ratio) for i in tail):
        errors_seen = sum(r.tool_errors for r in rows)
        calls_seen = sum(r.tool_calls for r in rows)
        return Verdict(
            STUCK_ENVIRONMENT,
            f"the last {need} counted records ({trace.span(tail)}) were dominated by tool "
            f"errors ({errors_seen} of {calls_seen} calls failed), with no edit between",
            tuple(tail),
        )
    return None


def _walk(
    records: Sequence[Record], per: Sequence[Settings], kept: Sequence[int], flat: int
) -> list[int]:
    """The counted records with the last failing set and a material patch, newest first,
    walking back until the set changes or `flat` are found."""
    target = records[kept[-1]].failing_set
    found: list[int] = []
    for i in reversed(kept):
        record = records[i]
        if record.failing_set != target:
            break
        distance = record.patch_distance
        if distance is None or distance < per[i].min_patch_distance:
            continue  # not a new attempt, and no reset either
        found.append(i)
        if len(found) == flat:
            break
    return found


def _decreasing(records: Sequence[Record], chronological: Sequence[int], metric: str) -> bool:
    values = [records[i].metrics.get(metric) for i in chronological]
    if any(v is None for v in values):
        return False
    return all(b < a for a, b in zip(values, values[1:], strict=False))  # type: ignore[operator]


def search(trace: _Trace) -> Verdict:
    """stuck_search at the last record, or running with the reason it is not."""
    records, per, kept = trace.records, trace.per, trace.kept
    last = records[kept[-1]]
    if not last.failing:
        return Verdict(RUNNING, f"nothing failing at {trace.label(kept[-1])}")
    final = per[-1]
    flat = final.flat_for(last.duration)
    found = _walk(records, per, kept, flat)
    size = len(last.failing)
    if len(found) < flat:
        return Verdict(
            RUNNING,
            f"{len(found)} of {flat} material attempts leave the same {size} failing test(s)",
            tuple(reversed(found)),
        )
    chronological = list(reversed(found))
    metric = final.monotone_metric
    if metric is not None and _decreasing(records, chronological, metric):
        values = " -> ".join(f"{records[i].metrics[metric]:g}" for i in chronological)
        return Verdict(
            RUNNING,
            f"the failing set has not moved over {flat} attempts, but {metric} keeps "
            f"falling ({values})",
            tuple(chronological),
        )
    return Verdict(
        STUCK_SEARCH,
        f"{flat} materially different attempts ({trace.span(chronological)}) left the same "
        f"{size} failing test(s): {', '.join(last.failing[:3])}" + (" ..." if size > 3 else ""),
        tuple(chronological),
    )


def classify(
    records: Sequence[Record],
    run: Settings,
    warn: Callable[[str], None] = lambda _: None,
    labels: Sequence[str] | None = None,
) -> Verdict:
    """The verdict for the trace at its last record (see the module docstring). `labels`
    name the records in the reason (default: their steps)."""
    if not records:
        return Verdict(RUNNING, "no attempts yet")
    trace = _Trace(records, settings_per_record(records, run, warn), labels)
    if not trace.kept:
        return Verdict(RUNNING, "only experiments so far (not counted)")
    return environment(trace) or search(trace)
