"""The only module that writes to the terminal.

Messages for a run go to stderr and start with `interlock:` and a tag. Data a script reads
(`--json`, listings) goes to stdout. Tests capture both by swapping the streams here.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Mapping
from typing import Any, TextIO

_streams: dict[str, TextIO | None] = {"out": None, "err": None}


def _out() -> TextIO:
    return _streams["out"] or sys.stdout


def _err() -> TextIO:
    return _streams["err"] or sys.stderr


def set_streams(out: TextIO | None, err: TextIO | None) -> None:
    """Redirect output (tests); None restores the real stream."""
    _streams["out"] = out
    _streams["err"] = err


def write_out(text: str = "") -> None:
    stream = _out()
    stream.write(text + "\n")
    stream.flush()


def write_err(text: str = "") -> None:
    stream = _err()
    stream.write(text + "\n")
    stream.flush()


def write_json(obj: Any, *, pretty: bool = False) -> None:
    text = json.dumps(obj, indent=2 if pretty else None, ensure_ascii=False, sort_keys=False)
    write_out(text)


def format_message(tag: str, headline: str, fields: Iterable[tuple[str, str]] = ()) -> str:
    """`interlock: [tag] headline` and aligned `  field: value` lines."""
    lines = [f"interlock: [{tag}] {headline}"]
    items = [(k, v) for k, v in fields if v]
    width = max((len(k) for k, _ in items), default=0) + 1
    for key, value in items:
        lines.append(f"  {(key + ':').ljust(width)} {value}")
    return "\n".join(lines)


def message(tag: str, headline: str, fields: Iterable[tuple[str, str]] = ()) -> None:
    write_err(format_message(tag, headline, fields))


def warn(text: str) -> None:
    write_err(f"interlock: warning: {text}")


def error(text: str, hint: str | None = None) -> None:
    write_err(f"interlock: error: {text}")
    if hint:
        write_err(f"  hint: {hint}")


def table(rows: Iterable[Mapping[str, Any]], columns: list[str]) -> None:
    """Print rows as left-aligned columns (human listings)."""
    materialised = [
        [str(row.get(c, "") if row.get(c) is not None else "") for c in columns] for row in rows
    ]
    widths = [max([len(c)] + [len(r[i]) for r in materialised]) for i, c in enumerate(columns)]
    write_out("  ".join(c.upper().ljust(widths[i]) for i, c in enumerate(columns)).rstrip())
    for r in materialised:
        write_out("  ".join(v.ljust(widths[i]) for i, v in enumerate(r)).rstrip())
