"""interlock.engine.exiteval: how one reading of the exit-status flow walks the structure of
a line (`;` chains, `&&`/`||`, pipelines, `!`, compounds, `if`/`elif`, `case`, loops) (issue
14). A claim about a whole line is also run in bash with a failing `pytest`."""

from __future__ import annotations

import pytest

from interlock.engine.exiteval import LOOP_NOTE, Evaluator
from interlock.engine.exitflow import NOT_RUN, Masking, validator_masking
from interlock.engine.walk import trace
from interlock.shell.parse import parse


def maskings(text: str) -> list[Masking | None]:
    found = validator_masking(parse(text), lambda inv: inv.name == "pytest")
    return [masking for _, masking in found]


def later(text: str) -> str:
    return f"a later `; {text}` sets the exit status"


FORGED_IN_BASH = [
    # a chain that ends in a command that exists to set the status forges it
    ("pytest; echo x && true", later("echo x && true")),
    ("pytest; { true; }", later("{ true; }")),
    ("pytest; { echo; true; }", later("{ echo; true; }")),
    ("pytest; ( echo; exit 0 )", later("( echo; exit 0 )")),
    ("pytest; command true", later("command true")),  # through a transparent wrapper
    ("pytest; env /bin/true", later("env /bin/true")),
    ("pytest; true $x", later("true $x")),  # an unknown argument of `true` is still `true`
    ("f() { pytest; (return 0); }; f", later("(return 0)")),
    ("if pytest; then :; elif true; then :; fi", "the `elif` branch taken when it fails succeeds"),
    # hidden first (`; break`, `$(...)`): what turns the status into a success still forges
    ("for f in a b; do pytest; break; done || true", "`|| true` swallows its failure"),
    ("for f in $(pytest); do :; done || echo failed", "`|| echo failed` swallows its failure"),
    ("case $(pytest) in *) :;; esac || true", "`|| true` swallows its failure"),
    ("for x in a b; do pytest; continue; done || true", "`|| true` swallows its failure"),
    # a strict reading lets a hidden failure through `if`, a loop or `&`: what turns it into a
    # success afterwards forges it
    ("if pytest; then :; fi || true", "`|| true` swallows its failure"),
    ("while pytest; do :; done || true", "`|| true` swallows its failure"),
    ("pytest & true", later("true")),
    # a simple command sets PIPESTATUS to its own status: here echo's 0, not pytest's 1
    ("pytest | tee /dev/null; echo; exit ${PIPESTATUS[0]}", later("exit ${PIPESTATUS[0]}")),
]


@pytest.mark.parametrize(("line", "reason"), FORGED_IN_BASH)
def test_a_construct_that_forges_success_is_named_and_bash_agrees(line, reason, bash_status):
    assert maskings(line) == [Masking(reason, forged=True)]
    assert bash_status(line) == 0


CAPTURED = "its output is captured by `$(...)` inside another command"
HIDDEN_IN_BASH = [
    # a chain whose last command only happens to succeed hides the status, it does not forge
    ("pytest; true && echo x", later("true && echo x")),
    ("pytest; ( echo )", later("( echo )")),
    ("pytest; echo | cat", later("echo | cat")),
    ("pytest; echo 0", later("echo 0")),  # a `0` argument makes only `exit`/`return` forge
    # `$?` after `&` is 0, whatever the command before the job left
    ("false; pytest & exit $?", "it runs in the background (`&`)"),
    # `exit $?` passes on echo's status: echo hid pytest's, `exit` forged nothing
    ("pytest; echo done; exit $?", later("echo done")),
    # a loop's or a `case`'s words run in a substitution: their status is not the compound's
    ("for f in $(pytest); do :; done", CAPTURED),
    ("case $(pytest) in *) echo;; esac", CAPTURED),
]


@pytest.mark.parametrize(("line", "reason"), HIDDEN_IN_BASH)
def test_a_construct_that_only_drops_the_status_hides_it_and_bash_agrees(line, reason, bash_status):
    assert maskings(line) == [Masking(reason, forged=False)]
    assert bash_status(line) == 0


UNMASKED_IN_BASH = [
    "pytest || ! true",  # `! true` is 1
    "! true; [ $? -eq 1 ] || exit 0; pytest",  # ... exactly 1
    "f() { :; } || exit 0; pytest",  # defining a function succeeds
    "case $x in a) :;; esac || exit 0; pytest",  # a `case` that matches nothing succeeds
    "if [ -f a ]; then exit 1; elif pytest; then :; else exit 1; fi",
    "if false; then :; elif pytest; then echo; else exit 1; fi",
    "select x in a b; do pytest || exit 1; break; done",  # a loop too (1 at end of input)
    "for f in tests; do pytest $f; done",  # one literal word: the body runs once
    "for x in a b; do pytest; rc=$?; break; done; exit $rc",  # `break` ends the loop
    # a loop's later iteration may pass; after the loop the validator fails again
    "f() { pytest; }; for x in a b; do f; done; f",
    "if false; then exit 0; elif true; then pytest; else exit 0; fi",  # the elif's own body
    # a negated pipeline of one command runs in this shell: its options and variables stay
    "! set -o pipefail; pytest | tee /dev/null",
    "! { pytest; rc=$?; }; exit $rc",
]


@pytest.mark.parametrize("line", UNMASKED_IN_BASH)
def test_a_line_called_unmasked_fails_in_bash_when_pytest_fails(line, bash_status):
    assert maskings(line) == [None]
    assert bash_status(line) != 0


def test_a_validator_in_a_case_arm_may_not_run_before_anything_else():
    # no arm is known to match: that it may not run is the reason given, before what the
    # arm does with its status
    assert maskings("case $x in a) pytest | tee l;; esac") == [Masking(NOT_RUN, forged=False)]
    assert maskings("case $x in a) pytest; echo;; esac") == [Masking(NOT_RUN, forged=False)]
    assert maskings("case $x in a) pytest;; b) :;; esac") == [Masking(NOT_RUN, forged=False)]


def test_each_elif_reads_its_own_condition_and_body():
    line = "if [ -f a ]; then :; elif [ -f b ]; then pytest; else pytest; fi"
    assert maskings(line) == [Masking(NOT_RUN, forged=False)] * 2


@pytest.mark.parametrize(
    "line",
    [
        "for f in *.py; do pytest $f; done",  # a glob: maybe many files
        "for f in $FILES; do pytest $f; done",
        'for f in "$@"; do pytest $f; done',
        "for f; do pytest $f; done",  # over "$@"
    ],
)
def test_a_loop_over_one_word_that_may_expand_to_many_may_run_again(line):
    assert maskings(line) == [Masking(LOOP_NOTE, forged=False)]


def test_a_reading_of_an_empty_line_ends_in_success_and_runs_nothing():
    line = parse("pytest")
    walked = trace(line)
    [target] = walked.invocations
    reading = Evaluator(walked.steps, target, [], strict=False)
    reading.start(parse(""))
    assert (reading.final.code, reading.ran, reading.note) == (0, False, None)
