"""A file edit of an agent, before it lands: its targets feed the recorder, and an edit
that would switch interlock off or weaken a validator is judged first.

- Recorder: the daemon reads each target's current content into the flight recorder now,
  so the version the edit replaces is kept even if the daemon missed its last write.
- Self-disable: an edit of interlock's config, its hooks or state, git's hook settings is
  judged as the shell command that writes the same file would be (`: > PATH` through the
  engine: one judge); a `[tool.interlock]` table changed in pyproject.toml is one too.
- The audit: the file as it will be is compared with the run's baseline by the validator
  audit (`interlock.audit`), and so is the file as it is now; findings the edit would add
  are its own (a test already weakened earlier is not held against every later edit).

Blocking mode refuses such an edit (the deny reason is interlock's message); advisory
mode lets it land and tells the model what was seen; off says nothing.
"""

from __future__ import annotations

import json
import os
import re
import shlex

from interlock import output
from interlock.adapters.desk import Desk
from interlock.adapters.edits import FileEdit, Unknown
from interlock.adapters.hookplan import is_our_command
from interlock.audit import TAMPERED, AuditFinding, compare_file_sets
from interlock.config import Config
from interlock.engine.analysis import analyse
from interlock.git import open_repo, read_blob, read_commit
from interlock.memory.trees import lookup
from interlock.run.records import Run

AGENTS = ("claude-code", "codex", "gemini")
_TOOL_TABLE = re.compile(
    r"^\s*\[\s*tool\s*\.\s*interlock\b.*?(?=^\s*\[(?!\s*tool\s*\.\s*interlock)|\Z)", re.M | re.S
)


def _relative(desk: Desk, path: str) -> str | None:
    top = os.path.realpath(desk.wt.loc.worktree)
    real = os.path.realpath(path)
    if real != top and real.startswith(top + os.sep):
        return os.path.relpath(real, top)
    return None


def _read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError:
        return None


def _baseline_blob(desk: Desk, run: Run, rel: str) -> bytes | None:
    if run.baseline is None:
        return None
    repo = open_repo(desk.wt.loc)
    commit = read_commit(repo, run.baseline)
    entry = lookup(repo, commit[0], rel.encode("utf-8", "surrogateescape")) if commit else None
    if entry is None or entry[0] == 0o040000:
        return None
    return read_blob(repo, entry[1])


def _self_disable(edit: FileEdit, before: bytes | None, after: bytes | None) -> list[str]:
    found = [
        f"{f.reason} (rule {f.rule})"
        for f in analyse(f": > {shlex.quote(edit.path)}").findings
        if f.kind == "self-disable"
    ]
    dropped = _our_hooks(before) - _our_hooks(after)
    if dropped:
        found.append(
            f"takes interlock's hooks out of this agent's settings ({len(dropped)} of them) "
            "(rule selfdisable.interlock-off)"
        )
    if os.path.basename(edit.path) == "pyproject.toml":
        old = _TOOL_TABLE.findall((before or b"").decode("utf-8", "replace"))
        new = _TOOL_TABLE.findall((after or b"").decode("utf-8", "replace"))
        if old != new:
            found.append(
                "changes the [tool.interlock] table, interlock's own config (rule selfdisable.config-edit)"
            )
    return found


def _our_hooks(content: bytes | None) -> set[str]:
    """The interlock hook commands an agent settings file holds (any agent)."""
    if not content or b" hook " not in content:
        return set()
    try:
        doc = json.loads(content)
    except ValueError:
        return set()
    hooks = doc.get("hooks") if isinstance(doc, dict) else None
    found = set()
    for groups in hooks.values() if isinstance(hooks, dict) else []:
        for group in groups if isinstance(groups, list) else []:
            for handler in group.get("hooks", []) if isinstance(group, dict) else []:
                command = handler.get("command") if isinstance(handler, dict) else None
                if any(is_our_command(agent, command) for agent in AGENTS):
                    found.add(str(command))
    return found


def _key(f: AuditFinding) -> tuple[str, str, str | None, str]:
    return (f.kind, f.path, f.test, f.detail)


def _weakened(
    desk: Desk, run: Run, config: Config, rel: str, now: bytes | None, after: bytes | None
) -> list[AuditFinding]:
    base = _baseline_blob(desk, run, rel)
    before = {rel: base} if base is not None else {}
    current = {rel: now} if now is not None else {}
    future = {rel: after} if after is not None else {}
    had = {_key(f) for f in compare_file_sets(before, current, config.protected).findings}
    report = compare_file_sets(before, future, config.protected)
    return [f for f in report.findings if f.severity == TAMPERED and _key(f) not in had]


def judge(
    desk: Desk, run: Run, config: Config, edits: list[FileEdit], tool: str
) -> tuple[str, list[str]]:
    """(verdict allow|warn|block, messages) for the edits of one tool call."""
    rels = [r for r in (_relative(desk, e.path) for e in edits) if r is not None]
    if desk.record is not None and rels:
        desk.record([os.fsencode(r) for r in rels])
    if config.mode == "off":
        return "allow", []
    problems: list[tuple[str, str, str]] = []  # tag, what, why
    for edit in edits:
        rel = _relative(desk, edit.path) or edit.path
        now = _read(edit.path)
        try:
            after = edit.after(now)
        except Unknown:
            after = now if not edit.delete else None
            computable = False
        else:
            computable = True
        for why in _self_disable(edit, now, after):
            problems.append(("self-disable", f"{tool} of {rel}", why))
        if computable and _relative(desk, edit.path) is not None:
            for finding in _weakened(desk, run, config, rel, now, after):
                problems.append(
                    ("self-authored", f"{tool} of {rel}", f"{finding.location()}: {finding.detail}")
                )
    if not problems:
        return "allow", []
    verdict = "block" if config.mode == "blocking" else "warn"
    head = "refused" if verdict == "block" else "warning (blocking mode would refuse it)"
    lines = []
    for tag, what, why in problems:
        instead = (
            "leave interlock's config and hooks to a person, outside the run"
            if tag == "self-disable"
            else "fix the code under test, not the test; keep the assertions as strong as they were"
        )
        lines.append(
            output.format_message(tag, f"{head}: {what}", [("why", why), ("instead", instead)])
        )
    return verdict, lines
