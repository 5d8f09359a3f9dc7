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

Reading goes through a RepoAccess: a pygit2 repository (interlock.repoaccess.PygitAccess: the
daemon and every other command) or git's own processes (interlock.plumbing.GitReader: a cold
`interlock snapshot` process, which must not pay for importing pygit2). The second answers
in round trips, so with it (`batched`) the store asks for many objects at once: blobs are
hashed and held until a batch of them is checked against the repository (at UNCHECKED_BYTES
or at flush), and `read_trees` fetches every tree of one level of a walk together.
"""

from __future__ import annotations

import _thread  # not threading (~2 ms to import): a lock is all the cache needs
from collections import OrderedDict

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
from interlock.plumbing import GitReader
from interlock.repoaccess import PygitAccess

TYPE_CHECKING = False  # not `typing` (~3 ms to import): a cold snapshot process loads this
if TYPE_CHECKING:
    from collections.abc import Iterable

    import pygit2

    RepoAccess = PygitAccess | GitReader

CACHE_BYTES = 24 << 20
_ENTRY_OVERHEAD = 240  # bytes of dict slot, tuples, mode int and id str per cached entry
# Parsed trees by id, with their entries' raw bytes once formatted (a tree id names its
# content forever, so entries are never stale).
_cache: OrderedDict[str, tuple[TreeEntries, dict[bytes, tuple[bytes, bytes]] | None]] = (
    OrderedDict()
)
_cache_lock = _thread.allocate_lock()
_cache_weight: dict[str, int] = {}
_cache_total = [0]
UNCHECKED_BYTES = 8 << 20  # blobs held before asking a batched reader which ones it lacks
UNCHECKED_COUNT = 2000


def _weight(
    entries: TreeEntries, formatted: dict[bytes, tuple[bytes, bytes]] | None, size: int
) -> int:
    """The bytes a parsed tree holds, estimated from its raw size (`size`: the tree object's
    bytes), never below what its parts measure: the names and the formatted sort keys are each
    at most the raw size, the raw entries exactly it. (Measuring the parts - two passes over
    every entry - was a fifth of a warm 20-path snapshot at 100k files.)"""
    return 200 + (3 * size if formatted else size) + len(entries) * _ENTRY_OVERHEAD


def _remember(
    oid: str,
    entries: TreeEntries,
    formatted: dict[bytes, tuple[bytes, bytes]] | None,
    size: int,
) -> None:
    weight = _weight(entries, formatted, size)
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


def as_access(source: pygit2.Repository | RepoAccess) -> RepoAccess:
    """The reading interface for a pygit2 repository, or the access itself."""
    if isinstance(source, PygitAccess | GitReader):
        return source
    return PygitAccess(source)


class ObjectStore:
    """Reads objects from a repository and queues new ones for one pack."""

    def __init__(self, source: pygit2.Repository | RepoAccess) -> None:
        self.git = as_access(source)
        self._batch = PackBatch(self.git.objects_dir())
        self._unchecked: dict[str, bytes] = {}  # blobs not yet checked (batched reader)
        self._unchecked_bytes = 0

    @property
    def repo(self) -> pygit2.Repository:
        """The pygit2 repository (for a GitReader: opened on first use)."""
        return self.git.repo

    def has(self, oid: str) -> bool:
        return oid in self._batch or oid in self._unchecked or self.git.has(oid)

    def blob(self, data: bytes) -> str:
        oid = object_id(BLOB, data)
        if oid in self._batch or oid in self._unchecked:
            return oid
        if not self.git.batched:
            if not self.git.has(oid):
                self._batch.add(BLOB, data, oid)
            return oid
        self._unchecked[oid] = data
        self._unchecked_bytes += len(data)
        if self._unchecked_bytes >= UNCHECKED_BYTES or len(self._unchecked) >= UNCHECKED_COUNT:
            self._settle()
        return oid

    def _settle(self) -> None:
        """Queue the held blobs the repository lacks (one batch of questions)."""
        if not self._unchecked:
            return
        missing = self.git.missing(list(self._unchecked))
        for oid, data in self._unchecked.items():
            if oid in missing:
                self._batch.add(BLOB, data, oid)
        self._unchecked.clear()
        self._unchecked_bytes = 0

    def queue_blob(self, data: bytes, oid: str | None = None) -> str:
        """Queue a blob without asking the repository first (see interlock/memory/recread.py:
        a miss there costs a rescan of the pack directory); a duplicate in a pack is
        harmless."""
        return self._batch.add(BLOB, data, oid)

    def blob_from_file(self, path: bytes) -> str:
        """A large file: hashed from disk, and streamed into a pack of its own only when
        missing (never held in memory). The id returned is that of the bytes stored, even if
        the file changed between the hash and the copy."""
        oid = self.git.hash_file(path)
        if self.has(oid):
            return oid
        for attempt in range(3):
            try:
                return write_file_blob(self._batch.objects_dir, path)
            except ChangedWhileRead:
                if attempt == 2:  # still being written: the caller reads it on its next event
                    raise
        raise AssertionError("unreachable")

    def tree(
        self, entries: TreeEntries, base: str | None = None, edited: Iterable[bytes] | None = None
    ) -> str:
        """Queue a tree; `base`, a tree these entries were derived from, saves formatting
        the entries they share; `edited`, when given, holds every name whose entry may
        differ from the base's (the others are the base's)."""
        if base is not None:
            self.read_tree(base)  # cached, with its entries' raw bytes
        known = _cached(base) if base else None
        if known is not None and known[1] is not None:
            # the base's formatted entries, with only those that differ redone: a tree built
            # from a change differs from its base in a few
            old_entries, formatted = known[0], dict(known[1])
            if edited is None:  # found by set operations in C
                for name in old_entries.keys() - entries.keys():
                    del formatted[name]
                edited = [name for name, _ in entries.items() - old_entries.items()]
            for name in edited:
                entry = entries.get(name)
                if entry is None:
                    formatted.pop(name, None)
                elif entry != old_entries.get(name):
                    formatted[name] = format_entry(name, entry)
        else:
            formatted = {name: format_entry(name, entry) for name, entry in entries.items()}
        data = join_entries(formatted.values())
        # No lookup first: a tree built from a change is almost always new, a duplicate in a
        # pack is harmless, and a miss costs libgit2 a rescan of the pack directory.
        oid = self._batch.add(TREE, data)
        _remember(oid, dict(entries), formatted, len(data))
        return oid

    def commit(self, tree: str, parents: list[str], message: str, when: float) -> str:
        return self._batch.add(COMMIT, format_commit(tree, parents, message, when))

    def read_tree(self, oid: str) -> TreeEntries:
        """A tree's entries; the result is shared: copy it before changing it."""
        known = _cached(oid)
        if known is not None:
            return known[0]
        data = self.git.read(oid, TREE)
        entries, formatted = parse_tree_raw(data)
        _remember(oid, entries, formatted, len(data))
        return entries

    def read_trees(self, oids: list[str]) -> dict[str, TreeEntries]:
        """Many trees' entries; a batched reader fetches those not cached in one batch."""
        found: dict[str, TreeEntries] = {}
        wanted: list[str] = []
        for oid in dict.fromkeys(oids):
            known = _cached(oid)
            if known is not None:
                found[oid] = known[0]
            else:
                wanted.append(oid)
        if wanted and not self.git.batched:
            return {**found, **{oid: self.read_tree(oid) for oid in wanted}}
        for oid, data in self.git.read_many(wanted, TREE).items():
            entries, formatted = parse_tree_raw(data)
            _remember(oid, entries, formatted, len(data))
            found[oid] = entries
        return found

    def read_blob(self, oid: str) -> bytes:
        """A blob's bytes (from the repository: flush() first if it may be queued)."""
        return self.git.read(oid, BLOB)

    @property
    def pending_bytes(self) -> int:
        return self._batch.pending_bytes + self._unchecked_bytes

    def flush(self) -> None:
        """Write the queued objects (one pack); reading them from the repository works after."""
        self._settle()
        self._batch.flush()


def as_store(source: ObjectStore | pygit2.Repository | RepoAccess) -> ObjectStore:
    """An ObjectStore for a repository (read-only use), or the store itself."""
    return source if isinstance(source, ObjectStore) else ObjectStore(source)
