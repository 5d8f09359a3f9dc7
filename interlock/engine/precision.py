"""Precision from the tree: does a discard finding really destroy something?

A discard is only a discard when it would destroy something that exists nowhere else:
uncommitted changes, untracked files git does not ignore, hand-made ignored files, commits no
other ref holds, stashes. `Judge.judge()` answers for one finding with the paths (or refs)
that would be lost; an empty answer means the command destroys nothing and is allowed.

Each target is judged where it really lies: paths are resolved as the kernel does, through
symlinks (a directory link on the way, a final link when the command writes through it or
the path ends in `/`), and in the worktree found there (`git -C ../other`, `rm -rf
../other/src`, `rm -rf link/` into another repository) with that worktree's facts. A single
file that does not exist, or a directory where the command wants a file, loses nothing; work
saved earlier on the same line (`Targets.saved`) is not lost; a disk or device always is.
Outside every worktree, deleting anything but a temp directory counts as lost, since nothing
could bring it back. A lost file larger than the recorder keeps is reported as unrecoverable.
"""

from __future__ import annotations

import fnmatch
import glob as globlib
import os
import posixpath
import stat
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import PurePosixPath

from interlock import git
from interlock.config import load_config
from interlock.engine import findmatch
from interlock.engine.facts import DESTROYED_KINDS, TreeFacts, collect_facts, lease_drops
from interlock.engine.findings import Finding, Saved, Targets
from interlock.engine.places import TOP_CWD
from interlock.engine.treepaths import (
    archive_members,
    existing_ancestor,
    is_temp_path,
    pathspec_target,
    physical,
    too_large,
)
from interlock.git import RepoLocation

__all__ = ["Judge", "Judgement", "archive_members", "describe", "is_temp_path", "physical"]
from interlock.regenerable import is_regenerable

_GLOB_CHARS = set("*?[")
_STATIC = ("remote", "unreachable", "worktree")
# One lost thing: what to show, and its absolute path when it is a path.
_Lost = tuple[str, str | None]


@dataclass(frozen=True)
class Judgement:
    """The unsaved things a discard would destroy; `lost` empty means nothing is lost.

    lost: what to show (worktree-relative paths, `commit abc123`, ...); paths: the absolute
    paths among them; unrecoverable: those larger than the recorder keeps.
    """

    lost: tuple[str, ...]
    summary: str
    paths: tuple[str, ...] = ()
    unrecoverable: tuple[str, ...] = ()


def _overlaps(unsaved: str, target: str) -> bool:
    """Whether destroying `target` (a repo-relative path, '' = root) destroys `unsaved`."""
    entry = unsaved.rstrip("/")
    if target == "" or entry == target or entry.startswith(target + "/"):
        return True
    # the target lies inside a collapsed untracked/ignored directory entry
    return unsaved.endswith("/") and target.startswith(entry + "/")


def _glob_hits(unsaved: str, pattern: str, crosses: bool = True) -> bool:
    """Whether a glob target (repo-relative) matches the path or one of its ancestors, or may
    match a path inside a collapsed untracked/ignored directory entry (`dir/`): git lists
    none of its files. `crosses`: git's pathspec `*` matches across `/`, so any pattern whose
    literal start agrees with the entry may reach into it (`d*/c` and `*/c` reach `dir/c`);
    the shell's (a file operand: `rm -rf *.egg-info`) matches within one name, so the pattern
    reaches the names of its depth only (a `**` is taken to cross, as under globstar)."""
    parts = unsaved.rstrip("/").split("/")
    if not crosses and "**" not in pattern:
        wanted = pattern.rstrip("/").split("/")
        agrees = all(
            fnmatch.fnmatchcase(part, want) for part, want in zip(parts, wanted, strict=False)
        )
        return agrees and (len(wanted) <= len(parts) or unsaved.endswith("/"))
    if any(fnmatch.fnmatchcase("/".join(parts[:i]), pattern) for i in range(1, len(parts) + 1)):
        return True
    prefix = pattern.split("*", 1)[0].split("?", 1)[0].split("[", 1)[0]
    return unsaved.endswith("/") and (prefix.startswith(unsaved) or unsaved.startswith(prefix))


