"""`interlock doctor`: what is installed where, what is wrong, and the command that fixes it.

Each check gives one line: `ok`, `note` (worth knowing, nothing to fix) or `problem` (with
its fix). Problems found: git hooks missing where git runs them in some worktree of the
repository (a linked worktree with its own core.hooksPath, hooks never installed, another
tool's hooks in their place), core.hooksPath set by another tool, the daemon down, a stale
pid file, config warnings, agent hooks whose interlock command no longer exists.
"""

from __future__ import annotations

import json
import os
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from interlock import __version__, constants, exitcodes, output
from interlock.adapters import hookplan
from interlock.config import load_config
from interlock.daemon import client
from interlock.errors import InterlockError
from interlock.git import RepoLocation, discover, run
from interlock.hooks import files as hookfiles


@dataclass(frozen=True)
class Check:
    """One line of the report: e.g. ("daemon", "problem", "not running", "interlock daemon start")."""

    name: str
    status: str  # ok | note | problem
    detail: str
    fix: str = ""

    def to_json(self) -> dict[str, str]:
        return {"name": self.name, "status": self.status, "detail": self.detail, "fix": self.fix}


def _install_checks() -> list[Check]:
    words = hookplan.launcher_words()
    how = "the install.sh launcher" if len(words) == 1 else "this Python with -I -S"
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return [
        Check("interlock", "ok", f"version {__version__} from {pkg}"),
        Check("hook command", "ok", f"agent hooks start {how}: {shlex.join(words[:1])}"),
    ]


def _worktrees(loc: RepoLocation) -> list[str]:
    code, out, _ = run(["worktree", "list", "--porcelain", "-z"], loc.worktree)
    if code != 0:
        return [os.fspath(loc.worktree)]
    found = [
        os.fsdecode(f[len(b"worktree ") :]) for f in out.split(b"\0") if f.startswith(b"worktree ")
    ]
    return [w for w in found if os.path.isdir(w)] or [os.fspath(loc.worktree)]


def _hooks_dir_of(worktree: str) -> Path | None:
    code, out, _ = run(["rev-parse", "--path-format=absolute", "--git-path", "hooks"], worktree)
    return Path(os.fsdecode(out).strip()) if code == 0 and out.strip() else None


def _hook_checks(loc: RepoLocation) -> list[Check]:
    checks: list[Check] = []
    try:
        where = hookfiles.resolve_hooks_dir(loc)
    except InterlockError as exc:
        return [Check("core.hooksPath", "problem", str(exc), exc.hint or "")]
    if where.configured:
        checks.append(
            Check(
                "core.hooksPath",
                "note",
                f"core.hooksPath is {where.configured} (set by another tool?): git runs hooks from {where.path}",
            )
        )
    for worktree in _worktrees(loc):
        hooks_dir = _hooks_dir_of(worktree)
        if hooks_dir is None:
            continue
        missing = [n for n in constants.HOOK_NAMES if not hookfiles.is_ours(hooks_dir / n)]
        label = "git hooks" if worktree == os.fspath(loc.worktree) else f"git hooks of {worktree}"
        if not missing:
            checks.append(Check(label, "ok", f"all {len(constants.HOOK_NAMES)} in {hooks_dir}"))
            continue
        foreign = [n for n in missing if os.path.lexists(hooks_dir / n)]
        detail = f"missing in {hooks_dir}: {', '.join(missing)}"
        if foreign:
            detail += f" ({', '.join(foreign)} belong to another tool)"
        code, out, _ = run(["config", "--get", "core.hooksPath"], worktree)
        own_path = os.fsdecode(out).strip() if code == 0 else ""
        fix = f"interlock install --cwd {shlex.quote(worktree)}"
        if own_path and Path(os.path.realpath(hooks_dir)) != Path(os.path.realpath(where.path)):
            detail += f"; core.hooksPath there is {own_path}"
            fix = f"git -C {shlex.quote(worktree)} config --unset core.hooksPath  (or: {fix})"
        checks.append(Check(label, "problem", detail, fix))
    return checks


def _daemon_checks(loc: RepoLocation) -> list[Check]:
    try:
        reply = client.request(loc, "ping")
    except InterlockError as exc:
        return [Check("daemon", "problem", str(exc), exc.hint or "")]
    if reply and reply.get("ok"):
        return [Check("daemon", "ok", f"running (pid {reply.get('pid')})")]
    pid = client.read_pid(loc)
    if client.is_daemon_locked(loc):
        return [Check("daemon", "problem", "starting or not answering", "interlock daemon status")]
    if pid is not None:
        return [
            Check(
                "daemon",
                "problem",
                f"not running; stale pid file from pid {pid} ({client.pid_path(loc)})",
                "interlock daemon start   (removes the stale files and starts it)",
            )
        ]
    return [
        Check(
            "daemon",
            "problem",
            "not running: nothing records changes; the hooks judge inline, slowly",
            "interlock daemon start",
        )
    ]


