"""Holding what a discard destroys before it runs, and proving the hold.

- Files: the pre-discard snapshot must hold every target's current bytes. `uncovered()`
  re-reads each target (every file under a directory target) and compares its blob id with
  the snapshot's entry; a file the snapshot skipped (too large, unreadable) is uncovered.
  Regenerable output (caches, build dirs) is not work, so it needs no hold.
- Commits: a branch a command deletes or rewinds keeps its tip under
  `refs/interlock/<worktree>/lost/<branch>/<time>` (`interlock lost`, `interlock recover
  --ref`), and every commit the discard would lose must be contained in a kept tip.
- Stashes: every stash entry is kept the same way, under the branch name `stash`; one comes
  back with `git stash store -m MESSAGE <commit>`.
What no ref in this repository can hold (commits on a remote, unreachable objects, another
worktree's files, files outside any worktree) is never "held".
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable

from interlock import git
from interlock.git import RepoLocation, open_repo
from interlock.memory import lostrefs
from interlock.memory.catalog import SnapshotInfo
from interlock.memory.trees import lookup
from interlock.objectformat import TREE_MODE
from interlock.regenerable import is_regenerable


def _current_blob(path: str) -> str | None:
    """The blob id of what is on disk at path (a symlink's target text), None if absent."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    if stat.S_ISLNK(st.st_mode):
        return git.hash_blob(os.fsencode(os.readlink(path)))
    return git.hash_file(os.fsencode(path)) if stat.S_ISREG(st.st_mode) else None


def _files_under(root: str, rel: str) -> Iterable[str]:
    top = os.path.join(root, rel)
    if not os.path.isdir(top) or os.path.islink(top):
        yield rel
        return
    for current, dirs, files in os.walk(top):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in files:
            yield os.path.relpath(os.path.join(current, name), root)


def uncovered(loc: RepoLocation, snap: SnapshotInfo, paths: Iterable[str]) -> list[str]:
    """Target paths (worktree-relative; `dir/` for a directory) whose current content the
    snapshot does not hold."""
    repo = open_repo(loc)
    root = os.fspath(loc.worktree)
    missing: list[str] = []
    for target in paths:
        for rel in _files_under(root, target.rstrip("/")):
            now = _current_blob(os.path.join(root, rel))
            if now is None:
                continue  # nothing there to lose
            entry = lookup(repo, snap.tree, os.fsencode(rel))
            if entry is not None and entry[0] != TREE_MODE and entry[1] == now:
                continue
            if not is_regenerable(rel):
                missing.append(rel)
    return missing


def _resolve(loc: RepoLocation, rev: str) -> str | None:
    code, out, _ = git.run(["rev-parse", "-q", "--verify", f"{rev}^{{commit}}"], loc.worktree)
    return out.decode().strip() if code == 0 else None


def _contains(loc: RepoLocation, tip: str, commit: str) -> bool:
    code, _, _ = git.run(["merge-base", "--is-ancestor", commit, tip], loc.worktree)
    return code == 0


def _keep(loc: RepoLocation, branch: str, oid: str) -> str:
    kept = lostrefs.keep_tip(loc, branch, oid)
    if kept is not None:
        return kept.ref
    for lost in lostrefs.list_lost(loc):  # already kept earlier
        if lost.branch == branch and lost.oid == oid:
            return lost.ref
    raise RuntimeError(f"keeping {branch} at {oid[:12]} left no ref")


def hold_commits(
    loc: RepoLocation, refs: Iterable[str], rule: str, commits: Iterable[str]
) -> tuple[list[str], list[str]]:
    """Keep the tips a command would delete or rewind; (what was kept and how to bring it
    back, commits still not held)."""
    tips: list[str] = []
    kept: list[str] = []
    names = tuple(refs)
    if rule.startswith(("git.reset", "git.checkout")):
        names = ("HEAD",)
    elif rule in ("git.update-ref-move", "git.branch-force-move"):
        names = names[:1]  # (REF, NEW): REF moves
    for name in names or ("HEAD",):
        if name == "HEAD":
            code, out, _ = git.run(["symbolic-ref", "-q", "--short", "HEAD"], loc.worktree)
            branch = out.decode().strip() if code == 0 else "HEAD"
            oid = _resolve(loc, "HEAD")
        else:
            branch = name.removeprefix("refs/heads/")
            oid = _resolve(loc, f"refs/heads/{branch}") or _resolve(loc, name)
        if oid is None:
            continue
        _keep(loc, branch, oid)
        kept.append(f"{branch} at {oid[:12]} (bring it back: interlock recover --ref {branch})")
        tips.append(oid)
    loose = [c for c in commits if not any(_contains(loc, tip, c) for tip in tips)]
    return kept, loose


def hold_stash(loc: RepoLocation) -> tuple[list[str], list[str]]:
    """Keep every stash entry; (what was kept and how to bring it back, entries not held)."""
    code, out, _ = git.run(["rev-list", "--walk-reflogs", "refs/stash"], loc.worktree)
    entries = out.decode().split() if code == 0 else []
    kept = []
    for oid in entries:
        _keep(loc, "stash", oid)
        kept.append(f"stash {oid[:12]} (bring it back: git stash store -m kept {oid[:12]})")
    held = {lost.oid for lost in lostrefs.list_lost(loc)}
    return kept, [oid for oid in entries if oid not in held]
