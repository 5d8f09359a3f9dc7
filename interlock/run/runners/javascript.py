"""jest, vitest and mocha output.

jest: `Tests:       1 failed, 1 skipped, 3 passed, 5 total`, `No tests found`; failing tests
from `● Suite › name` under their `FAIL file` header; a suite that failed to load
(`● Test suite failed to run`) counts as one failure named by its file. In a terminal jest
redraws a live summary, so of several summaries the final ones (followed by `Ran all test
suites`) are read.

vitest: `Tests  1 failed | 3 passed (4)` (the last of each `RUN v...` session: a terminal run
redraws it live), `No test files found`; failing tests from `FAIL  file > suite > name`, a
suite that failed to load from `FAIL  file [ file ]`; unhandled errors (`Errors  1 error`)
count as failures.

mocha: `3 passing (12ms)`, `2 pending`, `1 failing`, `Error: No test files found`; failing
tests from the numbered list (`1) suite` and the title lines under it, up to the one ending
with `:`), joined with ` › `.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from interlock.run.runners.tally import (
    MAX_LINE,
    Output,
    Tally,
    counts,
    one_session,
    short_id,
    total,
)

_LONGEST = 400
_SKIPS = ("skipped", "todo", "pending")

# --- jest ---

_JEST_TESTS = re.compile(r"Tests: +(?:(.*), )?(\d+) total")
_JEST_FILE = re.compile(
    r" ?(?:FAIL|PASS) +([^ >\[]\S*(?: [^ >\[(]\S*)*)(?: \(\d+(?:\.\d+)? ?m?s\))?"
)
_JEST_BULLET = re.compile(r"  ● (\S.*)")
_JEST_NOT_A_TEST = ("Console",)
_JEST_SUITE = "Test suite failed to run"


def _jest_summary(line: str) -> Tally | None:
    match = _JEST_TESTS.fullmatch(line.strip()) if len(line) < _LONGEST else None
    if match is None:
        return None
    found = counts(match.group(1).split(", ")) if match.group(1) else {}
    if found is None or (found and not set(found) & {"passed", "failed", *_SKIPS}):
        return None
    skipped = sum(found.get(k, 0) for k in _SKIPS)
    return Tally(found.get("passed", 0), found.get("failed", 0), skipped)


def _jest_failing(lines: Sequence[str]) -> tuple[list[str], int]:
    """(failing ids, suites that failed to run). An id is `file › suite › name`; a test whose
    `FAIL file` header was cut away is kept by its title alone, unless it shows up again
    under its header (jest repeats failures in its closing summary)."""
    current = ""
    seen: list[tuple[str, str]] = []
    suites: set[str] = set()
    for line in lines:
        if len(line) > MAX_LINE or not ("●" in line or "FAIL" in line or "PASS" in line):
            continue
        if (header := _JEST_FILE.fullmatch(line)) is not None:
            current = header.group(1)
        elif (bullet := _JEST_BULLET.fullmatch(line)) is not None:
            title = bullet.group(1)
            if title == _JEST_SUITE:
                suites.add(short_id(current or title))
            elif title not in _JEST_NOT_A_TEST:
                seen.append((current, title))
    placed = {title for file, title in seen if file}
    ids = [short_id(f"{f} › {t}" if f else t) for f, t in seen if f or t not in placed]
    return ids + sorted(suites), len(suites)


def parse_jest(out: Output) -> Tally | None:
    summaries: list[tuple[int, Tally]] = [
        (i, t) for i, line in enumerate(out.lines) if (t := _jest_summary(line)) is not None
    ]
    finals = [t for i, t in summaries if _followed_by(out.lines, i, "Ran all test suites")]
    chosen = finals or [t for _, t in summaries[-1:]]  # else a live summary, or a cut tail
    tally = (one_session if out.direct else total)(chosen)
    if tally is None:
        if not any(line.startswith("No tests found, exiting with code") for line in out.lines):
            return None
        tally = Tally(no_tests=True)
    tally.failing, broken = _jest_failing(out.lines)
    tally.failed = None if tally.failed is None else tally.failed + broken
    return tally


def _followed_by(lines: Sequence[str], at: int, start: str) -> bool:
    return any(line.startswith(start) for line in lines[at + 1 : at + 6])


# --- vitest ---

_VITEST_TESTS = re.compile(r"Tests +(.*) \((\d+)\)")
_VITEST_RUN = re.compile(r"RUN +v\d\S* .*")
_VITEST_ERRORS = re.compile(r"Errors +(\d+) errors?")
_VITEST_FAIL = re.compile(r"FAIL +(\S.* > .*)")
_VITEST_SUITE = re.compile(r"FAIL +(\S.*) \[ .* \]")


def _vitest_summary(line: str) -> Tally | None:
    match = _VITEST_TESTS.fullmatch(line.strip()) if len(line) < _LONGEST else None
    if match is None:
        return None
    parts = [p for p in match.group(1).split(" | ") if p != "no tests"]
    found = counts(parts)
    if found is None or (found and not set(found) & {"passed", "failed", *_SKIPS}):
        return None
    skipped = sum(found.get(k, 0) for k in _SKIPS)
    return Tally(found.get("passed", 0), found.get("failed", 0), skipped)


def parse_vitest(out: Output) -> Tally | None:
    sessions: list[list[Tally]] = [[]]
    errors = 0
    ids: list[str] = []
    suites: set[str] = set()
    for line in out.lines:
        stripped = line.strip()
        if len(stripped) > MAX_LINE or not stripped.startswith(("RUN", "Tests", "Errors", "FAIL")):
            continue
        if _VITEST_RUN.fullmatch(stripped):
            sessions.append([])
        elif (summary := _vitest_summary(stripped)) is not None:
            sessions[-1].append(summary)
        elif (error := _VITEST_ERRORS.fullmatch(stripped)) is not None:
            errors += int(error.group(1))
        elif (suite := _VITEST_SUITE.fullmatch(stripped)) is not None:
            suites.add(short_id(suite.group(1)))
        elif (fail := _VITEST_FAIL.fullmatch(stripped)) is not None:
            ids.append(short_id(fail.group(1)))
    lasts = [s[-1] for s in sessions if s]  # a terminal run redraws its summary live
    tally = (one_session if out.direct else total)(lasts)
    if tally is None:
        if not any(line.startswith("No test files found") for line in out.lines):
            return None
        tally = Tally(no_tests=True)
    tally.failed = None if tally.failed is None else tally.failed + len(suites) + errors
    tally.failing = ids + sorted(suites)
    return tally


# --- mocha ---

_MOCHA_PASSING = re.compile(r" *(\d+) passing \(\d+(?:\.\d+)?(?:ms|s|m|h)\)")
_MOCHA_MORE = re.compile(r" *(\d+) (pending|failing)")
_MOCHA_NUMBERED = re.compile(r"  \d+\) (\S.*)")


def _mocha_session(lines: Sequence[str], at: int, passed: int) -> Tally:
    tally = Tally(passed, 0, 0)
    for line in lines[at + 1 : at + 3]:
        if (more := _MOCHA_MORE.fullmatch(line)) is not None:
            if more.group(2) == "pending":
                tally.skipped = int(more.group(1))
            else:
                tally.failed = int(more.group(1))
    return tally


def _mocha_title(lines: Sequence[str], at: int, first: str) -> str:
    """The title path of the numbered failure at `lines[at]`: its line, then the deeper
    lines after it up to the one ending with `:`."""
    parts = [first]
    for line in lines[at + 1 : at + 12]:
        if parts[-1].endswith(":") or not line.startswith("     ") or not line.strip():
            break
        parts.append(line.strip())
    parts[-1] = parts[-1].removesuffix(":")
    return short_id(" › ".join(parts))


def parse_mocha(out: Output) -> Tally | None:
    sessions = []
    failing = []
    for i, line in enumerate(out.lines):
        if len(line) > MAX_LINE or not line.startswith("  "):
            continue
        if (passing := _MOCHA_PASSING.fullmatch(line)) is not None:
            sessions.append(_mocha_session(out.lines, i, int(passing.group(1))))
        elif (numbered := _MOCHA_NUMBERED.fullmatch(line)) is not None:
            failing.append(_mocha_title(out.lines, i, numbered.group(1)))
    tally = (one_session if out.direct else total)(sessions)
    if tally is None:
        if not any(line.startswith("Error: No test files found") for line in out.lines):
            return None
        tally = Tally(no_tests=True)
    tally.failing = failing
    return tally
