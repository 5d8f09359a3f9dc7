"""[stall] and [budget] fire exactly as specified and never beyond their ceilings: a stall after
`progress_stall_threshold` barren turns, armed by the first progress event, twice a run at
most, a full threshold between; budget notices at 60% and 85% of max_turns, then the stop at
max_turns with the open objectives; turns a harness counts with `interlock turn`."""

from __future__ import annotations

import json
import sys

import pytest

from interlock.cli import run_cli

MONITOR_TAGS = ("[stall]", "[budget]", "[handoff]", "[stuck]", "[safe-state]")


def _tags(said) -> str:
    """The one monitor tag a turn printed ('' for none)."""
    tags = [t for t in said.tags() if t.removeprefix("interlock: ") in MONITOR_TAGS]
    assert len(tags) <= 1, said.messages
    return tags[0].removeprefix("interlock: ") if tags else ""


def test_stall_and_budget_fire_at_exactly_their_turns_and_no_more(
    agent, project, git, configure, interlock
):
    configure(project, "progress_stall_threshold = 3\nmax_turns = 20\n", git)
    assert interlock(project, "todo", "add", "write notes").returncode == 0
    assert interlock(project, "todo", "add", "write more notes").returncode == 0
    script = {
        2: "echo a > notes.txt",  # a first edit: progress, which arms the stall count
        6: f"{sys.executable} -m interlock todo done 1",  # an objective closed: progress
        10: "echo b >> notes.txt",  # the same file again: flat
    }
    seen = {}
    for turn in range(1, 24):
        said = agent(script.get(turn, "true"))
        seen[turn] = _tags(said)
        if turn == 20:
            assert "max_turns (20) reached" in said.messages
            assert "#2 write more notes" in said.messages and "#1 write notes" not in said.messages
    fired = {turn: tag for turn, tag in seen.items() if tag}
    assert fired == {
        5: "[stall]",  # turns 3, 4, 5 barren after the edit at 2
        9: "[stall]",  # 7, 8, 9 barren after the objective closed at 6: the second and last
        12: "[budget]",  # 60% of 20
        17: "[budget]",  # 85% (ceil 17)
        20: "[handoff]",  # max_turns: the run stops
        21: "[handoff]",  # advisory mode: three one-line reminders, then silence
        22: "[handoff]",
        23: "[handoff]",
    }


def test_no_stall_before_the_first_progress_event(agent, project, git, configure):
    configure(project, "progress_stall_threshold = 2\nmax_turns = 0\n", git)
    assert [_tags(agent("true")) for _ in range(6)] == [""] * 6
    assert _tags(agent("echo x > new.txt")) == ""
    assert [_tags(agent("true")) for _ in range(2)] == ["", "[stall]"]


def test_a_new_green_is_progress_and_a_repeated_green_is_not(
    agent, project, git, configure, suite, rewrite, cap_out
):
    configure(project, "progress_stall_threshold = 2\n", git)
    agent("true")
    rewrite(project, "return a * b")
    assert _tags(agent("true")) == ""  # a first edit of calc.py: progress
    assert _tags(agent(suite)) == ""  # green: progress
    assert run_cli(["status", "--json", "--cwd", str(project)]) == 0
    stall = json.loads(cap_out[0].getvalue())["monitor"]["stall"]
    assert stall["last_progress"]["what"].startswith("verification turned green")
    assert [_tags(agent(suite)) for _ in range(2)] == ["", "[stall]"]  # green again: flat


def test_a_budget_of_one_turn_stops_at_once(agent, project, git, configure):
    configure(project, "max_turns = 1\n", git)
    said = agent("true")
    assert _tags(said) == "[handoff]" and "max_turns (1) reached" in said.messages


def test_two_marks_reached_on_one_turn_are_one_notice(agent, project, git, configure):
    configure(project, "max_turns = 3\n", git)
    # 60% of 3 is turn 2 (1.8), 85% is turn 3 (2.55): the stop at 3 comes first
    assert [_tags(agent("true")) for _ in range(3)] == ["", "[budget]", "[handoff]"]


def test_without_a_budget_there_is_no_budget_notice(agent, project, git, configure):
    configure(project, 'max_turns = "unbounded"\n', git)
    assert {_tags(agent("true")) for _ in range(12)} == {""}


@pytest.mark.parametrize("failed", [False, True])
def test_a_harness_counts_its_agents_other_turns(project, interlock, failed, cap_out):
    env = {"INTERLOCK_RUN": "harness"}
    assert interlock(project, "run", "start", "--id", "harness").returncode == 0
    args = ["turn", "--failed"] if failed else ["turn"]
    for _ in range(2):
        got = interlock(project, *args, env=env)
        assert got.returncode == 0, got.stderr
    assert run_cli(["status", "--json", "--cwd", str(project)]) == 0
    monitor = json.loads(cap_out[0].getvalue())["monitor"]
    assert monitor["budget"]["turns"] == 2


def test_a_harness_marks_steps_settings_and_experiments_but_the_agent_cannot(
    project, interlock, wrap
):
    env = {"INTERLOCK_RUN": "marks"}
    assert interlock(project, "run", "start", "--id", "marks").returncode == 0
    got = interlock(
        project, "turn", "--no-count", "--step", "s1", "--set", "repeat_threshold=6",
        "--set", "flat_attempts=x", "--experiment", env=env,
    )
    assert got.returncode == 0
    assert "interlock turn --set: flat_attempts = 'x' is not an integer >= 2" in got.stderr
    inside = wrap(project, f"{sys.executable} -m interlock turn --set repeat_threshold=99", env)
    assert inside.returncode == 1
    assert "--set and --experiment are for the harness" in inside.stderr
    bad = interlock(project, "turn", "--set", "nokey", env=env)
    assert bad.returncode == 1 and "expected KEY=VALUE" in bad.stderr
