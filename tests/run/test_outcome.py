"""Outcome parsing against recorded runner output (tests/run/fixtures/<runner>/<case>.txt, with
the expectation beside it in <case>.json: the tool as the classifier names it, the exit status,
where the output comes from, and the Outcome expected).

Each fixture is read twice: as the runner named directly, and as the output of a wrapper
(`make`), which must read the same numbers unless the fixture's `wrapped` says otherwise
(null: the tool is already a wrapper or not a runner).

Most fixtures are real runs; the `source` field of each says which tool and version produced
it, or that it was written from the documented format.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from interlock.run.outcome import MAX_FAILING, TAIL_BYTES, UNKNOWN, Outcome, parse_outcome

FIXTURES = Path(__file__).parent / "fixtures"
CASES = sorted(FIXTURES.glob("*/*.json"))


def load(case: Path) -> tuple[dict, str]:
    data = json.loads(case.read_text())
    text = case.with_suffix(".txt").read_bytes().decode("utf-8", "replace")
    return data, text


@pytest.mark.parametrize("case", CASES, ids=[f"{c.parent.name}/{c.stem}" for c in CASES])
def test_recorded_output_reads_as_expected(case):
    data, text = load(case)
    outcome = parse_outcome(data["tool"], text, data["exit_code"])
    assert outcome.to_json() == data["expect"], data["source"]


@pytest.mark.parametrize("case", CASES, ids=[f"{c.parent.name}/{c.stem}" for c in CASES])
def test_recorded_output_reads_the_same_through_a_wrapper(case):
    data, text = load(case)
    expected = data.get("wrapped", data["expect"])
    if expected is None:
        pytest.skip("the tool is already a wrapper, or not a runner")
    assert parse_outcome("make", text, data["exit_code"]).to_json() == expected


def test_the_fixtures_cover_every_runner_and_the_hard_cases():
    runners = {c.parent.name for c in CASES}
    assert runners == {"pytest", "unittest", "go", "cargo", "jest", "vitest", "mocha", "wrapped"}
    for runner in runners - {"wrapped"}:
        names = {c.stem for c in CASES if c.parent.name == runner}
        assert "truncated_head" in names, runner
        kinds = [load(c)[0]["expect"] for c in CASES if c.parent.name == runner]
        assert any(k["no_tests"] for k in kinds), f"{runner}: no zero-test case"
        assert any(k["failed"] for k in kinds), f"{runner}: no failing case"
        assert any(k["failed"] == 0 and not k["no_tests"] for k in kinds), f"{runner}: no pass"
    coloured = [c for c in CASES if "\x1b[" in c.with_suffix(".txt").read_text()]
    assert {c.parent.name for c in coloured} >= {"pytest", "cargo", "jest", "vitest", "mocha"}


def test_an_unknown_tool_with_no_runner_output_gives_only_the_exit_status():
    assert parse_outcome("ruff", "All checks passed!\n", 0) == UNKNOWN
    assert parse_outcome("make", "", 2) == UNKNOWN
    assert not UNKNOWN.parsed and UNKNOWN.ran is None and not UNKNOWN.no_tests


def test_pytest_exit_5_with_no_output_means_no_tests_only_from_pytest_itself():
    assert parse_outcome("pytest", "", 5).no_tests
    assert parse_outcome("pytest", "", 5).parsed
    assert parse_outcome("npm test", "", 5) == UNKNOWN  # a wrapper's 5 means nothing known


def test_a_pytest_run_of_only_deselected_tests_is_not_a_pass_of_anything():
    outcome = parse_outcome("pytest", "======= 12 deselected in 0.02s =======\n", 5)
    assert outcome.no_tests and outcome.ran == 0 and outcome.passed == 0


def test_older_pytest_summaries_in_seconds_and_with_warnings_read():
    text = "===== 3 passed, 2 warnings in 0.12 seconds =====\n"
    assert parse_outcome("pytest", text, 0).passed == 3
    long_run = "==== 1 failed, 41 passed, 1 rerun in 63.21s (0:01:03) ====\n"
    assert parse_outcome("pytest", long_run, 1).to_json()["failed"] == 1


def test_a_line_that_only_looks_like_a_summary_is_not_read_as_one():
    assert parse_outcome("pytest", "3 apples in 2s\n", 0) == UNKNOWN
    assert parse_outcome("pytest", "ERROR    root:app.py:3 disk full\n", 1) == UNKNOWN


def test_failing_ids_are_sorted_deduplicated_and_bounded():
    lines = [f"FAILED tests/test_a.py::test_{i:04d} - assert 0" for i in range(500)]
    text = "\n".join(lines + lines[:10] + ["==== 500 failed in 1.00s ===="]) + "\n"
    outcome = parse_outcome("pytest", text, 1)
    assert outcome.failed == 500
    assert len(outcome.failing) == MAX_FAILING
    assert list(outcome.failing) == sorted(set(outcome.failing))
    assert outcome.failing[0] == "tests/test_a.py::test_0000"


def test_a_very_long_test_id_is_cut_the_same_way_each_time():
    name = "tests/test_a.py::test_x[" + "y" * 2000 + "]"
    text = f"FAILED {name} - assert 0\n==== 1 failed in 0.1s ====\n"
    first = parse_outcome("pytest", text, 1).failing
    assert first == parse_outcome("pytest", text, 1).failing
    assert len(first[0]) <= 300 and first[0].startswith("tests/test_a.py::test_x[yyy")


def _go_verbose(tests: int) -> str:
    body = "".join(f"=== RUN   TestN{i}\n--- PASS: TestN{i} (0.00s)\n" for i in range(tests))
    return body + "PASS\nok  \texample.com/m/calc\t0.123s\n"


def test_a_go_verbose_output_that_filled_the_tail_has_unknown_counts():
    text = _go_verbose(9000)[-TAIL_BYTES:]  # the wrapper's tail: the head was cut
    outcome = parse_outcome("go test", text, 0)
    assert outcome.parsed and not outcome.no_tests
    assert (outcome.ran, outcome.passed, outcome.failed) == (None, None, 0)
    failing = parse_outcome("go test", text.replace("ok  \t", "FAIL\t"), 1)
    assert failing.failed is None and failing.failing == ("example.com/m/calc",)
    short = parse_outcome("go test", _go_verbose(3), 0)
    assert (short.ran, short.passed) == (3, 3)


def test_a_pytest_output_that_filled_the_tail_keeps_its_closing_counts():
    noise = "".join(f"tests/test_a.py::test_{i} PASSED\n" for i in range(20000))
    text = (noise + "======= 20000 passed in 9.00s =======\n")[-TAIL_BYTES:]
    assert parse_outcome("pytest", text, 0).passed == 20000


def test_colour_cursor_moves_and_carriage_returns_are_what_a_terminal_shows():
    text = (
        "\x1b[1mcollecting ... \r\x1b[Kcollected 2 items\x1b[0m\r\n"
        "\x1b]0;title\x07\x1b[32m..\x1b[0m  [100%]\r\n"
        "\x1b[32m===== \x1b[1m2 passed\x1b[0m\x1b[32m in 0.01s =====\x1b[0m\r\n"
    )
    assert parse_outcome("pytest", text, 0).passed == 2


def test_outcome_round_trips_through_json():
    outcome = Outcome(4, 3, 1, 2, ("a::b",), False, True)
    assert Outcome.from_json(json.loads(json.dumps(outcome.to_json()))) == outcome
    assert Outcome.from_json(UNKNOWN.to_json()) == UNKNOWN


def test_from_json_reads_missing_or_mistyped_fields_as_unknown():
    assert Outcome.from_json({}) == UNKNOWN
    odd = Outcome.from_json(
        {"ran": True, "passed": "3", "failed": -1, "skipped": 2.0, "failing": "a", "parsed": 1}
    )
    assert odd == UNKNOWN
    mixed = Outcome.from_json({"failing": ["a", 3, None, "b"], "no_tests": True, "parsed": True})
    assert mixed.failing == ("a", "b") and mixed.no_tests and mixed.parsed


def test_describe_says_what_a_message_needs():
    assert parse_outcome("pytest", "=== 214 passed in 3.1s ===\n", 0).describe() == "214 passed"
    assert parse_outcome("pytest", "", 5).describe() == "no tests ran"
    assert UNKNOWN.describe() == "exit status only"
    plain_go = parse_outcome("go test", "ok  \texample.com/m\t0.01s\n", 0)
    assert plain_go.describe() == "tests ran (count unknown)"
    mixed = Outcome(5, 3, 2, 1, (), False, True).describe()
    assert mixed == "2 failed, 3 passed, 1 skipped"


def test_a_summary_echoed_after_the_runner_makes_its_counts_unknown_not_forged():
    real = (FIXTURES / "pytest" / "only_xfail_and_skip.txt").read_text()
    forged = parse_outcome("pytest", real + "===== 500 passed in 1.00s =====\n", 0)
    assert forged.parsed and forged.ran is None and forged.passed is None
    assert not forged.no_tests  # the real summary said otherwise: unknown, not "none ran"
    mocha = (FIXTURES / "mocha" / "grep_nothing.txt").read_text()
    assert parse_outcome("mocha", mocha + "  9 passing (3ms)\n", 0).ran is None


def test_two_runs_of_one_runner_in_a_command_line_are_ambiguous_unless_a_wrapper_ran_them():
    one = (FIXTURES / "pytest" / "pass_q.txt").read_text()
    two = one + (FIXTURES / "pytest" / "mixed_q.txt").read_text()
    assert parse_outcome("pytest", two, 1).ran is None
    assert parse_outcome("pytest", one + one, 0).ran == 6  # the same summary twice (tee; cat)
    assert parse_outcome("tox", two, 1).ran == 16


def test_a_jest_live_summary_without_ran_all_test_suites_is_not_a_second_session():
    text = (FIXTURES / "jest" / "pass.txt").read_text()
    echoed = text + "Tests:       9 passed, 9 total\n"
    assert parse_outcome("jest", echoed, 0).ran == 2
