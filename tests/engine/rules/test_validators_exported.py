"""Variables a line exports before a validator reach it (validators/exported.py): each
command of the line is seen with the variables exported before it added to its own."""

from __future__ import annotations

import pytest

from interlock.engine import walk
from interlock.engine.check import evaluate
from interlock.engine.rules.validators.exported import with_line_environment
from interlock.shell.parse import parse


def environment(line: str) -> list[str]:
    """The assignments the line's last command is seen with, as written."""
    pairs = list(with_line_environment(walk.walk(parse(line))))
    return [w.text for w in pairs[-1][1].assignments]


@pytest.mark.parametrize(
    ("line", "seen"),
    [
        ("export MAKEFLAGS=-i; make test", ["MAKEFLAGS=-i"]),
        ("export A=1; export B=2; env", ["A=1", "B=2"]),
        ("export A=1; A=2 env", ["A=2", "A=1"]),  # its own assignment first: it wins
        ("export B='$X'; env", ["B='$X'"]),
        ('export B="$X"; env', ['B="$X"']),
        ("export 2A=1 _A=2 a-b=3 __=4; env", ["_A=2", "__=4"]),
        ('export "$N"=1; env', []),
        ("export B; env", []),
        ("B=2; export B; env", ["B=2"]),
        ("B=2; export -p; env", []),
        ("declare B=2; env", []),
        ("declare -x B=2 C; env", ["B=2"]),
        ("C=3; declare -x B=2 C; env", ["B=2", "C=3"]),
        ("declare -rx B=2; env", ["B=2"]),
        ("typeset -x B=2; env", ["B=2"]),
        ("local -x B=2; env", ["B=2"]),
        ("readonly -x B=2; env", ["B=2"]),
        ("readonly B=2; env", []),
        ("export B=1; unset B; env", []),
        ("export B=1; unset C; env", ["B=1"]),
        ("export unset=1 B=2; unset B; env", ["unset=1"]),  # the command word is no argument
        ("A=1; set -a; B=2; env", ["B=2"]),
        ("set -ea; B=2; env", ["B=2"]),
        ("set -e; B=2; env", []),
        ("set a; B=2; env", []),
        ("set -a; B=2; set +a; C=3; env", ["B=2"]),
        ("set -o allexport; B=2; env", ["B=2"]),
        ("set -o pipefail; B=2; env", []),
        ("set -o allexport +o pipefail; B=2; env", ["B=2"]),  # each -o names its own option
        ("set -a; set x bar; B=2; env", ["B=2"]),  # positional parameters are no options
        ("set -o; B=2; env", []),
        ("set -a; B=1; set +o allexport; C=2; env", ["B=1"]),
        ("set -a; 2B=1; env", []),
        ("MAKEFLAGS=-i; make test", []),
        ("make test", []),
    ],
)
def test_a_command_sees_what_the_line_exported_before_it(line: str, seen: list[str]) -> None:
    assert environment(line) == seen


def test_each_command_is_paired_with_itself() -> None:
    pairs = list(with_line_environment(walk.walk(parse("export A=1; env; B=2 env"))))
    assert [[w.text for w in inv.argv] for inv, _ in pairs] == [["export", "A=1"], ["env"], ["env"]]
    assert [[w.text for w in seen.assignments] for _, seen in pairs] == [
        [],
        ["A=1"],
        ["B=2", "A=1"],
    ]


@pytest.mark.parametrize(
    ("line", "rule"),
    [
        ("export MAKEFLAGS=-i; make test", "validator.ignore-failures"),
        ("set -o allexport; MAKEFLAGS=-i; make test", "validator.ignore-failures"),
        ("declare -x UPDATE_GOLDEN=1 && go test ./...", "validator.regenerated"),
        ("set -a; PYTEST_ADDOPTS='-k \"not x\"'; pytest", "validator.negative-selection"),
        ('export PYTEST_ADDOPTS="$X"; pytest', "validator.negative-selection"),
        ('export MAKEFLAGS="$X"; make test', "validator.ignore-failures"),
    ],
)
def test_an_exported_variable_masks_the_validator_after_it(line: str, rule: str) -> None:
    result = evaluate(line, "/", mode="blocking", assume_dirty=True).result
    assert rule in {f.rule for f in result.findings}, result.to_json()


@pytest.mark.parametrize(
    "line",
    [
        "MAKEFLAGS=-i; make test",  # a shell variable: make never sees it
        "make test; export MAKEFLAGS=-i",
        "export MAKEFLAGS=-i; unset MAKEFLAGS; make test",
    ],
)
def test_a_variable_the_validator_does_not_see_does_not_mask_it(line: str) -> None:
    result = evaluate(line, "/", mode="blocking", assume_dirty=True).result
    assert "validator.ignore-failures" not in {f.rule for f in result.findings}, result.to_json()
