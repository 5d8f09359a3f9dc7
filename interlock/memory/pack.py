"""Write new git objects as one pack (`.pack` + `.idx` v2) per batch, and fold interlock's
small packs together. Pure Python (zlib, hashlib): no pygit2 here.

Why packs: a snapshot writes tens of trees and blobs at once, and on a busy disk every loose
object costs a file creation, a rename and often a directory; one pack costs two files.

Safety: only new files are added to `<common-dir>/objects/pack/`, each under a temp name
(`tmp_pack_interlock-<pid>-*`) and renamed, the `.idx` last, so git and libgit2 see a pack
only once it is complete. A process killed midway leaves at most a temp file, which names the
dead process: the next snapshot or daemon start removes it (interlock/memory/leftovers.py),
and `git gc` would in time. No reachable object is ever missing.

Large files (`write_file_blob`) are streamed into a pack of their own, read once in chunks and
never held in memory, and never through libgit2, whose streaming writer leaves two anonymous
temp files of the file's size (`streamed_git2_*`, `tmp_object_git2_*`) behind when killed.

Tidiness: each small pack interlock writes (under SMALL_PACK_BYTES) is listed in
`<common-dir>/interlock/packs.list`. Once SMALL_PACKS_MERGE_AT of them exist they are folded
into one (their entries are copied as they are: interlock never writes deltas), the merged pack
is written before the old ones are removed, so every object stays reachable throughout. A pack
that is not small is never folded, so it is not listed (nor kept listed after a fold): the list
stays short, and most snapshots only append to it. Git's own maintenance (`git gc --auto`)
folds everything into its main pack in time.
"""

from __future__ import annotations

import contextlib
import errno
import os
import struct
import zlib
from pathlib import Path

from interlock.objectformat import BLOB, object_id, sha1

TYPE_CHECKING = False  # not `typing`: a cold snapshot process loads this
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import BinaryIO

_MAX_PACK = 1 << 30  # flush before a pack would need 64-bit offsets
SMALL_PACK_BYTES = 1 << 20
SMALL_PACKS_MERGE_AT = 16
_REGISTRY = ("interlock", "packs.list")  # under the common git dir
TEMP_PREFIX = "tmp_pack_interlock-"  # + "<pid>-": whose temp file it is
_CHUNK = 1 << 20


def _entry_header(kind: int, size: int) -> bytes:
    out = bytearray()
    byte = (kind << 4) | (size & 0x0F)
    size >>= 4
    while size:
        out.append(byte | 0x80)
        byte = size & 0x7F
        size >>= 7
    out.append(byte)
    return bytes(out)


def _deflate(kind: int, data: bytes) -> bytes:
    """Blobs deflated fast (git's loose-object level); trees, mostly object ids that do not
    compress, and commits stored as they are, which skips zlib's costly set-up."""
    if kind == BLOB:
        return zlib.compress(data, 1)
    packer = zlib.compressobj(0, zlib.DEFLATED, 9, 1)
    return packer.compress(data) + packer.flush()


class PackBatch:
    """New objects collected in memory, written as one pack by flush()."""

    def __init__(self, objects_dir: Path) -> None:
        self.objects_dir = objects_dir
        self._body = bytearray()
        self._entries: dict[str, tuple[int, int]] = {}  # oid -> (crc32, offset in the pack)

    def __contains__(self, oid: str) -> bool:
        return oid in self._entries

    @property
    def pending_bytes(self) -> int:
        """Bytes queued (compressed) and not yet written."""
        return len(self._body)

    def add(self, kind: int, data: bytes, oid: str | None = None) -> str:
        """Queue an object (once); returns its id."""
        oid = oid or object_id(kind, data)
        if oid not in self._entries:
            self.add_raw(oid, _entry_header(kind, len(data)) + _deflate(kind, data))
        return oid

    def add_raw(self, oid: str, entry: bytes) -> None:
        """Queue an object already in pack-entry form (header + deflated data)."""
        if oid in self._entries:
            return
        if len(self._body) > _MAX_PACK:
            self.flush()
        self._entries[oid] = (zlib.crc32(entry), 12 + len(self._body))
        self._body += entry

    def _index(self, trailer: bytes) -> bytes:
        return _index(self._entries, trailer)

    def write(self) -> str | None:
        """Write the queued objects as pack-<hash>.pack and .idx; returns the name (None when
        there was nothing to write)."""
        written = self._write()
        return written[0] if written is not None else None

    def _write(self) -> tuple[str, int] | None:
        """(name, bytes) of the pack written, or None when there was nothing to write."""
        if not self._entries:
            return None
        pack = b"PACK" + struct.pack(">II", 2, len(self._entries)) + bytes(self._body)
        trailer = sha1(pack).digest()
        name = "pack-" + trailer.hex()
        pack_dir = self.objects_dir / "pack"
        pack_dir.mkdir(parents=True, exist_ok=True)
        _write_new(pack_dir / f"{name}.pack", pack + trailer)
        _write_new(pack_dir / f"{name}.idx", self._index(trailer))
        self._body = bytearray()
        self._entries = {}
        return name, len(pack) + len(trailer)

    def flush(self) -> None:
        """Write the queued objects, list the pack as interlock's, fold small packs."""
        written = self._write()
        if written is not None and written[1] < SMALL_PACK_BYTES:
            _register(self.objects_dir, written[0])


