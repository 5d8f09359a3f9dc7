"""Codex and Gemini CLI events through the real hook command, checked against their
documented output shapes."""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path
from typing import Any

from interlock.adapters.event import shell_text

PYTEST = "python -m pytest -q -p no:cacheprovider"
INLINE = {"INTERLOCK_NO_DAEMON": "1"}


def codex(repo: Path, name: str, **fields: Any) -> dict[str, Any]:
    return {
        "session_id": "019a-codex", "turn_id": "turn-1", "transcript_path": None,
        "cwd": str(repo), "hook_event_name": name, "model": "gpt-5-codex",
        "permission_mode": "default", **fields,
    }


def gemini(repo: Path, name: str, **fields: Any) -> dict[str, Any]:
    return {
        "session_id": "gem-1", "transcript_path": "/tmp/session.json", "cwd": str(repo),
        "hook_event_name": name, "timestamp": "2026-12-01T10:30:00Z", **fields,
    }


def test_codex_unwraps_the_argv_form_and_denies_a_discard(project, hook):
    pre = codex(project, "PreToolUse", tool_name="Bash", tool_use_id="call_1",
                tool_input={"command": "bash -lc 'rm notes.md'"})
    result = hook(project, "codex", "PreToolUse", pre, INLINE)
    assert result.code == 0
    specific = result.json["hookSpecificOutput"]
    assert specific["permissionDecision"] == "deny"
    assert specific["permissionDecisionReason"].startswith("interlock: [discard] refused: rm notes.md")


