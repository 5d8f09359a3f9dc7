"""Side effects: commands whose result lives outside the worktree (a push, a publish).

Each is journaled as attempted before it runs, under a key: the tool, its words as written
and the directory it acts in, so two attempts are identical when an agent repeats a command.
While an identical attempt has no recorded outcome, the next one is held:
- its wrapper still runs: held, the first one is in flight;
- its wrapper died (kill -9, a crash): it is reconciled first. For `git push`, `git ls-remote`
  shows whether every ref it pushed now points where it was pushing it (landed) or not; the
  answer is journaled and the new attempt goes on. When that cannot be told (the remote is
  unreachable, the push named no refs interlock can read, a publish), it stays held until a
  person says what happened: `interlock run reconcile ATTEMPT --landed|--not-landed`.
Checking and recording happen under one lock (`effects.lock`), so two identical attempts
never both start.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from interlock import git
from interlock.engine.invocation import Invocation
from interlock.engine.rules.git.invocation import parse_git
from interlock.journal import Journal
from interlock.run import records
from interlock.run.records import Attempt

# (command name, the words after it that make it a publish)
_PUBLISHES = (
    ("npm", ("publish",)),
    ("pnpm", ("publish",)),
    ("yarn", ("publish",)),
    ("yarn", ("npm", "publish")),
    ("twine", ("upload",)),
    ("gh", ("release", "create")),
    ("cargo", ("publish",)),
    ("poetry", ("publish",)),
    ("uv", ("publish",)),
    ("gem", ("push",)),
)
_DRY_RUN = frozenset({"--dry-run", "-n", "--dryrun"})


@dataclass(frozen=True)
class Effect:
    """One side effect in a command line, e.g. `git push origin main` acting in /repo."""

    tool: str  # git push | npm publish | ...
    text: str
    cwd: str
    push: Invocation | None = None

    @property
    def key(self) -> str:
        return f"{self.tool}\0{self.text}\0{self.cwd}"


def _words(inv: Invocation) -> list[str]:
    return [w if w is not None else "?" for w in inv.literals()]


def _publish(inv: Invocation) -> str | None:
    words = _words(inv)
    if inv.name in ("python", "python3") and words[1:3] == ["-m", "twine"]:
        words = ["twine", *words[3:]]
    name = words[0].rsplit("/", 1)[-1] if words else ""
    for tool, sub in _PUBLISHES:
        if name == tool and tuple(words[1 : 1 + len(sub)]) == sub:
            return " ".join((tool, *sub)) if not _DRY_RUN & set(words) else None
    return None


def find_effects(invocations: Iterable[Invocation], start: str) -> list[Effect]:
    """The side effects a command line would cause (dry runs are not side effects)."""
    found: list[Effect] = []
    for inv in invocations:
        call = parse_git(inv)
        if call is not None and call.sub == "push":
            args = {w.literal() for w in call.args}
            if args & _DRY_RUN or call.informational:
                continue
            where = start if call.cwd is None else os.path.join(start, call.cwd)
            text = " ".join(w.literal() or w.text for w in call.args)
            found.append(Effect("git push", text, os.path.normpath(where), inv))
            continue
        tool = _publish(inv)
        if tool is not None:
            where = start if inv.cwd is None else os.path.join(start, inv.cwd)
            found.append(Effect(tool, inv.text, os.path.normpath(where)))
    return found


def _rev(cwd: str, rev: str) -> str | None:
    code, out, _ = git.run(["rev-parse", "-q", "--verify", f"{rev}^{{commit}}"], cwd)
    return out.decode().strip() if code == 0 else None


def _config(cwd: str, key: str) -> str | None:
    code, out, _ = git.run(["config", "--get", key], cwd)
    return out.decode().strip() if code == 0 and out.strip() else None


def push_plan(effect: Effect) -> dict[str, Any]:
    """What a push would set on the remote: {"remote", "refs": [[dst, oid or None]]}, or
    {"remote": None} when interlock cannot read it (then only a person can reconcile)."""
    call = parse_git(effect.push) if effect.push is not None else None
    if call is None:
        return {"remote": None}
    words = [w.literal() for w in call.args]
    if any(w is None or w in ("--all", "--mirror", "--tags", "--repo") for w in words):
        return {"remote": None}
    delete = "--delete" in words or "-d" in words
    positional = [w for w in words if w and not w.startswith("-")]
    code, out, _ = git.run(["symbolic-ref", "-q", "--short", "HEAD"], effect.cwd)
    branch = out.decode().strip() if code == 0 else None
    remote = positional[0] if positional else None
    if remote is None and branch:
        remote = _config(effect.cwd, f"branch.{branch}.pushRemote") or _config(
            effect.cwd, "remote.pushDefault"
        )
        remote = remote or _config(effect.cwd, f"branch.{branch}.remote")
    remote = remote or "origin"
    specs = positional[1:] or ([branch] if branch else [])
    refs: list[list[str | None]] = []
    for spec in specs:
        src, colon, dst = spec.lstrip("+").partition(":")
        if delete:
            refs.append([_full(spec), None])
            continue
        if src == "HEAD" and not colon:
            src = dst = branch or ""
        target = dst if colon else src
        if not target:
            return {"remote": None}
        oid = None if colon and not src else _rev(effect.cwd, src or "HEAD")
        if src and oid is None:
            return {"remote": None}
        refs.append([_full(target), oid])
    return {"remote": remote, "refs": refs} if refs else {"remote": None}


def _full(ref: str) -> str:
    return ref if ref.startswith("refs/") else f"refs/heads/{ref}"


def reconcile_push(cwd: str, plan: dict[str, Any]) -> tuple[bool | None, str]:
    """(landed, how): True/False from `git ls-remote`; None when it cannot be told."""
    remote = plan.get("remote")
    refs = plan.get("refs") or []
    if not remote or not refs:
        return None, "interlock could not read which refs the push set"
    code, out, err = git.run(["ls-remote", "--", remote, *[r[0] for r in refs]], cwd)
    if code != 0:
        return None, f"git ls-remote {remote} failed: {err.decode(errors='replace').strip()}"
    seen = {}
    for line in out.decode(errors="replace").splitlines():
        oid, _, ref = line.partition("\t")
        seen[ref.strip()] = oid.strip()
    landed = all(seen.get(ref) == oid for ref, oid in refs)
    return landed, f"git ls-remote {remote}"


@dataclass(frozen=True)
class Hold:
    """Why a side effect must wait, and what settles it."""

    attempt: Attempt
    why: str
    instead: str


def settle_pending(journal: Journal, effect: Effect, run: str) -> Hold | None:
    """Reconcile the unresolved identical attempts; a Hold when one cannot be settled."""
    for earlier in records.pending_effects(journal, effect.key):
        if earlier.state == "running":
            return Hold(
                earlier,
                f"an identical `{earlier.command}` is running now (attempt {earlier.id}, "
                f"wrapper pid {earlier.pid})",
                "wait for it to finish, then check whether it did what you wanted",
            )
        plan = earlier.data.get("effect", {}).get("plan") or {}
        landed, how = (None, "a publish is not checked automatically")
        if effect.tool == "git push":
            landed, how = reconcile_push(effect.cwd, plan)
        if landed is None:
            return Hold(
                earlier,
                f"an identical `{earlier.command}` (attempt {earlier.id}) was cut off and "
                f"may or may not have happened; {how}",
                f"check by hand, then a person runs: interlock run reconcile {earlier.id} "
                "--landed (or --not-landed)",
            )
        records.insert_completion(
            journal,
            earlier.id,
            earlier.run,
            "reconciled",
            data={"landed": landed, "how": how, "by": f"attempt in run {run}"},
        )
    return None
