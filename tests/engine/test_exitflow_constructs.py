"""interlock.engine.exitflow off the common path: `false`, functions that `exit` or `return`,
saved statuses, `case`, `while`, `eval`, background jobs, recursion, empty scripts, and the
reading budget (issue 14). Each claim that a line is unmasked is also run in bash with a
failing `pytest`, and each deterministic masked line is shown to exit 0 there."""

from __future__ import annotations

import pytest

from interlock.engine.exitflow import MAX_READINGS, NOT_RUN, TOO_MANY, Masking, validator_masking
from interlock.shell.parse import parse


def maskings(text: str) -> list[Masking | None]:
    found = validator_masking(parse(text), lambda inv: inv.name in ("pytest", "make"))
    return [masking for _, masking in found]


UNMASKED_IN_BASH = [
    "pytest; false",  # the line fails either way: no pass can be credited
    "false || pytest",
    "f() { pytest; return; }; f",  # a bare `return` keeps the last status
    "f() { pytest; exit; }; f",
    "f() { pytest; return 0; }; f; exit 1",
    "f() { pytest || return 3; }; f",
    "f() { pytest || exit 4; }; f",
    "pytest; rc=$?; other=$rc; exit $other",  # a copied status is the same status
    "pytest; rc=$?; other=$rc; rc=0; exit $other",  # overwriting the original keeps the copy
    "pytest; rc=$?; true; exit $rc",
    "pytest; rc=$?; [ $rc -eq 0 ] || exit $rc; echo ok",
    "pytest; rc=$?; if [ $rc -ne 0 ]; then exit $rc; fi",
    "while true; do pytest || exit 1; break; done",
    "eval 'set -e'; pytest; echo done",  # eval runs in this shell: its options stay
    "eval 'set -o pipefail'; pytest | tee /dev/null",
    "eval 'rc=0'; pytest; rc=$?; exit $rc",
    "sleep 0 & set -e; pytest; echo done",  # `set -e` after a `&` job is this shell's
    "set -e; sleep 0 & pytest; echo done",
    "set -e; pytest & wait $!; echo done",  # wait hands the job's status back
    'bash -c ""; pytest',
    "set -e; (pytest; echo done)",  # a subshell keeps `set -e`
    "pytest; exit 257",  # 257 mod 256: still a failure
    "pytest; rc=1; exit $rc",  # a number kept under a name
    "set -e; set -- xe; pytest; echo done",  # `xe` is a positional parameter, not `-e` off
    "set -o; pytest",  # `-o` without a name lists the options
    "set -o errexit; pytest; echo done",
    "pytest; rc=$?; export rc; exit $rc",  # `export rc` keeps the value
    "trap 'exit 0' EXIT; trap EXIT; pytest",  # one signal and no body: reset
    "trap; pytest",  # listings
    "trap -p; pytest",
    "trap -p EXIT; pytest",
    'pytest && bash -c ""',
]


@pytest.mark.parametrize("line", UNMASKED_IN_BASH)
def test_a_line_called_unmasked_here_fails_in_bash_when_pytest_fails(line, bash_status):
    assert maskings(line) == [None] * len(maskings(line))
    assert maskings(line)
    assert bash_status(line) != 0


FORGED_IN_BASH = [
    ("f() { pytest; exit 0; }; f", "a later `; exit 0` sets the exit status"),
    ("f() { pytest; return 0; }; f", "a later `; return 0` sets the exit status"),
    ("f() { exit 0; }; pytest; f", "a later `; f` sets the exit status"),
    ("f() { pytest || return 0; }; f", "`|| return 0` swallows its failure"),
    ("f() { pytest || exit 0; }; f", "`|| exit 0` swallows its failure"),
    ("pytest; rc=$?; rc=0; exit $rc", "a later `; exit $rc` sets the exit status"),
    (
        "pytest; case x in x) exit 0;; esac",
        "a later `; case x in x) exit 0;; esac` sets the exit status",
    ),
    ("case x in x) pytest || true;; esac", "`|| true` swallows its failure"),
    ("eval 'pytest || true'", "`|| true` swallows its failure"),
    ("while true; do pytest || break; done", "`|| break` swallows its failure"),
    ("pytest; exit 256", "a later `; exit 256` sets the exit status"),  # bash takes it mod 256
    # two words: the first is the body (the command `EXIT` on ERR), the EXIT trap stays
    ("trap 'exit 0' EXIT; trap EXIT ERR; pytest", "a `trap 'exit 0' EXIT` exits with 0"),
    (
        "pytest; rc=$?; [ $rc = 1 ] && exit 0; exit $rc",
        "a later `; [ $rc = 1 ] && exit 0` sets the exit status",
    ),
    (
        "pytest; rc=$?; [ 1 = $rc ] && exit 0; exit $rc",
        "a later `; [ 1 = $rc ] && exit 0` sets the exit status",
    ),
    # a test that fails has status 1, which the next test reads
    (
        "pytest; [ $? = 0 ]; [ $? = 1 ] && exit 0",
        "a later `; [ $? = 1 ] && exit 0` sets the exit status",
    ),
    ("pytest; rc=256; exit $rc", "a later `; exit $rc` sets the exit status"),
]


