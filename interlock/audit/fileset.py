"""File sets: path -> bytes mappings, and which paths differ between two of them.

A mapping may also offer `ident(path)` and `prefetch(paths)` (see sources.GitFiles), so
that telling what changed never reads a file and reading what changed takes one git call.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Protocol, runtime_checkable

_SKIP_DIRS = (
    "node_modules/",
    ".venv/",
    "venv/",
    ".tox/",
    ".nox/",
    "__pycache__/",
    ".git/",
    "site-packages/",
    ".mypy_cache/",
    ".pytest_cache/",
)


@runtime_checkable
class Identified(Protocol):
    """A file set that can tell whether a path changed without reading it."""

    def ident(self, path: str) -> str | None: ...

    def prefetch(self, paths: Iterable[str]) -> None: ...


def changed_paths(before: Mapping[str, bytes], after: Mapping[str, bytes]) -> list[str]:
    """Paths whose content differs, skipping dependency and cache folders. A set built on
    `before` (sources.GitFiles) names its candidates, so the whole sets are never listed."""
    hint = getattr(after, "changes_from", None)
    candidates = hint(before) if hint is not None else None
    paths = candidates if candidates is not None else set(before) | set(after)
    if isinstance(before, Identified) and isinstance(after, Identified):
        changed = [p for p in paths if before.ident(p) != after.ident(p)]
    else:
        changed = [p for p in paths if before.get(p) != after.get(p)]
    return sorted(
        p
        for p in changed
        if not p.startswith(_SKIP_DIRS) and not any(f"/{d}" in f"/{p}" for d in _SKIP_DIRS)
    )
