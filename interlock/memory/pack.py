"""Write new git objects as one pack (`.pack` + `.idx` v2) per batch, and fold interlock's
small packs together. Pure Python (zlib, hashlib): no pygit2 here.

Why packs: a snapshot writes tens of trees and blobs at once, and on a busy disk every loose
object costs a file creation, a rename and often a directory; one pack costs two files.

Safety: only new files are added to `<common-dir>/objects/pack/`, each under a `tmp_pack_*`
name and renamed, the `.idx` last, so git and libgit2 see a pack only once it is complete. A
process killed midway leaves at most a temp file (which `git gc` clears) and no reachable
object is ever missing.

Tidiness: each pack interlock writes is listed in `<common-dir>/interlock/packs.list`. Once
SMALL_PACKS_MERGE_AT of its small packs exist they are folded into one (their entries are
copied as they are: interlock never writes deltas), the merged pack is written before the old
ones are removed, so every object stays reachable throughout. Git's own maintenance
(`git gc --auto`) folds everything into its main pack in time.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import struct
import tempfile
import zlib
from pathlib import Path

from interlock.objectformat import BLOB, object_id

_MAX_PACK = 1 << 30  # flush before a pack would need 64-bit offsets
SMALL_PACK_BYTES = 1 << 20
SMALL_PACKS_MERGE_AT = 16
_REGISTRY = ("interlock", "packs.list")  # under the common git dir


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
        oids = sorted(self._entries)
        fanout = [0] * 256
        for oid in oids:
            fanout[int(oid[:2], 16)] += 1
        idx = bytearray(b"\xfftOc" + struct.pack(">I", 2))
        total = 0
        for count in fanout:
            total += count
            idx += struct.pack(">I", total)
        idx += b"".join(bytes.fromhex(oid) for oid in oids)
        idx += b"".join(struct.pack(">I", self._entries[oid][0]) for oid in oids)
        idx += b"".join(struct.pack(">I", self._entries[oid][1]) for oid in oids)
        idx += trailer
        return bytes(idx + hashlib.sha1(idx).digest())

    def write(self) -> str | None:
        """Write the queued objects as pack-<hash>.pack and .idx; returns the name (None when
        there was nothing to write)."""
        if not self._entries:
            return None
        pack = b"PACK" + struct.pack(">II", 2, len(self._entries)) + bytes(self._body)
        trailer = hashlib.sha1(pack).digest()
        name = "pack-" + trailer.hex()
        pack_dir = self.objects_dir / "pack"
        pack_dir.mkdir(parents=True, exist_ok=True)
        _write_new(pack_dir / f"{name}.pack", pack + trailer)
        _write_new(pack_dir / f"{name}.idx", self._index(trailer))
        self._body = bytearray()
        self._entries = {}
        return name

    def flush(self) -> None:
        """Write the queued objects, list the pack as interlock's, fold small packs."""
        name = self.write()
        if name is not None:
            _register(self.objects_dir, name)


def _write_new(path: Path, data: bytes) -> None:
    if path.exists():  # the same objects were packed before: nothing to add
        return
    fd, tmp = tempfile.mkstemp(prefix="tmp_pack_", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, 0o444)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _registry(objects_dir: Path) -> Path:
    return objects_dir.parent.joinpath(*_REGISTRY)


def _register(objects_dir: Path, name: str) -> None:
    registry = _registry(objects_dir)
    registry.parent.mkdir(parents=True, exist_ok=True)
    with open(registry, "a", encoding="ascii") as handle:
        handle.write(name + "\n")
    listed = list(dict.fromkeys(registry.read_text(encoding="ascii").split()))
    pack_dir = objects_dir / "pack"
    alive = [n for n in listed if (pack_dir / f"{n}.idx").exists()]
    small = [n for n in alive if (pack_dir / f"{n}.pack").stat().st_size < SMALL_PACK_BYTES]
    if len(small) < SMALL_PACKS_MERGE_AT:
        return
    merged = _merge(objects_dir, small)
    if merged is None:
        return
    rest = [n for n in alive if n not in small or n == merged]
    tmp = registry.with_name(registry.name + ".tmp")
    tmp.write_text("".join(n + "\n" for n in dict.fromkeys([*rest, merged])), encoding="ascii")
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
