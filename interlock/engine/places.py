"""The known places the walker names by marker rather than by path (engine.shellstate): the
top of the worktree the line starts in, and where the line starts. A word's place
(`Word.place`: `"$(pwd)/src"`, `"$(git rev-parse --show-toplevel)"`) is written with them,
and `cwd_of` turns it into a working directory in the walker's terms.
"""

from __future__ import annotations

import posixpath

# The top of the worktree the line starts in (`cd "$(git rev-parse --show-toplevel)"`): a
# known place, which the facts layer resolves (engine.precision) and which stays unknown
# outside every worktree. Paths under it are `TOP_CWD/sub`, and `..` from it is kept as
# written (`TOP_CWD/..`).
TOP_CWD = "/(the top of the worktree)"
# Where the line starts, in a word's place (`"$(pwd)"` read before any `cd`): cwd_of turns it
# back into the walker's relative form ('' is the start), so no cwd ever holds it.
START_CWD = "/(where the line starts)"


def under(marker: str, path: str) -> str | None:
    """The rest of `path` below `marker` ('' for the marker itself), or None."""
    if path == marker:
        return ""
    return path[len(marker) + 1 :] if path.startswith(marker + "/") else None


def cwd_of(place: str) -> str:
    """A place (absolute, or under a marker) as the walker keeps a cwd: `START_CWD/src` is
    `src`, `TOP_CWD/a/..` is TOP_CWD, a path is normalised."""
    rest = under(START_CWD, place)
    if rest is not None:
        joined = posixpath.normpath(rest or ".")
        return "" if joined == "." else joined
    rest = under(TOP_CWD, place)
    if rest is not None:
        joined = posixpath.normpath(rest or ".")
        return TOP_CWD if joined == "." else f"{TOP_CWD}/{joined}"
    return posixpath.normpath(place)
