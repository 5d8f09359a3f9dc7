"""interlock.engine.exitsteps: what simple commands, function calls, scripts handed to a
shell and traps do to a reading of the exit-status flow (issue 14). A claim about a whole line
is also run in bash with a failing `pytest`."""

from __future__ import annotations

from dataclasses import replace

import pytest

from interlock.engine.exitflow import NOT_RUN, Masking, validator_masking
from interlock.engine.walk import trace
from interlock.shell.parse import parse


def maskings(text: str) -> list[Masking | None]:
    found = validator_masking(parse(text), lambda inv: inv.name in ("pytest", "make"))
    return [masking for _, masking in found]


UNMASKED_IN_BASH = [
    # bash gives `$?` and PIPESTATUS back after an ERR trap's body: the line exits with
    # pytest's status, not the trap's (it was called forged and refused)
    "trap 'echo failed' ERR; pytest; exit $?",
    "trap 'true' ERR; pytest; exit $?",
    "trap 'true' ERR; pytest | tee /dev/null; exit ${PIPESTATUS[0]}",
    # a trap whose body is blank runs nothing
    "trap ' ' EXIT; pytest",
    "trap '# nothing' ERR; pytest; exit $?",
    # `set -e` is off only inside a condition: after it, a failure ends the shell again
    "set -e; if true; then :; fi; pytest; echo done",
    "set -e; true && true; pytest; echo done",
    "set -e; while false; do :; done; pytest; echo done",
    # a test that may fail fails with 1, as `[` does: `$?` is then at most 1
    "[ -f x ]; [ $? -le 1 ] || exit 0; pytest",
    "false; [ $? -eq 1 ] || exit 0; pytest",  # `false` fails with 1
    "f() { pytest; local rc=$?; return $rc; }; f",  # `local` keeps the status too
    "f() { pytest; declare rc=$?; return $rc; }; f",
    "f() { pytest; typeset rc=$?; return $rc; }; f",
    "f() { pytest; export rc=$?; return $rc; }; f",
    "f() { pytest; readonly rc=$?; return $rc; }; f",
    # a function named like a builtin is found first, as bash does (it was called forged)
    "true() { false; }; pytest || true",
    ":() { return 3; }; pytest || :",
    "pytest; exit $? 0",  # `exit` reads its first argument
]


@pytest.mark.parametrize("line", UNMASKED_IN_BASH)
def test_a_line_called_unmasked_fails_in_bash_when_pytest_fails(line, bash_status):
    assert maskings(line) == [None]
    assert bash_status(line) != 0


def _calls(depth: int) -> str:
    """`f1` calls `f2` ... calls `f<depth>`, which runs pytest."""
    chain = "; ".join(f"f{k}() {{ f{k + 1}; }}" for k in range(1, depth))
    return f"{chain}; f{depth}() {{ pytest; }}; f1"


def test_function_calls_are_followed_sixteen_deep_and_deeper_is_the_guarded_answer():
    assert maskings(_calls(16)) == [None]
    # past the limit the call is not followed: pytest may not run, never "unmasked"
    assert maskings(_calls(17)) == [Masking(NOT_RUN, forged=False)]


@pytest.mark.parametrize(
    ("via", "program"),
    [
        (("/usr/bin/tmux new-session",), "tmux"),  # named by its path
        (("sudo", "/usr/local/bin/screen -dmS job"), "screen"),  # not the outermost wrapper
        (("at",), "at"),  # a bare name with no arguments
    ],
)
def test_a_validator_run_by_a_detaching_program_is_hidden_however_it_is_named(via, program):
    result = parse("pytest")
    walked = trace(result)
    (step,) = walked.steps.values()
    assert step.invocation is not None
    step.invocation = replace(step.invocation, via=via)
    walked.invocations[0] = step.invocation
    ((_, masking),) = validator_masking(result, lambda inv: inv.name == "pytest", walked)
    reason = f"it runs detached under `{program}`, whose exit status never comes back"
    assert masking == Masking(reason, forged=False)


def test_a_wrapper_whose_name_only_contains_a_detaching_program_is_not_one():
    result = parse("pytest")
    walked = trace(result)
    (step,) = walked.steps.values()
    assert step.invocation is not None
    step.invocation = replace(step.invocation, via=("/opt/tmux/bin/run",))
    walked.invocations[0] = step.invocation
    assert validator_masking(result, lambda inv: inv.name == "pytest", walked) == [
        (step.invocation, None)
    ]


HIDDEN_IN_BASH = [
    ("echo `pytest`", "its output is captured by `$(...)` inside another command"),
    ("diff <(pytest) /dev/null", "it runs in a process substitution"),
    ("cat < <(pytest)", "it runs inside a redirection or heredoc"),
    # a substitution does not inherit `set -e`: the `; echo x` inside it drops the status
    ("set -e; cat < <(pytest; echo x)", "a later `; echo x` sets the exit status"),
]


@pytest.mark.parametrize(("line", "reason"), HIDDEN_IN_BASH)
def test_a_substitution_hides_the_status_and_bash_agrees(line, reason, bash_status):
    assert maskings(line) == [Masking(reason, forged=False)]
    assert bash_status(line) == 0


FORGED_IN_BASH = [
    # hidden in a redirection first: what turns the status into a success still forges it
    "echo $(pytest) || true",
    "cat < <(pytest) || true",
    "cat <<EOF || true\n$(pytest)\nEOF",
]


@pytest.mark.parametrize("line", FORGED_IN_BASH)
def test_a_forge_after_a_redirection_that_hides_the_status_is_named(line, bash_status):
    assert maskings(line) == [Masking("`|| true` swallows its failure", forged=True)]
    assert bash_status(line) == 0


@pytest.mark.parametrize(
    "line", ["builtin trap 'exit 0' EXIT; pytest", "command trap 'exit 0' EXIT; pytest"]
)
def test_a_trap_set_through_builtin_or_command_still_forges_the_exit(line, bash_status):
    assert maskings(line) == [Masking("a `trap 'exit 0' EXIT` exits with 0", forged=True)]
    assert bash_status(line) == 0


def test_continue_skips_the_rest_of_the_loop_body():
    line = "for x in a b; do continue; pytest; done"
    assert maskings(line) == [Masking(NOT_RUN, forged=False)]


def test_the_call_depth_counts_nested_calls_not_calls_made_one_after_another():
    sequential = "h() { :; }; " + "h; " * 17 + "g() { pytest; }; g"
    assert maskings(sequential) == [None]
    # a returned call gives its depth back, no more: the chain past the limit stays guarded
    assert maskings("h() { :; }; h; h; " + _calls(17)) == [Masking(NOT_RUN, forged=False)]


def test_a_test_with_a_stray_closing_bracket_may_go_either_way_as_bash_rejects_it(bash_status):
    # only `[` drops a last `]`: `test 1 -eq 1 ]` has four arguments, and bash fails it
    line = "false; test $? -eq 1 ] || exit 0; pytest"
    assert maskings(line) == [Masking(NOT_RUN, forged=False)]
    assert bash_status(line) == 0
