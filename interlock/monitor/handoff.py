"""The handoff: what a person needs to take over a run that stopped, written when it stops
(stuck after its one recovery, an environment problem, `max_turns` reached, the kill switch)
or on demand (`interlock handoff`).

`<git-dir>/interlock/handoff/<run>.md` (for a person) and `<run>.json` (for a harness) hold:
why it stopped and the evidence; the paths changed since the last green point (else the
baseline); where work was set aside (snapshot refs); the checks the run ran and their
results; the failing set and its history; the objectives still outstanding; the suggested
next action. Written atomically; a later handoff of the same run replaces the earlier one.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from interlock.git import RepoLocation
from interlock.journal import Journal
from interlock.memory.catalog import iso_time
from interlock.memory.scan import display_path
from interlock.memory.snapshot import list_snapshots, worktree_tree
from interlock.monitor import evidence, todo
from interlock.monitor.state import read_records
from interlock.run import records
from interlock.run.outcome import Outcome
from interlock.run.records import Run
from interlock.state import atomic_write, repo_state_dir

HANDOFF_DIR = "handoff"
CHECKS_SHOWN = 20


@dataclass(frozen=True)
class Why:
    """Why a run stopped (or why a handoff was asked for), with the evidence lines and the
    next action for a person."""

    kind: str  # stuck | environment | max_turns | kill | asked
    reason: str
    next_action: str
    evidence: list[str] = field(default_factory=list)
    checks: list[dict[str, Any]] = field(default_factory=list)  # the world checks, if any


def handoff_paths(loc: RepoLocation, run_id: str) -> tuple[Path, Path]:
    folder = repo_state_dir(loc) / HANDOFF_DIR
    return folder / f"{run_id}.md", folder / f"{run_id}.json"


def _since(loc: RepoLocation, run: Run, tree_now: str) -> dict[str, Any]:
    greens = [s for s in list_snapshots(loc, kind="green") if s.run == run.id]
    tree: str | None
    if greens:
        point, tree, kind = greens[0].id, greens[0].tree, "green"
    else:
        from interlock.git import open_repo, read_commit

        commit = read_commit(open_repo(loc), run.baseline) if run.baseline else None
        point, kind = (run.baseline or "")[:12], "baseline"
        tree = commit[0] if commit else None
    changes = evidence.changed_paths(loc, tree, tree_now)
    return {
        "snapshot": point,
        "kind": kind,
        "paths": [
            {"path": display_path(c.path), "change": evidence.change_word(c)} for c in changes
        ],
    }


def _set_aside(loc: RepoLocation, run: Run) -> list[dict[str, Any]]:
    found = []
    for kind in ("pre-restore", "pre-discard"):
        for snap in list_snapshots(loc, kind=kind):
            if snap.run == run.id:
                found.append(
                    {
                        "snapshot": snap.id,
                        "ref": snap.ref,
                        "kind": kind,
                        "time": iso_time(snap.time),
                        "message": snap.message,
                    }
                )
    return sorted(found, key=lambda s: str(s["time"]))


def _checks(journal: Journal, run: Run) -> list[dict[str, Any]]:
    rows = []
    for attempt in records.attempts_of(journal, run.id):
        done = attempt.completion
        if attempt.parent is not None or not attempt.data.get("validators") or done is None:
            continue
        outcome = Outcome.from_json(done.data.get("outcome") or {})
        rows.append(
            {
                "attempt": attempt.id,
                "time": iso_time(attempt.time),
                "command": attempt.command,
                "exit": done.exit,
                "result": outcome.describe(),
                "green": done.green,
                "why_not_green": done.data.get("why_not_green"),
            }
        )
    return rows[-CHECKS_SHOWN:]


def build(
    loc: RepoLocation, journal: Journal, run: Run, why: Why, turns: int, tree_now: str | None = None
) -> dict[str, Any]:
    """The handoff record of a run (see the module docstring); `tree_now`: the worktree's
    tree, when the caller has it warm."""
    stored = read_records(journal, run.id)
    history = evidence.failing_history(stored)
    now = history[-1] if history else None
    max_turns = run.config.get("max_turns")
    return {
        "run": run.id,
        "written": iso_time(time.time()),
        "kind": why.kind,
        "reason": why.reason,
        "evidence": why.evidence,
        "world_checks": why.checks,
        "changed_since": _since(loc, run, tree_now or worktree_tree(loc)),
        "set_aside": _set_aside(loc, run),
        "checks": _checks(journal, run),
        "failing": {
            "now": now["failing"] if now else [],
            "since": iso_time(now["since"]) if now and now["failing"] else None,
            "history": [{**h, "since": iso_time(h["since"])} for h in history],
        },
        "outstanding": [i.to_json() for i in todo.outstanding(loc)],
        "turns": turns,
        "max_turns": max_turns if isinstance(max_turns, int) else None,
        "next_action": why.next_action,
    }


def _md_list(items: list[str], empty: str) -> list[str]:
    return [f"- {x}" for x in items] if items else [f"- {empty}"]


def render_markdown(data: dict[str, Any]) -> str:
    since = data["changed_since"]
    lines = [f"# Handoff: run {data['run']}", "", f"Written {data['written'][:19]}Z.", ""]
    heading = "## Why this handoff" if data["kind"] == "asked" else "## Why it stopped"
    lines += [heading, "", data["reason"], ""]
    lines += _md_list(data["evidence"], "(no attempt records)") + [""]
    if data["world_checks"]:
        lines += ["## Checks of the environment", ""]
        lines += [
            f"- {c['check']}: {'ok' if c['ok'] else ('problem' if c['ok'] is False else 'not decided')}"
            f" - {c['detail']}"
            for c in data["world_checks"]
        ] + [""]
    lines += [f"## Paths changed since the {since['kind']} point ({since['snapshot']})", ""]
    lines += _md_list([f"{p['change']}: {p['path']}" for p in since["paths"]], "none") + [""]
    lines += ["## Work set aside", ""]
    lines += _md_list(
        [
            f"{s['kind']} snapshot {s['snapshot']} ({s['time'][:19]}Z): {s['message']}; "
            f"see it with `interlock diff {s['snapshot']}`, take it back with "
            f"`interlock restore {s['snapshot']}`"
            for s in data["set_aside"]
        ],
        "nothing",
    ) + [""]
    lines += ["## Checks run", ""]
    lines += _md_list(
        [
            f"#{c['attempt']} {c['time'][11:19]}Z `{c['command']}`: exit {c['exit']}, {c['result']}"
            + (f", green {c['green']}" if c["green"] else "")
            for c in data["checks"]
        ],
        "none",
    ) + [""]
    failing = data["failing"]
    lines += ["## Failing", ""]
    if failing["now"]:
        lines += [f"Failing since {failing['since'][:19]}Z:"] + [f"- {t}" for t in failing["now"]]
    else:
        lines += ["Nothing failing at the last check."]
    lines += ["", "History (oldest first):"]
    lines += _md_list(
        [
            f"attempts #{h['first_attempt']}..#{h['last_attempt']} ({h['attempts']}): "
            + (", ".join(h["failing"][:5]) or "nothing failing")
            for h in failing["history"]
        ],
        "no checks yet",
    ) + [""]
    lines += ["## Objectives still outstanding", ""]
    lines += _md_list([f"#{i['id']} {i['text']}" for i in data["outstanding"]], "none") + [""]
    lines += ["## Next", "", data["next_action"], ""]
    return "\n".join(lines)


def write(loc: RepoLocation, data: dict[str, Any]) -> tuple[Path, Path]:
    md, js = handoff_paths(loc, str(data["run"]))
    atomic_write(js, (json.dumps(data, indent=2) + "\n").encode(), 0o644)
    atomic_write(md, render_markdown(data).encode(), 0o644)
    return md, js


def read(loc: RepoLocation, run_id: str) -> dict[str, Any] | None:
    _, js = handoff_paths(loc, run_id)
    try:
        return dict(json.loads(js.read_text(encoding="utf-8")))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return None
