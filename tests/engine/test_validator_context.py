"""Validators judged in their context on the line: variables exported before them, the
containers and pseudo-terminals they run in, project scripts run by name. Whole checks by
text alone, in blocking mode."""

from __future__ import annotations

import pytest

from interlock.engine.check import evaluate
from interlock.engine.walk import walk
from interlock.shell.parse import parse


def judged(command: str) -> tuple[str, set[str]]:
    result = evaluate(command, "/", mode="blocking", assume_dirty=True).result
    return result.verdict, {f.rule for f in result.findings}


@pytest.mark.parametrize(
    ("command", "rule"),
    [
        ("export MAKEFLAGS=-i; make test", "validator.ignore-failures"),
        ("export MAKEFLAGS='-i -j4' && make check", "validator.ignore-failures"),
        ("declare -x UPDATE_GOLDEN=1; go test ./...", "validator.regenerated"),
        ("set -a; INSTA_FORCE_PASS=1; cargo test", "validator.regenerated"),
        (
            "PYTEST_ADDOPTS='-k \"not x\"'; export PYTEST_ADDOPTS; pytest",
            "validator.negative-selection",
        ),
        ("export PYTEST_ADDOPTS=--snapshot-update; cd pkg && pytest", "validator.regenerated"),
    ],
)
def test_variables_exported_earlier_on_the_line_reach_the_validator(command, rule):
    verdict, rules = judged(command)
    assert verdict == "block" and rule in rules, (command, rules)


@pytest.mark.parametrize(
    "command",
    [
        "UPDATE_GOLDEN=1; go test ./...",  # a shell variable: not in go's environment
        "declare UPDATE_GOLDEN=1; go test ./...",
        "export UPDATE_GOLDEN=1; unset UPDATE_GOLDEN; go test ./...",
        "export CI=1 PYTHONPATH=src; pytest -q",
    ],
)
def test_variables_that_do_not_reach_the_validator_change_nothing(command):
    assert judged(command) == ("allow", set())


def test_a_command_in_a_container_runs_from_an_unknown_directory_unless_a_bind_maps_it():
    (inv,) = walk(parse("docker run --rm -w /app -v cache:/app img pytest -x"))
    assert inv.text == "pytest -x" and inv.cwd is None and inv.via == ("docker run",)
    (inv,) = walk(parse("docker run --rm -w /app -v /src:/app img pytest -x"))
    assert inv.text == "pytest -x" and inv.cwd == "/src"  # the bind's host side
    (inv,) = walk(parse("docker compose -f ci.yml run --rm --entrypoint pytest app -q"))
    assert inv.text == "pytest -q" and inv.via == ("docker compose run",)


@pytest.mark.parametrize(
    "command",
    [
        "docker ps",
        "docker build -t x .",
        "docker compose up -d",
        "docker run --rm img",
        "kubectl get pods",
    ],
)
def test_container_commands_that_run_nothing_inside_are_plain(command):
    assert [inv.text for inv in walk(parse(command))] == [command]


@pytest.mark.parametrize(
    ("command", "verdict"),
    [
        ("script -qc 'pytest' /dev/null", "warn"),
        ("script -q -c 'pytest' /dev/null", "warn"),
        ("script --quiet --command pytest /dev/null", "warn"),
        ("script -qec 'pytest' /dev/null", "allow"),
        ("script --return -qc 'pytest' /dev/null", "allow"),
        ("script /dev/null -qc 'pytest'", "warn"),
        ("expect -c 'spawn pytest; expect eof'", "warn"),
        ("expect -c 'spawn pytest; expect eof; exit [lindex [wait] 3]'", "allow"),
    ],
)
def test_pseudo_terminal_wrappers_pass_the_status_only_when_told_to(command, verdict):
    assert judged(command)[0] == verdict, command


@pytest.mark.parametrize(
    ("command", "tier"),
    [("hatch run test", "slow"), ("pdm run lint", "fast"), ("hatch run lint:check", "fast")],
)
def test_project_scripts_run_by_name_are_validators(command, tier):
    result = evaluate(command, "/", mode="blocking", assume_dirty=True).result
    assert [v.tier for v in result.validators] == [tier]


def test_a_project_script_that_is_not_a_check_is_not_a_validator():
    result = evaluate("hatch run serve", "/", mode="blocking", assume_dirty=True).result
    assert result.validators == () and not result.findings
