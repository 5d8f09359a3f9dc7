"""The hook door's hot path: a warm event imports only the minimal client, and a bug never
lets a tool call through unjudged."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from interlock import launch
from interlock.adapters import hot
from interlock.adapters.hookplan import launcher_words

ROOT = Path(__file__).resolve().parents[2]
# What a warm hook event may import beyond what `python -I -S -c pass` has loaded.
# No `_json`: the event goes to the daemon as the agent wrote it, the answer comes back framed.
# No `interlock.__main__`: the launcher's entry point (interlock.launch) sends it straight here.
# No `fcntl`: the daemon tests its own pid file lock for a request sent before the door
# verified it (hotwhere.trust_problem, vouched). No `__future__` (see interlock.daemon.hotos).
HOT_IMPORTS = {
    "_socket", "interlock", "interlock.launch",
    "interlock.adapters", "interlock.adapters.hot", "interlock.constants", "interlock.daemon",
    "interlock.daemon.hotclient", "interlock.daemon.hotos", "interlock.daemon.hotwhere",
}


def _imported(argv: list[str], cwd: Path, stdin: str = "") -> tuple[set[str], subprocess.CompletedProcess[str]]:
    """The modules a process imported, as `python -X importtime` lists them on stderr: the
    warm door ends with posix._exit, so nothing can be printed after it returns."""
    out = subprocess.run(
        [sys.executable, "-X", "importtime", *argv], cwd=cwd, input=stdin,
        capture_output=True, text=True, timeout=60,
    )
    names = {
        line.rsplit("|", 1)[1].strip()
        for line in out.stderr.splitlines()
        if line.startswith("import time:") and line.count("|") == 2
    }
    return names - {"imported package"}, out


def test_a_warm_hook_event_imports_only_the_minimal_client(daemons, git_repo):
    daemons.start(git_repo)
    event = {"cwd": str(git_repo), "hook_event_name": "PreToolUse", "tool_name": "Bash",
             "tool_use_id": "t", "session_id": "s", "tool_input": {"command": "ls"}}
    boot = f"import sys; sys.path.append({str(ROOT)!r}); from interlock.launch import main; sys.exit(main())"
    floor, _ = _imported(["-I", "-S", "-c", "pass"], git_repo)
    names, out = _imported(
        ["-I", "-S", "-c", boot, "hook", "claude-code", "PreToolUse"], git_repo, json.dumps(event)
    )
    assert (out.returncode, out.stdout) == (0, ""), out.stderr
    assert "interlock.adapters.hot" in names
    assert names - floor <= HOT_IMPORTS, names - floor - HOT_IMPORTS


@pytest.mark.parametrize(
    ("agent", "event", "expected"),
    [
        ("claude-code", "PreToolUse", {"permissionDecision": "ask"}),
        ("codex", "PreToolUse", {"permissionDecision": "deny"}),
        ("gemini", "BeforeTool", {"decision": "deny"}),
    ],
)
def test_a_bug_before_a_tool_call_never_lets_it_through_unjudged(capfd, agent, event, expected):
    assert hot._bug(agent, event, RuntimeError("boom")) == 0
    out, err = capfd.readouterr()
    answer = json.loads(out)
    answer = answer.get("hookSpecificOutput", answer)
    assert expected.items() <= answer.items()
    assert err.startswith(f"interlock: bug: the {agent} {event} hook failed (RuntimeError: boom)")


def test_a_bug_after_a_codex_turn_still_prints_the_json_stop_requires(capfd):
    assert hot._bug("codex", "Stop", RuntimeError("boom")) == 1
    assert capfd.readouterr().out == "{}"


def test_a_broken_journal_is_set_aside_and_the_call_still_judged(git_repo):
    state = git_repo / ".git" / "interlock"
    state.mkdir(exist_ok=True)
    (state / "journal.db").mkdir()
    event = {"cwd": str(git_repo), "hook_event_name": "PreToolUse", "tool_name": "Bash",
             "tool_use_id": "t", "session_id": "s", "tool_input": {"command": "ls"}}
    out = subprocess.run(
        [*launcher_words(), "hook", "claude-code", "PreToolUse"], cwd=git_repo,
        input=json.dumps(event), capture_output=True, text=True,
        env={**os.environ, "INTERLOCK_NO_DAEMON": "1"}, timeout=60,
    )
    assert (out.returncode, out.stdout) == (0, "")
    assert out.stderr.startswith("interlock: warning: journal")


@pytest.mark.parametrize("how", ["socket", "pidfile"])
def test_an_impostor_answering_an_event_sent_before_the_peer_check_is_never_trusted(
    daemons, project, hook, how
):
    # the door sends the event first and verifies the peer while it is judged: an impostor's
    # allow still never counts, and the discard is judged inline, as without a daemon
    from tests.daemon.test_hotclient import start_fake

    event = {"cwd": str(project), "hook_event_name": "PreToolUse", "tool_name": "Bash",
             "tool_use_id": "t", "session_id": "s", "tool_input": {"command": "git clean -fd"}}
    want = hook(project, "claude-code", "PreToolUse", event, {"INTERLOCK_NO_DAEMON": "1"})
    daemons.start(project)
    fake = start_fake(project, how, "allow")
    try:
        got = hook(project, "claude-code", "PreToolUse", {**event, "tool_use_id": "t2"})
    finally:
        fake.kill()
        fake.wait()
    decision = got.json["hookSpecificOutput"]
    assert decision["permissionDecision"] == "deny", got.stdout
    assert decision == want.json["hookSpecificOutput"]
    assert (project / "notes.md").exists()


def test_an_event_of_another_worktree_is_judged_and_journaled_there(daemons, project, tmp_path, git, hook):
    # the hook runs in one worktree, the event's cwd lies in another: the first daemon says
    # `elsewhere` without acting, and the door asks the event's own worktree's daemon
    other = tmp_path / "other"
    shutil.copytree(project, other, symlinks=True)
    shutil.rmtree(other / ".git" / "interlock", ignore_errors=True)
    daemons.start(project)
    daemons.start(other)
    event = {"cwd": str(other), "hook_event_name": "PreToolUse", "tool_name": "Bash",
             "tool_use_id": "x1", "session_id": "s", "tool_input": {"command": "rm notes.md"}}
    got = hook(project, "claude-code", "PreToolUse", event)
    assert got.json["hookSpecificOutput"]["permissionDecision"] == "deny", got.stdout
    assert _commands(other) == ["rm notes.md"]
    assert _commands(project) == []
    assert (other / "notes.md").exists()


def _commands(repo: Path) -> list[str]:
    journal = repo / ".git" / "interlock" / "journal.db"
    if not journal.exists():
        return []
    with sqlite3.connect(journal) as db:
        return [row[0] for row in db.execute("SELECT command FROM attempts ORDER BY id")]


@pytest.mark.parametrize("args", [
    ["hook", "claude-code", "PreToolUse"], ["hook", "codex", "Stop"], ["hook", "gemini"],
    ["hook", "claude-code", "--help"], ["hook", "-h", "codex"], ["hook", "shell"], ["hook", "run"],
    ["hook"], ["hook", "cursor", "x"], ["check", "hook", "codex"], [],
])
def test_the_launcher_sends_to_the_hook_door_exactly_what_the_entry_point_would(args):
    from interlock.__main__ import main as entry

    assert launch.AGENT_HOOKS == hot.AGENTS
    seen: list[list[str]] = []
    door, hot.door = hot.door, lambda argv: seen.append(argv) or 7  # type: ignore[func-returns-value]
    try:
        by_entry = args[:1] == ["hook"] and len(args) >= 2 and _answers(entry, args, seen)
    finally:
        hot.door = door
    assert launch.is_agent_hook(args) == by_entry


def _answers(entry: object, args: list[str], seen: list[list[str]]) -> bool:
    """Whether interlock.__main__ hands `args` to the agent hook door (without running anything
    else: arguments it does not send there are not run)."""
    from interlock.adapters import shellhelper

    helper, shellhelper.main = shellhelper.main, lambda argv: 5
    try:
        if args[1] not in hot.AGENTS:
            return False
        return entry(args) == 7 and seen == [args[1:]]  # type: ignore[operator]
    finally:
        shellhelper.main = helper


SLOW_LINE = "; ".join(["echo hi"] * 10_000) + "; rm notes.md"  # ~0.7 s to judge


def _pre(agent: str, repo: Path, command: str) -> dict[str, object]:
    name = "BeforeTool" if agent == "gemini" else "PreToolUse"
    tool = "run_shell_command" if agent == "gemini" else "Bash"
    return {"session_id": "s", "cwd": str(repo), "hook_event_name": name,
            "tool_name": tool, "tool_input": {"command": command}}


@pytest.mark.parametrize(("agent", "decision"), [("claude-code", "ask"), ("codex", "deny")])
def test_an_event_not_judged_within_the_budget_is_answered_unjudged_not_left_to_time_out(
    tmp_path, git, hook, agent, decision
):
    git(tmp_path, "init", "-q")
    result = hook(tmp_path, agent, "PreToolUse", _pre(agent, tmp_path, SLOW_LINE),
                  {"INTERLOCK_HOOK_BUDGET": "0.05", "INTERLOCK_NO_DAEMON": "1"})
    assert result.code == 0
    specific = result.json["hookSpecificOutput"]
    assert specific["permissionDecision"] == decision
    assert specific["permissionDecisionReason"].startswith(
        f"interlock: [unparsed] judging this {agent} PreToolUse event took over 0.05 s"
    )


def test_gemini_refuses_a_call_it_could_not_judge_within_the_budget(tmp_path, git, hook):
    git(tmp_path, "init", "-q")
    result = hook(tmp_path, "gemini", "BeforeTool", _pre("gemini", tmp_path, SLOW_LINE),
                  {"INTERLOCK_HOOK_BUDGET": "0.05", "INTERLOCK_NO_DAEMON": "1"})
    assert (result.code, result.json["decision"]) == (0, "deny")
    assert "[unparsed]" in result.json["reason"]


@pytest.mark.parametrize(("value", "expected"), [
    ("100000", hot.BUDGET), ("0", hot.BUDGET), ("-3", hot.BUDGET), ("nan", hot.BUDGET),
    ("soon", hot.BUDGET), ("30", 30.0),
])
def test_the_budget_cannot_be_lengthened_from_the_environment_and_ends_before_the_hook_timeout(
    value, expected
):
    from interlock.adapters.hookplan import HOOK_TIMEOUT

    assert hot.BUDGET <= HOOK_TIMEOUT - 15
    result = subprocess.run(
        [sys.executable, "-c", "from interlock.adapters import hot; import _signal;"
         "import sys; env = {'INTERLOCK_HOOK_BUDGET': sys.argv[1]};"
         "hot._arm_budget('codex', 'Stop', env);"
         "print(_signal.setitimer(_signal.ITIMER_REAL, 0)[0])", value],
        capture_output=True, text=True, check=True,
    )
    assert float(result.stdout) == pytest.approx(expected, abs=0.5)
