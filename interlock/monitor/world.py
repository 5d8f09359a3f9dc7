"""Check the world in seconds, when the same call keeps failing the same way
(`stuck_environment`): is it the environment, or the agent's reading of the code?

Checks, each `ok` (True), a problem (False) or not decided (None):
- `error`: does the error name an environment cause (a missing module or program, a service
  or network that does not answer, no space, a read-only file system, permissions, memory)?
  A module the worktree itself holds is the code's, not the environment's.
- `edit`: does the file the run last edited still hold that edit?
- `outside`: run the same call again outside interlock (the agent's environment without
  interlock's variables, not through the wrapper): does it fail the same way? Only for a
  command that is one validator and nothing else, allowed with no finding, that took at most
  RERUN_MAX_SECONDS; a pass outside means the failure comes from how it runs here.
- `cwd`: does the command run where it should (an existing directory inside the worktree)?
- `disk`: is there space left where the worktree and the temporary directory live?
- `writable`: is the worktree's file system writable?

Any problem is an infrastructure diagnosis (the run stops: no patch can fix it); none is a
context problem (the run goes on, told so).
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from interlock.git import LINK_MODE, RepoLocation, hash_file, open_repo
from interlock.memory.scan import display_path
from interlock.memory.trees import diff_trees, lookup
from interlock.monitor.errortext import excerpt, first_line, normalise
from interlock.monitor.shellrun import run_shell
from interlock.monitor.state import Stored
from interlock.run.records import Attempt

RERUN_MAX_SECONDS = 10.0  # only a call this quick is run again (it ran within the wrapper)
RERUN_TIMEOUT = 20.0
DISK_MIN_FREE = 64 << 20  # bytes: less free than this is a full disk for a test run

_ENVIRONMENT_ERRORS: tuple[tuple[str, str], ...] = (
    (r"No module named '?([\w.]+)'?", "a Python module is not installed"),
    (r"ModuleNotFoundError", "a Python module is not installed"),
    (r"Cannot find module '([^']+)'", "a JavaScript module is not installed"),
    (
        r"command not found|: not found$|No such file or directory: '?/?\S*bin/",
        "a program is missing",
    ),
    (
        r"Connection refused|Could not resolve host|Name or service not known|"
        r"Temporary failure in name resolution|Network is unreachable|No route to host",
        "a service or the network does not answer",
    ),
    (r"No space left on device|Disk quota exceeded", "the disk is full"),
    (r"Read-only file system", "the file system is read-only"),
    (r"Permission denied|Operation not permitted", "a permission is missing"),
    (r"Too many open files|Cannot allocate memory|MemoryError|Out of memory", "resources ran out"),
)


@dataclass(frozen=True)
class Check:
    """One look at the world: its name, the answer (None: not decided) and what was seen."""

    name: str
    ok: bool | None
    detail: str

    def to_json(self) -> dict[str, object]:
        return {"check": self.name, "ok": self.ok, "detail": self.detail}


def _own_module(loc: RepoLocation, name: str) -> bool:
    top = name.split(".")[0]
    for base in (loc.worktree, loc.worktree / "src", loc.worktree / "lib"):
        if (base / f"{top}.py").exists() or (base / top).is_dir():
            return True
    return False


def error_check(loc: RepoLocation, error: str) -> Check:
    text = normalise(error)
    for pattern, cause in _ENVIRONMENT_ERRORS:
        match = re.search(pattern, text, re.MULTILINE)
        if match is None:
            continue
        module = match.group(1) if match.groups() else None
        if module and cause.startswith("a Python") and _own_module(loc, module):
            return Check("error", None, f"names the project's own module {module!r}")
        return Check("error", False, f"{cause}: {first_line(text)}")
    return Check("error", True, "names no environment cause")


def edit_check(loc: RepoLocation, stored: Sequence[Stored], baseline_tree: str | None) -> Check:
    """The newest edit the records saw: are the files it changed still as it left them?"""
    repo = open_repo(loc)
    for i in range(len(stored) - 1, -1, -1):
        now = stored[i]
        before = stored[i - 1].tree if i > 0 else baseline_tree
        if now.tree is None or now.tree == before or not now.record.patch_distance:
            continue
        changed = [c.path for c in diff_trees(repo, before, now.tree) if c.new is not None][:20]
        for rel in changed:
            entry = lookup(repo, now.tree, rel)
            if entry is not None and entry[0] == LINK_MODE:
                continue  # a link's blob is its target, not the bytes behind it
            path = os.path.join(os.fsencode(loc.worktree), rel)
            try:
                same = entry is not None and hash_file(path) == entry[1]
            except OSError:
                same = False
            if not same:
                return Check(
                    "edit",
                    False,
                    f"{display_path(rel)} no longer holds the edit seen at attempt "
                    f"{now.attempt}: something else rewrote it (a formatter, a hook, another "
                    "process)",
                )
        return Check("edit", True, f"the last edit ({len(changed)} file(s)) is on disk")
    return Check("edit", None, "no edit reached the tree in these attempts")


def _rerunnable(attempt: Attempt) -> str | None:
    """Why the call must not be run again by interlock, or None."""
    validators = attempt.data.get("validators") or []
    if attempt.verdict != "allow" or attempt.data.get("findings") or attempt.effect:
        return "it was not a plain allowed command"
    if len(validators) != 1 or " ".join(str(validators[0].get("text")).split()) != " ".join(
        attempt.command.split()
    ):
        return "it is more than one validator"
    done = attempt.completion
    if done is None or done.duration is None or done.duration > RERUN_MAX_SECONDS:
        return f"it takes longer than {RERUN_MAX_SECONDS:g} s"
    return None


def outside_check(attempt: Attempt, error: str, environ: Mapping[str, str] | None) -> Check:
    why_not = _rerunnable(attempt)
    if why_not is None and environ is None:
        why_not = "the agent's environment could not be read"
    if why_not is not None:
        return Check("outside", None, f"not run again outside interlock: {why_not}")
    ran = run_shell(attempt.command, attempt.cwd, environ, RERUN_TIMEOUT)
    if ran.exit is None:
        return Check("outside", None, f"run again outside interlock, it {ran.problem}")
    if ran.exit == 0:
        return Check(
            "outside",
            False,
            "passes when run outside interlock: the failure comes from how it runs here",
        )
    if excerpt(ran.output) == normalise(error):
        return Check("outside", True, f"fails the same way outside interlock (exit {ran.exit})")
    return Check("outside", None, f"fails differently outside interlock (exit {ran.exit})")


def place_checks(loc: RepoLocation, cwd: str) -> list[Check]:
    checks: list[Check] = []
    top = os.path.realpath(loc.worktree)
    here = os.path.realpath(cwd)
    if not os.path.isdir(cwd):
        checks.append(Check("cwd", False, f"the command ran in {cwd}, which no longer exists"))
    elif here != top and not here.startswith(top + os.sep):
        checks.append(Check("cwd", False, f"the command ran in {cwd}, outside this worktree"))
    else:
        checks.append(Check("cwd", True, f"runs in {os.path.relpath(here, top)}/"))
    low = []
    for where in (str(loc.worktree), tempfile.gettempdir()):
        try:
            free = shutil.disk_usage(where).free
        except OSError:
            continue
        if free < DISK_MIN_FREE:
            low.append(f"{where} has {free >> 20} MiB free")
    checks.append(Check("disk", not low, "; ".join(low) or "space left"))
    try:
        readonly = bool(os.statvfs(loc.worktree).f_flag & os.ST_RDONLY)
    except OSError:
        readonly = False
    writable = not readonly and os.access(loc.worktree, os.W_OK)
    checks.append(
        Check("writable", writable, "writable" if writable else "the worktree is read-only")
    )
    return checks


def look(
    loc: RepoLocation,
    attempt: Attempt,
    stored: Sequence[Stored],
    baseline_tree: str | None,
    environ: Mapping[str, str] | None,
) -> list[Check]:
    """Every check, for the last record (`attempt`) of a stuck_environment verdict."""
    error = stored[-1].record.last_error if stored else ""
    return [
        error_check(loc, error),
        edit_check(loc, stored, baseline_tree),
        outside_check(attempt, error, environ),
        *place_checks(loc, attempt.cwd),
    ]


def problems(checks: Sequence[Check]) -> list[Check]:
    return [c for c in checks if c.ok is False]
