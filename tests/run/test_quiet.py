"""One connection per command, and `complete` sent without waiting when it has nothing to say:
what the daemon calls quiet, that a quiet completion is journaled once even after the wrapper
exited, and that everything that may say something (a validator's green line, a side effect,
a monitor limit within reach) is still waited for; and the daemon's pool of journal
connections never writes into a journal file that was set aside."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from interlock.daemon import rundesk
from interlock.git import require_repo
from interlock.journal import journal_path, opened
from interlock.monitor import desk, state
from interlock.run import link

ROOT = Path(__file__).resolve().parents[2]

# The wrapper as the installed launcher runs it, counting its connections and what it sends.
PROBE = """
import sys
sys.path[:0] = [{root!r}]
from interlock.daemon import hotclient
from interlock.run import link
from interlock.run.wrapper import main
link.ATTEMPT_DEADLINE = 120.0  # a loaded machine: the daemon's answer, not the inline path
seen = []
connect, ask, send = hotclient.connect, hotclient.Channel.ask, hotclient.Channel.send
hotclient.connect = lambda *a, **k: seen.append("connect") or connect(*a, **k)
hotclient.Channel.ask = lambda self, op, *a, **k: seen.append("ask " + op) or ask(self, op, *a, **k)
hotclient.Channel.send = lambda self, op, *a: seen.append("send " + op) or send(self, op, *a)
code = main({args!r})
print("seen:" + ",".join(seen), flush=True)
sys.exit(code)
"""


def probe(repo: Path, *args: str, env: dict[str, str] | None = None):
    return subprocess.run(
        [sys.executable, "-I", "-S", "-c", PROBE.format(root=str(ROOT), args=list(args))],
        cwd=repo,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", **(env or {})},
        timeout=120,
    )


def _seen(result: subprocess.CompletedProcess[str]) -> list[str]:
    line = result.stdout.splitlines()[-1]
    assert line.startswith("seen:"), result.stdout
    return line.removeprefix("seen:").split(",")


def _completions(repo: Path) -> list[tuple[int, str, int | None]]:
    with opened(require_repo(repo)) as journal:
        rows = journal.execute("SELECT attempt, status, exit FROM completions ORDER BY attempt")
        return [tuple(r) for r in rows.fetchall()]


def test_a_plain_command_asks_once_and_sends_its_completion_without_waiting(
    daemons, git_repo, poll
):
    daemons.start(git_repo)
    result = probe(git_repo, "-c", "echo ran; exit 3")
    assert result.returncode == 3, result.stderr
    assert _seen(result) == ["connect", "ask attempt", "send complete"]
    poll(lambda: _completions(git_repo), timeout=30, what="the quiet completion")
    [(attempt, status, code)] = _completions(git_repo)
    assert (status, code) == ("exited", 3)


def test_a_quiet_completion_is_journaled_once_after_the_wrapper_has_exited(daemons, git_repo, poll):
    pid = daemons.start(git_repo)
    # the command stops the daemon: the wrapper sends `complete` into the stopped daemon's
    # socket and exits; nothing is journaled until the daemon runs again. SIGSTOP stops a
    # process's threads one by one as each is next scheduled (a loaded machine leaves a
    # window in which one of them still serves a connection): wait until all have stopped.
    stopped = f"grep -L ') T ' /proc/{pid}/task/*/stat | grep -q ."
    started = time.monotonic()
    result = probe(
        git_repo, "-c", f"kill -STOP {pid}; while {stopped}; do sleep 0.01; done; echo done"
    )
    try:
        assert result.returncode == 0 and result.stdout.startswith("done\n"), result.stderr
        assert _seen(result) == ["connect", "ask attempt", "send complete"], result.stderr
        assert time.monotonic() - started < 20  # it did not wait for the stopped daemon
        assert _completions(git_repo) == [], result.stderr
    finally:
        os.kill(pid, signal.SIGCONT)
    poll(lambda: _completions(git_repo), timeout=30, what="the completion")
    time.sleep(0.3)  # anything sent twice would land now
    assert [(s, c) for _, s, c in _completions(git_repo)] == [("exited", 0)]


def test_a_validators_completion_is_waited_for_on_the_same_connection(daemons, project, suite_cmd):
    daemons.start(project)
    result = probe(project, "-c", suite_cmd)
    assert result.returncode == 0, result.stderr
    assert _seen(result) == ["connect", "ask attempt", "ask complete"]
    assert "[green]" in result.stderr
    assert [(s, c) for _, s, c in _completions(project)] == [("exited", 0)]


def test_a_connection_the_daemon_closed_meanwhile_gives_way_to_the_long_path(
    daemons, git_repo, wrap, interlock
):
    daemons.start(git_repo)
    stop = f"{sys.executable} -m interlock daemon stop --cwd . >/dev/null"
    result = wrap(git_repo, "-c", f"{stop}; echo after")
    assert result.returncode == 0 and result.stdout == b"after\n", result.stderr
    # recorded before the wrapper exited (inline: no daemon to send it to), exactly once
    assert [(s, c) for _, s, c in _completions(git_repo)] == [("exited", 0)]


def test_a_journal_set_aside_between_commands_is_not_written_by_a_pooled_connection(
    daemons, git_repo, wrap, poll
):
    daemons.start(git_repo)
    assert wrap(git_repo, "-c", "true").returncode == 0
    poll(lambda: _completions(git_repo), timeout=30, what="the first completion")
    path = journal_path(require_repo(git_repo))
    for suffix in ("", "-wal", "-shm"):  # as Journal._set_aside moves a damaged journal
        if os.path.exists(f"{path}{suffix}"):
            os.replace(f"{path}{suffix}", f"{path}.aside{suffix}")
    assert wrap(git_repo, "-c", "echo second").returncode == 0
    poll(lambda: _completions(git_repo), timeout=30, what="the second completion")
    with opened(require_repo(git_repo)) as journal:
        commands = [r[0] for r in journal.execute("SELECT command FROM attempts").fetchall()]
    assert commands == ["echo second"]


def _begin(wt, repo: Path, command: str, parent: int | None = None) -> dict:
    req = {
        "command": command,
        "judge": command,
        "cwd": str(repo),
        "run": None,
        "agent": [os.getpid(), 1, "agent"],
        "parent": parent,
        "pid": None,
        "pid_start": None,
        "once": False,
        "env": {},
    }
    return desk.begin(wt, req)


def test_only_what_cannot_say_anything_at_completion_is_quiet(project, suite_cmd):
    wt = link.inline_worktree(str(project))
    try:
        assert _begin(wt, project, "ls -la")["quiet"] is True
        assert _begin(wt, project, suite_cmd)["quiet"] is False  # the green line
        assert _begin(wt, project, "git push origin main")["quiet"] is False  # a side effect
        warned = _begin(wt, project, "rm -rf /")  # advisory: warned before, runs
        assert warned["verdict"] == "warn" and warned["quiet"] is True
        outer = _begin(wt, project, "make")
        nested = _begin(wt, project, suite_cmd, parent=outer["attempt"])
        assert nested["quiet"] is True  # a nested validator is part of its outer command
    finally:
        wt.journal.close()


def test_a_budget_mark_or_max_turns_within_reach_makes_a_command_wait(project, git):
    wt = _configured(project, git, "max_turns = 40\n")
    try:
        first = _begin(wt, project, "ls")
        assert first["quiet"] is True  # 60% of 40 is turn 24: far
        st = state.load(wt.journal, first["run"])
        st.turns = 24 - desk.QUIET_MARGIN - 1
        state.save(wt.journal, first["run"], st)
        assert _begin(wt, project, "ls")["quiet"] is False  # two open commands reach it
        st.turns, st.budget = 30, [60]  # the 60% mark announced; 85% is turn 34
        state.save(wt.journal, first["run"], st)
        assert _begin(wt, project, "ls")["quiet"] is False
    finally:
        wt.journal.close()


def _configured(project: Path, git, text: str):
    (project / ".interlock.toml").write_text(text)
    git(project, "add", ".interlock.toml")
    git(project, "commit", "-q", "-m", "config")
    return link.inline_worktree(str(project))


def test_the_stall_monitor_makes_every_command_wait(project, git):
    wt = _configured(project, git, "progress_stall_threshold = 5\n")
    try:
        assert _begin(wt, project, "ls")["quiet"] is False
    finally:
        wt.journal.close()


def test_a_refused_command_is_never_quiet(project, git):
    wt = _configured(project, git, 'mode = "blocking"\n')
    try:
        refused = _begin(wt, project, "rm -rf /")
        assert refused["verdict"] == "block" and refused["quiet"] is False
    finally:
        wt.journal.close()


def test_in_mode_off_the_monitor_says_nothing_so_every_plain_command_is_quiet(project, git):
    wt = _configured(project, git, 'mode = "off"\nprogress_stall_threshold = 5\n')
    try:
        assert _begin(wt, project, "ls")["quiet"] is True
    finally:
        wt.journal.close()


def test_a_completion_nobody_waits_for_steps_back_on_its_own_thread_only():
    seen: dict[str, int] = {}

    def serve() -> None:
        rundesk._step_back()
        seen["nice"] = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    before = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    thread = threading.Thread(target=serve)
    thread.start()
    thread.join()
    assert seen["nice"] == min(19, before + rundesk.QUIET_NICE)
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == before
