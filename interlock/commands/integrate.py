"""`interlock integrate claude-code|codex|gemini|shell [--remove]`: hook interlock into an
agent's settings, or the advisory shell into a person's shell startup file."""

from __future__ import annotations

import os
import shlex
import shutil
from importlib import resources
from pathlib import Path

from interlock import exitcodes, output
from interlock.adapters import hookplan, settings
from interlock.errors import InterlockError
from interlock.git import discover

AGENTS = ("claude-code", "codex", "gemini")
SHELL_MARK = "# interlock: advisory shell (remove: interlock integrate shell --remove)"


def _home() -> Path:
    return Path(os.path.expanduser("~"))


def _person_only(what: str) -> None:
    """Taking interlock out is a person's act: refused under an agent or inside a run."""
    from interlock.hooks.approval import agent_ancestor, refusal

    why = refusal(True, os.environ, agent_ancestor())
    if why is not None:
        raise InterlockError(
            f"`interlock integrate {what} --remove` is for a person, outside the agent ({why})",
            hint="run it in your own terminal",
        )


def integrate_agent(agent: str, scope: str | None, cwd: str | None, remove: bool) -> int:
    if remove:
        _person_only(agent)
    loc = discover(cwd or os.getcwd())
    scope = scope or ("project" if loc is not None else "user")
    if scope == "local" and agent != "claude-code":
        raise InterlockError(
            "--local is Claude Code's .claude/settings.local.json only",
            hint=f"interlock integrate {agent} --project",
        )
    where = hookplan.target(agent, scope, loc.worktree if loc else None, _home())

    def ours(command: object) -> bool:
        return hookplan.is_our_command(agent, command)

    if remove:
        done = settings.remove(where.path, ours)
        said = {
            "absent": f"no interlock hooks in {where.path}; nothing to do",
            "restored": f"removed interlock's hooks: {where.path} is back as it was",
            "deleted": f"removed {where.path} (interlock had created it)",
            "removed": f"removed interlock's hooks from {where.path} (other changes made since are kept)",
        }[done]
        output.write_out(f"interlock: {said}")
        return exitcodes.OK
    notes = list(where.notes)
    fails_closed = False
    if agent == "claude-code":
        fails_closed, note = _claude_fails_closed()
        notes.append(note)
    plan = hookplan.specs(agent, fails_closed=fails_closed)
    changed = settings.merge(where.path, plan, ours)
    events = ", ".join(s.event for s in plan)
    if changed:
        output.write_out(f"interlock: {agent} hooks written to {where.path}: {events}")
    else:
        output.write_out(f"interlock: {agent} hooks already in {where.path}; nothing to do")
    output.write_out(f"interlock: each runs: {hookplan.hook_command(agent, 'EVENT')}")
    for note in notes:
        output.write_out(f"interlock: note: {note}")
    output.write_out(f"interlock: undo: interlock integrate {agent} --{scope} --remove")
    return exitcodes.OK


def _claude_fails_closed() -> tuple[bool, str]:
    """Whether the Claude Code on PATH can make a failed PreToolUse hook block the call, and
    what to tell the person about it."""
    version = hookplan.claude_version()
    if version is not None:
        found = "Claude Code " + ".".join(map(str, version))
    elif shutil.which("claude") is None:
        found = "Claude Code not found on PATH"
    else:
        found = "Claude Code of an unknown version (`claude --version` did not say)"
    if hookplan.can_fail_closed(version):
        return True, (
            f"{found}: a PreToolUse hook that cannot start, crashes or times out "
            'blocks the call ("onFailure": "block")'
        )
    first = ".".join(map(str, hookplan.CLAUDE_FAILS_CLOSED))
    return False, (
        f"{found}: before {first}, a hook that cannot start lets the call run unjudged; "
        "after updating Claude Code, run this again to make the hooks fail closed"
    )


def shell_file(kind: str) -> Path:
    return Path(str(resources.files("interlock").joinpath("resources", f"interlock.{kind}")))


def shell_line(kind: str) -> str:
    words = hookplan.launcher_words()
    path = shlex.quote(os.fspath(shell_file(kind)))
    return f"[ -f {path} ] && . {path} {shlex.join(words)}  {SHELL_MARK}"


def _rc(kind: str) -> Path:
    if kind == "zsh":
        return Path(os.environ.get("ZDOTDIR") or _home()) / ".zshrc"
    return _home() / ".bashrc"


def integrate_shell(kind: str | None, remove: bool, print_only: bool) -> int:
    kind = kind or ("zsh" if os.path.basename(os.environ.get("SHELL", "")) == "zsh" else "bash")
    rc = _rc(kind)
    if print_only:
        output.write_out(shell_line(kind))
        return exitcodes.OK
    if remove:
        _person_only("shell")
        done = settings.remove_line(rc, lambda line: line.rstrip().endswith(SHELL_MARK))
        said = {
            "absent": f"no interlock line in {rc}; nothing to do",
            "restored": f"removed interlock's line: {rc} is back as it was",
            "deleted": f"removed {rc} (interlock had created it)",
            "removed": f"removed interlock's line from {rc}",
        }[done]
        output.write_out(f"interlock: {said} (open shells keep it until they exit)")
        return exitcodes.OK
    line = shell_line(kind)
    if settings.add_line(rc, line):
        output.write_out(f"interlock: added to {rc}:\n  {line}")
    else:
        output.write_out(f"interlock: {rc} already sources interlock.{kind}; nothing to do")
    output.write_out(
        "interlock: new shells warn before a discard, a masked validator or a self-disabling "
        "command, after saving what a discard would lose (interlock undo); nothing is refused"
    )
    output.write_out(
        f"interlock: this shell: . {shlex.quote(os.fspath(shell_file(kind)))}; undo: interlock integrate shell --{kind} --remove"
    )
    return exitcodes.OK
