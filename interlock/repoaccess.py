"""PygitAccess: a pygit2 repository behind the small reading interface the snapshot memory
reads through (interlock.memory.store calls it RepoAccess). The other implementation is
interlock.plumbing.GitReader, git's own processes, for a cold snapshot process that must not
pay for importing pygit2. Kept apart from interlock.git, which is large enough.
"""

from __future__ import annotations

from interlock.git import (
    RepoLocation,
    has_object,
    hash_file,
    index_has,
    is_ignored,
    objects_dir,
    read_commit,
    read_object,
    set_ref,
    submodule_paths,
)

TYPE_CHECKING = False  # not `typing`: a cold snapshot process loads this
if TYPE_CHECKING:
    from pathlib import Path

    import pygit2


class PygitAccess:
    """A pygit2 repository behind the small reading interface interlock.memory.store calls
    RepoAccess; interlock.plumbing.GitReader is the other one (git's own processes, for a
    cold snapshot process that must not pay for importing pygit2)."""

    batched = False  # answers cost microseconds: ask one at a time

    def __init__(self, repo: pygit2.Repository) -> None:
        self.repo = repo

    def head(self) -> tuple[str | None, str | None]:
        """(HEAD commit id, its tree id), both None on an unborn branch."""
        if self.repo.head_is_unborn:
            return None, None
        head = str(self.repo.head.target)
        commit = read_commit(self.repo, head)
        return head, commit[0] if commit else None

    def has(self, oid: str) -> bool:
        return has_object(self.repo, oid)

    def missing(self, oids: list[str]) -> set[str]:
        return {oid for oid in oids if not has_object(self.repo, oid)}

    def read(self, oid: str, kind: int) -> bytes:
        return read_object(self.repo, oid, kind)

    def read_many(self, oids: list[str], kind: int) -> dict[str, bytes]:
        return {oid: read_object(self.repo, oid, kind) for oid in oids}

    def commit(self, oid: str) -> tuple[str, list[str], str] | None:
        return read_commit(self.repo, oid)

    def objects_dir(self) -> Path:
        return objects_dir(self.repo)

    def set_ref(self, name: str, oid: str) -> None:
        set_ref(self.repo, name, oid)

    def index_has(self, path: bytes) -> bool:
        return index_has(self.repo, path)

    def is_ignored(self, loc: RepoLocation, path: bytes) -> bool:
        return is_ignored(self.repo, loc, path)

    def config(self, key: str) -> str | None:
        """A setting's value, or None when unset."""
        config = self.repo.config
        return str(config[key]) if key in config else None

    def submodule_paths(self, loc: RepoLocation) -> list[str]:
        return submodule_paths(self.repo, loc)

    def hash_file(self, path: bytes) -> str:
        return hash_file(path)
