"""ObjectStore: the objects one snapshot or restore reads and writes.

New blobs, trees and commits are queued and written together as one pack by flush() (see
interlock/memory/pack.py), which the caller does before it points a ref at them; queued trees
can be read back before that. A blob is hashed first and queued only when the repository
lacks it; a tree is queued without that lookup (a tree built from a change is almost always
new, and a duplicate in a pack is harmless). Files over the streaming size are streamed into
a pack of their own at once.
Parsed trees are cached by id for the process (a tree id names its content forever), which
keeps the daemon's back-to-back incremental snapshots from re-parsing the same directories.
The cache is bounded by an estimate of the bytes it holds (CACHE_BYTES), not by a count of
trees: one tree of a 10k-file directory weighs as much as thousands of small ones.
`clear_cache()` empties it (the daemon does when idle).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import TYPE_CHECKING

from interlock.git import (
    has_object,
    hash_file,
    objects_dir,
    read_blob,
    read_object,
)
from interlock.memory.pack import ChangedWhileRead, PackBatch, write_file_blob
from interlock.objectformat import (
    BLOB,
    COMMIT,
    TREE,
    TreeEntries,
    format_commit,
    format_entry,
    join_entries,
    object_id,
    parse_tree_raw,
)

if TYPE_CHECKING:
    import pygit2

CACHE_BYTES = 24 << 20
_ENTRY_OVERHEAD = 240  # bytes of dict slot, tuples, mode int and id str per cached entry
# Parsed trees by id, with their entries' raw bytes once formatted (a tree id names its
# content forever, so entries are never stale).
_cache: OrderedDict[str, tuple[TreeEntries, dict[bytes, tuple[bytes, bytes]] | None]] = (
    OrderedDict()
)
_cache_lock = threading.Lock()
_cache_weight: dict[str, int] = {}
_cache_total = [0]


def _weight(entries: TreeEntries, formatted: dict[bytes, tuple[bytes, bytes]] | None) -> int:
    names = sum(len(name) for name in entries)
    raw = sum(len(v[1]) + len(v[0]) for v in formatted.values()) if formatted else 0
    return 200 + names + raw + len(entries) * _ENTRY_OVERHEAD


def _remember(
    oid: str, entries: TreeEntries, formatted: dict[bytes, tuple[bytes, bytes]] | None
) -> None:
    weight = _weight(entries, formatted)
    with _cache_lock:
        _cache_total[0] += weight - _cache_weight.get(oid, 0)
        _cache[oid] = (entries, formatted)
        _cache_weight[oid] = weight
        _cache.move_to_end(oid)
        while _cache_total[0] > CACHE_BYTES and len(_cache) > 1:
            old, _ = _cache.popitem(last=False)
            _cache_total[0] -= _cache_weight.pop(old, 0)


def clear_cache() -> None:
    """Forget every parsed tree (to give the memory back when idle)."""
    with _cache_lock:
        _cache.clear()
        _cache_weight.clear()
        _cache_total[0] = 0


def cache_bytes() -> int:
    """The estimated bytes the parsed-tree cache holds now."""
    return _cache_total[0]


def _cached(oid: str) -> tuple[TreeEntries, dict[bytes, tuple[bytes, bytes]] | None] | None:
    with _cache_lock:
        found = _cache.get(oid)
        if found is not None:
            _cache.move_to_end(oid)
        return found


class ObjectStore:
    """Reads objects from a repository and queues new ones for one pack."""

    def __init__(self, repo: pygit2.Repository) -> None:
        self.repo = repo
        self._batch = PackBatch(objects_dir(repo))

    def has(self, oid: str) -> bool:
        return oid in self._batch or has_object(self.repo, oid)

    def blob(self, data: bytes) -> str:
        oid = object_id(BLOB, data)
        if not self.has(oid):
            self._batch.add(BLOB, data, oid)
        return oid

    def queue_blob(self, data: bytes, oid: str | None = None) -> str:
        """Queue a blob without asking the repository first (see interlock/memory/recread.py:
        a miss there costs a rescan of the pack directory); a duplicate in a pack is
        harmless."""
        return self._batch.add(BLOB, data, oid)

    def blob_from_file(self, path: bytes) -> str:
        """A large file: hashed from disk, and streamed into a pack of its own only when
        missing (never held in memory). The id returned is that of the bytes stored, even if
        the file changed between the hash and the copy."""
        oid = hash_file(path)
        if self.has(oid):
            return oid
        for attempt in range(3):
            try:
                return write_file_blob(self._batch.objects_dir, path)
            except ChangedWhileRead:
                if attempt == 2:  # still being written: the caller reads it on its next event
                    raise
        raise AssertionError("unreachable")

    def tree(self, entries: TreeEntries, base: str | None = None) -> str:
        """Queue a tree; `base`, a tree these entries were derived from, saves formatting
        the entries they share."""
        if base is not None:
            self.read_tree(base)  # cached, with its entries' raw bytes
        known = _cached(base) if base else None
        old_entries, old_formatted = known if known else ({}, None)
        formatted = {
            name: old_formatted[name]
            if old_formatted is not None and old_entries.get(name) == entry
            else format_entry(name, entry)
            for name, entry in entries.items()
        }
        data = join_entries(formatted.values())
        # No lookup first: a tree built from a change is almost always new, a duplicate in a
        # pack is harmless, and a miss costs libgit2 a rescan of the pack directory.
        oid = self._batch.add(TREE, data)
        _remember(oid, dict(entries), formatted)
        return oid

    def commit(self, tree: str, parents: list[str], message: str, when: float) -> str:
        return self._batch.add(COMMIT, format_commit(tree, parents, message, when))

    def read_tree(self, oid: str) -> TreeEntries:
        """A tree's entries; the result is shared: copy it before changing it."""
        known = _cached(oid)
        if known is not None:
            return known[0]
        entries, formatted = parse_tree_raw(read_object(self.repo, oid, TREE))
        _remember(oid, entries, formatted)
        return entries

    def read_blob(self, oid: str) -> bytes:
        """A blob's bytes (from the repository: flush() first if it may be queued)."""
        return read_blob(self.repo, oid)

    @property
    def pending_bytes(self) -> int:
        return self._batch.pending_bytes

    def flush(self) -> None:
        """Write the queued objects (one pack); reading them from the repository works after."""
        self._batch.flush()


def as_store(source: ObjectStore | pygit2.Repository) -> ObjectStore:
    """An ObjectStore for a repository (read-only use), or the store itself."""
    return source if isinstance(source, ObjectStore) else ObjectStore(source)
