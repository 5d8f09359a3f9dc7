"""The warm daemon answers each agent's events exactly as the hook judges them inline: the
same stdout, stderr and exit status, the same journal rows; the agent process names the run
however the event was answered; the daemon's kept journal connections follow the journal
file when it is replaced; the pending pairings are pruned."""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from interlock.adapters import pending
from interlock.adapters.hookplan import hook_command, launcher_words
from interlock.daemon import client
from interlock.git import discover

PYTEST = f"{sys.executable} -m pytest -q -p no:cacheprovider"
INLINE = {"INTERLOCK_NO_DAEMON": "1"}
WEAKENED = {"old_string": "assert add(2, 3) == 5", "new_string": "assert add(2, 3)", "replace_all": False}


def _claude(repo: Path, name: str, **fields: Any) -> dict[str, Any]:
    return {"session_id": "s1", "transcript_path": "/tmp/t.jsonl", "cwd": str(repo),
            "permission_mode": "default", "hook_event_name": name, **fields}


def _codex(repo: Path, name: str, **fields: Any) -> dict[str, Any]:
    return {"session_id": "019a", "turn_id": "turn-1", "transcript_path": None, "cwd": str(repo),
            "hook_event_name": name, "model": "gpt-5-codex", "permission_mode": "default", **fields}


def _gemini(repo: Path, name: str, **fields: Any) -> dict[str, Any]:
    return {"session_id": "gem-1", "transcript_path": "/tmp/s.json", "cwd": str(repo),
            "hook_event_name": name, "timestamp": "2026-12-01T10:30:00Z", **fields}


Step = tuple[str, Callable[[Path], Any]]  # (event name, payload for the repo); EDIT: a change


EDIT = "(the agent edits calc.py)"


def _edit(repo: Path) -> None:
    (repo / "calc.py").write_text("def add(a, b):\n    return a + b + 0\n")


def _claude_session(ran: str) -> list[Step]:
    def bash(command: str, tid: str) -> Callable[[Path], Any]:
        return lambda r: _claude(r, "PreToolUse", tool_name="Bash", tool_use_id=tid,
                                 tool_input={"command": command})

    return [
        ("SessionStart", lambda r: _claude(r, "SessionStart", source="startup")),
        ("PreToolUse", bash("rm notes.md", "t1")),
        ("PreToolUse", bash(PYTEST, "t2")),
        ("PostToolUse", lambda r: _claude(
            r, "PostToolUse", tool_name="Bash", tool_use_id="t2", tool_input={"command": PYTEST},
            tool_response={"stdout": ran, "stderr": "", "interrupted": False, "isImage": False})),
        ("PreToolUse", lambda r: _claude(
            r, "PreToolUse", tool_name="Edit", tool_use_id="t3",
            tool_input={"file_path": str(r / "tests" / "test_calc.py"), **WEAKENED})),
        (EDIT, _edit),
        ("Stop", lambda r: _claude(r, "Stop", stop_hook_active=False, last_assistant_message="Done.")),
        ("PreToolUse", lambda r: "{not json"),
    ]


def _codex_session(ran: str) -> list[Step]:
    return [
        ("PreToolUse", lambda r: _codex(r, "PreToolUse", tool_name="Bash", tool_use_id="c1",
                                        tool_input={"command": ["bash", "-lc", "rm notes.md"]})),
        ("PreToolUse", lambda r: _codex(r, "PreToolUse", tool_name="Bash", tool_use_id="c2",
                                        tool_input={"command": PYTEST})),
        ("PostToolUse", lambda r: _codex(r, "PostToolUse", tool_name="Bash", tool_use_id="c2",
                                         tool_input={"command": PYTEST}, tool_response=ran)),
        (EDIT, _edit),
        ("Stop", lambda r: _codex(r, "Stop", stop_hook_active=False, last_assistant_message="done")),
    ]


def _gemini_session(ran: str) -> list[Step]:
    def shell(name: str, command: str, **more: Any) -> Callable[[Path], Any]:
        return lambda r: _gemini(r, name, tool_name="run_shell_command",
                                 tool_input={"command": command}, **more)

    output = {"llmContent": f"Output: {ran}\nProcess Group PGID: 42", "returnDisplay": ""}
    return [
        ("BeforeTool", shell("BeforeTool", "rm notes.md")),
        ("BeforeTool", shell("BeforeTool", PYTEST)),
        ("AfterTool", shell("AfterTool", PYTEST, tool_response=output)),
        (EDIT, _edit),
        ("AfterAgent", lambda r: _gemini(r, "AfterAgent", prompt="fix it", prompt_response="Fixed.",
                                         stop_hook_active=False)),
    ]


