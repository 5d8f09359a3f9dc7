"""What a validator run showed: tests ran, passed, failed, skipped, which ones failed, and
whether it ran nothing at all, read from the tail of its output.

`parse_outcome(tool, text, exit_code)` reads the output of pytest, unittest (and Django's
runner), go test (plain, -v, -json), cargo test, jest, vitest and mocha. `tool` is the name
the validator classifier reports (`pytest`, `go test`, `npm test`, `make`...). A runner named
directly is read in its own format only; a wrapper (`npm test`, `make test`, `tox`, a declared
script) is read in every format, since the runner it starts is not known, and the sessions
found are added up (a monorepo's jest per package, tox's environments). Other output gives
`parsed=False`: only the exit status is known.

Ambiguities resolved here, for whoever judges green:
- `ran` is `passed + failed`; skips, xfails and todos are not runs. A run of only skipped or
  expected-failing tests has `ran == 0` and `no_tests=True`, whatever the exit status.
- `no_tests` is also set when the runner says so (pytest exit 5 or "no tests ran", unittest
  "NO TESTS RAN", go "[no tests to run]" on every package, "0 passing", "No tests found"),
  including under `--passWithNoTests` where the exit status is 0.
- go test without -v never prints passing tests: `ran`, `passed` and `skipped` are None
  while `no_tests` is False when a package reported `ok` with tests. The same holds when a
  long -v/-json output was cut at the head (text of TAIL_BYTES): what was cut is unknown.
- `failing` lists what the output names, which a cut head can make shorter than `failed`.
  An error outside any test (a collection error, a suite that failed to load, a go package
  that failed to build) is counted in `failed` and named by its file or package.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from interlock.run.runners import javascript, native, python
from interlock.run.runners.tally import Output, Parser, Tally, clean_lines, total

# The tail of the output a run keeps for this module; text this long was cut at the head.
TAIL_BYTES = 256 * 1024
# At most this many failing ids are kept (sorted, so the same ones each time).
MAX_FAILING = 200

_FAMILIES: dict[str, Parser] = {
    "pytest": python.parse_pytest,
    "unittest": python.parse_unittest,
    "go": native.parse_go,
    "cargo": native.parse_cargo,
    "jest": javascript.parse_jest,
    "vitest": javascript.parse_vitest,
    "mocha": javascript.parse_mocha,
}
# Tool names (as the classifier reports them) that are a runner itself.
_DIRECT = {
    "pytest": "pytest",
    "py.test": "pytest",
    "unittest": "unittest",
    "django test": "unittest",
    "setup.py test": "unittest",
    "go test": "go",
    "cargo test": "cargo",
    "cargo t": "cargo",
    "cargo llvm-cov": "cargo",
    "cargo tarpaulin": "cargo",
    "cargo miri": "cargo",
    "jest": "jest",
    "vitest": "vitest",
    "mocha": "mocha",
}


@dataclass(frozen=True)
class Outcome:
    """What one validator run showed, e.g. `Outcome(ran=4, passed=3, failed=1, skipped=0,
    failing=("tests/test_a.py::test_b",), no_tests=False, parsed=True)` for pytest's
    `1 failed, 3 passed`. None: the output does not say."""

    ran: int | None  # tests that ran (passed + failed + errors), None when unknown
    passed: int | None
    failed: int | None  # failures + errors
    skipped: int | None
    failing: tuple[str, ...]  # ids of failing tests, sorted, deduplicated, bounded
    no_tests: bool  # nothing ran, whatever the exit status
    parsed: bool  # False: only the exit status is known (unknown runner or format)

    def to_json(self) -> dict[str, object]:
        return {
            "ran": self.ran,
            "passed": self.passed,
            "failed": self.failed,
            "skipped": self.skipped,
            "failing": list(self.failing),
            "no_tests": self.no_tests,
            "parsed": self.parsed,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> Outcome:
        """The inverse of to_json. A missing or mistyped field (a journal row written by
        another version) reads as unknown, never as a count it does not hold."""
        failing = data.get("failing")
        ids = tuple(x for x in failing if isinstance(x, str)) if isinstance(failing, list) else ()
        return cls(
            ran=_count(data.get("ran")),
            passed=_count(data.get("passed")),
            failed=_count(data.get("failed")),
            skipped=_count(data.get("skipped")),
            failing=ids,
            no_tests=data.get("no_tests") is True,
            parsed=data.get("parsed") is True,
        )

    def describe(self) -> str:
        """A short phrase for a message: `214 passed`, `2 failed, 40 passed, 3 skipped`,
        `no tests ran`, `exit status only`."""
        if not self.parsed:
            return "exit status only"
        if self.no_tests:
            return "no tests ran"
        words = [
            f"{n} {w}"
            for n, w in (
                (self.failed, "failed"),
                (self.passed, "passed"),
                (self.skipped, "skipped"),
            )
            if n
        ]
        return ", ".join(words) if words else "tests ran (count unknown)"


def _count(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value


UNKNOWN = Outcome(None, None, None, None, (), False, False)


def parse_outcome(tool: str, text: str, exit_code: int) -> Outcome:
    """Read the tail of a validator's output (`text`, combined stdout and stderr, possibly cut
    at the head, with colour and `\\r` progress) into an Outcome. Never raises."""
    cut = len(text.encode("utf-8", "replace")) >= TAIL_BYTES - 4096
    lines = clean_lines(text[-TAIL_BYTES:])
    family = _DIRECT.get(" ".join(tool.split()))
    if family is not None:
        tally = _FAMILIES[family](Output(lines, exit_code, True, cut))
    else:
        seen = Output(lines, exit_code, False, cut)
        tally = total([t for parse in _FAMILIES.values() if (t := parse(seen)) is not None])
    return UNKNOWN if tally is None else _outcome(tally)


def _outcome(tally: Tally) -> Outcome:
    passed, failed = tally.passed, tally.failed
    ran = None if passed is None or failed is None else passed + failed
    failing = tuple(sorted(set(tally.failing)))[:MAX_FAILING]
    no_tests = ran == 0 if ran is not None else tally.no_tests
    return Outcome(ran, passed, failed, tally.skipped, failing, no_tests, True)


__all__ = ["MAX_FAILING", "TAIL_BYTES", "UNKNOWN", "Outcome", "clean_lines", "parse_outcome"]
