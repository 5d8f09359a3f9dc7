"""The monitor's messages: `interlock: [tag] headline` and aligned fields, as every interlock
message; a field of several lines is indented under its first."""

from __future__ import annotations

from collections.abc import Iterable

from interlock import output


def message(tag: str, headline: str, fields: Iterable[tuple[str, str]] = ()) -> str:
    items = [(k, v) for k, v in fields if v]
    width = max((len(k) for k, _ in items), default=0) + 1
    pad = "\n" + " " * (width + 3)
    return output.format_message(tag, headline, [(k, v.replace("\n", pad)) for k, v in items])
