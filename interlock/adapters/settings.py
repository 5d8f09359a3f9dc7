"""Merge interlock's hooks into an agent's JSON settings, and take them out again exactly.

- Merge: interlock's hooks are added as matcher groups of their own; nothing of anyone
  else's is changed or removed. A second merge changes nothing; a merge after interlock
  moved (another install) replaces only interlock's own handlers.
- Remove: interlock's handlers (and groups and event lists that held only them) are taken
  out. When what is left equals the file as it was before the first merge, the file is put
  back byte for byte (or removed again, with the folder it needed, when it did not exist);
  otherwise what is left is written (the person changed other things meanwhile).
- A file that is not a JSON object (or whose `hooks` is not one) is refused with the reason,
  never overwritten.

The original bytes are kept in a record under interlock's user state dir
(`integrations.json`), keyed by the file's absolute path. The same record serves the rc line
of the advisory shell (`add_line` / `remove_line`).
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from interlock.adapters.hookplan import HookSpec
from interlock.errors import InterlockError
from interlock.state import atomic_write, file_lock, user_dir

Ours = Callable[[object], bool]


def _records_path() -> Path:
    return user_dir() / "integrations.json"


def _load_records() -> dict[str, Any]:
    try:
        data = json.loads(_records_path().read_bytes())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _save_records(records: dict[str, Any]) -> None:
    path = _records_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, json.dumps(records, indent=1, sort_keys=True).encode(), mode=0o600)


def _remember(path: Path, original: bytes | None, created: list[str]) -> None:
    with file_lock(user_dir() / "integrations.lock"):
        records = _load_records()
        key = os.fspath(path)
        if key not in records:
            blob = None if original is None else base64.b64encode(original).decode()
            records[key] = {"original": blob, "created_dirs": created}
            _save_records(records)


def _forget(path: Path) -> dict[str, Any] | None:
    with file_lock(user_dir() / "integrations.lock"):
        records = _load_records()
        found = records.pop(os.fspath(path), None)
        _save_records(records)
    return found if isinstance(found, dict) else None


def read_settings(path: Path) -> tuple[bytes | None, dict[str, Any]]:
    """(the file's bytes or None when absent, its JSON object); InterlockError if malformed."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None, {}
    except OSError as exc:
        raise InterlockError(f"cannot read {path}: {exc.strerror}") from None
    if not raw.strip():
        return raw, {}
    try:
        doc = json.loads(raw)
    except ValueError as exc:
        raise InterlockError(
            f"{path} is not valid JSON ({exc}); interlock will not overwrite it",
            hint=f"fix it, or move it away and run this again: mv {path} {path}.bak",
        ) from None
    if not isinstance(doc, dict):
        raise InterlockError(
            f"{path} holds a JSON {type(doc).__name__}, not an object; interlock will not overwrite it"
        )
    hooks = doc.get("hooks", {})
    if not isinstance(hooks, dict):
        raise InterlockError(f"{path}: `hooks` is not an object; interlock will not overwrite it")
    return raw, doc


def _indent(raw: bytes | None) -> int:
    for line in (raw or b"").splitlines()[1:3]:
        stripped = line.lstrip(b" ")
        if stripped and len(line) > len(stripped):
            return len(line) - len(stripped)
    return 2


def _dump(doc: dict[str, Any], raw: bytes | None) -> bytes:
    return (json.dumps(doc, indent=_indent(raw), ensure_ascii=False) + "\n").encode()


def strip_ours(doc: dict[str, Any], ours: Ours) -> bool:
    """Take interlock's handlers out of doc (in place); True when something was removed."""
    hooks = doc.get("hooks")
    if not isinstance(hooks, dict):
        return False
    changed = False
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        kept_groups = []
        for group in groups:
            handlers = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(handlers, list):
                kept_groups.append(group)
                continue
            kept = [h for h in handlers if not (isinstance(h, dict) and ours(h.get("command")))]
            if len(kept) == len(handlers):
                kept_groups.append(group)
                continue
            changed = True
            if kept:
                kept_groups.append({**group, "hooks": kept})
        if changed and not kept_groups and groups:
            del hooks[event]
        else:
            hooks[event] = kept_groups
    return changed


def merge(path: Path, plan: list[HookSpec], ours: Ours) -> bool:
    """Write interlock's hooks into the settings file; True when the file changed."""
    raw, doc = read_settings(path)
    wanted = {
        (
            s.event,
            json.dumps(
                {"matcher": s.matcher, "hooks": [s.handler]}
                if s.matcher is not None
                else {"hooks": [s.handler]},
                sort_keys=True,
            ),
        )
        for s in plan
    }
    have = set()
    for event, groups in (doc.get("hooks") or {}).items():
        for group in groups if isinstance(groups, list) else []:
            handlers = group.get("hooks") if isinstance(group, dict) else None
            if isinstance(handlers, list) and any(
                isinstance(h, dict) and ours(h.get("command")) for h in handlers
            ):
                have.add((event, json.dumps(group, sort_keys=True)))
    if have == wanted:
        return False
    created = _missing_dirs(path.parent)
    _remember(path, raw, created)
    strip_ours(doc, ours)
    hooks = doc.setdefault("hooks", {})
    for spec in plan:
        entry: dict[str, Any] = {"matcher": spec.matcher} if spec.matcher is not None else {}
        entry["hooks"] = [spec.handler]
        hooks.setdefault(spec.event, []).append(entry)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, _dump(doc, raw), mode=_mode(path))
    return True


