"""Facts about a worktree that decide whether a discard would really destroy anything.

`collect_facts()` runs one `git status` (porcelain v1, -z) and a few cheap ref reads. The
daemon serves the same object warm (`TreeFacts.to_json()` / `from_json()`).

Paths are worktree-relative with '/' separators; a directory entry ends with '/' (git
collapses a wholly untracked or wholly ignored directory into one entry).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from interlock import git
from interlock.constants import PID_FILE
from interlock.git import RepoLocation
from interlock.regenerable import is_regenerable

# Which kinds of work (engine.findings.SavedKind) a discard of each kind destroys: a save
# earlier on the line must hold all of them for an entry to count as saved.
DESTROYED_KINDS: dict[str, frozenset[str]] = {
    "unstaged": frozenset({"unstaged"}),
    "tracked": frozenset({"staged", "unstaged"}),
    "untracked": frozenset({"untracked"}),
    "untracked+ignored": frozenset({"untracked", "ignored"}),
    "ignored": frozenset({"ignored"}),
    "files": frozenset({"unstaged", "untracked", "ignored"}),
    "all": frozenset({"staged", "unstaged", "untracked", "ignored"}),
}


@dataclass(frozen=True)
class TreeFacts:
    """What is unsaved in a worktree right now."""

    root: str
    unborn: bool
    operation: str | None
    unstaged: frozenset[str]
    staged: frozenset[str]
    untracked: frozenset[str]
    ignored: frozenset[str]
    stash_count: int
    head: str | None = None
    branches: tuple[str, ...] = field(default_factory=tuple)

    @property
    def precious_ignored(self) -> frozenset[str]:
        """Ignored entries that are hand-made (not build output or caches)."""
        return frozenset(p for p in self.ignored if not is_regenerable(p))

    def unsaved(self, destroys: str) -> frozenset[str]:
        """Paths holding work of the kind a discard `destroys` (see findings.Destroys)."""
        if destroys == "unstaged":
            return self.unstaged
        if destroys == "tracked":
            return self.unstaged | self.staged
        if destroys == "untracked":
            return self.untracked
        if destroys == "untracked+ignored":
            return self.untracked | self.precious_ignored
        if destroys == "ignored":
            return self.precious_ignored
        if destroys == "files":  # what the files hold: a staged-only change is in the index
            return self.unstaged | self.untracked | self.precious_ignored
        return self.unstaged | self.staged | self.untracked | self.precious_ignored

    def kinds_of(self, entry: str) -> frozenset[str]:
        """The kinds of unsaved work an entry holds (`MM a.py`: staged and unstaged)."""
        kinds = set()
        if entry in self.staged:
            kinds.add("staged")
        if entry in self.unstaged:
            kinds.add("unstaged")
        if entry in self.untracked:
            kinds.add("untracked")
        if entry in self.ignored:
            kinds.add("ignored")
        return frozenset(kinds)

    def to_json(self) -> dict[str, Any]:
        return {
            "root": self.root,
            "unborn": self.unborn,
            "operation": self.operation,
            "unstaged": sorted(self.unstaged),
            "staged": sorted(self.staged),
            "untracked": sorted(self.untracked),
            "ignored": sorted(self.ignored),
            "stash_count": self.stash_count,
            "head": self.head,
            "branches": list(self.branches),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TreeFacts:
        return cls(
            root=data["root"],
            unborn=bool(data["unborn"]),
            operation=data.get("operation"),
            unstaged=frozenset(data["unstaged"]),
            staged=frozenset(data["staged"]),
            untracked=frozenset(data["untracked"]),
            ignored=frozenset(data["ignored"]),
            stash_count=int(data["stash_count"]),
            head=data.get("head"),
            branches=tuple(data.get("branches", ())),
        )


def parse_porcelain(raw: bytes) -> tuple[set[str], set[str], set[str], set[str]]:
    """Split `git status --porcelain=v1 -z` output into (unstaged, staged, untracked, ignored)."""
    unstaged: set[str] = set()
    staged: set[str] = set()
    untracked: set[str] = set()
    ignored: set[str] = set()
    entries = raw.split(b"\0")
    i = 0
    while i < len(entries):
        entry = entries[i]
        i += 1
        if len(entry) < 4:
            continue
        x, y, path = chr(entry[0]), chr(entry[1]), os.fsdecode(entry[3:])
        if x in "RC":
            i += 1  # the next entry is the rename source
        if x == "?" and y == "?":
            untracked.add(path)
        elif x == "!" and y == "!":
            ignored.add(path)
        else:
            if x not in " ?!":
                staged.add(path)
            if y not in " ?!":
                unstaged.add(path)
    return unstaged, staged, untracked, ignored


def collect_facts(loc: RepoLocation) -> TreeFacts:
    """Read the worktree's unsaved state with one `git status`."""
    _, raw, _ = git.run(
        ["status", "--porcelain=v1", "-z", "--untracked-files=normal", "--ignored=traditional"],
        loc.worktree,
        check=True,
    )
    unstaged, staged, untracked, ignored = parse_porcelain(raw)
    head = git.head_oid(loc)
    _, stash_out, _ = git.run(["rev-list", "--walk-reflogs", "--count", "refs/stash"], loc.worktree)
    stash_text = stash_out.decode().strip()
    return TreeFacts(
        root=os.fspath(loc.worktree),
        unborn=head is None,
        operation=git.in_progress_operation(loc),
        unstaged=frozenset(unstaged),
        staged=frozenset(staged),
        untracked=frozenset(untracked),
        ignored=frozenset(ignored),
        stash_count=int(stash_text) if stash_text.isdigit() else 0,
        head=head,
    )


