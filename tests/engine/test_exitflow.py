"""interlock.engine.exitflow: a validator is unmasked exactly when its failure fails the whole line."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interlock.engine.exitflow import NOT_RUN, TOO_MANY, Masking, validator_masking
from interlock.engine.invocation import Invocation
from interlock.shell.parse import parse


def is_validator(inv: Invocation) -> bool:
    return inv.name in ("pytest", "cargo", "npm", "make")


def maskings(text: str) -> list[Masking | None]:
    return [masking for _, masking in validator_masking(parse(text), is_validator)]


def verdicts(text: str) -> list[str | None]:
    return [m.reason if m is not None else None for m in maskings(text)]


def severities(text: str) -> list[str | None]:
    """`forged`, `hidden` or None (unmasked) for each validator of the line."""
    return [None if m is None else "forged" if m.forged else "hidden" for m in maskings(text)]


LOOP = "a loop exits with its last iteration's status, so an earlier failing run is dropped"
IF_NO_ELSE = "it is an `if` condition without `else`: when it fails, nothing fails"

UNMASKED = [
    "pytest",
    "cd pkg && pytest",
    "timeout 600 pytest",
    "pytest -q 2>&1 | tee test.log; exit ${PIPESTATUS[0]}",
    "pytest | tee log; rc=${PIPESTATUS[0]}; echo done; exit $rc",
    "set -o pipefail; pytest | tee test.log",
    "set -eo pipefail; pytest | tee test.log",
    "pytest || (cat log.txt; exit 1)",
    "pytest && echo PASSED",
    "ruff check . && pytest",
    "set +e; pytest",
    "set -e; pytest; echo done",
    "set -euxo pipefail; pytest | tee log; echo done",
    "if pytest; then echo ok; else exit 1; fi",
    "if ! pytest; then exit 1; fi",
    "pytest; rc=$?; echo done; exit $rc",
    "pytest; exit $?",
    "pytest; exit",
    "bash -c 'set -o pipefail; pytest | tee l'",
    "bash -e -c 'pytest; echo done'",
    "bash -o pipefail -c 'pytest | tee l'",
    "sh -c 'pytest'",
    "[ -d tests ] && pytest",
    "test -f setup.py && pytest",
    "x=$(pytest)",
    "out=$(pytest 2>&1)",
    "find tests -name '*.py' -exec pytest {} +",
    "git ls-files | xargs pytest",
    "f() { pytest; }; f",
    "f() { pytest; return $?; }; f",
    "pytest & wait $!",
    "exec pytest; echo after",
    "eval pytest",
    "pytest || exit 1",
    "( pytest )",
    "{ pytest; }",
    "true && pytest",
    "sudo -E timeout 5 nice pytest",
    "uv run pytest",
    "npm test",
    "make test && make lint",
    "until pytest; do exit 1; done",
    "for f in a; do pytest $f; done",
    "for f in a b; do pytest $f || exit 1; done",
    "set -e; for f in tests/*.py; do pytest $f; done",
    "for f in a b; do pytest $f || return 1; done",
    "rc=0; for f in a b; do pytest $f || rc=1; done; exit $rc",
    "failed=0; for f in a b; do pytest $f || failed=1; done; [ $failed -eq 0 ]",
    "for f in a b; do pytest $f || rc=$?; done; exit $rc",
    "trap 'rm -f log' EXIT; pytest",
    "trap 'echo bye' EXIT; pytest | tee log; exit ${PIPESTATUS[0]}",
    "trap 'exit 0' INT; pytest",
    "trap 'exit 0' EXIT; trap - EXIT; pytest",
    "trap 'exit 0' ERR; trap '' ERR; pytest",
    "(trap 'exit 0' EXIT); pytest",
    'trap "rm -f $TMP" EXIT; pytest',
    "trap 'exit $?' EXIT; pytest",
    "pytest 2>/dev/null",
    "pytest > out.log 2>&1",
    "! pytest && exit 1",  # fails whichever way pytest goes: never a false green
    "pytest || { echo failed; exit 1; }",
    "pytest | tee log; [ ${PIPESTATUS[0]} -eq 0 ]",
    "pytest | tee log; test ${PIPESTATUS[0]} = 0",
    "pytest; rc=$?; [ $rc -ne 0 ] && exit 1; echo ok",
    "pytest | tee log; [[ ${PIPESTATUS[0]} == 0 ]]",
    "pytest; if [ $? -ne 0 ]; then exit 1; fi",
]


@pytest.mark.parametrize("text", UNMASKED)
def test_validator_whose_failure_fails_the_line_is_unmasked(text):
    found = verdicts(text)
    assert found
    assert found == [None] * len(found)


MASKED = [
    ("pytest || true", "`|| true` swallows its failure"),
    ("pytest || :", "`|| :` swallows its failure"),
    ("pytest || exit 0", "`|| exit 0` swallows its failure"),
    ("npm test || echo 'tests failed'", "`|| echo 'tests failed'` swallows its failure"),
    ("make test || true", "`|| true` swallows its failure"),
    ("set -e; pytest || true", "`|| true` swallows its failure"),
    ("bash -c 'pytest || true'", "`|| true` swallows its failure"),
    ("pytest; true", "a later `; true` sets the exit status"),
    ("pytest; exit 0", "a later `; exit 0` sets the exit status"),
    ("cargo test 2>/dev/null; echo done", "a later `; echo done` sets the exit status"),
    ("set -o pipefail; pytest | tee l; echo done", "a later `; echo done` sets the exit status"),
    ("pytest\necho done", "a later `; echo done` sets the exit status"),
    ("pytest | tail -20", "it is not the last command of a pipeline and pipefail is off"),
    (
        "pytest 2>&1 | grep -v FAILED",
        "it is not the last command of a pipeline and pipefail is off",
    ),
    ("pytest | tee out.log", "it is not the last command of a pipeline and pipefail is off"),
    ("pytest |& tee out.log", "it is not the last command of a pipeline and pipefail is off"),
    (
        "set -e; pytest | tee out.log",
        "it is not the last command of a pipeline and pipefail is off",
    ),
    (
        "set -o pipefail; set +o pipefail; pytest | tee l",
        "it is not the last command of a pipeline and pipefail is off",
    ),
    ("pytest &", "it runs in the background (`&`)"),
    ("nohup pytest &", "it runs in the background (`&`)"),
    ("sudo -b pytest", "runs in the background (`sudo -b`)"),
    ("! pytest", "it is negated with `!`"),
    ("echo $(pytest)", "its output is captured by `$(...)` inside another command"),
    ("local out=$(pytest)", "its output is captured by `$(...)` inside another command"),
    ("export out=$(pytest)", "its output is captured by `$(...)` inside another command"),
    ("diff <(pytest) expected.txt", "it runs in a process substitution"),
    ("if pytest; then echo ok; fi", IF_NO_ELSE),
    ("while pytest; do :; done", "it is the condition of a `while` loop"),
    ("find . -name '*.py' -exec pytest {} \\;", "find ignores the exit status of `-exec ... ;`"),
    ("watch pytest", "runs under `watch`, which repeats it whatever it returns"),
    (
        "python -c \"import subprocess; subprocess.run(['pytest'])\"",
        "it runs inside inline interpreter code, whose exit status is not followed",
    ),
    ("if [ -f x ]; then pytest; fi", NOT_RUN),
    ("[ -f x ] || pytest", NOT_RUN),
    ("ruff check . || pytest", NOT_RUN),
    ("f() { pytest; }", NOT_RUN),
    ("pytest; [ -f x ]", "a later `; [ -f x ]` sets the exit status"),
    ("pytest; exit $UNKNOWN", "a later `; exit $UNKNOWN` sets the exit status"),
    ("case $x in a) pytest;; esac", NOT_RUN),
    ("git bisect run pytest", "`git bisect run` reads its exit status as good or bad"),
    ("pytest | cat", "it is not the last command of a pipeline and pipefail is off"),
    ("for f in a b; do pytest $f; done", LOOP),
    ("for f in tests/*.py; do pytest $f; done", LOOP),
    ("for f in $(ls tests); do pytest $f; done", LOOP),
    ("for f; do pytest $f; done", LOOP),
    ("for ((i=0; i<3; i++)); do pytest; done", LOOP),
    ("while read f; do pytest $f; done < list.txt", LOOP),
    ("for f in a b; do pytest $f || break; done", "`|| break` swallows its failure"),
    ("for f in a b; do pytest $f; continue; done", "a later `; continue` sets the exit status"),
    ("until pytest; do sleep 1; done", "the `until` loop runs it again until it passes"),
    ("while true; do pytest && break; done", LOOP),
    ("trap 'exit 0' EXIT; pytest", "a `trap 'exit 0' EXIT` exits with 0"),
    ("trap 'exit 0' 0; pytest", "a `trap 'exit 0' EXIT` exits with 0"),
    ("trap 'exit 0' ERR; pytest; echo x", "a `trap 'exit 0' ERR` exits with 0"),
    (
        "trap 'echo failed; exit 0' ERR; set -e; pytest",
        "a `trap 'echo failed; exit 0' ERR` exits with 0",
    ),
    ('trap "exit $OK" EXIT; pytest', "a `trap 'exit $OK' EXIT` exits with 0"),
    ("bash -c \"trap 'exit 0' EXIT; pytest\"", "a `trap 'exit 0' EXIT` exits with 0"),
    ("(trap 'exit 0' EXIT; pytest)", "a `trap 'exit 0' EXIT` exits with 0"),
    (
        "if pytest; then echo ok; else echo bad; fi",
        "the `else` branch taken when it fails succeeds",
    ),
    ("if pytest; then :; elif true; then :; fi", "the `elif` branch taken when it fails succeeds"),
]


@pytest.mark.parametrize(("text", "reason"), MASKED)
def test_masked_validator_names_the_construct_that_masks_it(text, reason):
    assert verdicts(text) == [reason]


FORGED = [
    "pytest || true",
    "pytest || :",
    "pytest || exit 0",
    "npm test || echo 'tests failed'",
    "pytest; exit 0",
    "pytest; true",
    "pytest; echo done; true",
    "pytest | tail -5; exit 0",
    "pytest 2>&1 | tail -20 || true",
    "! pytest",
    "if ! pytest; then echo failed; fi",
    "pytest && echo PASS || echo FAIL",
    "if pytest; then echo ok; else echo bad; fi",
    "trap 'exit 0' EXIT; pytest",
    "trap 'exit 0' EXIT; pytest | tee log",
    "trap 'exit 0' ERR; pytest",
    "bash -c 'pytest || true' | tail",
    "for f in a b; do pytest $f || true; done",
    "pytest; exit $UNKNOWN",
    "echo $(pytest || true)",
]
HIDDEN = [
    "pytest | tail -20",
    "pytest -x 2>&1 | tail -50",
    "pytest | head -100",
    "pytest 2>&1 | grep -E 'passed|failed'",
    "pytest | tee out.log",
    "pytest; echo done",
    "pytest > log 2>&1; cat log",
    'pytest; echo "exit: $?"',
    "pytest &",
    "echo $(pytest)",
    "if pytest; then echo ok; fi",
    "while pytest; do :; done",
    "for f in a b; do pytest $f; done",
    "until pytest; do sleep 1; done",
    "if [ -f x ]; then pytest; fi",
    "[ -f x ] || pytest",
    "watch pytest",
    "find . -name '*.py' -exec pytest {} \\;",
    "pytest; [ -f x ]",
]


@pytest.mark.parametrize("text", FORGED)
def test_a_construct_that_turns_failure_into_success_forges_the_pass(text):
    assert severities(text) == ["forged"]


@pytest.mark.parametrize("text", HIDDEN)
def test_plumbing_that_only_drops_the_status_hides_it(text):
    assert severities(text) == ["hidden"]


def test_a_forging_construct_is_named_even_behind_a_hiding_one():
    assert maskings("pytest | tail -5; exit 0") == [
        Masking("a later `; exit 0` sets the exit status", forged=True)
    ]


def test_a_guard_past_the_first_six_unknowns_still_masks():
    # issue 14: past 2**6 readings further unknowns were taken to succeed, so the guarded
    # `if` (the 17th unknown here) let pytest always run and the line was called unmasked
    many = "; ".join(f"[ -f f{k} ] && echo {k}" for k in range(16))
    assert verdicts(f"{many}; if [ -f x ]; then pytest; fi") == [NOT_RUN]


def test_past_the_reading_budget_the_answer_is_the_guarded_one():
    many = "; ".join(f"[ -f f{k} ] && echo {k}" for k in range(16))
    assert verdicts(f"{many}; pytest") == [TOO_MANY]
    assert severities(f"{many}; pytest") == ["hidden"]
    assert severities(f"{many}; pytest || true") == ["forged"]


def test_a_line_within_the_budget_is_read_exactly():
    few = "; ".join(f"[ -f f{k} ] && echo {k}" for k in range(4))
    assert verdicts(f"{few}; pytest") == [None]
    assert verdicts(f"{few}; if [ -f x ]; then pytest; fi") == [NOT_RUN]


def test_nested_unknowns_are_all_read():
    assert verdicts("if [ -f a ]; then :; else if [ -f b ]; then pytest; fi; exit 1; fi") == [
        NOT_RUN
    ]


def test_each_validator_of_a_line_gets_its_own_verdict():
    assert verdicts("make build; pytest || true; cargo test") == [
        "a later `; pytest || true` sets the exit status",
        "`|| true` swallows its failure",
        None,
    ]


def test_other_validators_are_assumed_to_pass():
    assert verdicts("pytest && npm test") == [None, None]
    assert verdicts("pytest || npm test") == [
        "`|| npm test` runs a validator when it fails: the line has that status",
        NOT_RUN,
    ]


def test_a_retry_by_another_validator_hides_the_first_failure_without_forging_it():
    assert severities("pytest --lf || pytest") == ["hidden", "hidden"]
    assert severities("pytest --lf || pytest || true")[0] == "forged"


def test_a_status_consumed_then_swallowed_is_forged():
    assert severities("pytest; rc=$?; [ $rc -eq 0 ] || echo fail") == ["forged"]
    assert severities("pytest; rc=$?; echo done; exit $rc") == [None]


def test_invocations_returned_are_the_ones_walk_finds():
    from interlock.engine.walk import walk

    result = parse("cd pkg && timeout 60 pytest -q")
    (found,) = validator_masking(result, is_validator)
    assert found[0] == walk(result)[1]
    assert found[0].cwd == "pkg"


def test_a_given_trace_is_reused_so_invocations_are_the_same_objects():
    from interlock.engine.walk import trace

    result = parse("make build && pytest | tee log")
    walked = trace(result)
    found = validator_masking(result, is_validator, walked)
    assert [inv for inv, _ in found] == [walked.invocations[0], walked.invocations[1]]
    assert found[0][0] is walked.invocations[0]
    assert [masking for _, masking in found] == [
        None,
        Masking("it is not the last command of a pipeline and pipefail is off", forged=False),
    ]


def test_a_validator_run_by_a_detaching_program_is_hidden():
    """tmux, screen, at start the command and return: however the walker reaches them
    (an exec wrapper or a script trampoline), the status stays behind."""
    from dataclasses import replace

    from interlock.engine.walk import trace

    result = parse("pytest")
    walked = trace(result)
    (step,) = walked.steps.values()
    assert step.invocation is not None
    step.invocation = replace(step.invocation, via=("tmux new-session",))
    walked.invocations[0] = step.invocation
    ((_, masking),) = validator_masking(result, lambda inv: inv.name == "pytest", walked)
    assert masking == Masking(
        "it runs detached under `tmux`, whose exit status never comes back", forged=False
    )


def test_no_validator_no_verdicts():
    assert verdicts("git status && ls") == []
    assert verdicts("") == []


# -- properties ---------------------------------------------------------------------------

LEAVES = ["pytest", "true", "false", "echo x", "[ -f x ]", "exit 1", "exit 0"]
# Weighted toward the validator, so that many generated lines are called unmasked.
REAL_LEAVES = [
    *LEAVES,
    *["pytest"] * 6,
    "trap 'exit 0' EXIT",
    "trap 'echo t' EXIT",
    "set -e",
    "set -o pipefail",
    "exit $?",
]


def lines(depth: int = 3, leaves: list[str] = LEAVES) -> st.SearchStrategy[str]:
    leaf = st.sampled_from(leaves)
    if depth == 0:
        return leaf
    inner = lines(depth - 1, leaves)
    return st.one_of(
        leaf,
        st.tuples(inner, st.sampled_from([" ; ", " && ", " || ", " | ", " & "]), inner).map(
            "".join
        ),
        inner.map(lambda x: f"( {x} )"),
        inner.map(lambda x: f"{{ {x}; }}"),
        inner.map(lambda x: f"if {x}; then echo y; fi"),
        st.tuples(inner, inner).map(lambda p: f"if {p[0]}; then {p[1]}; else exit 1; fi"),
        inner.map(lambda x: f"for i in 1 2; do {x}; done"),
        inner.map(lambda x: f"while [ -f x ]; do {x}; done"),
    )


WRAPPERS = [
    "true && {}",
    "( {} )",
    "{{ {}; }}",
    "bash -c '{}'",
    "{{ {}; }} | cat",
    "{}; true",
    "{} || true",
    "{} &",
    "echo $( {} )",
    "if {}; then :; fi",
]


def assert_wrapping_keeps_masks(line: str, wrapper: str) -> None:
    before = verdicts(line)
    after = verdicts(wrapper.format(line))
    assert len(before) == len(after)
    for was, now in zip(before, after, strict=True):
        if was is not None:
            assert now is not None, (line, wrapper)


@settings(max_examples=250, deadline=None)
@given(lines(), st.sampled_from(WRAPPERS))
def test_wrapping_never_unmasks_a_masked_validator(line, wrapper):
    assert_wrapping_keeps_masks(line, wrapper)


@settings(max_examples=150, deadline=None)
@given(lines())
def test_set_e_never_masks_an_unmasked_validator(line):
    before = verdicts(line)
    after = verdicts(f"set -e; {line}")
    for was, now in zip(before, after, strict=True):
        if was is None:
            assert now is None, line


@pytest.fixture(scope="module")
def failing_pytest(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """An environment where `pytest` is a program that fails, run in an empty directory."""
    import os

    bin_dir = tmp_path_factory.mktemp("bin")
    exe = bin_dir / "pytest"
    exe.write_text("#!/bin/sh\nexit 1\n")
    exe.chmod(0o755)
    return {"PATH": f"{bin_dir}:{os.environ['PATH']}", "HOME": str(bin_dir)}


@settings(max_examples=300, deadline=None)
@given(lines(3, REAL_LEAVES))
def test_a_line_called_unmasked_really_fails_in_bash_when_its_validator_fails(failing_pytest, line):
    import subprocess

    if "pytest" not in line or any(m is not None for m in maskings(line)):
        return
    cwd = failing_pytest["HOME"]
    proc = subprocess.run(
        ["bash", "-c", line], env=failing_pytest, cwd=cwd, capture_output=True, timeout=10
    )
    assert proc.returncode != 0, line


def assert_wrapping_keeps_forgery(line: str, wrapper: str) -> None:
    before = severities(line)
    after = severities(wrapper.format(line))
    for was, now in zip(before, after, strict=True):
        if was == "forged":
            assert now == "forged", (line, wrapper)


@settings(max_examples=200, deadline=None)
@given(lines(), st.sampled_from(WRAPPERS))
def test_wrapping_a_forged_pass_never_makes_it_only_hidden(line, wrapper):
    assert_wrapping_keeps_forgery(line, wrapper)


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=80))
def test_validator_masking_never_raises(text):
    verdicts_found = validator_masking(parse(text), lambda inv: True)
    assert all(m is None or isinstance(m, Masking) for _, m in verdicts_found)


@pytest.mark.slow
@settings(max_examples=4000, deadline=None)
@given(lines(4), st.sampled_from(WRAPPERS))
def test_wrapping_never_unmasks_a_masked_validator_long_run(line, wrapper):
    assert_wrapping_keeps_masks(line, wrapper)
