"""Claude Code's hook events through the real hook command: the outputs match the hooks
reference's schemas for allow, deny, advisory, the finalization block and malformed input."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

PYTEST = "python -m pytest -q -p no:cacheprovider"
INLINE = {"INTERLOCK_NO_DAEMON": "1"}


def event(repo: Path, name: str, **fields: Any) -> dict[str, Any]:
    return {
        "session_id": "abc123",
        "transcript_path": "/home/user/.claude/projects/x/transcript.jsonl",
        "cwd": str(repo),
        "permission_mode": "default",
        "hook_event_name": name,
        **fields,
    }


def bash(repo: Path, command: str, tool_use_id: str = "toolu_01") -> dict[str, Any]:
    return event(
        repo, "PreToolUse", tool_name="Bash", tool_use_id=tool_use_id,
        tool_input={"command": command, "description": "run it"},
    )


def decision(result: Any) -> dict[str, Any]:
    assert result.code == 0, result.stderr
    out = result.json
    assert set(out) == {"hookSpecificOutput"}
    specific = out["hookSpecificOutput"]
    assert specific["hookEventName"] == "PreToolUse"
    return specific


def test_a_plain_command_gets_no_decision_and_no_output(project, hook):
    result = hook(project, "claude-code", "PreToolUse", bash(project, "git status"), INLINE)
    assert (result.code, result.stdout) == (0, "")


def test_a_discard_of_pre_run_work_is_denied_with_the_reason_the_model_reads(project, hook):
    result = hook(project, "claude-code", "PreToolUse", bash(project, "rm notes.md"), INLINE)
    specific = decision(result)
    assert specific["permissionDecision"] == "deny"
    assert specific["permissionDecisionReason"].startswith("interlock: [discard] refused: rm notes.md")
    assert "predates this run" in specific["permissionDecisionReason"]
    assert (project / "notes.md").exists()


def test_advisory_mode_allows_and_adds_the_warning_as_context(project, hook, git):
    (project / ".interlock.toml").write_text('mode = "advisory"\n')
    git(project, "commit", "-qam", "advisory")
    result = hook(project, "claude-code", "PreToolUse", bash(project, "rm notes.md"), INLINE)
    specific = decision(result)
    assert "permissionDecision" not in specific  # no decision: the normal permission flow
    assert specific["additionalContext"].startswith("interlock: [discard] warning")


def test_own_work_is_saved_first_then_allowed_and_undo_brings_it_back(project, hook, interlock):
    start = event(project, "SessionStart", source="startup", model="claude-sonnet-5")
    started = hook(project, "claude-code", "SessionStart", start, INLINE)
    assert "interlock: [run]" in started.json["hookSpecificOutput"]["additionalContext"]
    (project / "scratch.py").write_text("the agent's experiment\n")
    result = hook(project, "claude-code", "PreToolUse", bash(project, "rm scratch.py"), INLINE)
    context = decision(result)["additionalContext"]
    assert "interlock: [discard] saved first: rm scratch.py" in context
    (project / "scratch.py").unlink()  # what the agent's Bash tool then does
    assert interlock(project, "undo").returncode == 0
    assert (project / "scratch.py").read_text() == "the agent's experiment\n"


def test_a_passing_suite_reported_after_the_call_makes_the_tree_green(project, hook, interlock):
    pre = hook(project, "claude-code", "PreToolUse", bash(project, PYTEST, "toolu_9"), INLINE)
    assert pre.code == 0 and pre.stdout == ""
    ran = subprocess.run(PYTEST.split(), cwd=project, capture_output=True, text=True)
    assert ran.returncode == 0
    post = event(
        project, "PostToolUse", tool_name="Bash", tool_use_id="toolu_9",
        tool_input={"command": PYTEST},
        tool_response={"stdout": ran.stdout, "stderr": ran.stderr, "interrupted": False, "isImage": False},
    )
    result = hook(project, "claude-code", "PostToolUse", post, INLINE)
    assert result.code == 0, result.stderr
    context = result.json["hookSpecificOutput"]["additionalContext"]
    assert "interlock: [green] 2 passed" in context and "tree verified green" in context
    log = json.loads(interlock(project, "log", "--json", env={"INTERLOCK_RUN": "agent-run"}).stdout)
    assert log["attempts"][-1]["completion"]["green"]


def test_a_failure_reported_by_post_tool_use_failure_is_journaled_red(project, hook, interlock):
    (project / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    hook(project, "claude-code", "PreToolUse", bash(project, PYTEST, "toolu_f"), INLINE)
    ran = subprocess.run(PYTEST.split(), cwd=project, capture_output=True, text=True)
    failure = event(
        project, "PostToolUseFailure", tool_name="Bash", tool_use_id="toolu_f",
        tool_input={"command": PYTEST, "description": "Run test suite"},
        error=f"Command exited with non-zero status code 1\n{ran.stdout}", is_interrupt=False,
    )
    assert hook(project, "claude-code", "PostToolUseFailure", failure, INLINE).code == 0
    log = json.loads(interlock(project, "log", "--json", env={"INTERLOCK_RUN": "agent-run"}).stdout)
    completion = log["attempts"][-1]["completion"]
    assert completion["exit"] == 1 and not completion["green"]


def test_stop_is_held_once_when_unverified_and_never_again_for_the_same_tree(project, hook):
    hook(project, "claude-code", "SessionStart", event(project, "SessionStart", source="startup"), INLINE)
    (project / "calc.py").write_text("def add(a, b):\n    return b + a\n")
    stop = event(project, "Stop", stop_hook_active=False, last_assistant_message="Done.")
    first = hook(project, "claude-code", "Stop", stop, INLINE)
    assert first.code == 0
    assert first.json["decision"] == "block"
    assert first.json["reason"].startswith("interlock: [verify-before-done]")
    again = hook(project, "claude-code", "Stop", {**stop, "stop_hook_active": True}, INLINE)
    assert again.json.get("decision") is None and "not verified" in again.json["systemMessage"]
    third = hook(project, "claude-code", "Stop", stop, INLINE)
    assert third.stdout == "" or third.json.get("decision") is None


def test_stop_after_a_session_that_changed_nothing_is_let_through(project, hook):
    hook(project, "claude-code", "SessionStart", event(project, "SessionStart", source="startup"), INLINE)
    stop = event(project, "SubagentStop", stop_hook_active=False, agent_id="a1", agent_type="Explore")
    assert hook(project, "claude-code", "SubagentStop", stop, INLINE).stdout == ""


def test_an_edit_that_weakens_a_test_is_denied_before_it_lands(project, hook):
    edit = event(
        project, "PreToolUse", tool_name="Edit", tool_use_id="toolu_e",
        tool_input={
            "file_path": str(project / "tests" / "test_calc.py"),
            "old_string": "assert add(2, 3) == 5", "new_string": "assert add(2, 3)",
            "replace_all": False,
        },
    )
    specific = decision(hook(project, "claude-code", "PreToolUse", edit, INLINE))
    assert specific["permissionDecision"] == "deny"
    assert specific["permissionDecisionReason"].startswith("interlock: [self-authored] refused: Edit of tests/test_calc.py")


def test_a_write_of_interlocks_config_is_self_disable(project, hook):
    write = event(
        project, "PreToolUse", tool_name="Write", tool_use_id="toolu_w",
        tool_input={"file_path": str(project / ".interlock.toml"), "content": 'mode = "off"\n'},
    )
    specific = decision(hook(project, "claude-code", "PreToolUse", write, INLINE))
    assert specific["permissionDecision"] == "deny"
    assert "[self-disable]" in specific["permissionDecisionReason"]


@pytest.mark.parametrize("payload", ["{not json", '{"hook_event_name": "Stop"'])
def test_malformed_input_is_a_non_blocking_error_with_the_reason(project, hook, payload):
    result = hook(project, "claude-code", "Stop", payload, INLINE)
    assert (result.code, result.stdout) == (1, "")
    assert result.stderr.startswith("interlock: [unparsed] could not read the claude-code Stop event")


def test_an_unreadable_pre_tool_event_with_a_command_in_it_is_still_judged(project, hook):
    broken = '{"tool_name": "Bash", "tool_input": {"command": "rm notes.md"}'  # cut short
    specific = decision(hook(project, "claude-code", "PreToolUse", broken, INLINE))
    assert specific["permissionDecision"] == "deny"
    assert "its command was judged" in hook(project, "claude-code", "PreToolUse", broken, INLINE).stderr


def test_an_unreadable_pre_tool_event_without_a_command_asks_the_person(project, hook):
    specific = decision(hook(project, "claude-code", "PreToolUse", "\x00garbage", INLINE))
    assert specific["permissionDecision"] == "ask"
    assert "cannot tell what this tool call would run" in specific["permissionDecisionReason"]


def test_an_event_interlock_does_not_handle_gets_no_decision(project, hook):
    result = hook(project, "claude-code", "Notification", event(project, "Notification"), INLINE)
    assert (result.code, result.stdout) == (0, "")
    assert "not one interlock handles" in result.stderr


def test_the_warm_daemon_gives_the_same_answer(project, hook, daemons):
    daemons.start(project)
    result = hook(project, "claude-code", "PreToolUse", bash(project, "rm notes.md"))
    specific = decision(result)
    assert specific["permissionDecision"] == "deny"
    assert "predates this run" in specific["permissionDecisionReason"]


def test_a_write_that_takes_interlocks_hooks_out_of_the_settings_is_self_disable(project, hook, interlock):
    interlock(project, "integrate", "claude-code", "--local")
    settings = project / ".claude" / "settings.local.json"
    write = event(
        project, "PreToolUse", tool_name="Write", tool_use_id="toolu_s",
        tool_input={"file_path": str(settings), "content": "{}\n"},
    )
    specific = decision(hook(project, "claude-code", "PreToolUse", write, INLINE))
    assert specific["permissionDecision"] == "deny"
    assert "takes interlock's hooks out" in specific["permissionDecisionReason"]


def test_removing_the_integration_from_inside_the_agent_is_refused(project, hook, interlock):
    result = hook(project, "claude-code", "PreToolUse", bash(project, "interlock integrate claude-code --remove"), INLINE)
    assert decision(result)["permissionDecision"] == "deny"
    refused = interlock(project, "integrate", "claude-code", "--remove", env={"INTERLOCK_RUN": "r1"})
    assert refused.returncode == 1 and "is for a person" in refused.stderr


def test_a_stopped_run_is_refused_through_the_hook_as_through_the_wrapper(project, hook, interlock):
    assert hook(project, "claude-code", "PreToolUse", bash(project, "git status"), INLINE).stdout == ""
    assert interlock(project, "stop", "--run", "agent-run").returncode == 0
    specific = decision(hook(project, "claude-code", "PreToolUse", bash(project, "echo hi > x.txt"), INLINE))
    assert specific["permissionDecision"] == "deny"
    assert specific["permissionDecisionReason"].startswith("interlock: [handoff] refused: echo hi > x.txt")
    assert (project / ".git" / "interlock" / "handoff" / "agent-run.json").exists()