@pytest.mark.parametrize(("line", "reason"), FORGED_IN_BASH)
def test_a_construct_that_forges_success_is_named_and_bash_agrees(line, reason, bash_status):
    assert maskings(line) == [Masking(reason, forged=True)]
    assert bash_status(line) == 0


HIDDEN_IN_BASH = [
    ("f() { return 0; }; pytest; f", "a later `; f` sets the exit status"),
    ("while true; do pytest; break; done", "a later `; break` sets the exit status"),
    ("set -e; pytest & echo done", "it runs in the background (`&`)"),
    ('pytest; bash -c ""', 'a later `; bash -c ""` sets the exit status'),
    ("pytest; rc=$?; rc=$(date); echo $rc", "a later `; rc=$?` sets the exit status"),
    ("set -e +e; pytest; echo done", "a later `; echo done` sets the exit status"),
    ("set -e; set +o errexit; pytest; echo done", "a later `; echo done` sets the exit status"),
    # a test of two numbers fails on its own, not by the validator: `|| echo x` forges nothing
    ("pytest; [ 0 -eq 1 ] || echo x", "a later `; [ 0 -eq 1 ] || echo x` sets the exit status"),
    # bash (out of POSIX mode) turns `set -e` off inside `$( )`
    ("set -e; x=$(pytest; echo done)", "a later `; echo done` sets the exit status"),
]


@pytest.mark.parametrize(("line", "reason"), HIDDEN_IN_BASH)
def test_a_construct_that_only_drops_the_status_hides_it_and_bash_agrees(line, reason, bash_status):
    assert maskings(line) == [Masking(reason, forged=False)]
    assert bash_status(line) == 0


def test_a_case_arm_that_exits_before_the_validator_means_it_may_not_run():
    assert maskings("case $x in a) exit 0;; esac; pytest") == [Masking(NOT_RUN, forged=False)]
    assert maskings("case $x in a) pytest;; esac") == [Masking(NOT_RUN, forged=False)]


def test_recursion_gives_up_on_the_function_not_on_the_line():
    # bash itself dies of the recursion (a segfault); the reading must neither raise nor
    # lose the validator after it
    assert maskings("f() { f; }; f; pytest") == [None]
    assert maskings("f() { g; }; g() { f; }; f; pytest") == [None]
    assert maskings("f() { f; pytest; }; f") == [None]


def test_a_while_body_may_never_run():
    assert maskings("while [ -f x ]; do pytest || exit 1; done") == [Masking(NOT_RUN, forged=False)]
    assert maskings("until [ -f x ]; do pytest || exit 1; done") == [Masking(NOT_RUN, forged=False)]


def test_a_saved_status_overwritten_by_an_unknown_value_forges_the_exit():
    assert maskings("pytest; rc=$?; rc=$UNKNOWN; exit $rc") == [
        Masking("a later `; exit $rc` sets the exit status", forged=True)
    ]


def test_an_empty_bash_c_neither_raises_nor_runs_anything():
    assert maskings('bash -c ""') == []
    assert maskings("bash -c ''; sh -c ''; pytest") == [None]


def _paths(count: int) -> str:
    """A chain with `count` ways through it: `[ ] || [ ] || ...` stops at the first test that
    holds, so n tests give n + 1 paths."""
    return " || ".join(f"[ -f p{count}_{k} ]" for k in range(count - 1))


def test_a_line_with_exactly_as_many_paths_as_the_budget_is_read_in_full():
    assert MAX_READINGS == 64
    line = "; ".join(f"[ -f f{k} ] && echo {k}" for k in range(6)) + "; pytest"  # 2**6 paths
    assert maskings(line) == [None]


def test_one_path_more_than_the_budget_is_the_guarded_answer():
    line = f"{_paths(5)}; {_paths(13)}; pytest"  # 5 * 13 = 65 paths
    assert maskings(line) == [Masking(TOO_MANY, forged=False)]
    assert maskings(f"{_paths(8)}; {_paths(8)}; pytest") == [None]  # 64 paths


