"""interlock.engine.exitstate: the values one reading of a line shares with the next. A
reading copies its Shell at every branch and subshell, and the copies share their Status,
Note and Trap objects: they must be values that cannot change under another reading."""

from __future__ import annotations

from dataclasses import FrozenInstanceError

import pytest

from interlock.engine.exitstate import OK, Note, Shell, Status, Trap
from interlock.shell.parse import parse


def test_a_status_fails_by_the_validator_only_when_it_is_non_zero_and_tainted():
    assert Status(1, tainted=True).failed_by_validator is True
    assert Status(2, tainted=True).failed_by_validator is True
    assert Status(1).failed_by_validator is False
    assert Status(0, tainted=True).failed_by_validator is False
    assert OK == Status(0) and not OK.tainted and not OK.failed_by_validator


def test_statuses_notes_and_traps_shared_between_copies_cannot_change():
    trap = Trap(parse("exit 0"), (), "exit 0")
    sh = Shell(last=Status(1, tainted=True), traps={"EXIT": trap})
    copy = sh.copy()
    assert copy.last is sh.last and copy.traps["EXIT"] is trap
    with pytest.raises(FrozenInstanceError):
        copy.last.code = 0  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        Note("`|| true` swallows its failure", forged=True).forged = False  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        trap.text = "true"  # type: ignore[misc]


def test_a_new_shell_has_no_options_set():
    sh = Shell()
    assert (sh.errexit, sh.pipefail, sh.last, sh.background) == (False, False, OK, OK)


def test_a_copy_carries_everything_and_changes_apart_from_the_original():
    trap = Trap(parse("exit 0"), (), "exit 0")
    sh = Shell(True, True, Status(3), [Status(1)], {"rc": Status(1)}, {}, Status(2), {"ERR": trap})
    copy = sh.copy()
    assert copy == sh
    copy.pipestatus.append(OK)
    copy.variables["x"] = OK
    copy.traps.clear()
    assert sh.pipestatus == [Status(1)] and "x" not in sh.variables and sh.traps == {"ERR": trap}


def test_a_subshell_drops_the_traps_and_keeps_set_e_unless_told_not_to():
    trap = Trap(parse("exit 0"), (), "exit 0")
    sh = Shell(errexit=True, traps={"EXIT": trap}, variables={"rc": Status(1)})
    inner = sh.subshell()
    assert inner.errexit is True and inner.traps == {} and inner.variables == sh.variables
    assert sh.traps == {"EXIT": trap}
    assert sh.subshell(errexit=False).errexit is False
    assert Shell(errexit=False).subshell().errexit is False
