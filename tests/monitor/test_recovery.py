"""One recovery, then stop: what moves the failing set keeps the run going, a second recovery
of a step needs something new, the restore declines rather than break the tree, and a
stuck environment that checks out is a context problem once, then a stop."""

from __future__ import annotations

import json

from interlock.cli import run_cli


def _stuck_three_times(agent, project, rewrite, suite):
    """The red start, then three material rewrites that leave test_mul failing."""
    agent("true")  # the run starts before any edit
    said = None
    for body in ("x = a;return x + b + 2", "t = 0;return t + a + b", "y = b;return a + y - 1"):
        rewrite(project, body)
        said = agent(suite)
    return said


def _status(project, cap_out) -> dict:
    cap_out[0].truncate(0)
    cap_out[0].seek(0)
    assert run_cli(["status", "--json", "--cwd", str(project)]) == 0
    return json.loads(cap_out[0].getvalue())["monitor"]


def test_a_new_approach_that_moves_the_failing_set_keeps_the_run_going(
    agent, project, rewrite, suite, cap_out
):
    said = _stuck_three_times(agent, project, rewrite, suite)
    assert said.tags() == ["interlock: [stuck]"]
    assert _status(project, cap_out)["state"] == "recovering"
    rerun = agent(suite)  # the restored tree, run again: not the new approach yet
    assert rerun.code == 1 and rerun.tags() == []
    rewrite(project, "return a * b")  # the fix
    fixed = agent(suite)
    assert fixed.code == 0
    assert "interlock: [stuck] the new approach moved the failing set (1 -> 0 failing)" in fixed.messages
    assert "[handoff]" not in fixed.messages
    monitor = _status(project, cap_out)
    assert monitor["state"] == "running" and monitor["recoveries"] == 1
    assert agent("true").code == 0


def test_a_new_approach_that_leaves_the_same_set_stops_the_run(agent, project, rewrite, suite):
    _stuck_three_times(agent, project, rewrite, suite)
    rewrite(project, "return a - b")  # test_mul still the one failing test
    flat = agent(suite)
    assert flat.tags() == ["interlock: [handoff]"]
    assert "the run stops here: after one recovery, the new approach left" in flat.messages


def test_a_second_recovery_needs_a_changed_failing_set_or_a_persons_objective(
    agent, project, rewrite, suite, interlock, git
):
    _stuck_three_times(agent, project, rewrite, suite)
    # the one new approach breaks add too: the failing set moved, the run goes on
    (project / "calc.py").write_text("def add(a, b):\n    return 0\n\n\ndef mul(a, b):\n    return 0\n")
    moved = agent(suite)
    assert "moved the failing set (1 -> 2 failing)" in moved.messages
    # back to a flat search on test_mul alone: the set of the first recovery
    said = []
    for body in ("return a + b + 3", "q = a;return q - b", "w = 1;return w + a", "v = 2;return v * 9"):
        rewrite(project, body)
        said.append(agent(suite))
    stops = [s for s in said if "[handoff] the run stops here" in s.messages]
    assert len(stops) == 1
    assert "stuck again on step 'main' with the failing set of its recovery" in stops[0].messages


def test_a_persons_new_objective_allows_a_second_recovery(agent, project, rewrite, suite, interlock):
    _stuck_three_times(agent, project, rewrite, suite)
    (project / "calc.py").write_text("def add(a, b):\n    return 0\n\n\ndef mul(a, b):\n    return 0\n")
    agent(suite)  # moved
    added = interlock(project, "todo", "add", "mul(2, 3) must be 6, not 5: multiply")
    assert added.returncode == 0
    said = []
    for body in ("return a + b + 3", "q = a;return q - b", "w = 1;return w + a"):
        rewrite(project, body)
        said.append(agent(suite))
    assert said[-1].tags() == ["interlock: [stuck]"]
    assert "stepping back once" in said[-1].messages


def test_a_recovery_that_cannot_prove_its_restore_leaves_the_tree_and_asks_all_the_same(
    agent, project, rewrite, suite
):
    agent("true")
    (project / ".git" / "info" / "exclude").write_text("scratch.bin\n")
    (project / "README.md").unlink()
    (project / "README.md").mkdir()  # the baseline's README.md file must come back here...
    (project / "README.md" / "scratch.bin").write_bytes(b"\0" * 64)  # ...over an ignored file
    for body in ("x = a;return x + b + 2", "t = 0;return t + a + b", "y = b;return a + y - 1"):
        rewrite(project, body)
        said = agent(suite)
    assert said.tags() == ["interlock: [stuck]"]
    assert "not restored: the tree was left as it is: cannot restore" in said.messages
    assert "unsaved files are in the way: README.md/scratch.bin" in said.messages
    assert (project / "README.md" / "scratch.bin").exists()
    assert "return a + y - 1" in (project / "calc.py").read_text()


def test_a_stuck_environment_that_checks_out_is_a_context_problem_once_then_a_stop(
    agent, project, suite
):
    agent("true")
    said = [agent(suite) for _ in range(3)]
    assert [s.tags() for s in said[:2]] == [[], []]
    context = said[2].messages
    assert "the world checks out, so it is a context problem" in context
    assert "outside: ok - fails the same way outside interlock" in context
    assert "[handoff]" not in context
    again = [agent(suite) for _ in range(3)]
    assert [s.tags() for s in again[:2]] == [[], []]
    assert again[2].tags() == ["interlock: [stuck]", "interlock: [handoff]"]
    assert "still fails the same way after the context notice" in again[2].messages


def test_a_run_has_three_recoveries_at_most_and_a_step_one_unless_something_changed(project):
    from interlock.git import require_repo
    from interlock.monitor.recovery import may_recover
    from interlock.monitor.state import MonitorState

    loc = require_repo(project)
    done = [{"kind": "search", "step": f"s{i}", "set": ["t"], "time": 0.0} for i in range(3)]
    st = MonitorState(recoveries=done)
    assert not may_recover(loc, st, "s9", ["other"])
    st.recoveries = done[:2]
    assert may_recover(loc, st, "s9", ["other"])
    assert not may_recover(loc, st, "s1", ["t"])  # the same step and set, nothing new
    assert may_recover(loc, st, "s1", ["t", "u"])  # the set changed
    st.recovery = {"kind": "search"}  # one in progress counts too
    assert not may_recover(loc, st, "s9", ["other"])