def describe(paths: list[str], limit: int = 3) -> str:
    """`2 files under sub/ (sub/a.py, sub/b.py)`."""
    shown = ", ".join(paths[:limit]) + (", ..." if len(paths) > limit else "")
    noun = "file" if len(paths) == 1 else "files"
    dirs = {str(PurePosixPath(p.rstrip("/")).parent) for p in paths}
    plain = not any(" (" in p for p in paths)  # `/opt/x (outside any worktree)` is no path
    under = f" under {dirs.pop()}/" if plain and len(dirs) == 1 and "." not in dirs else ""
    return f"{len(paths)} {noun}{under} ({shown})"


def _hard_linked(path: str) -> bool:
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISREG(info.st_mode) and info.st_nlink > 1


def _is_file(entry: str) -> bool:
    """A worktree path, not a description such as `/ (outside any worktree)` or a ref."""
    return not (entry.startswith(("commit ", "(", "/", "refs/")) or " (" in entry)


def _named(entry: str) -> str:
    if entry == "refs/stash":
        return "the stash"
    return entry[1:-1] if entry.startswith("(") else entry


def _summarise(lost: list[_Lost], cap: int) -> Judgement:
    if not lost:
        return Judgement((), "")
    shown = sorted({d for d, _ in lost if not d.startswith("commit ")})
    commits = sorted({d for d, _ in lost if d.startswith("commit ")})
    files = [d for d in shown if _is_file(d)]
    parts = [describe(files)] if files else []
    # Whole trees, repositories, the stash: named as they are, never counted as "files under"
    # their parent folder; `(an unknown repository)` is a stand-in, said without its brackets.
    parts += [_named(d) for d in shown if not _is_file(d)]
    if commits:
        parts.append(f"{len(commits)} commit{'s' if len(commits) > 1 else ''} no other ref holds")
    paths = tuple(sorted({p for _, p in lost if p is not None}))
    large = sorted({f for p in paths for f in too_large(p, cap)})
    if large:
        parts.append(f"too large to keep a copy of: {describe(large)}")
    return Judgement(tuple(shown + commits), "; ".join(parts), paths, tuple(large))


def _elsewhere(paths: Iterable[str]) -> list[_Lost]:
    """Relative targets in a directory known only at run time (`cd "$d" && rm -rf src`): they
    may lie in another worktree, or outside every one, so none of them is known to be free.
    An absolute target names its own place (it is judged against this tree, as before)."""
    return [
        (f"({p} in a directory known only at run time)", None)
        for p in paths
        if not p.startswith(("/", "~"))
    ]


def _all_absolute(paths: Iterable[str]) -> bool:
    return all(p.startswith(("/", "~")) for p in paths)


def _configured_cap(start: str) -> int:
    loc = git.discover(start)
    return load_config(loc.worktree if loc is not None else None).recorder_max_file_size


