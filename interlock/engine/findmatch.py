"""The tree side of a file search (engine/findexpr.py): which paths holding unsaved work the
search may select, found by evaluating its expression on those paths and their directories
only, never by walking the tree.

A path is selected when the destroying action may run on it or, for a command that removes
whole directories (`rm -r`), on a directory above it within the search. Directories git
reports as one entry (a wholly untracked or ignored directory) are looked inside, up to a
bound; `.git` is looked at too when the search reaches it (without its object store, whose
names are only hashes and packs), since `find . -name '*.log' -delete` would delete git's
and interlock's own files there. A search that is not understood, or that starts outside
the worktree it reaches, selects every unsaved path under its start.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from interlock import git
from interlock.engine.findexpr import Node, Search, glob_regex, regex_of
from interlock.engine.treepaths import existing_ancestor, is_temp_path, physical

if TYPE_CHECKING:
    from interlock.engine.findings import Targets
    from interlock.engine.precision import Judge

Lost = tuple[str, str | None]
_INSIDE_LIMIT = 2000  # entries looked at inside one collapsed directory, and inside .git
_OBJECT_NAMES = ("00", "00/" + "0" * 38, "pack", "pack/pack-" + "0" * 40 + ".pack", "info/packs")
_Outcome = tuple[bool, bool, bool]  # (value, the target action ran, -prune ran)


@dataclass(frozen=True)
class Candidate:
    """A path find visits: its name, the path as find prints it, its type (`f`, `d`, `l`;
    None when unknown) and depth (the start path is 0). name None: not known (a path inside
    a directory too large to look into)."""

    name: str | None
    path: str | None
    kind: str | None
    depth: int


def _test(node: Node, c: Candidate) -> tuple[bool, ...]:
    kind, arg = node.kind, node.arg
    try:
        if kind in ("name", "iname") and c.name is not None:
            return (glob_regex(arg, kind == "iname").match(c.name) is not None,)
        if kind in ("path", "ipath") and c.path is not None:
            return (glob_regex(arg, kind == "ipath").match(c.path) is not None,)
        if kind.startswith(("regex", "iregex")) and c.path is not None:
            return (regex_of(kind, arg).fullmatch(c.path) is not None,)
        if kind.startswith("fd:") and c.name is not None:
            return (_fd_match(kind, arg, c),)
    except re.error:
        return (True, False)
    if kind in ("type", "xtype") and c.kind is not None and not (kind == "xtype" and c.kind == "l"):
        return (c.kind in arg.split(","),)
    if kind == "false":
        return (False,)
    return (True, False)


def _fd_match(kind: str, pattern: str, c: Candidate) -> bool:
    """fd's pattern: a regex searched in the name (or the path with --full-path), case-
    insensitive unless it holds an upper-case letter or -s was given."""
    flags = kind.split(":")[1]
    subject = (c.path or "") if "p" in flags else (c.name or "")
    ignore = "s" not in flags and pattern == pattern.lower()
    if "g" in flags:
        return glob_regex(pattern, ignore).match(subject) is not None
    if "F" in flags:
        return (pattern.lower() in subject.lower()) if ignore else pattern in subject
    return re.search(pattern, subject, re.I if ignore else 0) is not None


def outcomes(node: Node, c: Candidate, fired: bool = False, pruned: bool = False) -> set[_Outcome]:
    """Every way the expression can end on `c` (a test it cannot decide goes both ways)."""
    op = node.op
    if op == "test":
        return {(v, fired, pruned) for v in _test(node, c)}
    if op == "action":
        return {(True, fired, pruned)}
    if op == "either":
        return {(True, fired, pruned), (False, fired, pruned)}
    if op == "target":
        return {(True, True, pruned), (False, True, pruned)}
    if op == "prune":
        return {(True, fired, True)}
    if op == "not":
        return {(not v, f, p) for v, f, p in outcomes(node.kids[0], c, fired, pruned)}
    found: set[_Outcome] = set()
    for v, f, p in outcomes(node.kids[0], c, fired, pruned):
        if op == "list" or (op == "and" and v) or (op == "or" and not v):
            found |= outcomes(node.kids[1], c, f, p)
        else:
            found.add((v, f, p))
    return found


def _chain(search: Search, start: str, rel: str, kind: str | None) -> Iterator[Candidate]:
    """The start path, each directory under it, then the path itself (`rel` from start)."""
    if search.starts == ("",):  # git ls-files: paths relative to its directory, files only
        yield Candidate(os.path.basename(rel), rel, kind, rel.count("/") + 1)
        return
    name = os.path.basename(start.rstrip("/")) or start
    yield Candidate(name, start, "d", 0)
    parts = [p for p in rel.split("/") if p]
    prefix = start.rstrip("/") if start not in ("/",) else ""
    for depth, part in enumerate(parts, 1):
        path = f"{prefix}/{'/'.join(parts[:depth])}"
        yield Candidate(part, path, kind if depth == len(parts) else "d", depth)


def selects(search: Search, start: str, rel: str, kind: str | None) -> bool:
    """Whether the search from `start` (as typed) may destroy the path `rel` under it."""
    assert search.expr is not None
    last = rel.count("/") + 1 if rel else 0
    for c in _chain(search, start, rel, kind):
        if search.maxdepth is not None and c.depth > search.maxdepth:
            return False
        if c.depth < search.mindepth:
            continue
        ways = outcomes(search.expr, c)
        if any(f for _, f, _ in ways) and (search.subtree or c.depth == last):
            return True
        if not search.depth_first and all(p for _, _, p in ways):
            return False  # pruned: find does not go below it
    return False


def _kind(absolute: str) -> str | None:
    try:
        mode = os.lstat(absolute).st_mode
    except OSError:
        return None
    if stat.S_ISLNK(mode):
        return "l"
    return "d" if stat.S_ISDIR(mode) else "f"


def _inside(top: str) -> Iterator[tuple[str, str | None]]:
    """(path relative to top, type) of what lies inside a directory, bounded: past the
    bound, one entry of unknown name and type stands for the rest."""
    seen = 0
    for root, dirs, files in os.walk(top):
        for name in files + [d for d in dirs if os.path.islink(os.path.join(root, d))]:
            seen += 1
            if seen > _INSIDE_LIMIT:
                yield "", None
                return
            full = os.path.join(root, name)
            yield os.path.relpath(full, top), _kind(full)


def _select_entry(
    search: Search, start: str, rel: str, absolute: str, apart: tuple[str, ...] = ()
) -> list[str]:
    """The parts of one unsaved entry (`rel` from the start) the search may destroy; `apart`:
    absolute paths of entries git reports on their own (ignored files inside an untracked
    directory), which are judged as those entries."""
    kind = _kind(absolute)
    if kind is None:
        return []  # already gone: nothing left to lose
    if kind != "d" or not os.path.isdir(absolute):
        return [rel] if selects(search, start, rel, kind) else []
    if search.subtree and selects(search, start, rel, "d"):
        return [rel]
    found: list[str] = []
    for inner, inner_kind in _inside(absolute):
        if not inner:  # too many to look at: any name may be there
            if _unknown_below(search, rel):
                return [rel]
            continue
        path = f"{rel}/{inner}" if rel else inner
        full = os.path.join(absolute, inner)
        if any(full == a or full.startswith(a + "/") for a in apart):
            continue
        if selects(search, start, path, inner_kind):
            found.append(path)
    return found


def _unknown_below(search: Search, rel: str) -> bool:
    """Whether the search may act on a path below `rel` whose name and type are unknown."""
    assert search.expr is not None
    c = Candidate(None, None, None, rel.count("/") + 2)
    return any(f for _, f, _ in outcomes(search.expr, c))


def _git_dir_selected(search: Search, start: str, rel: str, git_path: str) -> bool:
    """Whether the search may destroy `.git` (at `rel` from the start) or anything in it."""
    kind = _kind(git_path)
    if kind is None:
        return False
    if selects(search, start, rel, kind):
        return True
    if kind != "d":
        return False
    names: list[tuple[str, str | None]] = []
    for root, dirs, files in os.walk(git_path):
        if "objects" in dirs:
            dirs.remove("objects")
            base = os.path.relpath(os.path.join(root, "objects"), git_path)
            names += [(f"{base}/{n}", "f") for n in _OBJECT_NAMES]
        names += [(os.path.relpath(os.path.join(root, n), git_path), "f") for n in files]
        names += [(os.path.relpath(os.path.join(root, n), git_path), "d") for n in dirs]
        if len(names) > _INSIDE_LIMIT:
            return _unknown_below(search, rel)
    return any(selects(search, start, f"{rel}/{n}" if rel else n, k) for n, k in names)


def search_lost(judge: Judge, targets: Targets, start_dir: str) -> list[Lost] | None:
    """The unsaved paths a search (targets.search) started in `start_dir` may destroy, or None
    when it cannot be judged this way (the caller then counts everything under the start)."""
    search = targets.search
    assert search is not None
    lost: list[Lost] = []
    for start in search.starts:
        top = physical(start_dir, start or ".", True)
        inner = judge.start_loc
        own_git = None if inner is None else os.path.join(os.path.realpath(inner.worktree), ".git")
        if own_git is not None and _under(top, own_git):  # `find .git/refs -delete`
            if search.expr is None or _git_dir_selected(search, start, "", top):
                lost.append(
                    (f"{os.path.relpath(top, os.path.dirname(own_git))} (git's own data)", None)
                )
            continue
        loc = git.discover(existing_ancestor(top))
        if loc is None and inner is not None and _under(os.path.realpath(inner.worktree), top):
            if not is_temp_path(top):
                return None  # it reaches beyond the worktree, into what is not temporary
            loc = inner  # a temp dir around the worktree: what is unsaved lies in it
        if loc is None:
            if is_temp_path(top):
                continue
            return None
        root = os.path.realpath(loc.worktree)
        if not _under(top, root) and not _under(root, top):
            return None  # it reaches beyond this worktree
        entries = judge.unsaved_entries(loc, targets.destroys, targets.saved, search.kinds)
        facts = judge.facts_for(loc)
        apart = tuple(os.path.join(root, e.rstrip("/")) for e in facts.ignored)
        for entry, absolute in entries:
            if absolute is None or (absolute != top and not absolute.startswith(top + "/")):
                continue
            rel = os.path.relpath(absolute, top)
            rel = "" if rel == "." else rel
            if search.expr is None:
                lost.append((entry, absolute))
                continue
            for part in _select_entry(search, start, rel, absolute, apart):
                full = os.path.normpath(os.path.join(top, part))
                lost.append((os.path.relpath(full, root), full))
        git_path = os.path.join(root, ".git")
        if _under(root, top) and search.starts != ("",) and search.dot_git:
            rel = os.path.relpath(git_path, top)
            if search.expr is None or _git_dir_selected(search, start, rel, git_path):
                lost.append((".git (git's own data)", None))
    return lost


def _under(path: str, top: str) -> bool:
    """Whether `path` is `top` or lies inside it (both absolute and real)."""
    return path == top or path.startswith(top.rstrip("/") + "/")
