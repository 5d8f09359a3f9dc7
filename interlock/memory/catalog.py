"""SnapshotInfo: what one snapshot is, as read from its ref and its commit message.

No git access and no third-party imports here, so light clients (the socket client, the
command engine) can read and print snapshot metadata cheaply.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from interlock import constants

TYPE_CHECKING = False  # not `typing` (~3 ms to import): a cold snapshot process loads this
if TYPE_CHECKING:
    from typing import Any

# Kinds of snapshot, as the user and the metadata name them.
KINDS = ("manual", "green", "baseline", "pre-discard", "pre-restore", "recorder")


def ref_name(worktree_id: str, kind: str, oid: str) -> str:
    """refs/interlock/<worktree-id>/snapshots/<kind>/<full commit id>."""
    return f"{constants.REF_PREFIX}{worktree_id}/snapshots/{kind}/{oid}"


def iso_time(when: float) -> str:
    """ISO 8601 in UTC, e.g. 2026-05-09T07:35:25.123456Z: what
    `datetime.fromtimestamp(when, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")` writes (its
    microseconds rounded half to even, as datetime rounds them), without importing datetime
    (a cold snapshot process prints one)."""
    fraction, whole = math.modf(when)
    micros = round(fraction * 1e6)
    if micros >= 1_000_000:
        whole, micros = whole + 1, micros - 1_000_000
    elif micros < 0:
        whole, micros = whole - 1, micros + 1_000_000
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(int(whole))) + f".{micros:06d}Z"


@dataclass(frozen=True)
class SnapshotInfo:
    """One snapshot: a commit of the whole worktree kept by a ref under refs/interlock/.

    `id` is what people type (12 hex digits); `oid` the full commit id; `tree` the tree id;
    `time` seconds since the epoch; `head` the commit HEAD was on (None: unborn); `scope` the
    paths it was limited to (None: the whole worktree); `skipped` paths left out, by reason.
    """

    id: str
    oid: str
    tree: str
    time: float
    kind: str
    message: str | None
    run: str | None
    command: str | None
    head: str | None
    worktree: str | None
    ref: str | None
    skipped: Mapping[str, Sequence[str]] = field(default_factory=dict)
    scope: tuple[str, ...] | None = None
    base: str | None = None
    how: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "oid": self.oid,
            "tree": self.tree,
            "time": iso_time(self.time),
            "timestamp": self.time,
            "kind": self.kind,
            "message": self.message,
            "run": self.run,
            "command": self.command,
            "head": self.head,
            "worktree": self.worktree,
            "ref": self.ref,
            "skipped": {k: list(v) for k, v in self.skipped.items()},
            "scope": list(self.scope) if self.scope is not None else None,
            "base": self.base,
            "how": self.how,
        }


def _optional_str(meta: Mapping[str, Any], key: str) -> str | None:
    value = meta.get(key)
    return value if isinstance(value, str) else None


def info_from_commit(ref: str | None, oid: str, tree: str, message: str) -> SnapshotInfo:
    """Build a SnapshotInfo from a commit message (summary, blank line, JSON); a snapshot
    whose metadata cannot be read keeps what its ref name says (kind) and time 0."""
    try:
        meta = json.loads(message.partition("\n\n")[2])
    except ValueError:
        meta = {}
    if not isinstance(meta, dict):
        meta = {}
    kind = _optional_str(meta, "kind")
    if kind is None and ref is not None:
        kind = ref.rstrip("/").split("/")[-2]
    when = meta.get("time")
    skipped = meta.get("skipped")
    scope = meta.get("scope")
    return SnapshotInfo(
        id=oid[:12],
        oid=oid,
        tree=tree,
        time=float(when) if isinstance(when, int | float) else 0.0,
        kind=kind or "unknown",
        message=_optional_str(meta, "message"),
        run=_optional_str(meta, "run"),
        command=_optional_str(meta, "command"),
        head=_optional_str(meta, "head"),
        worktree=_optional_str(meta, "worktree"),
        ref=ref,
        skipped=skipped if isinstance(skipped, dict) else {},
        scope=tuple(str(s) for s in scope) if isinstance(scope, list) else None,
        base=_optional_str(meta, "base"),
        how=_optional_str(meta, "how"),
    )