class Judge:
    """Judges discard findings for a command line started in `start`."""

    def __init__(
        self, start: str, facts: TreeFacts | None = None, max_file_size: int | None = None
    ) -> None:
        """max_file_size: the recorder's cap (config `recorder_max_file_size`); a target
        larger than it is never treated as recoverable. Default: the configured one."""
        self.start = os.path.realpath(start)
        self.cap = max_file_size if max_file_size is not None else _configured_cap(start)
        self._facts: dict[str, TreeFacts] = {}
        if facts is not None:
            self._facts[os.path.realpath(facts.root)] = facts
        self.start_loc = git.discover(self.start)

    def _where(self, cwd: str | None) -> str | None:
        """The real directory of a cwd the walker followed (relative to the start); None when
        it is unknown: the top of the worktree is known only inside one."""
        if cwd is not None and (cwd == TOP_CWD or cwd.startswith(TOP_CWD + "/")):
            if self.start_loc is None:
                return None
            cwd = os.fspath(self.start_loc.worktree) + cwd[len(TOP_CWD) :]
        return None if cwd is None else os.path.realpath(os.path.join(self.start, cwd))

    def facts_for(self, loc: RepoLocation) -> TreeFacts:
        key = os.path.realpath(loc.worktree)
        if key not in self._facts:
            self._facts[key] = collect_facts(loc)
        return self._facts[key]

    def judge(self, finding: Finding) -> Judgement:
        targets = finding.targets or Targets(destroys="all", unknown=True)
        if targets.lease:
            return self._lease(finding, targets)
        if targets.destroys in _STATIC:
            return Judgement(("(history outside the worktree)",), "history git keeps nowhere else")
        if targets.destroys == "device":
            shown = tuple(targets.paths) or ("(a device named at run time)",)
            return Judgement(shown, f"a disk or device ({', '.join(shown)}) and all it holds")
        base = self._where(finding.cwd)
        if targets.destroys in ("all", "files"):
            judged = _summarise(self._lost_files(targets, base), self.cap)
            if targets.search is not None and judged.lost:
                chosen = f", among what {targets.search.tool} selects at run time"
                return replace(judged, summary=judged.summary + chosen)
            if targets.unknown and judged.lost:
                chosen = ", any of which may be among the targets chosen at run time"
                return replace(judged, summary=judged.summary + chosen)
            return judged
        return _summarise(self._lost_in_git(finding, targets, base), self.cap)

    def _lease(self, finding: Finding, targets: Targets) -> Judgement:
        """A bare --force-with-lease drops what the remote-tracking tips hold beyond the push."""
        loc = git.discover(self._where(finding.cwd) or self.start)
        if loc is None:
            return Judgement((), "")
        remote, refspecs = (targets.refs[0], targets.refs[1:]) if targets.refs else ("", ())
        dropped = lease_drops(loc, remote, refspecs)
        if not dropped:
            return Judgement((), "")
        return Judgement(tuple(dropped), "; ".join(dropped))

    def unsaved_entries(
        self,
        loc: RepoLocation,
        destroys: str,
        saved: tuple[Saved, ...] = (),
        kinds: frozenset[str] | None = None,
    ) -> list[_Lost]:
        """The worktree's unsaved entries a discard of that kind destroys (of those kinds of
        work only, when given), minus what the line saved first."""
        entries = self._unsaved(loc, destroys, saved)
        if kinds is None:
            return entries
        facts = self.facts_for(loc)
        return [(e, a) for e, a in entries if facts.kinds_of(e) & kinds]

    def _unsaved(
        self, loc: RepoLocation, destroys: str, saved: tuple[Saved, ...] = ()
    ) -> list[_Lost]:
        """The worktree's unsaved entries of that kind, minus what the line saved first."""
        facts = self.facts_for(loc)
        root = os.path.realpath(loc.worktree)
        kept: list[_Lost] = []
        for entry in sorted(facts.unsaved(destroys)):
            absolute = os.path.join(root, entry.rstrip("/"))
            if saved and self._is_saved(facts, root, entry, absolute, destroys, saved):
                continue
            kept.append((entry, absolute))
        return kept

    def _is_saved(
        self,
        facts: TreeFacts,
        root: str,
        entry: str,
        absolute: str,
        destroys: str,
        saved: tuple[Saved, ...],
    ) -> bool:
        needed = facts.kinds_of(entry) & DESTROYED_KINDS.get(destroys, DESTROYED_KINDS["all"])
        held: set[str] = set()
        for save in saved:
            if self._covers(save, root, absolute):
                held |= save.kinds
        return bool(needed) and needed <= held

    # --- git commands: act on the worktree of their directory -------------------------

    def _lost_in_git(self, finding: Finding, targets: Targets, base: str | None) -> list[_Lost]:
        loc = self.start_loc if base is None else git.discover(base)
        if targets.git_dir_flag:
            return [("(a repository named by --git-dir/--work-tree)", None)]
        if base is None and loc is not None:  # `cd "$d" && git reset --hard`
            return self._lost_in_git(finding, targets, self.start) + [
                ("(the repository of a directory known only at run time)", None)
            ]
        if loc is None:
            # outside any repository git refuses to run; with an unknown cwd, assume the worst
            return [("(an unknown repository)", None)] if base is None else []
        facts = self.facts_for(loc)
        if finding.rule == "git.operation-abort" and facts.operation is None:
            return []  # nothing in progress: git refuses to abort or skip
        if targets.destroys == "stash":
            stashed = self._stashed(loc, facts, targets) if targets.stashed else []
            if stashed and finding.rule != "git.stash-clear":
                return stashed  # the entry the line made (a clear takes older ones too)
            return stashed + ([("refs/stash", None)] if facts.stash_count else [])
        if targets.candidate and not targets.unknown and _names_commit(loc, targets.paths[0]):
            return []  # `git checkout main`: a switch, which keeps or refuses over local changes
        lost: list[_Lost] = []
        if targets.destroys == "commits" or targets.refs:
            lost += [(c, None) for c in self._lost_commits(loc, facts, targets, finding.rule)]
        if targets.destroys != "commits":
            unsaved = self._unsaved(loc, targets.destroys, targets.saved)
            if targets.whole_tree or targets.unknown or base is None:
                lost += unsaved
            else:
                lost += self._match(loc, unsaved, targets.paths or (".",), base)
        return lost

    def _stashed(self, loc: RepoLocation, facts: TreeFacts, targets: Targets) -> list[_Lost]:
        """The unsaved work a `git stash` on the line takes, which a drop of it destroys."""
        root = os.path.realpath(loc.worktree)
        lost: list[_Lost] = []
        for entry, absolute in self._unsaved(loc, "all", targets.saved):
            held: set[str] = set()
            for save in targets.stashed:
                if self._covers(save, root, absolute or ""):
                    held |= save.kinds
            if facts.kinds_of(entry) & held:
                lost.append((entry, absolute))
        return lost

    def _covers(self, save: Saved, root: str, absolute: str) -> bool:
        where = os.path.realpath(os.path.join(self.start, os.path.expanduser(save.path)))
        if save.whole:
            loc = git.discover(existing_ancestor(where))
            return loc is not None and os.path.realpath(loc.worktree) == root
        return absolute == where or absolute.startswith(where.rstrip("/") + "/")

    # --- files: each target where it really lies -----------------------------------------

    def _lost_files(self, targets: Targets, base: str | None) -> list[_Lost]:
        if targets.search is not None:
            return self._lost_search(targets, base)
        if base is None and targets.paths and not targets.unknown and _all_absolute(targets.paths):
            base = self.start  # `cd "$d" && rm -rf /tmp/x`: an absolute target is where it says
        if base is None or (targets.unknown and not targets.paths):
            if self.start_loc is None:
                return [("(unknown paths outside any worktree)", None)]
            return self._unsaved(self.start_loc, targets.destroys, targets.saved) + (
                _elsewhere(targets.paths or (".",)) if base is None else []
            )
        if targets.archive is not None:
            members = archive_members(physical(base, targets.archive, True), targets.strip)
            if members is not None:  # only the files the archive holds are written
                dest = targets.paths[0] if targets.paths else "."
                each = replace(targets, paths=(), archive=None, single=True)
                return [
                    lost
                    for member in members
                    for lost in self._lost_single(
                        physical(base, posixpath.join(dest, member)), each
                    )
                ]
        lost: list[_Lost] = []
        for target in targets.paths or (".",):
            if targets.unknown and (targets.single or targets.into):
                if "$" in target or "`" in target:  # `: > "$F"`: any file, as for `rm "$F"`
                    lost += self._lost_path(physical(base, target), replace(targets, single=False))
                    continue
                if any(c in target for c in _GLOB_CHARS):  # `: > *.py`: the files it matches
                    lost += self._lost_matches(base, target, targets)
                    continue
            absolute = physical(base, target, targets.follows)
            if targets.single or targets.into:
                lost += self._lost_single(absolute, targets)
            else:
                lost += self._lost_path(absolute, targets)
        return lost

    def _lost_matches(self, base: str, pattern: str, targets: Targets) -> list[_Lost]:
        """A glob naming single files: what it matches now, as the shell will expand it."""
        found = sorted(globlib.glob(os.path.join(base, os.path.expanduser(pattern))))
        exact = replace(targets, unknown=False)
        lost: list[_Lost] = []
        for match in found:
            lost += self._lost_single(physical(base, match, targets.follows), exact)
        return lost

    def _lost_search(self, targets: Targets, base: str | None) -> list[_Lost]:
        """What a file search may select (engine.findmatch), plus the literal operands."""
        search = targets.search
        assert search is not None
        rest = replace(targets, search=None)
        lost = self._lost_files(rest, base) if targets.paths else []
        start = self._where(search.base)
        found = None if start is None else findmatch.search_lost(self, targets, start)
        if found is not None:
            return lost + found
        # where it starts, or what it selects, is not known: every unsaved path under it
        if start is None:
            return lost + self._lost_files(replace(rest, unknown=True, paths=()), None)
        for top in search.starts:
            absolute = physical(start, top or ".", True)
            lost += self._lost_under(absolute, rest)
        return lost

    def _lost_under(self, absolute: str, targets: Targets) -> list[_Lost]:
        """Everything unsaved under a directory a search starts from (not the directory
        itself: the search chooses among what lies in it)."""
        loc = git.discover(existing_ancestor(absolute))
        if loc is None:
            around = self._worktree_under(absolute)
            return around + self._lost_outside(absolute, replace(targets, single=False))
        root = os.path.realpath(loc.worktree)
        if not (absolute == root or absolute.startswith(root + "/")):
            return self._lost_path(absolute, targets)
        lost = self._match(
            loc, self._unsaved(loc, targets.destroys, targets.saved), (absolute,), "/"
        )
        if absolute == root:
            lost.append((".git (git's own data)", None))
        return lost

    def _lost_single(self, absolute: str, targets: Targets) -> list[_Lost]:
        """A command that acts on one file there, or writes `into` a directory there."""
        is_dir = os.path.isdir(absolute) and (targets.follows or not os.path.islink(absolute))
        if targets.into and is_dir:
            inner = Targets(targets.destroys, single=targets.single, saved=targets.saved)
            found: list[_Lost] = []
            for name in targets.into:
                found += self._lost_single(os.path.join(absolute, name), inner)
            return found
        if is_dir and targets.single:
            return []  # rm, >, cp, mv of a file: a directory there fails or is written into
        if not os.path.lexists(absolute):
            return []  # nothing there yet: the command creates it
        return self._lost_path(absolute, targets)

    def _worktree_under(self, absolute: str) -> list[_Lost]:
        """The worktree judged, when it lies at or under `absolute` (`rm -rf ..`, `find /tmp
        -delete` run in a worktree under /tmp)."""
        if self.start_loc is not None:
            root = os.path.realpath(self.start_loc.worktree)
            if (root + "/").startswith(absolute.rstrip("/") + "/"):
                return [(f"{root} (the whole worktree, .git included)", root)]
        return []

    def _lost_path(self, absolute: str, targets: Targets) -> list[_Lost]:
        if around := self._worktree_under(absolute):
            return around
        if ".git" in absolute.split("/"):
            return [(f"{absolute} (git's own data)", None)]
        loc = git.discover(existing_ancestor(absolute))
        if loc is None:
            return self._lost_outside(absolute, targets)
        unsaved = self._unsaved(loc, targets.destroys, targets.saved)
        if targets.unknown:
            return unsaved
        return self._match(loc, unsaved, (absolute,), "/", files=True)

    def _lost_outside(self, absolute: str, targets: Targets) -> list[_Lost]:
        if os.path.isdir(os.path.join(absolute, ".git")):
            return [(f"{absolute} (a git repository)", absolute)]
        if targets.single and _hard_linked(absolute):
            # `ln src/app.py /tmp/h` made earlier: emptying /tmp/h empties src/app.py
            return [(f"{absolute} (a file with other hard links, which may hold work)", absolute)]
        if is_temp_path(absolute) or is_regenerable(absolute):
            return []  # a temp dir, a cache or build output (~/.cache/x, /opt/app/node_modules)
        glob = any(c in absolute for c in _GLOB_CHARS)
        if (targets.single or targets.creates) and not glob and not os.path.isfile(absolute):
            return []  # nothing there, or not a file (a device, a socket)
        return [(f"{absolute} (outside any worktree)", None if glob else absolute)]

    def _match(
        self,
        loc: RepoLocation,
        unsaved: list[_Lost],
        paths: Iterable[str],
        base: str,
        files: bool = False,
    ) -> list[_Lost]:
        root = os.path.realpath(loc.worktree)
        lost: list[_Lost] = []
        for target in paths:
            if files:
                absolute = os.path.normpath(os.path.join(base, os.path.expanduser(target)))
            else:  # a git pathspec: `:/` and `:(top)` reach from the root, not from base
                absolute = pathspec_target(target, base, root)
            rel = os.path.relpath(absolute, root)
            if rel == os.pardir or rel.startswith(os.pardir + os.sep):  # not `..foo`
                lost.append((f"{absolute} (outside the worktree)", None))
                continue
            rel = "" if rel == "." else rel
            if files and (rel == ".git" or rel.startswith(".git/")):
                lost.append((f"{rel} (git's own data)", None))
            elif any(c in rel for c in _GLOB_CHARS):
                lost += [p for p in unsaved if _glob_hits(p[0], rel, crosses=not files)]
            else:
                lost += [p for p in unsaved if _overlaps(p[0], rel)]
        return lost

    # --- commits ---------------------------------------------------------------------------

    def _lost_commits(
        self, loc: RepoLocation, facts: TreeFacts, targets: Targets, rule: str
    ) -> list[str]:
        refs = targets.refs
        if rule.startswith(("git.reset", "git.checkout")):
            if targets.unknown:  # HEAD moves to a revision named at run time: any commit
                return self._moved_off(loc, "HEAD", None)
            lost = [
                c for ref in refs or ("HEAD",) for c in self._commits_left_behind(loc, facts, ref)
            ]
            return lost
        full = rule.startswith("git.update-ref")
        if rule in ("git.update-ref-move", "git.branch-force-move"):  # (REF, NEW)
            if not refs:  # the ref itself is named at run time
                return self._any_ref_lost(loc, rule)
            name = refs[0] if full or refs[0].startswith("refs/") else f"refs/heads/{refs[0]}"
            return self._moved_off(loc, name, refs[1] if len(refs) > 1 else None)
        lost = []
        for ref in refs:
            name = ref if full or ref.startswith("refs/") else f"refs/heads/{ref}"
            lost += self._moved_off(loc, name, None)
        if targets.unknown:
            lost += self._any_ref_lost(loc, rule)
        return list(dict.fromkeys(lost))

    def _commits_left_behind(self, loc: RepoLocation, facts: TreeFacts, target: str) -> list[str]:
        """Commits reachable from HEAD but not from `target` nor any other ref."""
        if facts.head is None:
            return []
        code, out, _ = git.run(
            ["rev-parse", "-q", "--verify", f"{target}^{{commit}}"], loc.worktree
        )
        if code != 0:
            return []
        code, head_ref, _ = git.run(["symbolic-ref", "-q", "HEAD"], loc.worktree)
        skip = head_ref.decode().strip() if code == 0 else None
        return _unique_commits(loc, facts.head, [out.decode().strip()], skip)

    def _moved_off(self, loc: RepoLocation, name: str, new: str | None) -> list[str]:
        """Commits only the ref `name` holds (HEAD: its branch, or itself when detached) that
        the revision `new` it moves to does not hold (None: deleted, or moved anywhere)."""
        tip = _resolve(loc, f"{name}^{{commit}}")
        if tip is None:
            return []  # no such ref: it is created, or git refuses
        exclude: list[str] = []
        if new is not None:
            if _resolve(loc, new) is None:
                return []  # git refuses a revision that does not exist
            exclude = [c for c in (_resolve(loc, f"{new}^{{commit}}"),) if c is not None]
        skip: str | None = name
        if name == "HEAD":
            code, out, _ = git.run(["symbolic-ref", "-q", "HEAD"], loc.worktree)
            skip = out.decode().strip() if code == 0 else None
        return _unique_commits(loc, tip, exclude, skip)

    def _any_ref_lost(self, loc: RepoLocation, rule: str) -> list[str]:
        """What a ref named at run time may lose: the commits each ref of its kind alone holds
        (branches for `branch`, tags for `tag`, any ref or HEAD for `update-ref`)."""
        kind = _RUNTIME_REF_KINDS.get(rule.split("-", 1)[0], "refs/")
        _, out, _ = git.run(["for-each-ref", "--format=%(refname)", kind], loc.worktree)
        names = [r for r in out.decode(errors="replace").split() if not r.startswith(_REFETCHED)]
        names += ["HEAD"] if kind == "refs/" else []
        if len(names) > _MAX_RUNTIME_REFS:
            return [f"(a ref named at run time, among {len(names)})"]
        return list(dict.fromkeys(c for name in names for c in self._moved_off(loc, name, None)))


