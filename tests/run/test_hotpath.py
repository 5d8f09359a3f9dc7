"""The wrapper's warm path: what a command through the warm daemon imports, which replies it
acts on, and one attempt per wrapper even when the daemon answers too late."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from interlock import constants
from interlock.git import require_repo
from interlock.journal import events
from interlock.monitor import desk, state
from interlock.run import gate, link
from interlock.state import file_lock, repo_state_dir

ROOT = Path(__file__).resolve().parents[2]

# What a warm `interlock-sh -c true` may import beyond what `python -I -S -c pass` has loaded:
# the wrapper and its parts, and the minimal client of the hot doors. No os (posix and hotos
# do), json, socket, pathlib, typing, re, enum, subprocess, select (only when a validator's
# output is copied), and no hotlife (only to start or replace a daemon).
WARM_IMPORTS = {
    "__future__",
    "_json",
    "_socket",
    "fcntl",
    "interlock",
    "interlock.constants",
    "interlock.daemon",
    "interlock.daemon.hotclient",
    "interlock.daemon.hotos",
    "interlock.daemon.hotwhere",
    "interlock.run",
    "interlock.run.agent",
    "interlock.run.bashargs",
    "interlock.run.child",
    "interlock.run.link",
    "interlock.run.wrapper",
}

# Runs the wrapper as the installed launcher does (python -I -S, an explicit path), with the
# daemon's deadline for `attempt` set by the test.
PROBE = """
import sys
before = set(sys.modules)
sys.path[:0] = [{root!r}]
from interlock.run import link
link.ATTEMPT_DEADLINE = {deadline!r}
from interlock.run.wrapper import main
code = main({args!r})
print("imported:" + ",".join(sorted(set(sys.modules) - before)), flush=True)
sys.exit(code)
"""


def probe(repo: Path, *args: str, deadline: float = 10.0) -> subprocess.CompletedProcess[str]:
    code = PROBE.format(root=str(ROOT), deadline=deadline, args=list(args))
    return subprocess.run(
        [sys.executable, "-I", "-S", "-c", code], cwd=repo, capture_output=True, text=True
    )


def test_a_warm_command_imports_only_the_wrapper_and_the_minimal_client(
    daemons, git_repo, journal_view, poll
):
    daemons.start(git_repo)
    result = probe(git_repo, "-c", "echo ran")
    assert result.returncode == 0, result.stderr
    ran, imported_line = result.stdout.splitlines()
    assert ran == "ran"
    imported = set(imported_line.removeprefix("imported:").split(","))
    assert imported <= WARM_IMPORTS, imported - WARM_IMPORTS
    # a quiet completion is handed to the daemon, which journals it a moment after the
    # wrapper has exited
    poll(lambda: journal_view(git_repo)[1][0].completion, what="the completion journaled")
    _, [attempt] = journal_view(git_repo)
    assert attempt.data["warm"] is True and attempt.completion is not None


def test_the_wrapper_names_itself_interlock_sh_however_it_was_started(git_repo, wrap):
    module = subprocess.run(
        [sys.executable, "-m", "interlock.run.wrapper", "-c", "cat /proc/$PPID/comm"],
        cwd=git_repo,
        capture_output=True,
        text=True,
    )
    assert module.stdout == "interlock-sh\n", module.stderr
    script = wrap(git_repo, "-c", "cat /proc/$PPID/comm")
    assert script.stdout == b"interlock-sh\n", script.stderr


GOOD = {
    "verdict": "allow",
    "exit_code": 0,
    "messages": "",
    "interpose": False,
    "attempt": 7,
    "run": "r-1",
}


@pytest.mark.parametrize(
    "change",
    [
        {"verdict": "fine"},
        {"verdict": None},
        {"exit_code": 1},
        {"exit_code": "0"},
        {"exit_code": False},
        {"messages": None},
        {"messages": ["a"]},
        {"interpose": "yes"},
        {"attempt": "7"},
        {"attempt": True},
        {"attempt": None},
        {"run": 3},
        {"run": None},
    ],
)
def test_a_begin_reply_that_is_not_a_well_formed_answer_is_judged_inline(change):
    assert link.is_begin_reply(GOOD)
    assert link.is_begin_reply({**GOOD, "attempt": None, "run": None})
    assert not link.is_begin_reply({**GOOD, **change})


def _begin(wt, repo, command, pid=4242, start=99, once=True, door=gate.begin):
    req = {
        "command": command,
        "judge": command,
        "cwd": str(repo),
        "run": None,
        "agent": [os.getpid(), 1, "agent"],
        "parent": None,
        "pid": pid,
        "pid_start": start,
        "once": once,
        "env": {},
    }
    return door(wt, req)


def _attempts(wt):
    return wt.journal.execute("SELECT id, command FROM attempts ORDER BY id").fetchall()


def test_a_wrappers_second_begin_answers_from_its_first_attempt(project, suite_cmd):
    wt = link.inline_worktree(str(project))
    try:
        first = _begin(wt, project, f"{suite_cmd} | tail -3")
        again = _begin(wt, project, f"{suite_cmd} | tail -3")
        assert again == first
        assert "[masked-validator]" in first["messages"] and first["verdict"] == "warn"
        assert len(_attempts(wt)) == 1
        other = _begin(wt, project, "true", pid=4243)  # another wrapper: another attempt
        assert other["attempt"] != first["attempt"]
        reused = _begin(wt, project, "true", pid=4242)  # same pid, other command: not it
        assert reused["attempt"] not in (first["attempt"], other["attempt"])
    finally:
        wt.journal.close()
    noted = list(events(require_repo(project), kind=gate.AGAIN_EVENT))
    assert [e.data["attempt"] for e in noted] == [first["attempt"]]


def test_an_agents_hook_events_journal_every_run_of_the_same_command(project):
    # an adapter's request names the agent's pid, not a wrapper's: the same command run twice
    # by the agent is two attempts (the stuck detector counts them), never one
    wt = link.inline_worktree(str(project))
    try:
        first = _begin(wt, project, "git status", once=False)
        second = _begin(wt, project, "git status", once=False)
    finally:
        wt.journal.close()
    assert first["attempt"] != second["attempt"]
    assert not list(events(require_repo(project), kind=gate.AGAIN_EVENT))


def test_a_stopped_runs_refusal_is_one_attempt_when_the_wrapper_asks_twice(project):
    wt = link.inline_worktree(str(project))
    try:
        ran = _begin(wt, project, "true", pid=4240, door=desk.begin)
        state.add_stop(wt.journal, ran["run"], {"kind": "kill", "reason": "a person stopped it"})
        refused = _begin(wt, project, "make", door=desk.begin)
        again = _begin(wt, project, "make", door=desk.begin)
        rows = [row for row in _attempts(wt) if row[1] == "make"]
        hook = _begin(wt, project, "make", pid=os.getpid(), once=False, door=desk.begin)
    finally:
        wt.journal.close()
    assert refused["verdict"] == again["verdict"] == "block"
    assert "[handoff]" in refused["messages"]
    assert refused["attempt"] == again["attempt"] and len(rows) == 1
    assert hook["attempt"] != refused["attempt"]


def _waits_for_lock(pid: int) -> bool:
    """Whether process `pid` waits for a file lock (a `->` line of /proc/locks)."""
    with open("/proc/locks") as handle:
        return any(line.split()[1:2] == ["->"] and str(pid) in line.split() for line in handle)


def test_a_late_daemon_and_the_inline_path_journal_one_attempt(
    daemons, project, journal_view, poll
):
    daemons.start(project)
    loc = require_repo(project)
    with file_lock(repo_state_dir(loc) / constants.RUN_LOCK_FILE):
        # the daemon's begin waits for the run lock; the wrapper gives up after 0.5 s, goes
        # inline and waits for the lock too (so the daemon answers after the wrapper gave up)
        proc = subprocess.Popen(
            [
                sys.executable,
                "-I",
                "-S",
                "-c",
                PROBE.format(root=str(ROOT), deadline=0.5, args=["-c", "echo ran"]),
            ],
            cwd=project,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        poll(lambda: _waits_for_lock(proc.pid), timeout=60, what="the wrapper to go inline")
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0 and out.startswith("ran\n"), err
    poll(lambda: list(events(loc, kind=gate.AGAIN_EVENT)), timeout=60, what="the second begin")
    runs, [attempt] = journal_view(project)
    assert len(runs) == 1
    assert attempt.completion is not None and attempt.completion.exit == 0
    assert attempt.state == "done"