def temp_prefix(pid: int | None = None) -> str:
    """The name every temp file of process `pid` (default: this one) starts with."""
    return f"{TEMP_PREFIX}{os.getpid() if pid is None else pid}-"


def _mkstemp(directory: Path) -> tuple[int, str]:
    """A new temp file `<temp_prefix()><random>` in directory, open, ours alone (mode 0600):
    tempfile.mkstemp's promise without importing tempfile (with shutil, bz2, lzma and random:
    ~5 ms of every cold snapshot process)."""
    for _ in range(100):
        path = os.path.join(directory, temp_prefix() + os.urandom(6).hex())
        try:
            return os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600), path
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no unused temp file name", os.fspath(directory))


def _index(entries: dict[str, tuple[int, int]], trailer: bytes) -> bytes:
    """A version 2 `.idx` for entries {oid: (crc32, offset)} of the pack with this trailer."""
    oids = sorted(entries)
    fanout = [0] * 256
    for oid in oids:
        fanout[int(oid[:2], 16)] += 1
    idx = bytearray(b"\xfftOc" + struct.pack(">I", 2))
    total = 0
    for count in fanout:
        total += count
        idx += struct.pack(">I", total)
    idx += b"".join(bytes.fromhex(oid) for oid in oids)
    idx += b"".join(struct.pack(">I", entries[oid][0]) for oid in oids)
    idx += b"".join(struct.pack(">I", entries[oid][1]) for oid in oids)
    idx += trailer
    return bytes(idx + sha1(idx).digest())


def _write_new(path: Path, data: bytes) -> None:
    if path.exists():  # the same objects were packed before: nothing to add
        return
    fd, tmp = _mkstemp(path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, 0o444)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


class ChangedWhileRead(OSError):
    """A file's length changed while it was streamed into a pack: read it again."""


def write_file_blob(objects_dir: Path, path: bytes) -> str:
    """Stream the file at `path` into a one-object pack of its own, read in chunks; returns
    the blob id of the bytes written. ChangedWhileRead when the file grew or shrank meanwhile
    (the pack is not kept)."""
    pack_dir = objects_dir / "pack"
    pack_dir.mkdir(parents=True, exist_ok=True)
    fd, tmp = _mkstemp(pack_dir)
    try:
        with (
            os.fdopen(fd, "wb") as out,
            open(os.open(path, os.O_RDONLY | os.O_NOFOLLOW), "rb") as src,
        ):
            oid, crc, trailer = _stream_entry(src, out, path)
        name = "pack-" + trailer.hex()
        if (pack_dir / f"{name}.idx").exists():  # packed before: nothing to add
            os.unlink(tmp)
            return oid
        os.chmod(tmp, 0o444)
        # The index is written before the pack is renamed into place, so the two renames
        # follow each other at once: no window in which a large pack lies there unindexed.
        idx_fd, idx_tmp = _mkstemp(pack_dir)
        try:
            with os.fdopen(idx_fd, "wb") as handle:
                handle.write(_index({oid: (crc, 12)}, trailer))
            os.chmod(idx_tmp, 0o444)
            os.replace(tmp, pack_dir / f"{name}.pack")
            os.replace(idx_tmp, pack_dir / f"{name}.idx")
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(idx_tmp)
            raise
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return oid  # not listed: a streamed file is larger than a small pack, never folded


def _stream_entry(src: BinaryIO, out: BinaryIO, path: bytes) -> tuple[str, int, bytes]:
    """Write a whole pack holding src's bytes as one blob: (blob id, entry crc32, trailer)."""
    size = os.fstat(src.fileno()).st_size
    import hashlib  # a large file: OpenSSL's SHA-1 (see interlock.objectformat.sha1)

    pack_sum, blob_sum = hashlib.sha1(), hashlib.sha1(b"blob %d\0" % size)
    crc = 0
    packer = zlib.compressobj(1)

    def emit(data: bytes, entry: bool = True) -> None:
        nonlocal crc
        if entry:
            crc = zlib.crc32(data, crc)
        pack_sum.update(data)
        out.write(data)

    emit(b"PACK" + struct.pack(">II", 2, 1), entry=False)
    emit(_entry_header(BLOB, size))
    left = size
    while left > 0:
        chunk = src.read(min(_CHUNK, left))
        if not chunk:
            raise ChangedWhileRead(errno.EAGAIN, "the file shrank while it was read", path)
        left -= len(chunk)
        blob_sum.update(chunk)
        emit(packer.compress(chunk))
    if src.read(1):
        raise ChangedWhileRead(errno.EAGAIN, "the file grew while it was read", path)
    emit(packer.flush())
    trailer = pack_sum.digest()
    out.write(trailer)
    return blob_sum.hexdigest(), crc, trailer


