"""Lost branch tips: kept by the reference-transaction hook, listed, and brought back.

When a branch is deleted or moved to a commit that does not contain its old tip (`branch -D`,
`reset --hard HEAD~3`, `rebase`, `branch -f`, `commit --amend`), the old tip is kept under
`refs/interlock/<worktree-id>/lost/<branch>/<time>`, so it survives the reflog's deletion and
`git gc`. git does not always say what the old tip was (`branch -D` and `branch -f` report
zeros), so the work is split over the transaction's states: `prepared` reads the current tips
that are at risk (the refs are locked, not yet changed) into a pending file, `committed` keeps
those that really moved, `aborted` drops the file.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from interlock import constants
from interlock.errors import InterlockError
from interlock.git import RepoLocation, run
from interlock.state import atomic_write, repo_state_dir

LOST = "lost"
PENDING_DIR = "reftx"
# seconds; a pending file older than this was left by a hook that was killed (a transaction
# goes from `prepared` to `committed` in well under a second)
PENDING_MAX_AGE = 60.0
BRANCH_PREFIX = "refs/heads/"


@dataclass(frozen=True)
class RefUpdate:
    """One line a reference-transaction hook reads: `<old> <new> <ref>`."""

    old: str
    new: str
    ref: str


@dataclass(frozen=True)
class LostRef:
    """A kept old tip, e.g. branch `feature` at 3f9a1c2, deleted at 12:03 in worktree `main`."""

    ref: str
    worktree: str
    branch: str
    oid: str
    time: float
    subject: str

    @property
    def stamp(self) -> str:
        return self.ref.rsplit("/", 1)[-1]

    def to_json(self) -> dict[str, object]:
        return {
            "ref": self.ref,
            "worktree": self.worktree,
            "branch": self.branch,
            "oid": self.oid,
            "time": self.time,
            "subject": self.subject,
        }


def is_zero(oid: str) -> bool:
    return not oid.strip("0")


def parse_updates(data: bytes) -> list[RefUpdate]:
    updates = []
    for line in os.fsdecode(data).splitlines():
        parts = line.split(" ", 2)
        if len(parts) == 3:
            updates.append(RefUpdate(*parts))
    return updates


def transaction_key(data: bytes) -> str:
    """The same lines reach `prepared`, `committed` and `aborted`: they name the transaction."""
    return hashlib.sha1(data.strip()).hexdigest()


def _resolve(loc: RepoLocation, ref: str) -> str | None:
    code, out, _ = run(["rev-parse", "-q", "--verify", f"{ref}^{{commit}}"], loc.worktree)
    return out.decode().strip() if code == 0 else None


def _is_ancestor(loc: RepoLocation, old: str, new: str) -> bool:
    code, _, _ = run(["merge-base", "--is-ancestor", old, new], loc.worktree)
    return code == 0


def _at_risk(loc: RepoLocation, update: RefUpdate) -> str | None:
    """The branch's current tip when this update may leave it unreachable."""
    if not update.ref.startswith(BRANCH_PREFIX):
        return None
    current = _resolve(loc, update.ref)
    if current is None or current == update.new:
        return None
    if not is_zero(update.new) and _is_ancestor(loc, current, update.new):
        return None
    return current


def _pending_dir(loc: RepoLocation) -> Path:
    return repo_state_dir(loc) / PENDING_DIR


def note_prepared(loc: RepoLocation, data: bytes) -> dict[str, str]:
    """State `prepared`: remember the tips this transaction may lose. Returns {ref: tip}."""
    at_risk = {}
    for update in parse_updates(data):
        tip = _at_risk(loc, update)
        if tip is not None:
            at_risk[update.ref] = tip
    if at_risk:
        path = _pending_dir(loc) / transaction_key(data)
        atomic_write(path, json.dumps(at_risk).encode(), mode=0o600)
    return at_risk


def settle(loc: RepoLocation, data: bytes, committed: bool) -> list[LostRef]:
    """States `committed` / `aborted`: keep the remembered tips that really went away."""
    pending = _pending_dir(loc)
    path = pending / transaction_key(data)
    kept = settle_orphans(loc, pending)
    try:
        at_risk: dict[str, str] = json.loads(path.read_text())
    except (OSError, ValueError):
        return kept
    path.unlink(missing_ok=True)
    if not committed:
        return kept
    return kept + _keep_moved(loc, at_risk)


def _keep_moved(loc: RepoLocation, at_risk: dict[str, str]) -> list[LostRef]:
    """Keep each remembered tip whose branch no longer contains it."""
    kept = []
    for ref, tip in at_risk.items():
        now = _resolve(loc, ref)
        if now == tip or (now is not None and _is_ancestor(loc, tip, now)):
            continue  # not moved after all (e.g. pack-refs reports a loose ref "deleted")
        if _kept_elsewhere(loc, tip):
            continue  # e.g. `branch -d` of a merged branch
        lost = keep_tip(loc, ref[len(BRANCH_PREFIX) :], tip)
        if lost is not None:
            kept.append(lost)
    return kept


def _kept_elsewhere(loc: RepoLocation, tip: str) -> bool:
    """True when another branch or a tag still contains the tip."""
    args = [
        "for-each-ref",
        "--count=1",
        "--format=%(refname)",
        "--contains",
        tip,
        "refs/heads/",
        "refs/tags/",
    ]
    code, out, _ = run(args, loc.worktree)
    return code == 0 and bool(out.strip())


