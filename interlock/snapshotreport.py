"""What `interlock snapshot` prints: one text for the inline path and the warm daemon."""

from __future__ import annotations

import json
from collections.abc import Mapping

TYPE_CHECKING = False  # not `typing`: a cold snapshot process loads this
if TYPE_CHECKING:
    from typing import Any


def snapshot_report(info: Mapping[str, Any], changed: int, ms: float, as_json: bool) -> str:
    """What `interlock snapshot` prints on stdout (the daemon and the inline path share it)."""
    if as_json:
        return json.dumps({**info, "changed": changed, "ms": ms}, ensure_ascii=False) + "\n"
    files = "1 file differs" if changed == 1 else f"{changed} files differ"
    lines = [f"interlock: snapshot {info['id']} ({info['kind']}): {files} from HEAD, {ms:g} ms"]
    for reason, paths in dict(info.get("skipped") or {}).items():
        more = f" and {len(paths) - 5} more" if len(paths) > 5 else ""
        lines.append(f"  skipped ({reason}): {', '.join(paths[:5])}{more}")
    return "\n".join(lines) + "\n"