def _registry(objects_dir: Path) -> Path:
    return objects_dir.parent.joinpath(*_REGISTRY)


def _register(objects_dir: Path, name: str) -> None:
    registry = _registry(objects_dir)
    registry.parent.mkdir(parents=True, exist_ok=True)
    with _locked(registry.with_name(registry.name + ".lock"), wait=True):
        with open(registry, "a+", encoding="ascii") as handle:
            handle.write(name + "\n")
            handle.seek(0)
            listed = list(dict.fromkeys(handle.read().split()))
    if len(listed) >= SMALL_PACKS_MERGE_AT:  # else done, without looking at each pack
        _fold(objects_dir, registry)


@contextlib.contextmanager
def _locked(path: Path, wait: bool) -> Iterator[bool]:
    """Hold an exclusive lock on `path` (created if needed); yields False, holding nothing,
    when `wait` is false and another process or thread holds it."""
    import fcntl

    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)  # releases the lock


def _fold(objects_dir: Path, registry: Path) -> None:
    """Fold the listed small packs into one. Every writer of a worktree's objects comes here
    (the daemon's recorder and snapshots, a cold snapshot, a hook): one folds at a time, the
    others go on (what they listed is folded next time). The list is rewritten under the lock
    that appends take, so a pack listed meanwhile stays listed."""
    with _locked(registry.with_name(registry.name + ".fold"), wait=False) as mine:
        if not mine:
            return
        pack_dir = objects_dir / "pack"
        listed = registry.read_text(encoding="ascii").split()  # again: a fold just ended?
        alive = [n for n in dict.fromkeys(listed) if (pack_dir / f"{n}.idx").exists()]
        small = [n for n in alive if (pack_dir / f"{n}.pack").stat().st_size < SMALL_PACK_BYTES]
        if len(small) < SMALL_PACKS_MERGE_AT:
            return
        merged = _merge(objects_dir, small)
        if merged is None:
            return
        # Listed from now on: the merged pack while it is small (the others are never folded
        # again), and whatever was listed since this fold read the list.
        small_now = (pack_dir / f"{merged}.pack").stat().st_size < SMALL_PACK_BYTES
        with _locked(registry.with_name(registry.name + ".lock"), wait=True):
            since = [n for n in registry.read_text(encoding="ascii").split() if n not in small]
            keep = ([merged] if small_now else []) + since
            tmp = registry.with_name(registry.name + ".tmp")
            tmp.write_text("".join(n + "\n" for n in dict.fromkeys(keep)), encoding="ascii")
            os.replace(tmp, registry)
        for old in small:
            if old != merged:
                for ext in (".idx", ".pack"):  # the index first: no new reader picks the pack
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(pack_dir / f"{old}{ext}")


def _entries(pack: bytes, idx: bytes) -> list[tuple[str, bytes]] | None:
    """(oid, raw entry) of every object of a pack interlock wrote; None if it is not one."""
    if idx[:8] != b"\xfftOc\0\0\0\2" or pack[:4] != b"PACK":
        return None
    count = struct.unpack(">I", idx[8 + 255 * 4 : 8 + 256 * 4])[0]
    oids_at = 8 + 256 * 4
    offsets_at = oids_at + 24 * count
    found = []
    for i in range(count):
        oid = idx[oids_at + 20 * i : oids_at + 20 * i + 20].hex()
        found.append(
            (struct.unpack(">I", idx[offsets_at + 4 * i : offsets_at + 4 * i + 4])[0], oid)
        )
    found.sort()
    ends = [offset for offset, _ in found[1:]] + [len(pack) - 20]
    entries = []
    for (offset, oid), end in zip(found, ends, strict=True):
        if offset & 0x80000000 or (pack[offset] >> 4) & 7 not in (1, 2, 3):
            return None  # a large pack or one with deltas: not interlock's
        entries.append((oid, pack[offset:end]))
    return entries


def _merge(objects_dir: Path, names: list[str]) -> str | None:
    batch = PackBatch(objects_dir)
    pack_dir = objects_dir / "pack"
    for name in names:
        try:
            entries = _entries(
                (pack_dir / f"{name}.pack").read_bytes(), (pack_dir / f"{name}.idx").read_bytes()
            )
        except FileNotFoundError:  # removed meanwhile (by git gc): nothing to fold
            continue
        if entries is None:
            return None
        for oid, raw in entries:
            batch.add_raw(oid, raw)
    return batch.write()