def settle_orphans(loc: RepoLocation, pending: Path | None = None) -> list[LostRef]:
    """Pending files left by a hook killed between `prepared` and `committed`: whether their
    transaction went through is unknown, so every remembered tip that its branch no longer
    contains is kept (a tip still there needs nothing), then the file goes."""
    pending = _pending_dir(loc) if pending is None else pending
    cutoff = time.time() - PENDING_MAX_AGE
    kept: list[LostRef] = []
    try:
        entries = list(pending.iterdir())
    except OSError:
        return kept
    for entry in entries:
        try:
            if entry.stat().st_mtime >= cutoff:
                continue  # maybe a transaction in progress
            at_risk = json.loads(entry.read_text())
        except (OSError, ValueError):
            at_risk = {}
        if isinstance(at_risk, dict):
            kept += _keep_moved(loc, {str(k): str(v) for k, v in at_risk.items()})
        entry.unlink(missing_ok=True)
    return kept


def _stamp(now: float) -> str:
    micros = int((now % 1) * 1_000_000)
    return time.strftime("%Y%m%dT%H%M%S", time.gmtime(now)) + f".{micros:06d}Z"


def _parse_stamp(stamp: str) -> float:
    import calendar

    try:
        whole, _, frac = stamp.rstrip("Z").partition(".")
        seconds = calendar.timegm(time.strptime(whole, "%Y%m%dT%H%M%S"))
        return seconds + (int(frac) / 1_000_000 if frac.isdigit() else 0.0)
    except ValueError:
        return 0.0


def keep_tip(loc: RepoLocation, branch: str, tip: str) -> LostRef | None:
    """Keep `tip` of `branch` under refs/interlock/<wt>/lost/; None when already kept."""
    if any(lost.branch == branch and lost.oid == tip for lost in list_lost(loc)):
        return None
    now = time.time()
    base = f"{constants.REF_PREFIX}{loc.worktree_id}/{LOST}/{branch}/{_stamp(now)}"
    env = _guarded_env()
    for attempt in range(100):
        ref = base if attempt == 0 else f"{base}-{attempt}"
        # The empty old value makes update-ref refuse to overwrite an existing ref.
        code, _, _ = run(
            ["update-ref", "-m", "interlock: keep lost tip", ref, tip, ""], loc.worktree, env=env
        )
        if code == 0:
            return LostRef(ref, loc.worktree_id, branch, tip, now, _subject(loc, tip))
    raise InterlockError(f"could not keep the old tip {tip[:12]} of {branch} under {base}")


def _guarded_env() -> dict[str, str]:
    from interlock.git import no_git_env

    return no_git_env({constants.ENV_HOOK_ACTIVE: str(os.getpid())})


def _subject(loc: RepoLocation, oid: str) -> str:
    code, out, _ = run(["log", "-1", "--format=%s", oid], loc.worktree)
    return os.fsdecode(out).strip() if code == 0 else ""


def list_lost(loc: RepoLocation) -> list[LostRef]:
    """Every kept tip of every worktree (branches are shared), newest first."""
    fmt = "%(refname)%00%(objectname)%00%(subject)"
    pattern = f"{constants.REF_PREFIX}*/{LOST}/**"  # not the (many) snapshot refs
    code, out, _ = run(["for-each-ref", f"--format={fmt}", pattern], loc.worktree)
    if code != 0:
        return []
    found = []
    for line in os.fsdecode(out).splitlines():
        ref, oid, subject = (line.split("\0") + ["", ""])[:3]
        parts = ref[len(constants.REF_PREFIX) :].split("/")
        if len(parts) < 4 or parts[1] != LOST:
            continue
        branch = "/".join(parts[2:-1])
        found.append(LostRef(ref, parts[0], branch, oid, _parse_stamp(parts[-1]), subject))
    return sorted(found, key=lambda lost: lost.time, reverse=True)


def find_lost(loc: RepoLocation, name: str) -> LostRef:
    """A kept tip by full ref, `branch@stamp`, or branch (the newest for it)."""
    entries = list_lost(loc)
    branch, _, stamp = name.partition("@")
    for lost in entries:
        if name == lost.ref or (stamp and lost.branch == branch and lost.stamp.startswith(stamp)):
            return lost
    for lost in entries:
        if not stamp and lost.branch == name:
            return lost
    raise InterlockError(
        f"no kept branch tip matches {name!r}",
        hint="interlock lost   (lists them: branch, old tip, time, subject)",
    )


def _free_branch_name(loc: RepoLocation, branch: str) -> str:
    if _resolve(loc, BRANCH_PREFIX + branch) is None:
        return branch
    for number in range(1, 1000):
        candidate = f"{branch}-recovered-{number}"
        if _resolve(loc, BRANCH_PREFIX + candidate) is None:
            return candidate
    raise InterlockError(f"{branch}-recovered-1 ... -999 all exist", hint="delete a few of them")


def recover_lost_ref(loc: RepoLocation, name: str) -> str:
    """Recreate the branch of a kept tip (or `<branch>-recovered-N` when the name is taken).

    Returns the branch name created; the kept ref stays, so nothing is lost either way.
    """
    lost = find_lost(loc, name)
    target = _free_branch_name(loc, lost.branch)
    message = f"interlock: recover {lost.ref}"
    run(
        ["update-ref", "-m", message, BRANCH_PREFIX + target, lost.oid, ""],
        loc.worktree,
        check=True,
    )
    from interlock import journal

    journal.record(loc, "recover-ref", {"from": lost.ref, "branch": target, "oid": lost.oid})
    return target


def lost_refs_json(entries: Iterable[LostRef]) -> list[dict[str, object]]:
    return [entry.to_json() for entry in entries]