SESSIONS = {"claude-code": _claude_session, "codex": _codex_session, "gemini": _gemini_session}
_HEX = re.compile(r"\b[0-9a-f]{7,64}\b")
_TIMES = re.compile(r'"(time|started|at|timestamp|duration|ended)": [0-9.e+-]+')


def _normal(text: str, repo: Path) -> str:
    """What may differ between two repositories judged alike: their paths, object and
    snapshot ids (hashes of times), times; and whether the daemon answered."""
    text = text.replace(str(repo), "<repo>")
    text = _TIMES.sub(r'"\1": 0', text)
    text = text.replace('"warm": true', '"warm": false')
    return _HEX.sub("<id>", text)


def _rows(repo: Path) -> list[str]:
    """The journal's attempts, completions and runs, in order, normalised."""
    with sqlite3.connect(repo / ".git" / "interlock" / "journal.db") as db:
        attempts = db.execute(
            "SELECT command, cwd, verdict, would_block, effect, parent IS NULL, data"
            " FROM attempts ORDER BY id").fetchall()
        completions = db.execute(
            "SELECT status, exit, signal, green IS NULL, data FROM completions ORDER BY attempt"
        ).fetchall()
        runs = db.execute("SELECT id, origin, agent IS NULL, config FROM runs ORDER BY started").fetchall()
    return [_normal(json.dumps(row), repo) for row in (*attempts, *completions, *runs)]


def _requests(repo: Path) -> int:
    """How many requests the repository's daemon answered (this one included)."""
    loc = discover(repo)
    assert loc is not None
    status = client.request(loc, "status")
    assert status is not None, "the daemon is down"
    return int(status["requests"])


@pytest.mark.parametrize("agent", sorted(SESSIONS))
def test_the_warm_daemon_answers_every_event_as_the_inline_path_does(
    agent, project, tmp_path, hook, daemons, git
):
    twin = tmp_path / "twin"
    shutil.copytree(project, twin, symlinks=True)
    ran = subprocess.run(PYTEST.split(), cwd=project, capture_output=True, text=True).stdout
    assert "2 passed" in ran
    daemons.start(project)
    (project / "calc.py").write_text("def add(a, b):\n    return b + a\n")
    (twin / "calc.py").write_text("def add(a, b):\n    return b + a\n")
    for name, payload in SESSIONS[agent](ran):
        if name == EDIT:
            payload(project), payload(twin)
            continue
        before = _requests(project)
        warm = hook(project, agent, name, payload(project))
        assert _requests(project) == before + 2, f"{name} was not answered by the daemon"
        inline = hook(twin, agent, name, payload(twin), INLINE)
        got = [warm.code, _normal(warm.stdout, project), _normal(warm.stderr, project)]
        assert got == [inline.code, _normal(inline.stdout, twin), _normal(inline.stderr, twin)], name
    assert _rows(project) == _rows(twin)


