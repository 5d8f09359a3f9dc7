"""Runs: which run a command belongs to, the config frozen at the baseline, nested wrappers,
a wrapper killed mid-command, and the commands a person uses to start, end and read runs."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

WRAPPER = Path(__file__).resolve().parents[2] / "shell" / "interlock-sh"


def test_deleting_the_config_mid_run_does_not_lower_the_mode(project, wrap, set_mode, git):
    set_mode(project, "blocking", git)
    (project / "README.md").write_text("a person's change, from before the run\n")
    assert wrap(project, "-c", "true").returncode == 0  # the run starts: mode frozen
    (project / ".interlock.toml").unlink()  # e.g. through the agent's own file-edit tool
    got = wrap(project, "-c", "git checkout -- README.md")
    assert got.returncode == 126  # advisory, the default without the file, would only warn
    assert got.stderr.startswith(b"interlock: [discard] refused: git checkout -- README.md")
    assert (project / "README.md").read_text() == "a person's change, from before the run\n"


def test_editing_the_config_mid_run_changes_nothing_until_a_person_starts_a_run(
    project, wrap, set_mode, git, interlock
):
    set_mode(project, "blocking", git)
    assert wrap(project, "-c", "true").returncode == 0
    (project / ".interlock.toml").write_text('mode = "off"\n')
    got = wrap(project, "-c", "pytest || true")
    assert got.returncode == 126 and b"[masked-validator] refused" in got.stderr
    started = interlock(project, "run", "start", "--json")
    assert started.returncode == 0, started.stderr
    assert json.loads(started.stdout)["config"]["mode"] == "off"
    got = wrap(project, "-c", "pytest --version || true")
    assert got.returncode == 0


def test_config_show_and_doctor_name_the_values_a_live_run_keeps(
    project, wrap, set_mode, git, interlock
):
    set_mode(project, "blocking", git)
    assert wrap(project, "-c", "true").returncode == 0  # the run starts: mode frozen
    shown = interlock(project, "config", "show")
    assert "note: the live run" not in shown.stdout  # the file and the run agree
    (project / ".interlock.toml").write_text('mode = "advisory"\nmax_turns = 0\n')
    shown = interlock(project, "config", "show")
    assert shown.stdout.splitlines()[0].split() == ["mode", "advisory", "(.interlock.toml)"]
    note = shown.stdout.splitlines()[-1]
    assert note.startswith("note: the live run r-") and "its baseline" in note
    assert '(mode = "blocking", max_turns = 200)' in note  # the file's unbounded is not in force
    as_json = json.loads(interlock(project, "config", "show", "--json").stdout)
    assert as_json["live_runs_frozen"] == [note]
    doctor = json.loads(interlock(project, "doctor", "--json").stdout)["checks"]
    assert {"name": "live run", "status": "note", "detail": note.removeprefix("note: "),
            "fix": ""} in doctor
    assert interlock(project, "run", "end").returncode == 0
    assert "note: the live run" not in interlock(project, "config", "show").stdout


def test_a_wrapper_killed_mid_command_leaves_an_unresolved_attempt(
    project, interlock, journal_view
):
    pidfile = project / "child.pid"
    proc = subprocess.Popen(
        [str(WRAPPER), "-c", f"echo $$ > {pidfile}; exec sleep 60"],
        cwd=project,
        env={**os.environ, "INTERLOCK_NO_DAEMON": "1"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    child = None
    try:
        deadline = time.monotonic() + 60
        while (
            not (pidfile.exists() and pidfile.read_text().strip()) and time.monotonic() < deadline
        ):
            time.sleep(0.02)
        child = int(pidfile.read_text())
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        _, [attempt] = journal_view(project)
        assert attempt.completion is None and attempt.state == "unresolved"
        log = interlock(project, "log")
        [line] = [ln for ln in log.stdout.splitlines() if ln.startswith(f"#{attempt.id} ")]
        assert "unresolved" in line and "1 unresolved attempt" in log.stdout
        status = interlock(project, "status", "--json")
        assert [a["id"] for a in json.loads(status.stdout)["unresolved"]] == [attempt.id]
    finally:
        if child is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(child, signal.SIGKILL)


def test_a_nested_wrapper_is_judged_and_journaled_as_part_of_the_outer_command(
    project, wrap, set_mode, git, journal_view
):
    set_mode(project, "blocking", git)
    (project / "calc.py").write_text("def add(a, b):\n    return 1  # before the run\n")
    got = wrap(
        project,
        "-c",
        f"{WRAPPER} -c 'echo inner' && {WRAPPER} -c 'git checkout -- calc.py'; echo outer $?",
        env={"SHELL": str(WRAPPER)},
    )
    assert got.returncode == 0
    assert got.stdout == b"inner\nouter 126\n"
    assert b"[discard] refused: git checkout -- calc.py" in got.stderr
    runs, attempts = journal_view(project)
    outer, inner_ok, inner_refused = attempts
    assert len(runs) == 1 and {a.run for a in attempts} == {runs[0].id}
    assert outer.parent is None and inner_ok.parent == outer.id == inner_refused.parent
    assert inner_refused.verdict == "block" and inner_refused.completion.status == "refused"
    assert outer.completion.exit == 0


def test_one_agent_process_is_one_run_and_a_new_agent_starts_another(project, wrap, journal_view):
    for _ in range(2):
        assert wrap(project, "-c", "true").returncode == 0
    script = f"{WRAPPER} -c true; {WRAPPER} -c true"
    for _ in range(2):  # two agents, each a `sh` running two commands... sh is skipped: both
        subprocess.run(
            ["python3", "-c", f"import os; os.system({script!r})"], cwd=project, check=True
        )
    runs, attempts = journal_view(project)
    assert len(runs) == 3
    by_run: dict[str, int] = {}
    for attempt in attempts:
        by_run[attempt.run] = by_run.get(attempt.run, 0) + 1
    assert sorted(by_run.values()) == [2, 2, 2]
    ended = [r for r in runs if r.ended is not None]
    assert {r.end_reason for r in ended} == {"its agent process exited"}


def test_interlock_run_start_pins_a_run_every_command_joins(project, wrap, interlock, journal_view):
    assert wrap(project, "-c", "true").returncode == 0
    started = interlock(project, "run", "start", "--id", "task-7")
    assert started.returncode == 0, started.stderr
    assert "run task-7 started" in started.stdout
    subprocess.run(["python3", "-c", f"import os; os.system('{WRAPPER} -c true')"], cwd=project)
    assert wrap(project, "-c", "true").returncode == 0
    runs, attempts = journal_view(project)
    task = next(r for r in runs if r.id == "task-7")
    assert task.pinned and task.is_open
    assert [a.run for a in attempts][-2:] == ["task-7", "task-7"]
    assert all(not r.is_open for r in runs if r.id != "task-7")


def test_a_person_only_command_is_refused_from_inside_a_run(project, wrap, interlock):
    for args in ("run start", "run end", "run reconcile 1 --landed"):
        got = wrap(project, "-c", f"{sys.executable} -m interlock {args}")
        assert got.returncode == 1, (args, got.stderr)
        assert b"is for a person, outside the run" in got.stderr


def test_an_ended_run_named_by_interlock_run_is_followed_by_a_successor(
    project, wrap, interlock, journal_view
):
    env = {"INTERLOCK_RUN": "named"}
    assert wrap(project, "-c", "true", env=env).returncode == 0
    assert interlock(project, "run", "end").returncode == 0
    assert wrap(project, "-c", "true", env=env).returncode == 0
    runs, attempts = journal_view(project)
    assert [a.run for a in attempts] == ["named", "named.2"]


def test_a_run_started_beside_a_live_one_never_gets_laxer_rules(project, wrap, set_mode, git):
    set_mode(project, "blocking", git)
    assert wrap(project, "-c", "true", env={"INTERLOCK_RUN": "first"}).returncode == 0
    (project / ".interlock.toml").write_text('mode = "advisory"\n')  # edited mid-run
    got = wrap(project, "-c", "pytest || true", env={"INTERLOCK_RUN": "second"})
    assert got.returncode == 126  # the new run took the live run's blocking mode
    assert b"[masked-validator] refused" in got.stderr


def test_status_and_runs_name_an_oddly_named_agent_by_its_command_line(
    project, interlock, tmp_path
):
    # An agent program started from memory has a kernel name like `memfd:sealed-91`; here a
    # copy of sh named binary_backend renames itself so, then runs a command as an agent would.
    agent = tmp_path / "line_io_tools" / "binary_backend"
    agent.parent.mkdir()
    agent.write_bytes(Path("/bin/sh").read_bytes())
    agent.chmod(0o755)
    script = f"printf memfd:sealed-91 > /proc/$$/comm; echo $$; {WRAPPER} -c true; true"
    ran = subprocess.run(
        [str(agent), "-c", script],
        cwd=project,
        capture_output=True,
        text=True,
        env={**os.environ, "INTERLOCK_PYTHON": sys.executable},
        check=True,
    )
    pid = int(ran.stdout.split()[0])
    status = interlock(project, "status")
    assert f"(by binary_backend pid {pid}, started" in status.stdout, status.stdout
    assert "memfd" not in status.stdout
    runs = interlock(project, "runs")
    assert f"binary_backend pid {pid}" in runs.stdout and "memfd" not in runs.stdout
    listed = json.loads(interlock(project, "runs", "--json").stdout)
    assert (listed[0]["agent_name"], listed[0]["agent_pid"]) == ("binary_backend", pid)


@pytest.mark.parametrize(
    ("cmdline", "name"),
    [
        (("line_io_tools/binary_backend", "--uid", "0", "--env", "{}"), "binary_backend"),
        (("node", "/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js"), "claude"),
        (("/usr/local/bin/codex", "exec", "fix it"), "codex"),
        (("python3", "/home/me/agent.py", "--task", "x"), "python3 agent.py"),
        (("/opt/venv/bin/python3.11", "-u", "-m", "minisweagent.run"), "python3.11 -m minisweagent.run"),
        (("python3", "-c", "import loop; loop.main()"), "python3"),
        (("node", "--max-old-space-size=4096", "dist/index.js"), "node index.js"),
    ],
)
def test_an_agent_is_named_by_what_its_command_line_runs(cmdline, name):
    from interlock.run.agentname import name_of

    assert name_of(cmdline) == name