def _mode(path: Path) -> int:
    try:
        return path.stat().st_mode & 0o777
    except OSError:
        return 0o644


def _missing_dirs(folder: Path) -> list[str]:
    missing = []
    while not folder.exists():
        missing.append(os.fspath(folder))
        folder = folder.parent
    return missing


def remove(path: Path, ours: Ours) -> str:
    """Take interlock's hooks out; what was done: removed | restored | deleted | absent."""
    raw, doc = read_settings(path)
    record = _forget(path) if raw is not None else None
    if raw is None:
        return "absent"
    if not strip_ours(doc, ours) and record is None:
        return "absent"
    before_doc: Any = {}
    if record is not None:
        original = record.get("original")
        before = None if original is None else base64.b64decode(original)
        before_doc = {} if before is None or not before.strip() else json.loads(before)
    if doc.get("hooks") == {} and not (isinstance(before_doc, dict) and "hooks" in before_doc):
        del doc["hooks"]  # interlock added the table: take it out with its hooks
    if record is not None:
        if doc == before_doc or (before is None and doc in ({}, {"hooks": {}})):
            if before is None:
                path.unlink()
                for folder in record.get("created_dirs") or []:
                    try:
                        os.rmdir(folder)
                    except OSError:
                        break
                return "deleted"
            atomic_write(path, before, mode=_mode(path))
            return "restored"
    atomic_write(path, _dump(doc, raw), mode=_mode(path))
    return "removed"


def add_line(path: Path, line: str) -> bool:
    """Append `line` to a shell startup file unless it holds it; True when written."""
    try:
        raw: bytes | None = path.read_bytes()
    except FileNotFoundError:
        raw = None
    text = (raw or b"").decode("utf-8", "surrogateescape")
    if line in text.splitlines():
        return False
    _remember(path, raw, _missing_dirs(path.parent))
    joined = text + ("" if not text or text.endswith("\n") else "\n") + line + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, joined.encode("utf-8", "surrogateescape"), mode=_mode(path))
    return True


def remove_line(path: Path, is_ours: Callable[[str], bool]) -> str:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        _forget(path)
        return "absent"
    text = raw.decode("utf-8", "surrogateescape")
    lines = text.splitlines(keepends=True)
    kept = [line for line in lines if not is_ours(line.rstrip("\n"))]
    record = _forget(path)
    if len(kept) == len(lines) and record is None:
        return "absent"
    if record is not None:
        original = record.get("original")
        before = None if original is None else base64.b64decode(original)
        expected = (before or b"").decode("utf-8", "surrogateescape")
        if "".join(kept) in (expected, expected + "\n") or "".join(kept).rstrip(
            "\n"
        ) == expected.rstrip("\n"):
            if before is None:
                path.unlink()
                return "deleted"
            atomic_write(path, before, mode=_mode(path))
            return "restored"
    atomic_write(path, "".join(kept).encode("utf-8", "surrogateescape"), mode=_mode(path))
    return "removed"
