"""Attempt records, the stuck detector's input: one per validator run of a run (or per record
of a trace a harness recorded), read from and written as JSON.

A record (`{"step", "last_call", "last_error", "exit", "patch_lines", "patch_distance",
"tool_calls", "tool_errors", "failing", "metrics", "experiment", "config"}`, plus `duration`
in seconds when known) says what the attempt ran, how it failed, how much the patch changed
since the previous attempt (0 = no edit), how many commands and failed commands led to it,
which tests failed, the metrics interlock measured on the tree, whether it was marked an
experiment, and a per-step config override carried from it on. A field that is missing reads
as unknown, which never counts toward a stuck verdict (no exit is no failure; no distance is
neither "no edit" nor "a material patch"). A field of the wrong type is an error naming it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from interlock.errors import InterlockError


class TraceError(InterlockError):
    """A trace or record that is not what the detector reads; the message names the field."""


@dataclass(frozen=True)
class Record:
    """One attempt, e.g. `pytest -q` failing `tests/test_tz.py::test_parse` after a 24-line
    patch that changed 62% of the previous one."""

    step: str = ""
    last_call: str = ""
    last_error: str = ""
    exit: int | None = None
    patch_lines: int | None = None
    patch_distance: float | None = None
    tool_calls: int = 0
    tool_errors: int = 0
    failing: tuple[str, ...] = ()
    metrics: Mapping[str, float] = field(default_factory=dict)
    experiment: bool = False
    config: Mapping[str, Any] = field(default_factory=dict)
    duration: float | None = None

    @property
    def failed(self) -> bool:
        return self.exit is not None and self.exit != 0

    @property
    def failing_set(self) -> frozenset[str]:
        return frozenset(self.failing)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "step": self.step,
            "last_call": self.last_call,
            "last_error": self.last_error,
            "exit": self.exit,
            "patch_lines": self.patch_lines,
            "patch_distance": self.patch_distance,
            "tool_calls": self.tool_calls,
            "tool_errors": self.tool_errors,
            "failing": list(self.failing),
            "metrics": dict(self.metrics),
            "experiment": self.experiment,
        }
        if self.config:
            data["config"] = dict(self.config)
        if self.duration is not None:
            data["duration"] = self.duration
        return data


def _number(value: Any, where: str, *, whole: bool = False) -> float | None:
    if value is None:
        return None
    ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    if not ok or (whole and float(value) != int(value)):
        kind = "a whole number" if whole else "a number"
        raise TraceError(f"{where}: expected {kind}, found {value!r}")
    return float(value)


def _text(value: Any, where: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise TraceError(f"{where}: expected a string, found {value!r}")
    return value


def _failing(value: Any, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        raise TraceError(f"{where}: expected a list of test ids (strings), found {value!r}")
    return tuple(sorted(set(value)))


def _metrics(value: Any, where: str) -> dict[str, float]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise TraceError(f"{where}: expected an object of metric names to numbers")
    found: dict[str, float] = {}
    for name, number in value.items():
        parsed = _number(number, f"{where}.{name}")
        if parsed is not None:
            found[str(name)] = parsed
    return found


def _count(value: Any, where: str) -> int:
    number = _number(value, where, whole=True)
    if number is not None and number < 0:
        raise TraceError(f"{where}: expected a count >= 0, found {value!r}")
    return int(number or 0)


def record_from_json(data: Any, where: str = "record") -> Record:
    """A Record from its JSON object; TraceError naming the field that is wrong."""
    if not isinstance(data, dict):
        raise TraceError(f"{where}: expected an object, found {type(data).__name__}")
    exit_code = _number(data.get("exit"), f"{where}.exit", whole=True)
    lines = _number(data.get("patch_lines"), f"{where}.patch_lines", whole=True)
    distance = _number(data.get("patch_distance"), f"{where}.patch_distance")
    config = data.get("config")
    if config is not None and not isinstance(config, dict):
        raise TraceError(f"{where}.config: expected an object of settings")
    experiment = data.get("experiment", False)
    if not isinstance(experiment, bool) and experiment is not None:
        raise TraceError(f"{where}.experiment: expected true or false, found {experiment!r}")
    return Record(
        step=_text(data.get("step"), f"{where}.step"),
        last_call=_text(data.get("last_call"), f"{where}.last_call"),
        last_error=_text(data.get("last_error"), f"{where}.last_error"),
        exit=None if exit_code is None else int(exit_code),
        patch_lines=None if lines is None else int(lines),
        patch_distance=distance,
        tool_calls=_count(data.get("tool_calls"), f"{where}.tool_calls"),
        tool_errors=_count(data.get("tool_errors"), f"{where}.tool_errors"),
        failing=_failing(data.get("failing"), f"{where}.failing"),
        metrics=_metrics(data.get("metrics"), f"{where}.metrics"),
        experiment=bool(experiment),
        config=dict(config or {}),
        duration=_number(data.get("duration"), f"{where}.duration"),
    )


def trace_from_json(data: Any) -> tuple[list[Record], dict[str, Any]]:
    """(records, run config) of `{"records": [...], "config": {...}}`; other keys (a
    corpus case's name, expectation, why) are ignored."""
    if not isinstance(data, dict):
        raise TraceError('a trace is an object: {"records": [...], "config": {...}}')
    raw_records = data.get("records", [])
    if not isinstance(raw_records, list):
        raise TraceError("records: expected a list of attempt records")
    config = data.get("config") or {}
    if not isinstance(config, dict):
        raise TraceError("config: expected an object of settings")
    records = [record_from_json(r, f"records[{i}]") for i, r in enumerate(raw_records)]
    return records, config
