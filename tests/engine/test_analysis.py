"""engine.analysis: one finding for each reason a command is reached by, and the one that
stands when the same command text is reached twice with different judgements."""

from __future__ import annotations

import pytest

from interlock.engine.analysis import _dedupe
from interlock.engine.check import evaluate
from interlock.engine.findings import Finding, Targets


def found(targets: Targets | None, rule: str = "git.reset-hard", text: str = "x") -> Finding:
    return Finding("discard", rule, text, "why", "instead", targets)


FREE = Targets("tracked", whole_tree=True, tree_saved=True)  # nothing lost by text alone
LOST = Targets("tracked", whole_tree=True)


@pytest.mark.parametrize(
    ("first", "second", "kept"),
    [
        (FREE, LOST, LOST),  # the one that destroys by text alone stands for both
        (LOST, FREE, LOST),
        (FREE, FREE, FREE),
        (LOST, LOST, LOST),
        (None, LOST, None),
        (FREE, None, None),
    ],
)
def test_the_same_command_reached_twice_keeps_the_harsher_finding(first, second, kept):
    assert [f.targets for f in _dedupe([found(first), found(second)])] == [kept]


def test_findings_of_different_commands_or_rules_are_all_kept():
    findings = [found(FREE), found(LOST, text="y"), found(LOST, rule="git.clean")]
    assert _dedupe(findings) == tuple(findings)


@pytest.mark.parametrize(
    ("command", "verdict"),
    [
        # a reset after the line's own commit is saved by it; a second one is not
        ("git commit -am x && git reset --hard HEAD~1 && git reset --hard HEAD~1", "block"),
        ("git commit -am x && git reset --hard HEAD~1", "allow"),
        ("git stash -a && git submodule deinit -f sub", "allow"),  # by text alone
        ("git submodule deinit -f sub", "block"),
    ],
)
def test_by_text_alone(command, verdict):
    assert evaluate(command, "/", mode="blocking", assume_dirty=True).result.verdict == verdict


def test_a_finding_covered_by_a_whole_tree_save_is_free_by_text_alone():
    assert FREE.by_tree_only and not LOST.by_tree_only
