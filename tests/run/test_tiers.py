"""Verification tiers: one mid-run nudge after three edits with nothing run, and the
end-of-task check (`interlock done`) with its escalation, its budgets and its exit status."""

from __future__ import annotations

import json


def _edit(repo, n, start=0):
    for i in range(start, start + n):
        (repo / f"module_{i}.py").write_text(f"VALUE = {i}\n")


def test_three_edits_with_nothing_run_get_one_nudge_toward_a_fast_check(
    project, wrap, daemons, suite_cmd, poll
):
    daemons.start(project)
    assert wrap(project, "-c", "true").stderr == b""
    _edit(project, 3)
    got = poll(lambda: (r := wrap(project, "-c", "ls >/dev/null")).stderr and r, what="a nudge")
    assert got.stderr.startswith(b"interlock: [verify-before-done] 3 files changed since")
    _edit(project, 3, start=3)
    assert wrap(project, "-c", "true").stderr == b""  # one per streak
    assert wrap(project, "-c", f"{suite_cmd} tests/test_calc.py::test_add").returncode == 0
    _edit(project, 3, start=6)
    again = poll(lambda: (r := wrap(project, "-c", "true")).stderr and r, what="a second nudge")
    assert b"`" in again.stderr and b"test_calc.py::test_add" in again.stderr
    _edit(project, 3, start=9)
    wrap(project, "-c", f"{suite_cmd} tests/test_calc.py::test_add")
    _edit(project, 3, start=12)
    wrap(project, "-c", "true")
    assert wrap(project, "-c", "true").stderr == b""  # advisory: a ceiling of 2 per run


def test_done_says_verified_green_only_when_a_green_holds_the_tree_now(
    project, wrap, interlock, suite_cmd
):
    wrap(project, "-c", suite_cmd)
    done = interlock(project, "done", env={"INTERLOCK_RUN": ""})
    assert done.returncode == 0
    assert done.stderr.startswith("interlock: [green] tree verified green: snapshot ")
    (project / "calc.py").write_text("def add(a, b):\n    return a + b  # changed\n")
    after_edit = interlock(project, "done", "--json")
    data = json.loads(after_edit.stdout)
    assert data["verified_green"] is False and after_edit.returncode == 0
    assert "nothing verified this tree" in data["messages"][0]


def test_done_escalates_when_only_fast_checks_passed_and_fails_in_blocking_mode(
    project, wrap, interlock, suite_cmd, git
):
    (project / ".interlock.toml").write_text('verification_tiers = "blocking"\n')
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "tiers blocking")
    (project / "calc.py").write_text("def add(a, b):\n    return b + a\n")
    wrap(project, "-c", f"{suite_cmd} tests/test_calc.py::test_add")
    done = interlock(project, "done")
    assert done.returncode == 126
    assert "only fast checks passed on this tree" in done.stderr
    assert "run the project's full test suite" in done.stderr  # no full run seen yet
    wrap(project, "-c", suite_cmd)
    assert interlock(project, "done").returncode == 0


def test_the_end_of_task_messages_keep_to_their_budget(project, wrap, interlock):
    wrap(project, "-c", "true")
    lines = [interlock(project, "done").stderr.strip() for _ in range(4)]
    full = [ln for ln in lines if "nothing verified this tree" in ln]
    assert len(full) == 2  # advisory: 2 unverified messages a run, then a short line
    assert lines[-1] == "interlock: [verify-before-done] not verified green"