# Where a ref named at run time may lie, by the command that names it.
_RUNTIME_REF_KINDS = {
    "git.branch": "refs/heads/",
    "git.fetch": "refs/heads/",
    "git.tag": "refs/tags/",
}
_REFETCHED = "refs/remotes/"
# Past this many candidates, a ref named at run time is taken to lose something.
_MAX_RUNTIME_REFS = 64


def _names_commit(loc: RepoLocation, operand: str) -> bool:
    """Whether `git checkout X`'s single operand names a commit (`-` is the branch before),
    which git then switches to rather than read it as a path."""
    rev = "@{-1}" if operand == "-" else operand
    return _resolve(loc, rev + "^{commit}") is not None


def _resolve(loc: RepoLocation, rev: str) -> str | None:
    code, out, _ = git.run(["rev-parse", "-q", "--verify", rev], loc.worktree)
    return out.decode().strip() if code == 0 else None


def _unique_commits(
    loc: RepoLocation, tip: str, exclude: list[str], skip_ref: str | None
) -> list[str]:
    """Commits reachable from tip and from no ref but skip_ref (interlock's own refs aside)."""
    _, refs_out, _ = git.run(["for-each-ref", "--format=%(refname)"], loc.worktree)
    others = [
        r
        for r in refs_out.decode(errors="replace").split()
        if r != skip_ref and not r.startswith("refs/interlock/") and r != "refs/stash"
    ]
    lines = [tip, *(f"^{x}" for x in [*exclude, *others])]
    stdin = ("\n".join(lines) + "\n").encode()
    code, out, _ = git.run(["rev-list", "--stdin"], loc.worktree, input=stdin)
    if code != 0:
        return [f"commit {tip[:12]}"]
    return [f"commit {line[:12]}" for line in out.decode().split()]
