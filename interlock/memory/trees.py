"""Tree arithmetic on raw git trees: apply path edits to a base tree, compare two trees,
flatten one, look up one path.

Paths are bytes, worktree-relative, `/`-separated. Only the directories an edit or a
difference passes through are read, so the cost follows the change, not the repository:
two subtrees with the same id are equal without looking inside. With a batched reader
(interlock.plumbing), `prefetch_along` and `flatten` read one level of trees in one batch.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from interlock.memory.store import ObjectStore, as_store
from interlock.objectformat import TREE_MODE, Entry, TreeEntries

TYPE_CHECKING = False  # not `typing` (~3 ms to import): a cold snapshot process loads this
if TYPE_CHECKING:
    from typing import NamedTuple

    import pygit2

    from interlock.memory.store import RepoAccess

# path -> new entry, or None: remove whatever is at path (a file or a whole subtree). Edits
# below a removed path start from an empty directory.
Edits = Mapping[bytes, Entry | None]


if TYPE_CHECKING:

    class Change(NamedTuple):
        """One path that differs: old and new entries (None: absent). Never a tree entry."""

        path: bytes
        old: Entry | None
        new: Entry | None

else:  # the same class, without importing typing
    Change = namedtuple("Change", ("path", "old", "new"))
    Change.__doc__ = (
        "One path that differs: old and new entries (None: absent). Never a tree entry."
    )


@dataclass
class _Node:
    """One directory or path of the edits (a docstring: dataclasses would ask inspect for
    one, and a cold snapshot defers inspect)."""

    reset: bool = False  # start from an empty directory instead of the base's
    leaf: Entry | None = None
    has_leaf: bool = False
    children: dict[bytes, _Node] = field(default_factory=dict)


def _build_trie(edits: Edits) -> _Node:
    """Edits as a tree of nodes. A file set at `a` makes removals below `a` moot; a file set
    below it (`a/b`) wins over it: `a` is a directory then."""
    root = _Node()
    for path in sorted(edits):  # a parent sorts before its children
        value = edits[path]
        node, below_file = root, None
        for part in path.split(b"/"):
            if node.leaf is not None:
                below_file = node
            node = node.children.setdefault(part, _Node())
        if below_file is not None:
            if value is None:
                continue
            below_file.leaf, below_file.has_leaf, below_file.reset = None, False, True
        node.has_leaf, node.leaf = True, value
        if value is None:
            node.reset = True
            node.children.clear()
    return root


def _apply(store: ObjectStore, base: str | None, node: _Node) -> Entry | None:
    entries: TreeEntries = {} if base is None or node.reset else dict(store.read_tree(base))
    for name, child in node.children.items():
        if child.children and child.leaf is None:
            old = entries.get(name)
            sub = old[1] if old and old[0] == TREE_MODE and not child.reset else None
            result = _apply(store, sub, child)
            if result is None and old is not None and old[0] != TREE_MODE and not child.has_leaf:
                # only removals below a path that is a file: they remove nothing (#incr-vs-cold)
                result = old
        else:
            result = child.leaf
        if result is None:
            entries.pop(name, None)
        else:
            entries[name] = result
    if not entries:
        return None
    # only the names of node.children were set or removed in the base's entries
    return (TREE_MODE, store.tree(entries, None if node.reset else base, node.children))


def apply_edits(store: ObjectStore, base: str | None, edits: Edits) -> str:
    """The id of `base` (None: empty) with edits applied, new trees queued in the store;
    directories left empty vanish."""
    if not edits and base is not None:
        return base
    result = _apply(store, base, _build_trie(edits))
    return result[1] if result else store.tree({})


def lookup(
    source: ObjectStore | pygit2.Repository | RepoAccess, tree: str | None, path: bytes
) -> Entry | None:
    """The entry at path in tree (a tree entry for a directory), or None."""
    if tree is None:
        return None
    store = as_store(source)
    entry: Entry | None = (TREE_MODE, tree)
    for part in path.split(b"/"):
        if entry is None or entry[0] != TREE_MODE:
            return None
        entry = store.read_tree(entry[1]).get(part)
    return entry


def prefetch_along(store: ObjectStore, tree: str | None, paths: Iterable[bytes]) -> None:
    """Read, one level at a time, the trees of `tree` that lead to `paths` (what apply_edits
    and lookup will read), so a batched reader answers them in a few round trips."""
    if tree is None or not store.git.batched:
        return
    below: dict[bytes, set[bytes]] = {}  # directory -> the child directories on the way
    for path in paths:
        parent = b""
        for part in path.split(b"/")[:-1]:
            child = parent + b"/" + part if parent else part
            below.setdefault(parent, set()).add(child)
            parent = child
    level = {b"": tree}
    while level:
        read = store.read_trees(list(level.values()))
        next_level: dict[bytes, str] = {}
        for directory, oid in level.items():
            for child in below.get(directory, ()):
                entry = read[oid].get(child.rsplit(b"/", 1)[-1])
                if entry is not None and entry[0] == TREE_MODE:
                    next_level[child] = entry[1]
        level = next_level


def flatten(
    source: ObjectStore | pygit2.Repository | RepoAccess, tree: str | None, prefix: bytes = b""
) -> dict[bytes, Entry]:
    """Every non-tree entry below tree, by full path (prefix + name)."""
    found: dict[bytes, Entry] = {}
    if tree is None:
        return found
    store = as_store(source)
    if store.git.batched:
        return _flatten_batched(store, tree, prefix)
    for name, entry in store.read_tree(tree).items():
        if entry[0] == TREE_MODE:
            found.update(flatten(store, entry[1], prefix + name + b"/"))
        else:
            found[prefix + name] = entry
    return found


def _flatten_batched(store: ObjectStore, tree: str, prefix: bytes) -> dict[bytes, Entry]:
    """flatten's result (in the same order) with each level's trees read in one batch."""
    read: dict[str, TreeEntries] = {}
    level = [tree]
    while level:
        read.update(store.read_trees(level))
        level = [e[1] for oid in level for e in read[oid].values() if e[0] == TREE_MODE]
        level = [oid for oid in dict.fromkeys(level) if oid not in read]
    found: dict[bytes, Entry] = {}

    def walk(oid: str, at: bytes) -> None:
        for name, entry in read[oid].items():
            if entry[0] == TREE_MODE:
                walk(entry[1], at + name + b"/")
            else:
                found[at + name] = entry

    walk(tree, prefix)
    return found


def _diff_entry(
    store: ObjectStore, path: bytes, old: Entry | None, new: Entry | None
) -> list[Change]:
    if old == new:
        return []
    old_tree = old is not None and old[0] == TREE_MODE
    new_tree = new is not None and new[0] == TREE_MODE
    if old_tree and new_tree:
        return diff_trees(store, old[1] if old else None, new[1] if new else None, path + b"/")
    changes: list[Change] = []
    if old_tree and old is not None:
        changes += [Change(p, e, None) for p, e in flatten(store, old[1], path + b"/").items()]
    elif old is not None:
        changes.append(Change(path, old, None))
    if new_tree and new is not None:
        changes += [Change(p, None, e) for p, e in flatten(store, new[1], path + b"/").items()]
    elif new is not None:
        if changes and changes[-1].path == path:
            changes[-1] = Change(path, old, new)
        else:
            changes.append(Change(path, None, new))
    return changes


def diff_trees(
    source: ObjectStore | pygit2.Repository | RepoAccess,
    old: str | None,
    new: str | None,
    prefix: bytes = b"",
) -> list[Change]:
    """Every path whose entry differs between two trees (None: empty), sorted by path."""
    if old == new:
        return []
    store = as_store(source)
    a = store.read_tree(old) if old else {}
    b = store.read_tree(new) if new else {}
    changes: list[Change] = []
    for name in sorted(a.keys() | b.keys()):
        changes += _diff_entry(store, prefix + name, a.get(name), b.get(name))
    return sorted(changes, key=_by_path)


def count_changes(
    source: ObjectStore | pygit2.Repository | RepoAccess, old: str | None, new: str | None
) -> int:
    """len(diff_trees(source, old, new)), without building or sorting the list: only the
    entries that differ are looked at (`interlock snapshot`'s "N files differ from HEAD")."""
    if old == new:
        return 0
    store = as_store(source)
    a = store.read_tree(old) if old else {}
    b = store.read_tree(new) if new else {}
    count = 0
    # the names whose entries differ, found by set operations in C: a snapshot's trees differ
    # from HEAD's in a few of their entries (looping over every name was ~1 ms of a warm one)
    for name in {name for name, _ in a.items() ^ b.items()}:
        x, y = a.get(name), b.get(name)
        if x is not None and y is not None and x[0] == TREE_MODE and y[0] == TREE_MODE:
            count += count_changes(store, x[1], y[1])
        else:
            count += len(_diff_entry(store, name, x, y))
    return count


def _by_path(change: Change) -> bytes:
    return change.path


def outermost(paths: Iterable[bytes]) -> list[bytes]:
    """Paths with those inside another listed path dropped (`a` covers `a/b`)."""
    chosen = set(paths)
    return sorted(p for p in chosen if not any(a in chosen for a in ancestors(p)))


def ancestors(path: bytes) -> list[bytes]:
    """The directories above path, outermost first: `a/b/c` -> `a`, `a/b`."""
    parts = path.split(b"/")
    return [b"/".join(parts[:i]) for i in range(1, len(parts))]


def diff_scoped(
    source: ObjectStore | pygit2.Repository | RepoAccess,
    old: str | None,
    new: str | None,
    scope: Iterable[bytes],
) -> list[Change]:
    """Like diff_trees, limited to the given paths and everything below them."""
    store = as_store(source)
    changes: list[Change] = []
    for path in outermost(scope):
        changes += _diff_entry(store, path, lookup(store, old, path), lookup(store, new, path))
    return sorted(changes, key=_by_path)
