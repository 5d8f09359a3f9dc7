"""`interlock doctor` names each problem with its fix: hooks missing in a linked worktree,
core.hooksPath set by another tool, the daemon down, a stale pid file, config warnings."""

from __future__ import annotations

import json

from interlock.daemon import client


def report(interlock, cwd):
    out = interlock(cwd, "doctor", "--json")
    return out.returncode, {c["name"]: c for c in json.loads(out.stdout)["checks"]}


def test_a_healthy_repository_has_no_problems(git_repo, interlock, daemons, poll):
    assert interlock(git_repo, "install").returncode == 0
    loc = daemons.track(git_repo)
    poll(lambda: client.request(loc, "ping"), timeout=30, what="the daemon install started")
    code, checks = report(interlock, git_repo)
    assert code == 0, checks
    assert checks["git hooks"]["status"] == "ok"
    assert checks["daemon"]["status"] == "ok"


def test_hooks_missing_are_reported_with_the_install_command(git_repo, interlock):
    code, checks = report(interlock, git_repo)
    assert code == 1
    assert checks["git hooks"]["status"] == "problem"
    assert checks["git hooks"]["fix"].startswith("interlock install --cwd")


def test_a_linked_worktree_whose_own_hooks_path_hides_the_hooks_is_reported(git_repo, git, interlock, daemons, tmp_path):
    interlock(git_repo, "install")
    daemons.track(git_repo)
    linked = tmp_path / "linked"
    git(git_repo, "worktree", "add", "-q", str(linked))
    git(git_repo, "config", "extensions.worktreeConfig", "true")
    git(linked, "config", "--worktree", "core.hooksPath", str(tmp_path / "elsewhere"))
    code, checks = report(interlock, git_repo)
    problem = checks[f"git hooks of {linked}"]
    assert problem["status"] == "problem" and "core.hooksPath there is" in problem["detail"]
    assert "config --unset core.hooksPath" in problem["fix"]


def test_core_hooks_path_set_by_another_tool_is_named(git_repo, git, interlock):
    git(git_repo, "config", "core.hooksPath", ".githooks")
    _, checks = report(interlock, git_repo)
    assert "core.hooksPath" in checks
    assert ".githooks" in checks["core.hooksPath"]["detail"]


def test_the_daemon_down_and_a_stale_pid_file_are_reported(git_repo, interlock):
    _, checks = report(interlock, git_repo)
    assert checks["daemon"]["status"] == "problem" and checks["daemon"]["fix"] == "interlock daemon start"
    state = git_repo / ".git" / "interlock"
    state.mkdir(exist_ok=True)
    (state / "daemon.pid").write_text("999999\n")
    _, checks = report(interlock, git_repo)
    assert "stale pid file from pid 999999" in checks["daemon"]["detail"]


def test_config_warnings_are_problems(git_repo, interlock):
    (git_repo / ".interlock.toml").write_text('mode = "blockign"\n')
    code, checks = report(interlock, git_repo)
    assert code == 1
    assert "blockign" in checks["config"]["detail"]
    assert checks["config"]["fix"] == "interlock config validate"


def test_agent_hooks_whose_interlock_is_gone_are_reported(git_repo, interlock):
    path = git_repo / ".claude" / "settings.json"
    path.parent.mkdir()
    hook = {"type": "command", "command": "/gone/bin/interlock hook claude-code Stop"}
    path.write_text(json.dumps({"hooks": {"Stop": [{"hooks": [hook]}]}}))
    _, checks = report(interlock, git_repo)
    assert checks["claude-code"]["status"] == "problem"
    assert checks["claude-code"]["fix"] == "interlock integrate claude-code"


def test_agent_hooks_written_by_integrate_are_healthy(git_repo, interlock):
    """integrate writes `exec LAUNCHER hook AGENT EVENT`: doctor looks at the launcher, not at
    the shell's `exec` (it reported a fresh install's hooks as gone)."""
    for agent in ("claude-code", "codex", "gemini"):
        assert interlock(git_repo, "integrate", agent, "--project").returncode == 0
    _, checks = report(interlock, git_repo)
    for agent in ("claude-code", "codex", "gemini"):
        assert checks[agent]["status"] == "ok", checks[agent]


def test_an_exec_hook_whose_interlock_is_gone_is_reported(git_repo, interlock):
    path = git_repo / ".claude" / "settings.json"
    path.parent.mkdir()
    hook = {"type": "command", "command": "exec /gone/bin/interlock hook claude-code Stop"}
    path.write_text(json.dumps({"hooks": {"Stop": [{"hooks": [hook]}]}}))
    _, checks = report(interlock, git_repo)
    assert checks["claude-code"]["status"] == "problem"
    assert "/gone/bin/interlock, which is gone" in checks["claude-code"]["detail"]


def test_claude_code_hooks_that_could_fail_closed_are_named(git_repo, interlock, tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    claude = bin_dir / "claude"
    claude.write_text("#!/bin/sh\necho '2.1.100 (Claude Code)'\n")
    claude.chmod(0o755)
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin"}
    assert interlock(git_repo, "integrate", "claude-code", env=env).returncode == 0
    out = interlock(git_repo, "doctor", "--json", env=env)
    checks = {c["name"]: c for c in json.loads(out.stdout)["checks"]}
    assert "claude-code fail-closed" not in checks  # this one cannot
    claude.write_text("#!/bin/sh\necho '2.1.300 (Claude Code)'\n")  # updated
    out = interlock(git_repo, "doctor", "--json", env=env)
    checks = {c["name"]: c for c in json.loads(out.stdout)["checks"]}
    assert checks["claude-code fail-closed"]["status"] == "note"
    assert checks["claude-code fail-closed"]["fix"] == "interlock integrate claude-code"
    assert interlock(git_repo, "integrate", "claude-code", env=env).returncode == 0
    out = interlock(git_repo, "doctor", "--json", env=env)
    assert "claude-code fail-closed" not in {c["name"] for c in json.loads(out.stdout)["checks"]}
