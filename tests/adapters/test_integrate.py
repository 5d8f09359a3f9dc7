"""`interlock integrate`: merged into existing settings without touching others' hooks,
idempotent, and `--remove` leaves the file byte-identical (or gone when it was absent)."""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

import pytest

from interlock.adapters.hookplan import is_our_command

FOREIGN = (
    '{\n    "model": "opus",\n    "hooks": {\n        "PreToolUse": [\n'
    '            {"matcher": "Bash", "hooks": [{"type": "command", "command": "~/bin/guard.sh"}]}\n'
    "        ]\n    },\n"
    '    "env": {"FOO": "1"}\n}'
)


@pytest.mark.parametrize(
    ("agent", "relative"),
    [
        ("claude-code", ".claude/settings.json"),
        ("codex", ".codex/hooks.json"),
        ("gemini", ".gemini/settings.json"),
    ],
)
def test_integrate_then_remove_leaves_existing_settings_byte_identical(
    git_repo, interlock, agent, relative
):
    path = git_repo / relative
    path.parent.mkdir()
    path.write_text(FOREIGN)
    assert interlock(git_repo, "integrate", agent).returncode == 0
    doc = json.loads(path.read_text())
    assert doc["model"] == "opus" and doc["env"] == {"FOO": "1"}
    events = doc["hooks"]
    assert {
        "matcher": "Bash",
        "hooks": [{"type": "command", "command": "~/bin/guard.sh"}],
    } in events["PreToolUse"]
    first = events["PreToolUse" if agent != "gemini" else "BeforeTool"]
    assert sum(f" hook {agent} " in h["command"] for g in first for h in g["hooks"]) == 1
    again = interlock(git_repo, "integrate", agent)
    assert "nothing to do" in again.stdout
    removed = interlock(git_repo, "integrate", agent, "--remove")
    assert removed.returncode == 0 and "back as it was" in removed.stdout
    assert path.read_text() == FOREIGN


def test_a_settings_file_that_did_not_exist_is_removed_again(git_repo, interlock):
    out = interlock(git_repo, "integrate", "claude-code", "--local")
    assert out.returncode == 0 and "settings.local.json" in out.stdout
    assert (git_repo / ".claude" / "settings.local.json").exists()
    interlock(git_repo, "integrate", "claude-code", "--local", "--remove")
    assert not (git_repo / ".claude").exists()


def test_malformed_settings_are_refused_and_left_alone(git_repo, interlock):
    path = git_repo / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text('{"hooks": {')
    out = interlock(git_repo, "integrate", "claude-code")
    assert out.returncode == 1
    assert "is not valid JSON" in out.stderr and "will not overwrite it" in out.stderr
    assert path.read_text() == '{"hooks": {'


def test_remove_after_other_changes_keeps_them(git_repo, interlock):
    interlock(git_repo, "integrate", "gemini")
    path = git_repo / ".gemini" / "settings.json"
    doc = json.loads(path.read_text())
    doc["theme"] = "dark"
    path.write_text(json.dumps(doc))
    out = interlock(git_repo, "integrate", "gemini", "--remove")
    assert "other changes made since are kept" in out.stdout
    assert json.loads(path.read_text()) == {"theme": "dark"}


def test_codex_integration_says_the_hooks_must_be_trusted(git_repo, interlock):
    out = interlock(git_repo, "integrate", "codex").stdout
    assert "open `/hooks` in Codex" in out


def test_the_hook_command_written_runs_the_minimal_client_path(git_repo, interlock):
    interlock(git_repo, "integrate", "claude-code")
    doc = json.loads((git_repo / ".claude" / "settings.json").read_text())
    command = doc["hooks"]["Stop"][0]["hooks"][0]["command"]
    assert command.startswith("exec ")  # the agent's shell becomes the hook: no fork, no wait
    assert " -I -S " in command or shlex.split(command)[1].endswith("interlock")
    assert command.endswith(" hook claude-code Stop")


def test_a_hook_command_written_without_exec_is_ours_and_brought_up_to_date(git_repo, interlock):
    path = git_repo / ".claude" / "settings.json"
    interlock(git_repo, "integrate", "claude-code")
    current = path.read_text()
    old = json.loads(current)
    for groups in old["hooks"].values():
        for handler in groups[0]["hooks"]:
            handler["command"] = handler["command"].removeprefix("exec ")
    path.write_text(json.dumps(old, indent=2) + "\n")
    assert all(
        is_our_command("claude-code", g[0]["hooks"][0]["command"]) for g in old["hooks"].values()
    )
    assert "hooks written" in interlock(git_repo, "integrate", "claude-code").stdout
    assert json.loads(path.read_text()) == json.loads(current)
    interlock(git_repo, "integrate", "claude-code", "--remove")
    assert not path.exists()


