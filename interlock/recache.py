"""A disk cache for compiled regular expressions: the work `re` does in Python, done once.

`re.compile` parses a pattern and generates its program in Python (`re._parser`,
`re._compiler`) before handing the program to the C engine (`_sre.compile`). The engine's
modules compile their patterns when they are imported, and a cold `interlock check` (no
daemon) spent about a fifth of its CPU time there. `enable()` puts a cache in front of
`re._compiler.compile`: the arguments `_sre.compile` received for a (pattern, flags) are kept
in `interlock/__pycache__/re-programs.<cache tag>.bin`, and the next process gives them to
`_sre.compile` directly. The pattern object is the one `re` would have built (`==` on two
patterns compares their programs; tests/test_recache.py checks it). A pattern not in the
cache is compiled as before and the cache is rewritten at exit (atomically; not when writing
bytecode is turned off or the directory is read-only).

Like interlock.classcache: the file starts with the interpreter's bytecode magic number (a
file of another Python is ignored), anything that is not the expected shape is ignored, and
`_sre.compile` validates each program itself (a damaged one raises, and the pattern is then
compiled the usual way). Enabled by the entry point for the cold check and the full CLI
(the daemon included): a miss is compiled under a lock, and a program is kept only when the
call that produced it was for this very pattern object, so threads never mix their programs.
"""

from __future__ import annotations

import _sre  # type: ignore[import-not-found]  # re's C engine (no stubs)
import _thread
import sys

from interlock import classcache

TYPE_CHECKING = False  # not `typing`: this runs before every cold command
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

MAX_ENTRIES = 4096  # interlock's own patterns number a few hundred; a cache past this is not ours
_DEBUG = 128  # re.DEBUG: compiling prints the program, so never from the cache
_state: dict[str, object] = {}
_miss_lock = _thread.allocate_lock()  # one miss at a time: the recorder stands in module-wide
# (pattern, flags) -> the arguments of _sre.compile after the pattern: (flags, code, groups,
# groupindex, indexgroup)
_cache: dict[tuple[str | bytes, int], tuple[Any, ...]] = {}


def cache_path() -> str | None:
    return classcache.cache_file("re-programs")


def _valid_entry(key: object, value: object) -> bool:
    if not (isinstance(key, tuple) and len(key) == 2 and isinstance(key[1], int)):
        return False
    if not isinstance(key[0], (str, bytes)):
        return False
    if not (isinstance(value, tuple) and len(value) == 5):
        return False
    flags, code, groups, groupindex, indexgroup = value
    return (
        isinstance(flags, int)
        and isinstance(code, list)
        and isinstance(groups, int)
        and isinstance(groupindex, dict)
        and isinstance(indexgroup, tuple)
    )


def load(path: str, magic: bytes) -> dict[tuple[str | bytes, int], tuple[Any, ...]]:
    """The cache in `path`; empty when it is missing, another Python's, or damaged."""
    return classcache.read_cache(path, magic, _valid_entry)


class _Recorder:
    """Stands in for the `_sre` module inside re._compiler while one pattern is compiled:
    everything is _sre's, except that compile() also keeps the arguments it was given."""

    def __init__(self) -> None:
        self.args: tuple[Any, ...] | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(_sre, name)

    def compile(self, *args: Any) -> Any:
        self.args = args
        return _sre.compile(*args)


def _cached_compile(pattern: Any, flags: Any = 0) -> Any:
    """re._compiler.compile, from the cache when this (pattern, flags) was compiled before."""
    original: Callable[..., Any] = _state["original"]  # type: ignore[assignment]
    if not isinstance(pattern, (str, bytes)) or int(flags) & _DEBUG:
        return original(pattern, flags)
    key = (pattern, int(flags))
    entry = _cache.get(key)
    if entry is not None:
        try:
            return _sre.compile(pattern, *entry)
        except Exception:  # a damaged program: _sre refuses it; compile it the usual way
            _cache.pop(key, None)
    compiler = sys.modules["re._compiler"]
    recorder = _Recorder()
    with _miss_lock:
        compiler._sre = recorder  # type: ignore[attr-defined]
        try:
            compiled = original(pattern, flags)
        finally:
            compiler._sre = _sre  # type: ignore[attr-defined]
    args = recorder.args
    if args is not None and len(args) == 6 and args[0] is pattern and len(_cache) < MAX_ENTRIES:
        flags_out, code, groups, groupindex, indexgroup = args[1:]
        # The program holds re's named opcodes (int subclasses): plain ints for marshal.
        _cache[key] = (
            int(flags_out),
            [int(op) for op in code],
            int(groups),
            dict(groupindex),
            tuple(indexgroup),
        )
        _state["dirty"] = True
    return compiled


def save() -> None:
    """Write the cache when this process compiled something new (at exit)."""
    path, magic = _state.get("path"), classcache.magic_number()
    if not _state.get("dirty") or not isinstance(path, str) or magic is None:
        return
    if sys.dont_write_bytecode:
        return
    classcache.write_cache(path, magic, _cache)
    _state["dirty"] = False


def enable(path: str | None = None) -> None:
    """Put the cache in front of re's compiler (idempotent); `path`: another cache file than
    the package's own (tests)."""
    if "path" in _state:
        return
    path, magic = path or cache_path(), classcache.magic_number()
    _state["path"] = path
    if path is None or magic is None:
        return
    import atexit
    import re  # noqa: F401 - loads re._compiler, whose compile() re._compile calls

    compiler = sys.modules.get("re._compiler")
    original = getattr(compiler, "compile", None)
    if compiler is None or not callable(original) or getattr(compiler, "_sre", None) is not _sre:
        return  # not the re this module was written against
    _cache.update(load(path, magic))
    _state["original"] = original
    compiler.compile = _cached_compile  # type: ignore[attr-defined]
    atexit.register(save)