def test_a_masking_is_a_value_that_can_be_compared_and_hashed():
    [one] = maskings("if [ -f x ]; then pytest; fi")  # made by exitflow, not by the test
    assert one == Masking(NOT_RUN, forged=False)
    assert {one, Masking(NOT_RUN, forged=False)} == {one}
    with pytest.raises(AttributeError):
        one.forged = True  # type: ignore[misc]


def test_a_path_where_the_first_test_holds_and_the_second_fails_is_read():
    # only a=holds, b=fails exits before pytest: the readings must reach (False, True)
    assert maskings("if [ -f a ]; then [ -f b ] || exit 0; fi; pytest") == [
        Masking(NOT_RUN, forged=False)
    ]


def test_a_path_where_two_tests_fail_after_a_first_reading_is_read():
    # only a=fails, b=fails exits: reached from the reading (True) by extending it
    assert maskings("if [ -f a ]; then :; else [ -f b ] || exit 0; fi; pytest") == [
        Masking(NOT_RUN, forged=False)
    ]


UNMASKED_BY_A_TEST_IN_BASH = [
    "pytest; rc=$?; [ 0 -ne $rc ] && exit $rc; echo ok",  # the status on either side
    "pytest; rc=$?; [ $rc -gt 0 ] && exit $rc; echo ok",
    "pytest; rc=$?; [ $rc -ge 1 ] && exit $rc; echo ok",
    "pytest; rc=$?; [ $rc -lt 1 ] || exit $rc; echo ok",
    "pytest; rc=$?; [ $rc -le 0 ] || exit $rc; echo ok",
    "pytest; rc=$?; [ $rc = 01 ] && exit 0; exit $rc",  # `=` compares text: 1 is not 01
    "pytest | tee log; [ 0 -eq ${PIPESTATUS[0]} ]",
    "pytest | tee log; [[ 0 -lt ${PIPESTATUS[0]} ]] && exit 1; true",
]


@pytest.mark.parametrize("line", UNMASKED_BY_A_TEST_IN_BASH)
def test_a_test_of_a_saved_status_on_either_side_is_read_as_bash_reads_it(line, bash_status):
    assert maskings(line) == [None]
    assert bash_status(line) != 0


FORGED_AFTER_PIPESTATUS_IN_BASH = [
    # every command sets PIPESTATUS: after `echo`, `${PIPESTATUS[0]}` is echo's status
    "pytest | tee log; echo done; exit ${PIPESTATUS[0]}",
    "pytest | tee log; ((1)); exit ${PIPESTATUS[0]}",
    "pytest | tee log; [[ 1 ]]; exit ${PIPESTATUS[0]}",
    "pytest | tee log; if true; then :; fi; exit ${PIPESTATUS[0]}",
    "pytest; rc=$?; [ $rc -eq 01 ] && exit 0; exit $rc",  # `-eq` compares numbers: 1 is 01
]


@pytest.mark.parametrize("line", FORGED_AFTER_PIPESTATUS_IN_BASH)
def test_a_status_read_after_another_command_ran_is_forged_and_bash_agrees(line, bash_status):
    [masking] = maskings(line)
    assert masking is not None and masking.forged
    assert bash_status(line) == 0


def test_a_subshell_sets_pipestatus_to_its_own_status():
    assert maskings("pytest | tee log; (true); exit ${PIPESTATUS[0]}") == [
        Masking("a later `; (true)` sets the exit status", forged=True)
    ]
    # `{ }` leaves PIPESTATUS as the last pipeline inside it set it
    assert maskings("{ pytest | tee log; }; exit ${PIPESTATUS[0]}") == [None]


@pytest.mark.parametrize(
    "line",
    [
        "pytest; exit ²",
        "rc=²; pytest; exit $rc",
        "pytest; [ $? -eq ² ] || exit 1",
        "pytest; exit ٣",
    ],
)
def test_digits_bash_does_not_read_as_numbers_are_unknown_not_a_crash(line, bash_status):
    # `str.isdigit` takes `²` and `٣`; bash reads them as text (`exit ²` fails with 2): an
    # unknown status, so the pass is never credited (it raised ValueError)
    [masking] = maskings(line)
    assert masking is not None
    assert bash_status(line) != 0


def test_a_pipestatus_index_past_the_last_pipeline_is_unknown_not_a_crash():
    # after a single command PIPESTATUS has one entry: [1] is unset, never an IndexError
    for line in ("pytest; exit ${PIPESTATUS[1]}", "pytest | tee log; exit ${PIPESTATUS[2]}"):
        [masking] = maskings(line)
        assert masking is not None  # read as an unknown value: never credited