def _state_checks(loc: RepoLocation) -> list[Check]:
    from interlock.memory.snapshot import list_snapshots

    config = load_config(loc.worktree)
    checks = [Check("mode", "ok", f"{config.mode} (from {config.sources.get('mode', 'default')})")]
    checks += [Check("config", "problem", w, "interlock config validate") for w in config.warnings]
    from interlock.commands.config import frozen_notes

    checks += [
        Check("live run", "note", n.removeprefix("note: "))
        for n in frozen_notes(str(loc.worktree), config)
    ]
    greens = list_snapshots(loc, kind="green")
    if greens:
        checks.append(Check("last green", "ok", f"{greens[0].id} ({greens[0].message or ''})"))
    else:
        checks.append(
            Check("last green", "note", "no green point yet (a passing full test suite makes one)")
        )
    return checks


def _settings_files(repo: Path | None) -> list[tuple[str, Path]]:
    home = Path(os.path.expanduser("~"))
    found = []
    for agent in ("claude-code", "codex", "gemini"):
        for scope in ("project", "local", "user"):
            if scope == "local" and agent != "claude-code":
                continue
            if scope != "user" and repo is None:
                continue
            found.append((agent, hookplan.target(agent, scope, repo, home).path))
    return found


def _integration_checks(repo: Path | None) -> list[Check]:
    checks = []
    for agent, path in _settings_files(repo):
        try:
            doc = json.loads(path.read_bytes())
        except FileNotFoundError:
            continue
        except (OSError, ValueError) as exc:
            checks.append(Check(agent, "problem", f"{path} is unreadable ({exc})", f"fix {path}"))
            continue
        commands = _our_commands(agent, doc)
        if not commands:
            continue
        words = hookplan.launcher_of(commands[0])
        if words and not os.path.exists(words[0]):
            checks.append(
                Check(
                    agent,
                    "problem",
                    f"hooks in {path} run {words[0]}, which is gone",
                    f"interlock integrate {agent}",
                )
            )
        else:
            checks.append(Check(agent, "ok", f"hooks in {path}"))
        if (
            agent == "claude-code"
            and not _fails_closed(doc)
            and hookplan.can_fail_closed(hookplan.claude_version())
        ):
            checks.append(
                Check(
                    "claude-code fail-closed",
                    "note",
                    f"this Claude Code can block a call whose hook cannot answer; the hooks in "
                    f"{path} let it run unjudged",
                    "interlock integrate claude-code",
                )
            )
    for kind in ("bash", "zsh"):
        rc = Path(os.path.expanduser("~")) / (".bashrc" if kind == "bash" else ".zshrc")
        try:
            if "# interlock: advisory shell" in rc.read_text("utf-8", "replace"):
                checks.append(Check("shell", "ok", f"advisory shell sourced from {rc}"))
        except OSError:
            continue
    return checks


def _fails_closed(doc: Any) -> bool:
    """Every PreToolUse hook of interlock's in a Claude Code settings file says
    `"onFailure": "block"`."""
    groups = (doc.get("hooks") or {}).get("PreToolUse") if isinstance(doc, dict) else None
    handlers = [
        handler
        for group in (groups if isinstance(groups, list) else [])
        for handler in (group.get("hooks", []) if isinstance(group, dict) else [])
        if isinstance(handler, dict)
        and hookplan.is_our_command("claude-code", handler.get("command"))
    ]
    return bool(handlers) and all(h.get("onFailure") == "block" for h in handlers)


def _our_commands(agent: str, doc: Any) -> list[str]:
    hooks = doc.get("hooks") if isinstance(doc, dict) else None
    found = []
    for groups in (hooks or {}).values() if isinstance(hooks, dict) else []:
        for group in groups if isinstance(groups, list) else []:
            for handler in group.get("hooks", []) if isinstance(group, dict) else []:
                command = handler.get("command") if isinstance(handler, dict) else None
                if hookplan.is_our_command(agent, command):
                    found.append(str(command))
    return found


def doctor(cwd: str | None, as_json: bool) -> int:
    loc = discover(cwd or os.getcwd())
    checks = _install_checks()
    if loc is None:
        checks.append(
            Check(
                "repository",
                "note",
                "not inside a git repository: only the installation is checked",
            )
        )
    else:
        checks.append(Check("repository", "ok", os.fspath(loc.worktree)))
        checks += _hook_checks(loc) + _daemon_checks(loc) + _state_checks(loc)
    checks += _integration_checks(loc.worktree if loc else None)
    problems = [c for c in checks if c.status == "problem"]
    if as_json:
        output.write_json({"problems": len(problems), "checks": [c.to_json() for c in checks]})
    else:
        for c in checks:
            output.write_out(f"{c.status:<8} {c.name}: {c.detail}")
            if c.fix:
                output.write_out(f"{'':<8}   fix: {c.fix}")
        output.write_out(
            "interlock: no problems found"
            if not problems
            else f"interlock: {len(problems)} problem(s) found"
        )
    return exitcodes.ERROR if problems else exitcodes.OK
