"""interlock.engine.exitflow: a validator is unmasked exactly when its failure fails the whole line."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interlock.engine.exitflow import NOT_RUN, validator_masking
from interlock.engine.invocation import Invocation
from interlock.shell.parse import parse


def is_validator(inv: Invocation) -> bool:
    return inv.name in ("pytest", "cargo", "npm", "make")


def verdicts(text: str) -> list[str | None]:
    return [reason for _, reason in validator_masking(parse(text), is_validator)]


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
    "for f in a b; do pytest $f; done",
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
    (
        "if pytest; then echo ok; fi",
        "it is an `if` condition, and the branch taken when it fails does not fail",
    ),
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
]


@pytest.mark.parametrize(("text", "reason"), MASKED)
def test_masked_validator_names_the_construct_that_masks_it(text, reason):
    assert verdicts(text) == [reason]


def test_each_validator_of_a_line_gets_its_own_verdict():
    assert verdicts("make build; pytest || true; cargo test") == [
        "a later `; pytest || true` sets the exit status",
        "`|| true` swallows its failure",
        None,
    ]


def test_other_validators_are_assumed_to_pass():
    assert verdicts("pytest && npm test") == [None, None]
    assert verdicts("pytest || npm test") == ["`|| npm test` swallows its failure", NOT_RUN]


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
    assert [reason for _, reason in found] == [
        None,
        "it is not the last command of a pipeline and pipefail is off",
    ]


def test_no_validator_no_verdicts():
    assert verdicts("git status && ls") == []
    assert verdicts("") == []


# -- properties ---------------------------------------------------------------------------

LEAVES = ["pytest", "true", "false", "echo x", "[ -f x ]", "exit 1", "exit 0"]


def lines(depth: int = 3) -> st.SearchStrategy[str]:
    leaf = st.sampled_from(LEAVES)
    if depth == 0:
        return leaf
    inner = lines(depth - 1)
    return st.one_of(
        leaf,
        st.tuples(inner, st.sampled_from([" ; ", " && ", " || ", " | ", " & "]), inner).map(
            "".join
        ),
        inner.map(lambda x: f"( {x} )"),
        inner.map(lambda x: f"{{ {x}; }}"),
        inner.map(lambda x: f"if {x}; then echo y; fi"),
        st.tuples(inner, inner).map(lambda p: f"if {p[0]}; then {p[1]}; else exit 1; fi"),
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


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=80))
def test_validator_masking_never_raises(text):
    verdicts_found = validator_masking(parse(text), lambda inv: True)
    assert all(reason is None or isinstance(reason, str) for _, reason in verdicts_found)


@pytest.mark.slow
@settings(max_examples=4000, deadline=None)
@given(lines(4), st.sampled_from(WRAPPERS))
def test_wrapping_never_unmasks_a_masked_validator_long_run(line, wrapper):
    assert_wrapping_keeps_masks(line, wrapper)
