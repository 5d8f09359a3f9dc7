"""Pause and stop behave as documented, through the real wrapper: pause keeps new runs from
starting while open runs go on (not a kill switch); stop refuses every further command of
the run, in every mode, writes the handoff, and pauses the worktree; both are a person's."""

from __future__ import annotations

import json
import sys


def test_pause_refuses_only_commands_that_would_start_a_new_run(project, wrap, interlock):
    assert wrap(project, "true", {"INTERLOCK_RUN": "open-one"}).returncode == 0
    paused = interlock(project, "pause")
    assert paused.returncode == 0 and "this is not a kill switch" in paused.stdout
    going = wrap(project, "echo still working", {"INTERLOCK_RUN": "open-one"})
    assert going.returncode == 0 and going.stdout == "still working\n"
    new = wrap(project, "echo hi", {"INTERLOCK_RUN": "another"})
    assert new.returncode == 126 and new.stdout == ""
    assert new.stderr.startswith("interlock: [paused] refused: echo hi")
    assert "wait for a person to run `interlock resume`" in new.stderr
    runs = json.loads(interlock(project, "runs", "--json").stdout)
    assert [r["id"] for r in runs] == ["open-one"]  # no run, no baseline for the refused one
    assert interlock(project, "resume").returncode == 0
    assert wrap(project, "echo hi", {"INTERLOCK_RUN": "another"}).returncode == 0


def test_stop_is_the_kill_switch_for_every_command_of_the_run_even_in_advisory_mode(
    project, wrap, interlock
):
    env = {"INTERLOCK_RUN": "agent-1"}
    assert wrap(project, "echo one > one.txt", env).returncode == 0
    stopped = interlock(project, "stop")
    assert stopped.returncode == 0
    assert "interlock: stopped run agent-1: every further command of it is refused" in stopped.stdout
    assert "paused too" in stopped.stdout
    refused = wrap(project, "echo two > two.txt", env)
    assert refused.returncode == 126 and not (project / "two.txt").exists()
    assert refused.stderr.startswith("interlock: [handoff] refused: echo two > two.txt")
    assert "a person stopped it (interlock stop)" in refused.stderr
    nested = wrap(project, f"INTERLOCK_RUN=agent-1 {sys.executable} -c 'print(1)'", env)
    assert nested.returncode == 126
    new = wrap(project, "true", {"INTERLOCK_RUN": "agent-2"})
    assert new.returncode == 126 and "[paused]" in new.stderr
    handoff = json.loads((project / ".git/interlock/handoff/agent-1.json").read_text())
    assert handoff["kind"] == "kill" and handoff["reason"].startswith("a person stopped it")
    assert handoff["changed_since"]["paths"] == [{"path": "one.txt", "change": "added"}]
    log = interlock(project, "log", "--run", "agent-1").stdout
    assert "block  refused" in log and "[handoff]" in log


def test_stop_of_one_run_leaves_the_others_and_new_runs(project, wrap, interlock):
    for run in ("a", "b"):
        assert wrap(project, "true", {"INTERLOCK_RUN": run}).returncode == 0
    got = interlock(project, "stop", "--run", "a")
    assert got.returncode == 0 and "paused" not in got.stdout
    assert wrap(project, "true", {"INTERLOCK_RUN": "a"}).returncode == 126
    assert wrap(project, "true", {"INTERLOCK_RUN": "b"}).returncode == 0
    assert wrap(project, "true", {"INTERLOCK_RUN": "c"}).returncode == 0
    again = interlock(project, "stop", "--run", "nope")
    assert again.returncode == 1 and "no open run 'nope'" in again.stderr


def test_pause_resume_and_stop_are_refused_from_inside_a_run(project, wrap):
    env = {"INTERLOCK_RUN": "sneaky"}
    for verb in ("resume", "stop"):
        got = wrap(project, f"{sys.executable} -m interlock {verb}", env)
        assert got.returncode == 1, got.stderr
        assert f"`interlock {verb}` is for a person, outside the run" in got.stderr
    assert not (project / ".git" / "interlock" / "paused.json").exists()


def test_pause_and_resume_twice_say_so(project, interlock):
    assert interlock(project, "pause").returncode == 0
    assert "already paused" in interlock(project, "pause").stdout
    assert "resumed" in interlock(project, "resume").stdout
    assert "not paused" in interlock(project, "resume").stdout


def test_status_shows_the_pause(project, interlock):
    assert interlock(project, "pause").returncode == 0
    text = interlock(project, "status").stdout
    assert "paused:   yes" in text and "new runs do not start" in text
