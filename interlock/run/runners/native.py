"""go test and cargo test output.

go test: `--- PASS/FAIL/SKIP: TestX (0.00s)` (subtests indented, `TestX/sub`), the package
lines (`ok  \tpkg\t0.01s`, `ok ... [no tests to run]`, `FAIL\tpkg\t0.01s`, `FAIL\tpkg [build
failed]`, `?   \tpkg\t[no test files]`), and `-json` events, read through their `Output` text
(which is the -v text). Without -v go prints no passing test, so only failures are counted.
Failing ids are `pkg::TestX`.

cargo test: `test result: ok. 3 passed; 0 failed; 1 ignored; ...` of every test binary
(unit, integration, doc tests) added up, and the failing names (`test a::b ... FAILED`,
`a::b --- FAILED` under -q, the `failures:` list).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from interlock.run.runners.tally import (
    MAX_LINE,
    Output,
    Tally,
    clean_lines,
    short_id,
    unknown_if_cut,
)

# --- go test ---

_GO_TEST = re.compile(r"--- (PASS|FAIL|SKIP): (\S+) \((?:\d+(?:\.\d+)?s|unknown)\)")
_GO_OK = re.compile(r"ok +\t(\S+)\t(?:\d+(?:\.\d+)?s|\(cached\))(.*)")
_GO_FAIL = re.compile(r"FAIL\t(\S+)(?:\t\d+(?:\.\d+)?s| \[[a-z ]+\]|\t\(cached\))?")
_GO_IDLE = re.compile(r"\? +\t(\S+)\t\[no test files\]")
_GO_NOTHING = "testing: warning: no tests to run"


@dataclass
class _GoRun:
    """What go test's lines said so far; `pending`: failed tests not yet given a package."""

    passed: int = 0
    skipped: int = 0
    failed: int = 0
    verbose: bool = False
    ran_packages: int = 0
    packages: int = 0
    pending: list[str] = field(default_factory=list)
    failing: list[str] = field(default_factory=list)

    def close_package(self, package: str, failed: bool) -> None:
        self.packages += 1
        if failed and not self.pending:
            self.failed += 1  # a build or setup failure, a crash outside any test
            self.failing.append(short_id(package))
        self.failing += [short_id(f"{package}::{name}") for name in self.pending]
        self.pending = []


def _go_events(lines: Sequence[str]) -> list[str]:
    """The lines to read: plain lines as they are, and `-json` events replaced by their
    Output text, joined per package (events of several packages may interleave)."""
    plain: list[str] = []
    by_package: dict[str, list[str]] = {}
    for line in lines:
        if line.startswith("{") and '"Action"' in line:
            try:
                event = json.loads(line)
            except (ValueError, RecursionError):  # not JSON after all, or absurdly nested
                event = None
            if isinstance(event, dict):
                text, package = event.get("Output"), event.get("Package")
                if isinstance(text, str):
                    key = package if isinstance(package, str) else ""
                    by_package.setdefault(key, []).append(text)
                continue
        plain.append(line)
    for chunks in by_package.values():
        plain += clean_lines("".join(chunks))
    return plain


_GO_STARTS = ("--- ", "ok ", "FAIL\t", "? ", "=== RUN ", "testing: ")


def _go_line(run: _GoRun, line: str) -> bool:
    """Read one line into `run`; True when it is go test's own."""
    stripped = line.lstrip(" \t")
    if not stripped.startswith(_GO_STARTS):
        return False
    if (test := _GO_TEST.fullmatch(stripped)) is not None:
        word = test.group(1)
        run.verbose = run.verbose or word != "FAIL"
        if word == "PASS":
            run.passed += 1
        elif word == "SKIP":
            run.skipped += 1
        else:
            run.failed += 1
            run.pending.append(test.group(2))
    elif (ok := _GO_OK.fullmatch(line)) is not None:
        run.ran_packages += "[no tests to run]" not in ok.group(2)
        run.close_package(ok.group(1), failed=False)
    elif (fail := _GO_FAIL.fullmatch(line)) is not None:
        run.ran_packages += 1
        run.close_package(fail.group(1), failed=True)
    elif _GO_IDLE.fullmatch(line) is not None:
        run.packages += 1
    elif line.startswith("=== RUN ") or line == _GO_NOTHING:
        run.verbose = True
    else:
        return False
    return True


def parse_go(out: Output) -> Tally | None:
    run = _GoRun()
    seen = False
    for line in _go_events(out.lines):
        if len(line) <= MAX_LINE:
            seen = _go_line(run, line) or seen
    if not seen:
        return None
    run.failing += [short_id(name) for name in run.pending]  # no package line: cut short
    tally = Tally(run.passed, run.failed, run.skipped, run.failing)
    if not run.verbose and (run.ran_packages or run.failed):
        tally.passed = tally.skipped = None  # without -v go names no passing test
    tally.no_tests = run.ran_packages == 0 and run.failed == 0
    return unknown_if_cut(tally, out)


# --- cargo test ---

_CARGO_RESULT = re.compile(
    r"test result: (?:ok|FAILED)\. (\d+) passed; (\d+) failed; (\d+) ignored; (\d+) measured;"
    r" \d+ filtered out(?:; finished in .*)?"
)
_CARGO_FAILED = re.compile(r"test (\S.*) \.\.\. FAILED|(\S.*) --- FAILED")
_PANIC_SUFFIX = re.compile(r" - should panic(?: with .*)?$")


def _cargo_failing(lines: Sequence[str]) -> list[str]:
    failing = []
    listing = False
    for line in lines:
        if listing and line.startswith("    ") and line.strip():
            failing.append(short_id(line))
            continue
        listing = line == "failures:"
        if len(line) <= MAX_LINE and (m := _CARGO_FAILED.fullmatch(line)) is not None:
            name = _PANIC_SUFFIX.sub("", m.group(1) or m.group(2))
            failing.append(short_id(name))
    return failing


def parse_cargo(out: Output) -> Tally | None:
    results = [
        m
        for line in out.lines
        if line.startswith("test result: ") and (m := _CARGO_RESULT.fullmatch(line)) is not None
    ]
    if not results:
        return None
    passed = sum(int(m.group(1)) + int(m.group(4)) for m in results)  # benchmarks measured
    failed = sum(int(m.group(2)) for m in results)
    skipped = sum(int(m.group(3)) for m in results)
    tally = Tally(passed, failed, skipped, _cargo_failing(out.lines))
    return unknown_if_cut(tally, out)
