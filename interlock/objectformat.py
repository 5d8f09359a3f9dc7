"""Git object formats in pure Python (no pygit2): tree entry modes, raw tree and commit
objects, object ids. The pack writer is in interlock/memory/pack.py.

Paths and tree entry names are bytes throughout: pygit2's tree API takes str and cannot hold
non-UTF-8 names, so interlock reads and writes trees and commits in their raw form.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable

TYPE_CHECKING = False  # not `typing`: a cold snapshot process loads this
if TYPE_CHECKING:
    from hashlib import _Hash as Hash

COMMIT, TREE, BLOB = 1, 2, 3
_TYPE_NAMES = {COMMIT: b"commit", TREE: b"tree", BLOB: b"blob"}

TREE_MODE = 0o40000
FILE_MODE = 0o100644
EXEC_MODE = 0o100755
LINK_MODE = 0o120000
GITLINK_MODE = 0o160000
_SIGNATURE = b"interlock <interlock@localhost>"

# One tree entry: (mode, hex object id); a tree's entries by raw name.
Entry = tuple[int, str]
TreeEntries = dict[bytes, Entry]


def parse_tree_raw(data: bytes) -> tuple[TreeEntries, dict[bytes, tuple[bytes, bytes]]]:
    """A raw tree object's entries by raw name, and each entry's (sort key, raw bytes)."""
    entries: TreeEntries = {}
    formatted: dict[bytes, tuple[bytes, bytes]] = {}
    pos, end = 0, len(data)
    while pos < end:
        space = data.index(b" ", pos)
        nul = data.index(b"\0", space)
        name, mode = data[space + 1 : nul], int(data[pos:space], 8)
        entries[name] = (mode, data[nul + 1 : nul + 21].hex())
        formatted[name] = (name + b"/" if mode == TREE_MODE else name, data[pos : nul + 21])
        pos = nul + 21
    return entries, formatted


def parse_tree(data: bytes) -> TreeEntries:
    """A raw tree object's entries by raw name."""
    return parse_tree_raw(data)[0]


def format_entry(name: bytes, entry: Entry) -> tuple[bytes, bytes]:
    """(sort key, raw bytes) of one tree entry: git sorts a directory as `name/`."""
    mode, oid = entry
    key = name + b"/" if mode == TREE_MODE else name
    return key, b"%o %s\0%s" % (mode, name, bytes.fromhex(oid))


def join_entries(formatted: Iterable[tuple[bytes, bytes]]) -> bytes:
    """A raw tree object from formatted entries (any order)."""
    return b"".join(raw for _, raw in sorted(formatted))


def format_tree(entries: TreeEntries) -> bytes:
    """A raw tree object: entries sorted the way git sorts them."""
    return join_entries(format_entry(name, entry) for name, entry in entries.items())


def format_commit(tree: str, parents: list[str], message: str, when: float) -> bytes:
    """A raw commit object by interlock (author and committer), message as UTF-8."""
    stamp = b"%s %d +0000" % (_SIGNATURE, int(when))
    lines = [b"tree " + tree.encode()] + [b"parent " + p.encode() for p in parents]
    lines += [b"author " + stamp, b"committer " + stamp]
    body = b"\n".join(lines) + b"\n\n" + message.encode("utf-8", "surrogateescape")
    return body if body.endswith(b"\n") else body + b"\n"


def parse_commit(data: bytes) -> tuple[str, list[str], str]:
    """(tree, parents, message) of a raw commit object."""
    head, _, message = data.partition(b"\n\n")
    tree, parents = "", []
    for line in head.split(b"\n"):
        if line.startswith(b"tree "):
            tree = line[5:].decode()
        elif line.startswith(b"parent "):
            parents.append(line[7:].decode())
    return tree, parents, message.decode("utf-8", "surrogateescape")


# Bytes Python's own SHA-1 may still hash in this process before loading OpenSSL's pays off.
_own_sha1_budget = [1 << 18]


def sha1(data: bytes | bytearray) -> Hash:
    """hashlib.sha1(data), with the same digest. Until a process has hashed 256 KB, and
    unless it loaded hashlib already, Python's own SHA-1 (`_sha1`) does it: `hashlib` loads
    OpenSSL, ~3.5 ms of CPU in every cold snapshot process, which hashes a few small files;
    OpenSSL's SHA-1 is ~6x faster, so a process that hashes more switches to it."""
    if "hashlib" not in sys.modules and len(data) <= _own_sha1_budget[0]:
        try:
            import _sha1  # type: ignore[import-not-found]  # (no stubs)
        except ImportError:  # a Python built without it
            pass
        else:
            _own_sha1_budget[0] -= len(data)
            return _sha1.sha1(data)
    import hashlib  # lazily: loading OpenSSL costs every command that imports interlock.git

    return hashlib.sha1(data)


def object_id(kind: int, data: bytes) -> str:
    """The id git gives an object of this type and content."""
    header = b"%s %d\0" % (_TYPE_NAMES[kind], len(data))
    return sha1(header + data).hexdigest()