def test_codex_reads_an_argv_list_too(project, hook):
    pre = codex(project, "PreToolUse", tool_name="Bash", tool_use_id="call_2",
                tool_input={"command": ["bash", "-lc", "rm notes.md"]})
    assert hook(project, "codex", "PreToolUse", pre, INLINE).json["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_codex_judges_a_long_argv_form_whole_past_the_split_limit(project, hook):
    script = "cat > big.txt <<'EOF'\n" + "a line of generated text\n" * 4000 + "EOF\nrm notes.md"
    pre = codex(project, "PreToolUse", tool_name="Bash", tool_use_id="call_3",
                tool_input={"command": "bash -lc " + shlex.quote(script)})
    specific = hook(project, "codex", "PreToolUse", pre, INLINE).json["hookSpecificOutput"]
    assert specific["permissionDecision"] == "deny"
    assert "rm notes.md" in specific["permissionDecisionReason"]


def test_shell_text_splits_only_a_line_that_may_be_a_shell_given_a_script():
    assert shell_text("bash -lc 'rm x'") == "rm x"
    assert shell_text("'/bin/bash' -c 'rm x'") == "rm x"
    assert shell_text('"/my dir/sh" -c "rm x"') == "rm x"
    assert shell_text("b\\ash -c 'rm x'") == "rm x"
    long = "bash -lc " + shlex.quote("echo " + "a" * 70_000 + "; rm x")
    assert shell_text(long) == long
    assert shell_text("echo 'unclosed") == "echo 'unclosed"
    assert shell_text("") == ""


def test_codex_credits_green_from_the_runners_summary_without_an_exit_status(project, hook, interlock):
    pre = codex(project, "PreToolUse", tool_name="Bash", tool_use_id="call_3", tool_input={"command": PYTEST})
    assert hook(project, "codex", "PreToolUse", pre, INLINE).stdout == ""
    ran = subprocess.run(PYTEST.split(), cwd=project, capture_output=True, text=True)
    post = codex(project, "PostToolUse", tool_name="Bash", tool_use_id="call_3",
                 tool_input={"command": PYTEST}, tool_response=ran.stdout)
    result = hook(project, "codex", "PostToolUse", post, INLINE)
    assert "interlock: [green] 2 passed" in result.json["hookSpecificOutput"]["additionalContext"]


def test_codex_stop_always_prints_json_and_blocks_with_decision_block(project, hook):
    quiet = hook(project, "codex", "Stop", codex(project, "Stop", stop_hook_active=False, last_assistant_message=None), INLINE)
    assert (quiet.code, quiet.json) == (0, {})
    (project / "calc.py").write_text("def add(a, b):\n    return b + a\n")
    held = hook(project, "codex", "Stop", codex(project, "Stop", stop_hook_active=False, last_assistant_message="done"), INLINE)
    assert held.json["decision"] == "block" and "[verify-before-done]" in held.json["reason"]


def test_codex_apply_patch_that_deletes_a_test_file_is_refused(project, hook):
    patch = "*** Begin Patch\n*** Delete File: tests/test_calc.py\n*** End Patch\n"
    pre = codex(project, "PreToolUse", tool_name="apply_patch", tool_use_id="call_p", tool_input={"command": patch})
    specific = hook(project, "codex", "PreToolUse", pre, INLINE).json["hookSpecificOutput"]
    assert specific["permissionDecision"] == "deny"
    assert "[self-authored]" in specific["permissionDecisionReason"]


def test_codex_malformed_stop_still_prints_its_required_json(project, hook):
    result = hook(project, "codex", "Stop", "[1, 2", INLINE)
    assert (result.code, result.stdout) == (0, "{}")
    assert result.stderr.startswith("interlock: [unparsed]")


def test_gemini_before_tool_denies_with_decision_deny(project, hook):
    pre = gemini(project, "BeforeTool", tool_name="run_shell_command",
                 tool_input={"command": "rm notes.md", "description": "remove notes"})
    result = hook(project, "gemini", "BeforeTool", pre, INLINE)
    assert result.code == 0
    assert result.json["decision"] == "deny"
    assert result.json["reason"].startswith("interlock: [discard] refused: rm notes.md")


def test_gemini_advisory_warns_the_person_first_and_the_model_with_the_result(project, hook, git):
    (project / ".interlock.toml").write_text('mode = "advisory"\n')
    git(project, "commit", "-qam", "advisory")
    tool_input = {"command": "rm notes.md"}
    pre = hook(project, "gemini", "BeforeTool", gemini(project, "BeforeTool", tool_name="run_shell_command", tool_input=tool_input), INLINE)
    assert pre.json["systemMessage"].startswith("interlock: [discard] warning")
    response = {"llmContent": "Output: (empty)\nProcess Group PGID: 4242", "returnDisplay": ""}
    post = hook(project, "gemini", "AfterTool", gemini(project, "AfterTool", tool_name="run_shell_command", tool_input=tool_input, tool_response=response), INLINE)
    assert post.json["hookSpecificOutput"]["additionalContext"].startswith("interlock: [discard] warning")


def test_gemini_reads_the_exit_code_from_the_shell_tools_result(project, hook, interlock):
    tool_input = {"command": "false"}
    hook(project, "gemini", "BeforeTool", gemini(project, "BeforeTool", tool_name="run_shell_command", tool_input=tool_input), INLINE)
    response = {"llmContent": "Output: (empty)\nExit Code: 1\nProcess Group PGID: 7", "returnDisplay": ""}
    hook(project, "gemini", "AfterTool", gemini(project, "AfterTool", tool_name="run_shell_command", tool_input=tool_input, tool_response=response), INLINE)
    log = json.loads(interlock(project, "log", "--json", env={"INTERLOCK_RUN": "agent-run"}).stdout)
    assert log["attempts"][-1]["completion"]["exit"] == 1


def test_gemini_after_agent_holds_an_unverified_turn_with_decision_deny(project, hook):
    start = hook(project, "gemini", "SessionStart", gemini(project, "SessionStart", source="startup"), INLINE)
    assert "interlock: [run]" in start.json["hookSpecificOutput"]["additionalContext"]
    (project / "calc.py").write_text("def add(a, b):\n    return b + a\n")
    stop = gemini(project, "AfterAgent", prompt="fix it", prompt_response="Fixed.", stop_hook_active=False)
    result = hook(project, "gemini", "AfterAgent", stop, INLINE)
    assert result.json["decision"] == "deny" and "[verify-before-done]" in result.json["reason"]
    assert hook(project, "gemini", "AfterAgent", {**stop, "stop_hook_active": True}, INLINE).json.get("decision") is None


def test_gemini_malformed_input_is_a_warning_not_a_crash(project, hook):
    result = hook(project, "gemini", "AfterTool", "nope", INLINE)
    assert (result.code, result.stdout) == (1, "")
    assert result.stderr.startswith("interlock: [unparsed]")
