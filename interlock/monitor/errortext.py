"""Failure text as the stuck detector compares it: an excerpt of a validator's output, with
what changes from run to run of the same failure masked.

`normalise(text)` masks process ids, durations, temporary paths, memory addresses, UUIDs and
timestamps, and collapses white space, so that the same failure reads the same each time
(`... in 0.12s` and `... in 0.31s` are one error). It is idempotent: a normalised text
normalises to itself, so records that carry already-normalised errors compare the same.

`excerpt(tail)` picks the lines that say what failed from the end of a validator's output
(pytest's `FAILED`/`ERROR` summary lines, `E   ...` assertion lines, tracebacks' last line,
`error:`/`panicked`/`FAIL` of other runners), else the last non-empty lines.
"""

from __future__ import annotations

import re

EXCERPT_LINES = 6  # lines of failure text kept per attempt
EXCERPT_CHARS = 600  # and at most this much of it

_MASKS: tuple[tuple[re.Pattern[str], str], ...] = (
    # Timestamps first: their digits would otherwise be read as durations or numbers.
    (
        re.compile(
            r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?"
        ),
        "<time>",
    ),
    (re.compile(r"\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b"), "<time>"),
    (re.compile(r"\b1[5-9]\d{8}(?:\.\d+)?\b"), "<time>"),  # seconds since the epoch
    (
        re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I),
        "<uuid>",
    ),
    (re.compile(r"\b0x[0-9a-f]{4,}\b", re.I), "0x<addr>"),
    (
        re.compile(
            r"(?:/private)?/(?:tmp|var/tmp|var/folders|dev/shm)/[^\s'\":;,)\]}]*"
            r"|[A-Za-z]:\\Users\\[^\s\\]+\\AppData\\Local\\Temp\\[^\s'\":;,)\]}]*"
            r"|\bpytest-of-[^\s/]+/pytest-\d+/[^\s'\":;,)\]}]*"
        ),
        "<tmp>",
    ),
    (re.compile(r"\b(pid|process|thread|tid)([ =:#]+)\d+\b", re.I), r"\1\2<n>"),
    (
        re.compile(
            r"(?<![\w.])\d+(?:\.\d+)?\s?(?:ns|us|µs|ms|s|sec|secs|seconds?|m|min|mins|minutes?|h)\b",
            re.I,
        ),
        "<dur>",
    ),
    (re.compile(r"[ \t]+"), " "),
)

_FAILURE_LINE = re.compile(
    r"^(FAILED|ERROR|FAIL|E\s|--- FAIL|error(\[\w+\])?:|panicked|thread '.*' panicked|"
    r"Traceback|\w*(Error|Exception)\b|fatal:|npm ERR!|✕|×|\s*●)",
)


def normalise(text: str) -> str:
    """`text` with what varies between identical failures masked (see the module docstring)."""
    out = text.replace("\r\n", "\n").replace("\r", "\n")
    for pattern, replacement in _MASKS:
        out = pattern.sub(replacement, out)
    lines = [line.strip() for line in out.split("\n")]
    return "\n".join(line for line in lines if line)


def excerpt(tail: str | None) -> str:
    """The failure lines at the end of a validator's output, normalised and bounded."""
    if not tail:
        return ""
    lines = [line.rstrip() for line in normalise(tail).split("\n")]
    picked = [line for line in lines if _FAILURE_LINE.match(line)]
    chosen = (picked or lines)[-EXCERPT_LINES:]
    text = "\n".join(chosen)
    return text[-EXCERPT_CHARS:]


def first_line(text: str, width: int = 160) -> str:
    """The most telling single line of an excerpt, for a one-line message field."""
    lines = [line for line in text.split("\n") if line.strip()]
    if not lines:
        return ""
    best = next((x for x in lines if x.startswith(("FAILED", "ERROR", "E "))), lines[-1])
    return best if len(best) <= width else best[: width - 3] + "..."
