"""What the flight recorder reads: which paths it leaves out, and a file's content as a blob.

Reading is the recorder's whole cost per changed file, so it asks git as little as it can:
- a tracked path is recorded whatever the ignore rules say, so it is looked up in the index
  first and the ignore rules and the regenerable list are consulted only for untracked paths;
- a blob is queued without asking the object store whether it has it: for new content (nearly
  always) the answer is no, and each "no" makes libgit2 rescan the pack directory (a quarter
  of a millisecond per file, most of the recorder's time). The exception is content equal to
  what the index holds for the path (a `git checkout` or `git stash` put it back): git
  stores that already, which one cheap lookup confirms. Any other content that git happens
  to hold already is written once more; a duplicate in a pack is harmless.
"""

from __future__ import annotations

import os
import stat
import time
from typing import TYPE_CHECKING

from interlock import git
from interlock.git import RepoLocation
from interlock.memory import recindex
from interlock.memory.leftovers import WORKTREE_TEMPS
from interlock.memory.store import ObjectStore
from interlock.objectformat import BLOB, object_id
from interlock.regenerable import is_regenerable

if TYPE_CHECKING:
    import pygit2

STREAM_OVER = 8 << 20  # larger files are hashed and stored by streaming, as snapshots do

Read = tuple[str, int, int, "recindex.Stat | None"]  # blob id, mode, size, stat when read


class Reader:
    """Reads changed paths for one recorder (its size limit, its too-large list)."""

    def __init__(self, loc: RepoLocation, max_size: int, too_large: set[bytes]) -> None:
        self.loc = loc
        self.root = os.fsencode(loc.worktree)
        self.max_size = max_size
        self.too_large = too_large

    def is_skipped(self, repo: pygit2.Repository, rel: bytes, tracked: bool) -> bool:
        """Left out: interlock's own temp files, and untracked ignored or regenerable files."""
        if os.path.basename(rel).startswith(WORKTREE_TEMPS):
            return True  # a restore's or recover's file before its rename: not a version
        if tracked:
            return False
        return is_regenerable(os.fsdecode(rel)) or git.is_ignored(repo, self.loc, rel)

    def read(
        self, repo: pygit2.Repository, store: ObjectStore, rel: bytes, st: os.stat_result
    ) -> Read | None:
        """(blob id, mode, size, stat when read) of a file or symlink, its blob queued; None
        when it is not recorded (left out, special file, too large). A file that changed
        while it was read gets no stat: the next event or rescan reads it again."""
        in_index = git.index_blob(repo, rel)
        if self.is_skipped(repo, rel, in_index is not None or git.index_has(repo, rel)):
            return None
        full = os.path.join(self.root, rel)
        checked = time.time_ns()
        if stat.S_ISLNK(st.st_mode):
            target = os.readlink(full)
            oid = self._queue(store, target, in_index)
            return oid, git.LINK_MODE, len(target), recindex.Stat.of(st, checked)
        if not stat.S_ISREG(st.st_mode):
            return None
        if st.st_size > self.max_size:
            self.too_large.add(rel)
            return None
        self.too_large.discard(rel)
        mode = git.EXEC_MODE if st.st_mode & 0o111 else git.FILE_MODE
        if st.st_size > STREAM_OVER:
            oid = store.blob_from_file(full)
            after = os.lstat(full)
            size = st.st_size
        else:
            fd = os.open(full, os.O_RDONLY | os.O_NOFOLLOW)
            with os.fdopen(fd, "rb") as handle:
                data = handle.read(self.max_size + 1)
                after = os.fstat(handle.fileno())
            if len(data) > self.max_size:
                return None
            oid, size = self._queue(store, data, in_index), len(data)
        same = recindex.Stat.of(after, checked) == recindex.Stat.of(st, checked)
        return oid, mode, size, recindex.Stat.of(st, checked) if same else None

    def _queue(self, store: ObjectStore, data: bytes, in_index: str | None) -> str:
        oid = object_id(BLOB, data)
        if oid == in_index and store.has(oid):
            return oid  # what git holds for this path already: nothing to write
        return store.queue_blob(data, oid)
