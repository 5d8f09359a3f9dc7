"""The only module that writes to the terminal.

Messages start with `interlock:` (then a tag, `error:`, `warning:`, `note:`, or what the
command did), their detail lines indented below; errors, warnings and verdicts go to stderr.
Data a script reads (`--json`, listings and tables, paths) goes to stdout as it is, without
the prefix. tests/commands/test_messages.py holds every command to this. Tests capture both by swapping the streams here; the
daemon, which serves many requests at once, captures per thread (`install_thread_capture()`,
then `captured_output()` around each request).
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import sys
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, TextIO, cast

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


# --- per-thread capture (the daemon) ---


class _ThreadStream(io.TextIOBase):
    """A text stream that writes to the current thread's capture buffer, else to the log."""

    def __init__(self, name: str) -> None:
        import threading  # only the daemon pays for it

        self._name = name
        self._local = threading.local()

    def write(self, text: str) -> int:
        buffer: io.StringIO | None = getattr(self._local, "buffer", None)
        if buffer is not None:
            return buffer.write(text)
        if text.strip():
            logging.getLogger("interlock.output").info("%s: %s", self._name, text.rstrip("\n"))
        return len(text)

    def flush(self) -> None:
        return None

    @contextlib.contextmanager
    def capture(self) -> Iterator[io.StringIO]:
        buffer = io.StringIO()
        self._local.buffer = buffer
        try:
            yield buffer
        finally:
            self._local.buffer = None


_thread_streams: list[_ThreadStream] = []


def _thread_pair() -> tuple[_ThreadStream, _ThreadStream]:
    if not _thread_streams:
        _thread_streams.extend((_ThreadStream("stdout"), _ThreadStream("stderr")))
    return _thread_streams[0], _thread_streams[1]


def install_thread_capture() -> None:
    """Send output to per-thread buffers from now on (outside a capture: to the log)."""
    out, err = _thread_pair()
    set_streams(cast(TextIO, out), cast(TextIO, err))


@contextlib.contextmanager
def captured_output() -> Iterator[tuple[io.StringIO, io.StringIO]]:
    """What this thread writes through this module once `install_thread_capture()` ran, as
    (stdout, stderr) buffers."""
    out_stream, err_stream = _thread_pair()
    with out_stream.capture() as out, err_stream.capture() as err:
        yield out, err
