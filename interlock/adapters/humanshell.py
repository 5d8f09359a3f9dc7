"""The advisory shell for people: what the daemon's `advise` op answers for one command a
person typed (`shell/interlock.bash`, `shell/interlock.zsh`, through `shellhelper`).

A person's shell is outside any run: a command is judged by the tree alone, as `interlock
check` judges it. Nothing is ever refused; a discard, a masked validator or a
self-disabling command gets a warning printed before it runs, and a discard's unsaved
targets are saved first in a `pre-discard` snapshot, so `interlock undo` brings them back.
Unparsed code is not mentioned (people run `eval "$(tool init)"` all day). `mode = "off"`
says nothing.

Request {command, cwd, env}; answer {"warning": text or "", "snapshot": id or null}.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from interlock import output
from interlock.engine.facts import TreeFacts
from interlock.git import RepoLocation
from interlock.run.discards import scope_of

WARNED_KINDS = ("discard", "masked-validator", "self-disable")

Snapper = Callable[[dict[str, Any]], dict[str, Any]]


def _relative(loc: RepoLocation, paths: list[str]) -> list[str]:
    top = os.path.realpath(loc.worktree)
    rel = []
    for path in paths:
        real = os.path.realpath(path)
        if real == top:
            rel.append("")
        elif real.startswith(top + os.sep):
            rel.append(os.path.relpath(real, top))
    return rel


def advise(
    loc: RepoLocation,
    req: dict[str, Any],
    facts: Callable[[], TreeFacts | None],
    snapshot: Snapper,
) -> dict[str, Any]:
    from interlock.engine.check import evaluate

    command = str(req.get("command") or "")
    cwd = str(req.get("cwd") or loc.worktree)
    if not command.strip():
        return {"warning": "", "snapshot": None}
    outcome = evaluate(command, cwd, facts=facts)
    if outcome.result.mode == "off":
        return {"warning": "", "snapshot": None}
    findings = [f for f in outcome.result.findings if f.kind in WARNED_KINDS]
    if not findings:
        return {"warning": "", "snapshot": None}
    lost = sorted({p for f in findings for p in f.lost})
    saved = None
    if lost:
        scope = scope_of(_relative(loc, lost))
        meta = {"kind": "pre-discard", "message": f"before: {command[:200]}", "command": command}
        try:
            saved = snapshot({**meta, "scope": scope})["snapshot"]["id"]
        except Exception as exc:  # a failed save is said, never hidden
            saved = None
            note = f"saving it first failed ({type(exc).__name__}: {exc}); it runs unsaved"
            return {"warning": _render(findings, note), "snapshot": None}
    fields = f"snapshot {saved} (undo: interlock undo)" if saved else ""
    return {"warning": _render(findings, fields), "snapshot": saved}


def _render(findings: list[Any], saved: str) -> str:
    lines = []
    for f in findings:
        fields = [("why", f.reason), ("instead", f.instead)]
        if f.kind == "discard":
            fields.append(("saved", saved))
        lines.append(output.format_message(f.kind, f"runs now, not refused: {f.text}", fields))
    return "\n".join(lines)