def _rev(loc: RepoLocation, rev: str) -> str | None:
    code, out, _ = git.run(["rev-parse", "-q", "--verify", f"{rev}^{{commit}}"], loc.worktree)
    return out.decode().strip() if code == 0 and out.strip() else None


def _push_pairs(loc: RepoLocation, remote: str, refspecs: tuple[str, ...]) -> list[tuple[str, str]]:
    """(local rev, remote-tracking ref) for each ref a push updates."""
    if not refspecs:
        code, out, _ = git.run(["rev-parse", "--symbolic-full-name", "@{push}"], loc.worktree)
        tracking = out.decode().strip() if code == 0 else ""
        return [("HEAD", tracking)] if tracking.startswith("refs/remotes/") else []
    if not remote or "/" in remote or ":" in remote:
        return []  # a URL has no remote-tracking branches: a bare lease then refuses
    pairs = []
    for refspec in refspecs:
        body = refspec.lstrip("+")
        src, _, dst = body.partition(":")
        dst = dst or src
        for prefix in ("refs/heads/", "refs/"):
            dst = dst.removeprefix(prefix)
        if src and dst:
            pairs.append((src, f"refs/remotes/{remote}/{dst}"))
    return pairs


def lease_drops(loc: RepoLocation, remote: str, refspecs: tuple[str, ...]) -> list[str]:
    """What a push under a bare --force-with-lease would drop: for each pushed ref whose
    remote-tracking tip the pushed commit does not contain, how many commits are lost.
    Nothing when there is no remote-tracking tip (git then refuses the lease)."""
    dropped: list[str] = []
    for local, tracking in _push_pairs(loc, remote, refspecs):
        tip, pushed = _rev(loc, tracking), _rev(loc, local)
        if tip is None or pushed is None:
            continue
        code, _, _ = git.run(["merge-base", "--is-ancestor", tip, pushed], loc.worktree)
        if code == 0:
            continue
        code, out, _ = git.run(["rev-list", "--count", tip, "--not", pushed], loc.worktree)
        count = out.decode().strip() if code == 0 else "some"
        noun = "commit" if count == "1" else "commits"
        name = tracking.removeprefix("refs/remotes/")
        dropped.append(
            f"{count} {noun} on {name} (at {tip[:12]}) that the pushed commit does not contain"
        )
    return dropped


def read_aliases(directory: str) -> dict[str, str]:
    """The git aliases in effect in `directory` (repository, global and system config), by
    lower-cased name; {} when git cannot read them. One `git config` run."""
    if not os.path.isdir(directory):
        return {}
    code, out, _ = git.run(["config", "-z", "--get-regexp", r"^alias\."], directory)
    if code != 0:
        return {}
    aliases: dict[str, str] = {}
    for entry in out.split(b"\0"):
        key, _, value = os.fsdecode(entry).partition("\n")
        if key.lower().startswith("alias."):
            aliases[key[len("alias.") :].lower()] = value
    return aliases


def daemon_pid(loc: RepoLocation) -> int | None:
    """The pid in the worktree's daemon pid file, if there is one."""
    try:
        text = (loc.state_dir / PID_FILE).read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    first = text.strip().split()[0] if text.strip() else ""
    return int(first) if first.isdigit() else None