def test_only_interlocks_own_hook_commands_are_recognised():
    assert is_our_command("codex", "exec /home/u/.local/bin/interlock hook codex Stop")
    assert is_our_command("codex", "/home/u/.local/bin/interlock hook codex Stop")
    assert not is_our_command("gemini", "exec /home/u/.local/bin/interlock hook codex Stop")
    assert not is_our_command("codex", "exec /usr/bin/guard hook codex Stop")
    assert not is_our_command("codex", "exec")


def test_shell_integration_round_trips_the_rc_file(tmp_path, interlock):
    rc = Path(os.environ["HOME"]) / ".bashrc"
    rc.write_text("export EDITOR=vim")  # no final newline
    assert interlock(tmp_path, "integrate", "shell", "--bash").returncode == 0
    text = rc.read_text()
    assert "interlock.bash" in text and "# interlock: advisory shell" in text
    assert "already sources" in interlock(tmp_path, "integrate", "shell", "--bash").stdout
    interlock(tmp_path, "integrate", "shell", "--bash", "--remove")
    assert rc.read_text() == "export EDITOR=vim"


def test_shell_integration_prints_the_line_when_asked(tmp_path, interlock):
    out = interlock(tmp_path, "integrate", "shell", "--zsh", "--print").stdout
    assert "interlock.zsh" in out
    assert not (Path(os.environ["HOME"]) / ".zshrc").exists()


def test_the_shell_files_in_shell_are_the_packaged_ones():
    root = Path(__file__).resolve().parents[2]
    for name in ("interlock.bash", "interlock.zsh"):
        assert (root / "shell" / name).resolve() == (root / "interlock" / "resources" / name)


def _claude_on_path(tmp_path: Path, says: str | None) -> dict[str, str]:
    """PATH with a `claude` that prints `says` for --version (None: no claude at all)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    if says is not None:
        fake = bin_dir / "claude"
        fake.write_text(f'#!/bin/sh\n[ "$1" = --version ] && echo {shlex.quote(says)}\n')
        fake.chmod(0o755)
    return {"PATH": f"{bin_dir}:/usr/bin:/bin"}


def _pre_tool_use_handlers(repo: Path) -> list[dict]:
    doc = json.loads((repo / ".claude" / "settings.json").read_text())
    return [
        h
        for event, groups in doc["hooks"].items()
        for g in groups
        for h in g["hooks"]
        if event == "PreToolUse"
    ]


def _other_handlers(repo: Path) -> list[dict]:
    doc = json.loads((repo / ".claude" / "settings.json").read_text())
    return [
        h
        for event, groups in doc["hooks"].items()
        for g in groups
        for h in g["hooks"]
        if event != "PreToolUse"
    ]


def test_claude_code_that_can_fail_closed_gets_a_blocking_pre_tool_use_hook(
    git_repo, interlock, tmp_path
):
    env = _claude_on_path(tmp_path, "2.1.295 (Claude Code)")
    out = interlock(git_repo, "integrate", "claude-code", env=env)
    assert out.returncode == 0, out.stderr
    assert "Claude Code 2.1.295: a PreToolUse hook that cannot start" in out.stdout
    [handler] = _pre_tool_use_handlers(git_repo)
    assert handler["onFailure"] == "block"
    assert all("onFailure" not in h for h in _other_handlers(git_repo))  # Stop must not loop
    assert "nothing to do" in interlock(git_repo, "integrate", "claude-code", env=env).stdout


@pytest.mark.parametrize("says", ["2.1.294 (Claude Code)", "1.0.98", "garbled", None])
def test_older_or_unknown_claude_code_gets_no_key_it_may_reject(
    git_repo, interlock, tmp_path, says
):
    out = interlock(git_repo, "integrate", "claude-code", env=_claude_on_path(tmp_path, says))
    assert out.returncode == 0, out.stderr
    assert "before 2.1.295, a hook that cannot start lets the call run unjudged" in out.stdout
    assert ("not found on PATH" in out.stdout) == (says is None)
    assert ("unknown version" in out.stdout) == (says == "garbled")
    assert all("onFailure" not in h for h in _pre_tool_use_handlers(git_repo))


def test_integrating_again_after_updating_claude_code_makes_the_hook_fail_closed(
    git_repo, interlock, tmp_path
):
    old = _claude_on_path(tmp_path, "2.1.200")
    assert interlock(git_repo, "integrate", "claude-code", env=old).returncode == 0
    (tmp_path / "bin" / "claude").write_text("#!/bin/sh\necho 2.2.0\n")
    out = interlock(git_repo, "integrate", "claude-code", env=old)
    assert "hooks written" in out.stdout
    assert [h.get("onFailure") for h in _pre_tool_use_handlers(git_repo)] == ["block"]
