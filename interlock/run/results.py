"""The outcome of a validator's run, read from the tail of its output.

`read_outcome(tool, text, exit_code)` calls `interlock.run.outcome.parse_outcome` (counts and
failing tests for pytest, unittest, go test, cargo test, jest, vitest, mocha; written
alongside this package). Until that module is present, a minimal reading of pytest's and
unittest's summary lines stands in, with the same fields; every other runner then gives
the exit status only (`parsed` False).
TODO(issue 8, merge): import run.outcome plainly once it is on main, and drop the stand-in.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol


class OutcomeLike(Protocol):
    """What the wrapper reads of an outcome (run.outcome.Outcome)."""

    @property
    def ran(self) -> int | None: ...
    @property
    def passed(self) -> int | None: ...
    @property
    def failed(self) -> int | None: ...
    @property
    def skipped(self) -> int | None: ...
    @property
    def failing(self) -> tuple[str, ...]: ...
    @property
    def no_tests(self) -> bool: ...
    @property
    def parsed(self) -> bool: ...
    def to_json(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class StandIn:
    """The stand-in outcome (the fields of run.outcome.Outcome)."""

    ran: int | None = None
    passed: int | None = None
    failed: int | None = None
    skipped: int | None = None
    failing: tuple[str, ...] = ()
    no_tests: bool = False
    parsed: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "ran": self.ran,
            "passed": self.passed,
            "failed": self.failed,
            "skipped": self.skipped,
            "failing": list(self.failing),
            "no_tests": self.no_tests,
            "parsed": self.parsed,
        }


_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_PYTEST_COUNT = re.compile(r"(\d+) (passed|failed|errors?|skipped|xfailed|xpassed|deselected)")
_PYTEST_SUMMARY = re.compile(r"^=*\s*((?:\d+ \w+(?:, )?)+|no tests ran)\b.* in [\d.]+s")
_FAILED = re.compile(r"^(?:FAILED|ERROR) (\S+)")
_UNITTEST_RAN = re.compile(r"^Ran (\d+) tests? in ")
_UNITTEST_END = re.compile(r"^(OK|FAILED)(?: \((.*)\))?\s*$")


def _pytest(text: str, exit_code: int) -> StandIn | None:
    lines = text.splitlines()
    summary = next((ln for ln in reversed(lines) if _PYTEST_SUMMARY.match(ln.strip())), None)
    if summary is None:
        return StandIn(no_tests=True, parsed=True) if exit_code == 5 else None
    counts = {kind.rstrip("s"): int(n) for n, kind in _PYTEST_COUNT.findall(summary)}
    failed = counts.get("failed", 0) + counts.get("error", 0)
    passed = counts.get("passed", 0) + counts.get("xpassed", 0)
    ran = passed + failed
    failing = sorted({m.group(1) for ln in lines if (m := _FAILED.match(ln.strip()))})
    return StandIn(
        ran=ran,
        passed=passed,
        failed=failed,
        skipped=counts.get("skipped", 0),
        failing=tuple(failing[:200]),
        no_tests=ran == 0 or exit_code == 5,
        parsed=True,
    )


def _unittest(text: str) -> StandIn | None:
    lines = [ln.strip() for ln in text.splitlines()]
    ran = next((int(m.group(1)) for ln in lines if (m := _UNITTEST_RAN.match(ln))), None)
    end = next((m for ln in reversed(lines) if (m := _UNITTEST_END.match(ln))), None)
    if ran is None:
        return StandIn(no_tests=True, parsed=True) if "NO TESTS RAN" in text else None
    details: dict[str, int] = {}
    for part in (end.group(2) or "").split(",") if end else ():
        key, _, value = part.partition("=")
        if value.strip().isdigit():
            details[key.strip()] = int(value)
    failed = details.get("failures", 0) + details.get("errors", 0)
    return StandIn(
        ran=ran,
        passed=ran - failed - details.get("skipped", 0),
        failed=failed,
        skipped=details.get("skipped", 0),
        no_tests=ran == 0,
        parsed=True,
    )


def _stand_in(tool: str, text: str, exit_code: int) -> StandIn:
    clean = _ANSI.sub("", text).replace("\r\n", "\n")
    found = _unittest(clean) if tool == "unittest" else _pytest(clean, exit_code)
    if found is None and tool != "unittest":
        found = _unittest(clean)
    return found or StandIn()


def read_outcome(tool: str, text: str, exit_code: int) -> OutcomeLike:
    """The outcome of one validator run (never raises on any text)."""
    try:
        module = importlib.import_module("interlock.run.outcome")
    except ModuleNotFoundError:
        return _stand_in(tool, text, exit_code)
    outcome: OutcomeLike = module.parse_outcome(tool, text, exit_code)
    return outcome


def outcome_json(outcome: OutcomeLike | None) -> Mapping[str, Any] | None:
    return None if outcome is None else outcome.to_json()
