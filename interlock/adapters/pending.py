"""Which journaled attempt a post-tool event completes.

A pre-tool event journals an attempt (`gate.begin`); the agent's matching post-tool event
must complete that very attempt. Claude Code and Codex pair the two by `tool_use_id`;
Gemini CLI has no id, so its pair is the session and the command text. The pairing is a
small file per pending call under the state dir (`adapters/pending/`), written atomically,
removed when the post event takes it; files of calls whose post event never came (a denied
or crashed call) are dropped after a day.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path
from typing import Any

from interlock.git import RepoLocation
from interlock.state import repo_state_dir

_KEEP_SECONDS = 24 * 3600.0
_PRUNE_ABOVE = 256  # files before a write prunes the old ones
_PRUNE_LOOK = "0"  # the last hex digit of the keys whose write looks at the file count
# Seconds between two prunes of a crowded folder: a prune stats every file, and a folder of
# calls younger than a day stays crowded (3,600 pending files made every 16th agent event
# ~90 ms slower in the warm daemon). Its last prune is the mtime of `pending.pruned`.
_PRUNE_EVERY = 600.0


def _folder(loc: RepoLocation) -> Path:
    return repo_state_dir(loc) / "adapters" / "pending"


def key_of(agent: str, session: str | None, tool_use_id: str | None, command: str | None) -> str:
    call = f"id:{tool_use_id}" if tool_use_id else f"cmd:{command or ''}"
    return hashlib.sha256(f"{agent}\0{session or ''}\0{call}".encode()).hexdigest()[:32]


def remember(loc: RepoLocation, key: str, record: dict[str, Any]) -> None:
    # The folder is made only when the write finds it missing: every agent shell command
    # comes through here, and it exists after the first.
    folder = os.path.join(loc.state_dir, "adapters", "pending")
    # No fsync: the pairing is ephemeral (lost in a crash, the attempt stays unresolved, as
    # the wrapper's would), and an fsync is most of a warm event's cost on a slow disk.
    temp = os.path.join(folder, f".{key}.{os.getpid()}")
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC
    try:
        fd = os.open(temp, flags, 0o600)
    except FileNotFoundError:
        _folder(loc).mkdir(parents=True, exist_ok=True)
        fd = os.open(temp, flags, 0o600)
    try:
        os.write(fd, json.dumps({**record, "at": time.time()}).encode())
    finally:
        os.close(fd)
    # A rename over an existing file makes ext4 write the new data out first (auto_da_alloc,
    # ~3-20 ms): a Gemini CLI call repeated in a session has the same key. Without the old
    # file the rename is a plain one; a post event in between finds no pairing, as it would
    # have an instant earlier for this very call.
    path = os.path.join(folder, key)
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    os.replace(temp, path)
    if key.endswith(_PRUNE_LOOK):  # keys are hex digests: one write in 16 counts the files
        names = os.listdir(folder)
        if len(names) > _PRUNE_ABOVE and _prune_due(folder):
            _prune(folder, names)


def take(loc: RepoLocation, key: str) -> dict[str, Any] | None:
    """The pending record of this call, removed; None when there is none (or it is bad)."""
    path = _folder(loc) / key
    try:
        data = json.loads(path.read_bytes())
        path.unlink()
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _prune_due(folder: str) -> bool:
    """True, and the time noted, when the folder was last pruned _PRUNE_EVERY seconds ago or
    more (or never)."""
    mark = folder + ".pruned"
    try:
        if time.time() - os.stat(mark).st_mtime < _PRUNE_EVERY:
            return False
    except OSError:
        pass
    try:
        os.close(os.open(mark, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o600))
        os.utime(mark)
    except OSError:
        pass  # not noted: the next crowded write prunes again
    return True


def _prune(folder: str, names: list[str]) -> None:
    cutoff = time.time() - _KEEP_SECONDS
    for name in names:
        path = os.path.join(folder, name)
        try:
            if os.stat(path).st_mtime < cutoff:
                os.unlink(path)
        except OSError:
            continue
