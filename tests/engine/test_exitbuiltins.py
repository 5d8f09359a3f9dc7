"""interlock.engine.exitbuiltins: what `trap`, saved statuses and their numbers do to the
exit-status flow (issue 14). A claim about a whole line is also run in bash with a failing
`pytest`."""

from __future__ import annotations

import pytest

from interlock.engine.exitbuiltins import TrapSpec, trap_spec
from interlock.engine.exitflow import TOO_MANY, Masking, validator_masking
from interlock.shell.parse import parse


def maskings(text: str) -> list[Masking | None]:
    found = validator_masking(parse(text), lambda inv: inv.name == "pytest")
    return [masking for _, masking in found]


def spec(line: str) -> TrapSpec | None:
    """The trap spec of `trap ARGS` as the flow reads it from the parsed line."""
    root = parse(f"trap {line}").root
    assert root is not None
    return trap_spec(root.words[1:])  # type: ignore[attr-defined]


def test_a_trap_reset_names_its_signals_and_no_body():
    assert spec("- EXIT") == TrapSpec(None, ("EXIT",))
    assert spec("- ERR EXIT") == TrapSpec(None, ("ERR", "EXIT"))
    assert spec("EXIT") == TrapSpec(None, ("EXIT",))  # one operand: a reset too
    assert spec("-- - EXIT") == TrapSpec(None, ("EXIT",))


def test_a_trap_names_each_signal_once_and_drops_those_that_never_fire_on_a_finished_line():
    assert spec("'exit 0' EXIT 0 SIGEXIT") == TrapSpec("exit 0", ("EXIT",))
    assert spec("'exit 0' INT TERM") == TrapSpec("exit 0", ())
    assert spec("'exit 0' int err") == TrapSpec("exit 0", ("ERR",))


def test_listing_the_traps_sets_none_whatever_follows():
    assert spec("-p EXIT") is None
    assert spec("-l") is None
    assert spec("") is None


FORGED_IN_BASH = [
    # `trap -p EXIT` only prints the trap: the `exit 0` set before still ends the shell
    ("trap 'exit 0' EXIT; trap -p EXIT; pytest", "a `trap 'exit 0' EXIT` exits with 0"),
    # 256 wraps to 0: `exit 256` is `exit 0` (the walker cannot put the number in place of
    # `$rc` here, so the flow's own saved value decides)
    ("pytest; rc=$?; [ -d / ] && rc=256; exit $rc", "a later `; exit $rc` sets the exit status"),
]


@pytest.mark.parametrize(("line", "reason"), FORGED_IN_BASH)
def test_a_trap_or_a_number_that_forges_success_is_named_and_bash_agrees(line, reason, bash_status):
    assert maskings(line) == [Masking(reason, forged=True)]
    assert bash_status(line) == 0


UNMASKED_IN_BASH = [
    "pytest; rc=$?; [ -d / ] && rc=255; exit $rc",  # 255, the largest status, stays a failure
    "pytest; rc=$?; [ -d / ] && rc=257; exit $rc",  # 257 wraps to 1
]


@pytest.mark.parametrize("line", UNMASKED_IN_BASH)
def test_a_saved_number_keeps_the_failure_as_bash_does(line, bash_status):
    assert maskings(line) == [None]
    assert bash_status(line) != 0


def _paths(count: int) -> str:
    """`[ ] || [ ] || ...`: n tests give n + 1 ways through the chain."""
    return " || ".join(f"[ -f p{count}_{k} ]" for k in range(count - 1))


def test_assigning_an_untracked_variable_reads_no_unknown_status():
    # 64 paths fill the budget exactly: an assignment that forgets a name must not double it
    line = f"{_paths(8)}; {_paths(8)}; x=$HOME; y=${{PATH}}; pytest"
    assert maskings(line) == [None]
    assert maskings(f"{_paths(5)}; {_paths(13)}; pytest") == [Masking(TOO_MANY, forged=False)]
