"""The objectives board (`interlock todo`), the handoff on demand (`interlock handoff`), and
what `interlock status` shows of the monitor."""

from __future__ import annotations

import json
import sys

from interlock.cli import run_cli


def _run(cap_out, *args: str) -> tuple[int, str, str]:
    for stream in cap_out:
        stream.truncate(0)
        stream.seek(0)
    code = run_cli(list(args))
    return code, cap_out[0].getvalue(), cap_out[1].getvalue()


def test_objectives_are_added_closed_by_number_or_text_and_listed(project, cap_out):
    cwd = ("--cwd", str(project))
    assert _run(cap_out, "todo", "add", "parse", "RFC 2822", "dates", *cwd)[1] == (
        "interlock: objective #1 added: parse RFC 2822 dates\n"
    )
    assert _run(cap_out, "todo", "add", "write the changelog", *cwd)[0] == 0
    assert _run(cap_out, "todo", "done", "write the", *cwd)[1] == (
        "interlock: objective #2 done: write the changelog (1 open)\n"
    )
    assert "already done" in _run(cap_out, "todo", "done", "2", *cwd)[1]
    code, out, _ = _run(cap_out, "todo", "list", "--json", *cwd)
    assert code == 0 and [i["text"] for i in json.loads(out)] == ["parse RFC 2822 dates"]
    items = json.loads(_run(cap_out, "todo", "list", "--all", "--json", *cwd)[1])
    assert [(i["id"], i["done"] is not None, i["person"]) for i in items] == [
        (1, False, True),
        (2, True, True),
    ]
    assert "#1   open" in _run(cap_out, "todo", "list", *cwd)[1]


def test_bad_objectives_are_clear_errors(project, cap_out):
    cwd = ("--cwd", str(project))
    assert _run(cap_out, "todo", "add", "  ", *cwd)[0] == 1
    assert _run(cap_out, "todo", "add", "x" * 501, *cwd)[0] == 1
    code, _, err = _run(cap_out, "todo", "done", "7", *cwd)
    assert code == 1 and "no open objective '7'" in err
    _run(cap_out, "todo", "add", "fix a", *cwd)
    _run(cap_out, "todo", "add", "fix b", *cwd)
    code, _, err = _run(cap_out, "todo", "done", "fix", *cwd)
    assert code == 1 and "names several objectives" in err


def test_a_damaged_board_is_named_and_kept(project, cap_out):
    board = project / ".git" / "interlock" / "todo.json"
    board.parent.mkdir(parents=True, exist_ok=True)
    board.write_text("{not json")
    code, _, err = _run(cap_out, "todo", "list", "--cwd", str(project))
    assert code == 1 and "cannot be read" in err and "mv " in err
    assert board.read_text() == "{not json"


def test_objectives_added_inside_a_run_are_the_agents(project, wrap):
    command = f"{sys.executable} -m interlock todo add --json from the agent"
    item = json.loads(wrap(project, command, {"INTERLOCK_RUN": "r1"}).stdout)
    assert item["person"] is False and item["run"] == "r1"


def test_a_handoff_on_demand_is_written_for_a_run_still_going(agent, project, suite, cap_out):
    agent("true")
    (project / "notes.md").write_text("draft\n")
    agent(suite)
    code, out, err = _run(cap_out, "handoff", "--cwd", str(project))
    assert code == 0
    assert out.startswith("# Handoff: run t-run\n") and "## Why this handoff" in out
    assert "- added: notes.md" in out and "tests/test_calc.py::test_mul" in out
    assert "interlock: [handoff] written to" in err
    data = json.loads(_run(cap_out, "handoff", "--json", "--cwd", str(project))[1])
    assert data["kind"] == "asked" and data["run"] == "t-run"
    assert data["failing"]["now"] == ["tests/test_calc.py::test_mul"]
    assert (project / ".git/interlock/handoff/t-run.md").exists()
    code, _, err = _run(cap_out, "handoff", "--run", "nope", "--cwd", str(project))
    assert code == 1 and "no run 'nope'" in err


def test_status_shows_the_failing_set_for_how_long_and_the_counters(
    agent, project, suite, git, configure, cap_out
):
    configure(project, "progress_stall_threshold = 4\nmax_turns = 50\n", git)
    agent("true")
    agent(suite)
    data = json.loads(_run(cap_out, "status", "--json", "--cwd", str(project))[1])["monitor"]
    assert data["state"] == "running" and data["records"] == 1
    assert data["failing"]["tests"] == ["tests/test_calc.py::test_mul"]
    assert data["failing"]["for_seconds"] >= 0 and data["failing"]["attempts"] == 1
    assert data["budget"] == {"turns": 2, "max_turns": 50, "notices": []}
    assert data["stall"]["threshold"] == 4 and data["stall"]["armed"] is False
    assert data["safe_state"] == {"mode": "advisory", "streak": 1, "notices": 0, "ceiling": 2}
    text = _run(cap_out, "status", "--cwd", str(project))[1]
    assert "monitor:  running (0 of 3 material attempts" in text
    assert "failing:  1 test(s) for " in text and "tests/test_calc.py::test_mul" in text
    assert "turns:    2 of 50 (budget notices: none yet)" in text
    assert "stall:    not armed yet" in text
