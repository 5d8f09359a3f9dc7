"""pytest and unittest output (Django's test runner prints unittest's).

pytest: the closing line (`=== 1 failed, 3 passed, 1 skipped in 0.12s ===`, `-q` without the
rules, `no tests ran`, `5 deselected`); under `-qq`, which prints no closing line, the progress
letters (`..F.s  [100%]`); exit 5 (nothing collected). Failing ids come from the short test
summary (`FAILED path::test[param] - message`, `ERROR path`) and from -v and xdist -v lines.
Neither is read inside a report section (FAILURES, ERRORS, PASSES): what is there the
tests wrote, and it may imitate pytest.

unittest: `Ran N tests` and the status after it (`OK (skipped=2)`, `FAILED (failures=1,
errors=2)`, `NO TESTS RAN`); failing ids from `FAIL: test_x (module.Class.test_x)` in both the
3.11+ form and the older `(module.Class)` one.
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

_LONGEST = 400  # a summary line is short; longer lines are never read as one

# --- pytest ---

_TIME = re.compile(r"(.+) in \d+(?:\.\d+)? ?s(?:econds)?(?: \(\d+:\d\d:\d\d\))?")
_PASSED = ("passed", "xpassed")
_FAILED = ("failed", "error", "errors")
_SKIPPED = ("skipped", "xfailed")
_OTHER = ("deselected", "warning", "warnings", "rerun", "no tests ran")
_KNOWN = frozenset(_PASSED + _FAILED + _SKIPPED + _OTHER)
# Progress letters; subtests add `u` `,` `-` `y` (pytest 9 and pytest-subtests), not tests.
_PROGRESS = re.compile(r"(?:\S+ )?([.FEsxXu,y-]+) *\[ *(?:\d+%|\d+/\d+)\]")
_SHORT = re.compile(r"(FAILED|ERROR) (\S.*)")
_VERBOSE = re.compile(r"(\S.*::.*) (?:FAILED|ERROR)(?: +\[ *\d+%\])?")
_XDIST_VERBOSE = re.compile(r"\[gw\d+\] \[ *\d+%\] (?:FAILED|ERROR) (\S.*)")


def _pytest_summary(line: str) -> Tally | None:
    """`=== 1 failed, 2 passed, 1 xfailed in 0.1s ===` -> its Tally; None if not one."""
    if len(line) > _LONGEST or " in " not in line:
        return None
    match = _TIME.fullmatch(line.strip("= "))
    if match is None:
        return None
    parts = [p.strip() for p in match.group(1).split(",")]
    said_none = "no tests ran" in parts
    found = counts([p for p in parts if p != "no tests ran"])
    if found is None or not (said_none or set(found) & _KNOWN):
        return None  # plugins add words (`3 subtests passed`), but one must be pytest's

    def add(keys: Sequence[str]) -> int:
        return sum(found.get(k, 0) for k in keys)

    return Tally(add(_PASSED), add(_FAILED), add(_SKIPPED), no_tests=said_none)


def _node_id(rest: str) -> str | None:
    """The node id at the start of `path::test[param] - message`. A parameter may hold
    ` - ` and `]` itself, so the id ends at the first `]` followed by ` - ` or the end."""
    dash = rest.find(" - ")
    head = rest if dash < 0 else rest[:dash]
    bracket = head.find("[")
    if bracket >= 0:
        for close in re.finditer(r"\]", rest[bracket:]):
            end = bracket + close.end()
            if end == len(rest) or rest.startswith(" - ", end):
                head = rest[:end]
                break
    head = head.strip()
    if not head or not ("::" in head or "/" in head or re.search(r"\.\w+$", head)):
        return None  # not a node id: a log line that happens to start with ERROR
    return short_id(head)


# pytest's report sections (`==== FAILURES ====` ... ) hold the tests' tracebacks and captured
# output: text the code under test writes. A `FAILED tests/x.py::test_decoy` or a closing line
# printed there is not pytest's: decoy failing ids, a new one each attempt, would hide a
# failing set that never moves from the run monitor, and a planted `=== 9 passed ===` would
# count tests that never ran. Such a section ends where pytest's own lines resume: its short
# test summary, a new session, or a closing line that is the session's last rule (a closing
# line the code printed is followed by pytest's own rules).
_RULE = re.compile(r"([=_-])\1{2,} (.*?) \1{2,}")
_REPORTS = frozenset(("FAILURES", "ERRORS", "PASSES"))
_RESUME = frozenset(("short test summary info", "test session starts"))


def _rule(line: str) -> str | None:
    if not line.startswith("==") or len(line) > _LONGEST:
        return None
    match = _RULE.fullmatch(line)
    return match.group(2) if match else None


def _pytest_own(lines: Sequence[str]) -> list[str]:
    """The lines pytest wrote itself: all but those in a report section (see above)."""
    rules = [(i, title) for i, line in enumerate(lines) if (title := _rule(line)) is not None]
    after = {i: (rules[n + 1][1] if n + 1 < len(rules) else None) for n, (i, _) in enumerate(rules)}
    own: list[str] = []
    inside = False
    for i, line in enumerate(lines):
        title = _rule(line)
        if title in _REPORTS:
            inside = True
        elif inside and title is not None:
            closing = _TIME.fullmatch(title) is not None and after[i] in (
                None,
                "test session starts",
            )
            inside = not (title in _RESUME or closing)
        if not inside:
            own.append(line)
    return own


def _pytest_failing(lines: Sequence[str]) -> list[str]:
    failing = []
    for line in lines:
        if len(line) > MAX_LINE or ("FAILED" not in line and "ERROR" not in line):
            continue
        if (m := _SHORT.fullmatch(line)) or (m := _XDIST_VERBOSE.fullmatch(line)):
            found = _node_id(m.group(m.lastindex or 1))
        elif (m := _VERBOSE.fullmatch(line)) is not None:
            found = _node_id(m.group(1))
        else:
            continue
        if found is not None:
            failing.append(found)
    return failing


def _pytest_progress(lines: Sequence[str]) -> Tally | None:
    """Counts from the progress letters, for -qq (which prints no closing line)."""
    letters = "".join(
        m.group(1)
        for line in lines
        if line.endswith("]") and len(line) < _LONGEST and (m := _PROGRESS.fullmatch(line))
    )
    if not letters:
        return None
    return Tally(
        letters.count(".") + letters.count("X"),
        letters.count("F") + letters.count("E"),
        letters.count("s") + letters.count("x"),
    )


def parse_pytest(out: Output) -> Tally | None:
    lines = _pytest_own(out.lines)
    summaries = [t for line in lines if (t := _pytest_summary(line)) is not None]
    tally = (one_session if out.direct else total)(summaries) or _pytest_progress(lines)
    if tally is None and out.direct and out.exit_code == 5:
        tally = Tally(no_tests=True)  # "no tests collected", even with -qq's silence
    if tally is None:
        return None
    tally.failing = _pytest_failing(lines)
    return tally


# --- unittest ---

_RAN = re.compile(r"Ran (\d{1,9}) tests? in \d+(?:\.\d+)?s")
_STATUS = re.compile(r"(OK|FAILED|NO TESTS RAN)(?: \(([a-z =,\d]*)\))?")
_HEADER = re.compile(r"(?:FAIL|ERROR|UNEXPECTED SUCCESS): (\w+) \(([\w.]*)\)(.*)")
_FIXTURES = ("setUpClass", "tearDownClass", "setUpModule", "tearDownModule")
_LOADER = ("unittest.loader._FailedTest", "unittest.loader.ModuleImportFailure")


def _unittest_session(lines: Sequence[str], at: int, ran: int) -> Tally | None:
    """The session whose `Ran N tests` is at `lines[at]`, read from the status after it:
    `OK`, `OK (skipped=1)`, `FAILED (failures=2, errors=1, expected failures=1)`."""
    for line in lines[at + 1 : at + 4]:
        if (status := _STATUS.fullmatch(line)) is None:
            continue
        found: dict[str, int] = {}
        for part in (status.group(2) or "").split(","):
            key, _, value = part.strip().partition("=")
            if value.isdigit():
                found[key] = int(value)
        failed = found.get("failures", 0) + found.get("errors", 0)
        failed += found.get("unexpected successes", 0)
        skipped = found.get("skipped", 0) + found.get("expected failures", 0)
        # may be negative (a setUpClass error is reported, its tests are not run): the
        # caller corrects it by what the output shows, then clamps it
        passed = ran - skipped - failed
        return Tally(passed, failed, skipped, [], status.group(1) == "NO TESTS RAN")
    return None


def _unittest_id(name: str, where: str) -> str:
    """`test_x (mod.Class.test_x)` (3.11+) and `test_x (mod.Class)` both give mod.Class.test_x;
    a module that failed to import gives its name."""
    if where.startswith(_LOADER):
        return name
    return short_id(where if where.endswith("." + name) else f"{where}.{name}")


def parse_unittest(out: Output) -> Tally | None:
    sessions = []
    for i, line in enumerate(out.lines):
        if line.startswith("Ran ") and (ran := _RAN.fullmatch(line)) is not None:
            session = _unittest_session(out.lines, i, int(ran.group(1)))
            if session is not None:
                sessions.append(session)
    if out.direct and len(sessions) > 1:
        sessions = [one_session(sessions) or Tally()]
    if not sessions:
        if out.direct and out.exit_code == 5:  # 3.12+: no tests ran
            return Tally(no_tests=True)
        return None
    headers = [
        (m.group(1), m.group(2))
        for x in out.lines
        if x.startswith(("FAIL: ", "ERROR: ", "UNEXPECTED SUCCESS: "))
        and (m := _HEADER.fullmatch(x))
    ]
    if len(sessions) == 1 and sessions[0].passed is not None:
        sessions[0].passed = _unittest_passed(out.lines, headers, sessions[0].passed)
    for session in sessions:
        session.passed = None if session.passed is None else max(0, session.passed)
    tally = total(sessions) or Tally()
    tally.failing = [_unittest_id(name, where) for name, where in headers]
    return tally


def _unittest_passed(lines: Sequence[str], headers: list[tuple[str, str]], reported: int) -> int:
    """Passing tests: the reported count less the failing tests, corrected by what the
    output shows. A setUpClass error or a second failing subtest of one test is reported as
    a failure but is no extra test; -v names every pass (`... ok`). Every correction is seen,
    so the count stays a lower bound (3.12 leaves skipped tests out of `Ran N`, so there it is
    low by the skipped tests unless -v shows them)."""
    fixtures = sum(1 for name, _ in headers if name in _FIXTURES)
    tests = [_unittest_id(n, w) for n, w in headers if n not in _FIXTURES]
    repeats = len(tests) - len(set(tests))
    shown_ok = sum(1 for line in lines if line.endswith(" ... ok"))
    return max(reported + fixtures + repeats, shown_ok)
