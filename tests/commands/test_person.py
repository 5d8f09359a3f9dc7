"""The person check while a run is live (interlock.run.detached): a process that left the
agent's tree on the way (`setsid -f`, a double fork) or sits on a terminal the run holds is
not a person, whatever its environment and terminal say; a person's shell, old or new, in a
terminal the run did not start, still approves, pauses and stops. Real processes: setsid,
script, python's pty module."""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from interlock.procinfo import Link
from interlock.run.detached import _Facts

REFUSED = "an approval must come from a person"
NOT_FOUND = "matches no current finding"  # the check let it through: a person's approval


@pytest.fixture
def live_run(git_repo: Path, interlock) -> Path:
    """A repository with a run a person started (live for half an hour without commands)."""
    got = interlock(git_repo, "run", "start")
    assert got.returncode == 0, got.stderr
    time.sleep(1.0)  # processes started from here on started after the run began
    return git_repo


def _env() -> dict[str, str]:
    keep = ("PATH", "HOME", "INTERLOCK_HOME", "XDG_STATE_HOME", "INTERLOCK_NO_DAEMON")
    return {k: os.environ[k] for k in keep if k in os.environ}


def _interlock_line(args: str, out: Path) -> str:
    return f"{shlex.quote(sys.executable)} -m interlock {args} > {shlex.quote(str(out))} 2>&1"


def _await(path: Path, timeout: float = 60.0) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            time.sleep(0.2)
            return path.read_text()
        time.sleep(0.1)
    raise AssertionError(f"{path} was never written")


def test_a_reparented_approval_with_a_clean_environment_and_a_terminal_is_refused(
    live_run, tmp_path
):
    # the bypass: leave the agent's tree (setsid -f), clear the environment (env -i), and get
    # a terminal (script) - then ask for an approval
    out = tmp_path / "out.txt"
    inner = _interlock_line("approve 0123456789", out)
    env_args = [f"{k}={v}" for k, v in _env().items()]
    subprocess.run(
        ["setsid", "-f", "env", "-i", *env_args, "script", "-qc", inner, "/dev/null"],
        cwd=live_run,
        check=True,
        env=_env(),
    )
    said = _await(out)
    assert REFUSED in said and "while a run is live" in said
    assert "adopted by pid 1" in said and "script" in said


def test_a_detached_stop_is_refused_while_the_run_is_live(live_run, tmp_path):
    out = tmp_path / "out.txt"
    inner = _interlock_line("stop", out)
    subprocess.run(["setsid", "-f", "sh", "-c", inner], cwd=live_run, check=True, env=_env())
    said = _await(out)
    assert "is for a person, outside the run" in said and "adopted by pid 1" in said


def test_a_person_on_a_terminal_opened_after_the_run_began_still_approves(live_run, tmp_path):
    # `script` started by a process older than the run stands for a terminal app opening a
    # new window: the shell in it is new, its terminal is a real pty, and it is a person's
    out = tmp_path / "out.txt"
    inner = _interlock_line("approve 0123456789", out)
    subprocess.run(["script", "-qc", inner, "/dev/null"], cwd=live_run, check=True, env=_env())
    said = _await(out)
    assert NOT_FOUND in said and REFUSED not in said


def test_a_person_can_pause_and_stop_from_a_new_pty_session(live_run, interlock):
    for command in ("pause", "stop"):
        primary, secondary = os.openpty()
        try:
            got = subprocess.run(
                [sys.executable, "-m", "interlock", command],
                cwd=live_run,
                stdin=secondary,
                capture_output=True,
                text=True,
                env=_env(),
                start_new_session=True,
                timeout=60,
            )
        finally:
            os.close(secondary)
            os.close(primary)
        assert got.returncode == 0, got.stderr


HOLDER = """
import os, pty, sys, time
primary, secondary = pty.openpty()
open(sys.argv[1], "w").write(f"{os.ttyname(secondary)} {os.getpid()}")
time.sleep(60)
"""

ON_THAT_TERMINAL = """
import os, subprocess, sys
os.setsid()
fd = os.open(sys.argv[1], os.O_RDWR)  # the first terminal a session leader opens: its own
sys.exit(subprocess.run(sys.argv[2:], stdin=fd).returncode)
"""


def test_a_terminal_whose_master_a_detached_run_process_holds_is_not_a_persons(
    live_run, tmp_path
):
    name = tmp_path / "pty-name"
    subprocess.run(
        ["setsid", "-f", sys.executable, "-c", HOLDER, str(name)], check=True, env=_env()
    )
    pts, holder = _await(name).split()
    got = subprocess.run(
        [sys.executable, "-c", ON_THAT_TERMINAL, pts, sys.executable, "-m", "interlock"]
        + ["approve", "0123456789"],
        cwd=live_run,
        capture_output=True,
        text=True,
        env=_env(),
        timeout=60,
    )
    os.kill(int(holder), signal.SIGTERM)
    said = got.stdout + got.stderr
    assert REFUSED in said and f"its terminal {pts} is held by process {holder}" in said


def test_without_a_live_run_a_detached_process_is_judged_as_before(git_repo, tmp_path):
    out = tmp_path / "out.txt"
    inner = _interlock_line("approve 0123456789", out)
    subprocess.run(
        ["setsid", "-f", "script", "-qc", inner, "/dev/null"], cwd=git_repo, check=True, env=_env()
    )
    assert NOT_FOUND in _await(out)


def _link(pid, ppid, started, name, cgroup="0::/agent.scope"):
    return Link(pid, ppid, started, name, cgroup)


def test_an_adopted_process_in_another_control_group_is_a_persons_session():
    facts = _Facts.__new__(_Facts)
    facts.since, facts.agents, facts.groups = 100.0, {50}, {"0::/agent.scope"}
    # a person's tmux server started after the run: adopted by pid 1, in the person's group
    tmux = [_link(300, 200, 190.0, "bash"), _link(200, 1, 180.0, "tmux: server", "0::/me")]
    assert facts.adopted(tmux) is None
    # the agent's orphan keeps the agent's group
    orphan = [_link(400, 399, 190.0, "sh"), _link(399, 1, 185.0, "script")]
    assert "process 399 (script)" in (facts.adopted(orphan) or "")
    # a subreaper adopts as pid 1 does
    reaped = [_link(500, 7, 190.0, "script"), _link(7, 1, 10.0, "systemd")]
    assert "adopted by systemd (pid 7)" in (facts.adopted(reaped) or "")
    # older than the run: a terminal app, sshd, a tmux server started before it
    assert facts.adopted([_link(600, 1, 90.0, "tmux: server")]) is None


def test_a_terminal_held_by_a_process_the_agent_started_is_the_runs_but_not_the_agents_own():
    facts = _Facts.__new__(_Facts)
    facts.since, facts.agents, facts.groups = 100.0, {50}, None
    started_by_agent = [_link(700, 50, 150.0, "python3"), _link(50, 40, 90.0, "agent-loop")]
    assert facts.descends(started_by_agent) == "it descends from the run's agent (pid 50)"
    # the process the run names as its agent may be a terminal app a person typed into
    assert facts.descends([_link(50, 40, 90.0, "xterm")]) is None
