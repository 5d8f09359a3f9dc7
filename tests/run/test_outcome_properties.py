"""Properties of outcome parsing: it never raises on any text, for any tool and exit status;
what it returns is always coherent; and adversarial text costs no more than normal text."""

from __future__ import annotations

import time
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from interlock.run.outcome import MAX_FAILING, TAIL_BYTES, Outcome, parse_outcome

FIXTURES = Path(__file__).parent / "fixtures"
TEXTS = [p.read_bytes().decode("utf-8", "replace") for p in sorted(FIXTURES.glob("*/*.txt"))]
TOOLS = [
    "pytest",
    "unittest",
    "django test",
    "go test",
    "cargo test",
    "jest",
    "vitest",
    "mocha",
    "npm test",
    "make",
    "tox",
    "declared",
    "",
]
# Pieces of every format, so generated text reaches deep into each parser.
PIECES = [
    "=== 1 failed, 2 passed, 1 skipped in 0.1s ===",
    "no tests ran in 0.01s",
    "..FEsxX  [100%]",
    "FAILED tests/a.py::t[x - ]y] - boom",
    "ERROR tests/b.py",
    "[gw0] [ 50%] FAILED a.py::t",
    "Ran 3 tests in 0.001s",
    "OK (skipped=1, expected failures=2)",
    "FAILED (failures=1, errors=2)",
    "NO TESTS RAN",
    "FAIL: test_x (m.C.test_x) (i=1)",
    "ERROR: setUpClass (m.C)",
    " ... ok",
    "=== RUN   TestX",
    "--- FAIL: TestX/sub (0.00s)",
    "    --- PASS: TestX/a (0.00s)",
    "ok  \texample.com/m\t0.01s [no tests to run]",
    "FAIL\texample.com/m [build failed]",
    "?   \texample.com/n\t[no test files]",
    '{"Action":"output","Package":"p","Output":"--- FAIL: TestY (0.00s)\\n"}',
    '{"Action":"output","Output":[[[',
    "test result: FAILED. 1 passed; 2 failed; 0 ignored; 0 measured; 0 filtered out",
    "test a::b ... FAILED",
    "failures:",
    "    a::b",
    "Tests:       1 failed, 1 todo, 3 passed, 5 total",
    "FAIL src/a.test.js",
    "  ● Suite › name",
    "  ● Test suite failed to run",
    "No tests found, exiting with code 1",
    " RUN  v1.2.3 /x",
    "      Tests  1 failed | 3 passed (4)",
    " FAIL  src/a.test.ts > s > t",
    " FAIL  src/b.test.ts [ src/b.test.ts ]",
    "Errors  2 errors",
    "No test files found, exiting with code 1",
    "  3 passing (12ms)",
    "  1 failing",
    "  2 pending",
    "  1) Suite",
    "       name:",
    "Error: No test files found",
    "\x1b[31m",
    "\x1bP",
    "\r",
    "",
]

lines = st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=40)), max_size=40)


def assert_coherent(outcome: Outcome) -> None:
    assert isinstance(outcome, Outcome)
    for count in (outcome.ran, outcome.passed, outcome.failed, outcome.skipped):
        assert count is None or count >= 0
    if None not in (outcome.ran, outcome.passed, outcome.failed):
        assert outcome.ran == outcome.passed + outcome.failed
    assert list(outcome.failing) == sorted(set(outcome.failing))
    assert len(outcome.failing) <= MAX_FAILING
    if outcome.no_tests:
        assert outcome.ran in (0, None) and outcome.parsed
    if not outcome.parsed:
        assert outcome.to_json() == Outcome.from_json({}).to_json()
    assert Outcome.from_json(outcome.to_json()) == outcome


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(TOOLS) | st.text(max_size=12), lines, st.integers(-300, 300))
def test_parsing_never_raises_and_is_coherent_on_runner_like_text(tool, pieces, exit_code):
    for sep in ("\n", "\r\n", "\r"):
        assert_coherent(parse_outcome(tool, sep.join(pieces), exit_code))


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(TOOLS), st.text(), st.integers(-300, 300))
def test_parsing_never_raises_on_any_text(tool, text, exit_code):
    assert_coherent(parse_outcome(tool, text, exit_code))


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(TEXTS), st.floats(0, 1), st.sampled_from(TOOLS), st.integers(0, 255))
def test_recorded_output_cut_anywhere_at_the_head_still_reads_coherently(
    text, where, tool, exit_code
):
    assert_coherent(parse_outcome(tool, text[int(len(text) * where) :], exit_code))


def test_adversarial_text_filling_the_tail_parses_quickly():
    long_line = 16000
    shapes = [
        "=" * long_line,
        "FAILED a::b[" + "]x" * long_line,
        "FAIL " + "a " * long_line,
        "a" + "::" * long_line,
        "x" + " in 1" * long_line,
        "  1) " + "x: " * long_line,
        "--- FAIL: " + "x" * long_line + " (0.1",
        '{"Action":' + "[" * long_line,
        "\x1b[" + "1;" * long_line,
        "Tests: " + "1 passed, " * long_line,
    ]
    for shape in shapes:
        text = "\n".join([shape[:long_line]] * (TAIL_BYTES // long_line))
        for tool in ("make", "pytest", "go test", "jest"):
            started = time.perf_counter()
            assert_coherent(parse_outcome(tool, text, 1))
            assert time.perf_counter() - started < 2.0, (shape[:20], tool)