def _as_an_agent(repo: Path, env: dict[str, str]) -> int:
    """Run two hook events the way Claude Code does (`sh -c` of the command integrate writes)
    from one process that plays the agent; its pid."""
    payloads = {
        "SessionStart": _claude(repo, "SessionStart", source="startup"),
        "PreToolUse": _claude(repo, "PreToolUse", tool_name="Bash", tool_use_id="a1",
                              tool_input={"command": "ls"}),
    }
    command = hook_command("claude-code", "EVENT", launcher_words()).replace("EVENT", "%s")
    script = (
        "import json, os, subprocess, sys\n"
        f"payloads = {json.dumps(payloads)!r}\n"
        "for event, payload in json.loads(payloads).items():\n"
        "    subprocess.run(['sh', '-c', sys.argv[1] % event], input=json.dumps(payload).encode(),\n"
        "                   check=True, stdout=subprocess.DEVNULL)\n"
        "print(os.getpid())\n"
    )
    env = {k: v for k, v in {**os.environ, **env}.items() if k != "INTERLOCK_RUN"}
    out = subprocess.run([sys.executable, "-c", script, command], cwd=repo, env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return int(out.stdout.split()[-1])


def _start_ticks(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[19])


@pytest.mark.parametrize("warm", [True, False], ids=["warm", "inline"])
def test_an_agents_events_join_one_run_named_by_the_agent_process(warm, project, daemons):
    if warm:
        daemons.start(project)
        before = _requests(project)
    pid = _as_an_agent(project, {} if warm else INLINE)
    if warm:
        assert _requests(project) == before + 3  # both events, then this status
    with sqlite3.connect(project / ".git" / "interlock" / "journal.db") as db:
        runs = db.execute("SELECT agent, origin FROM runs").fetchall()
        attempts = db.execute("SELECT run, pid, data FROM attempts").fetchall()
    assert len(runs) == 1 and runs[0][1] == "agent"
    agent_pid, agent_start = (int(x) for x in runs[0][0].split(":"))
    assert agent_pid == pid  # the agent, not the shell it ran the hook with, nor the hook
    assert len(attempts) == 1 and attempts[0][1] == pid
    assert agent_start > 0


def test_a_journal_replaced_while_the_daemon_runs_gets_the_next_events_rows(project, hook, daemons):
    daemons.start(project)
    journal = project / ".git" / "interlock" / "journal.db"

    def bash(command: str, tid: str) -> dict[str, Any]:
        return _claude(project, "PreToolUse", tool_name="Bash", tool_use_id=tid,
                       tool_input={"command": command})

    assert hook(project, "claude-code", "PreToolUse", bash("ls", "r1")).code == 0
    assert hook(project, "claude-code", "PreToolUse", bash("ls -la", "r2")).code == 0
    aside = journal.with_name("journal.db.moved")
    for suffix in ("", "-wal", "-shm"):  # as a process that sets a damaged journal aside
        if Path(f"{journal}{suffix}").exists():
            os.replace(f"{journal}{suffix}", f"{aside}{suffix}")
    assert hook(project, "claude-code", "PreToolUse", bash("git status", "r3")).code == 0
    with sqlite3.connect(journal) as db:
        now = [row[0] for row in db.execute("SELECT command FROM attempts ORDER BY id")]
    with sqlite3.connect(aside) as db:
        before = [row[0] for row in db.execute("SELECT command FROM attempts ORDER BY id")]
    assert (before, now) == (["ls", "ls -la"], ["git status"])


def test_pairings_left_for_a_day_are_pruned_and_fresh_ones_kept(git_repo):
    loc = discover(git_repo)
    assert loc is not None
    folder = loc.state_dir / "adapters" / "pending"
    shutil.rmtree(loc.state_dir, ignore_errors=True)  # the first write makes the folder again
    pending.remember(loc, "f" * 32, {"attempt": 1})
    old = time.time() - 2 * 24 * 3600
    for n in range(300):
        stale = folder / f"stale{n:027x}"
        stale.write_text("{}")
        os.utime(stale, (old, old))
    fresh = [f"{n:031x}0" for n in range(1, 4)]  # a key ending in 0 counts the files
    for n, key in enumerate(fresh):
        pending.remember(loc, key, {"attempt": n})
    assert set(os.listdir(folder)) == {"f" * 32, *fresh}
    assert pending.take(loc, "f" * 32)["attempt"] == 1
    assert pending.take(loc, "f" * 32) is None


def test_a_crowded_folder_is_pruned_at_most_every_few_minutes(git_repo):
    # a prune stats every pending file: a folder that stays crowded with calls younger than
    # a day must not cost every 16th event a full scan
    loc = discover(git_repo)
    assert loc is not None
    folder = loc.state_dir / "adapters" / "pending"
    old = time.time() - 2 * 24 * 3600

    def crowd(tag: str) -> set[str]:
        names = set()
        for n in range(300):
            stale = folder / f"{tag}{n:027x}"
            stale.write_text("{}")
            os.utime(stale, (old, old))
            names.add(stale.name)
        return names

    pending.remember(loc, "1" * 32, {"attempt": 1})
    crowd("aaaaa")
    pending.remember(loc, f"{1:031x}0", {"attempt": 2})  # crowded, never pruned: pruned now
    assert len(os.listdir(folder)) == 2
    second = crowd("bbbbb")
    pending.remember(loc, f"{2:031x}0", {"attempt": 3})  # pruned a moment ago: not again
    assert second <= set(os.listdir(folder))
    mark = folder.parent / "pending.pruned"
    then = time.time() - pending._PRUNE_EVERY - 1
    os.utime(mark, (then, then))
    pending.remember(loc, f"{3:031x}0", {"attempt": 4})  # its last prune is long past
    assert not second & set(os.listdir(folder))
    assert len(os.listdir(folder)) == 4


def test_an_answer_the_agent_no_longer_reads_is_not_judged_a_second_time(project, daemons):
    daemons.start(project)
    payload = _claude(project, "PreToolUse", tool_name="Bash", tool_use_id="gone",
                      tool_input={"command": "rm notes.md"})
    read_end, write_end = os.pipe()
    os.close(read_end)  # the agent went away: writing the answer fails with EPIPE
    try:
        proc = subprocess.run(
            [*launcher_words(), "hook", "claude-code", "PreToolUse"], cwd=project,
            input=json.dumps(payload).encode(), stdout=write_end, stderr=subprocess.PIPE,
            env={**os.environ, "INTERLOCK_RUN": "agent-run"}, timeout=120,
        )
    finally:
        os.close(write_end)
    assert proc.returncode == 0, proc.stderr
    with sqlite3.connect(project / ".git" / "interlock" / "journal.db") as db:
        attempts = db.execute("SELECT command, verdict FROM attempts").fetchall()
    assert attempts == [("rm notes.md", "block")]


def _stuck_agent(repo: Path, env: dict[str, str]) -> str:
    """Play an agent (Claude Code) that runs one failing test command three times, each
    between its PreToolUse and PostToolUseFailure hooks; what the hooks told the model."""
    command = f"{PYTEST} tests/test_env.py"
    hook_line = hook_command("claude-code", "EVENT", launcher_words()).replace("EVENT", "%s")
    script = (
        "import json, subprocess, sys\n"
        "hook, command, cwd = sys.argv[1:4]\n"
        "def event(name, payload):\n"
        "    return subprocess.run(['sh', '-c', hook % name], input=json.dumps(payload).encode(),\n"
        "                          check=True, capture_output=True).stdout.decode()\n"
        "base = {'session_id': 's1', 'transcript_path': '/tmp/t.jsonl', 'cwd': cwd,\n"
        "        'permission_mode': 'default', 'tool_name': 'Bash'}\n"
        "said = ''\n"
        "for n in range(3):\n"
        "    call = {**base, 'tool_use_id': f'e{n}', 'tool_input': {'command': command}}\n"
        "    said += event('PreToolUse', {**call, 'hook_event_name': 'PreToolUse'})\n"
        "    ran = subprocess.run(command, shell=True, cwd=cwd, capture_output=True, text=True)\n"
        "    failure = f'Command exited with non-zero status code {ran.returncode}\\n{ran.stdout}'\n"
        "    said += event('PostToolUseFailure', {**call, 'hook_event_name': 'PostToolUseFailure',\n"
        "                                        'error': failure, 'is_interrupt': False})\n"
        "print(said)\n"
    )
    env = {k: v for k, v in {**os.environ, **env}.items() if k != "INTERLOCK_RUN"}
    out = subprocess.run([sys.executable, "-c", script, hook_line, command, str(repo)], cwd=repo,
                         env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout


@pytest.mark.parametrize("warm", [True, False], ids=["warm", "inline"])
def test_a_stuck_agents_call_is_run_again_in_the_agents_environment_not_the_daemons(
    warm, project, daemons, git
):
    # The test fails only where the agent's environment names a module that is not installed;
    # run again in the daemon's environment it would pass, and the monitor would blame interlock.
    (project / "tests" / "test_env.py").write_text(
        "import importlib\nimport os\n\n\n"
        "def test_the_client_loads():\n"
        "    importlib.import_module(os.environ.get('NEEDED_MODULE', 'json'))\n"
    )
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "env test")
    if warm:
        daemons.start(project)
    agent_env = {"NEEDED_MODULE": "httpx_not_installed_here", **({} if warm else INLINE)}
    said = _stuck_agent(project, agent_env)
    assert "interlock: [stuck]" in said
    assert "fails the same way outside interlock" in said
    assert "passes when run outside interlock" not in said
