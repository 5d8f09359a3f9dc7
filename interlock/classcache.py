"""A disk cache for the methods `dataclasses` writes (__init__, __repr__, __eq__, __hash__...).

@dataclass writes each class's methods as source text and compiles it with exec() when the
class is created. A cold `interlock check` (no daemon) creates ~50 dataclasses, and compiling
their methods was a fifth of its CPU time. `enable()` hands dataclasses an exec() that takes the
compiled code from a cache file beside interlock's own .pyc files
(`interlock/__pycache__/dataclass-methods.<cache tag>.bin`), keyed by the exact source text, so
every class is what it would be without the cache. A text that is not in the cache is compiled
as before, and the cache is rewritten when the process exits (atomically; not when writing
bytecode is turned off or the directory is read-only).

Only the `dataclasses` module sees the cached exec: a global of that module shadows the
builtin there; nothing else in the process changes. The file starts with the interpreter's
bytecode magic number, like a .pyc: another Python's cache is ignored, and so is a file that
is damaged or holds anything but source texts and code objects. Each entry's code is kept
marshalled until a class asks for it (the file holds the methods of every interlock class, a
cold check needs about half). Trust: the file sits in the package's own __pycache__, next to
the .pyc files Python already executes from there.
"""

from __future__ import annotations

import builtins
import marshal
import os
import sys

TYPE_CHECKING = False  # not `typing`: this runs before every cold command
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from types import CodeType
    from typing import Any

MAX_ENTRIES = 4096  # interlock's own classes need ~300; a cache past this is not ours
_state: dict[str, object] = {}
_cache: dict[str, bytes] = {}  # source text -> marshalled code object


def cache_file(name: str) -> str | None:
    """`interlock/__pycache__/NAME.<tag>.bin`, beside the .pyc files; None without a tag."""
    tag = sys.implementation.cache_tag
    if tag is None:
        return None
    return os.path.join(os.path.dirname(__file__), "__pycache__", f"{name}.{tag}.bin")


def cache_path() -> str | None:
    return cache_file("dataclass-methods")


def magic_number() -> bytes | None:
    """This Python's .pyc magic number: a cache written by another Python is not read."""
    external = sys.modules.get("_frozen_importlib_external")
    magic = getattr(external, "MAGIC_NUMBER", None)
    return magic if isinstance(magic, bytes) else None


def read_cache(path: str, magic: bytes, valid: Callable[[object, object], bool]) -> dict[Any, Any]:
    """A marshalled dict cache in `path`; empty when it is missing, another Python's, damaged,
    larger than MAX_ENTRIES or holding an entry `valid` refuses."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except OSError:
        return {}
    if not raw.startswith(magic):
        return {}
    try:
        data = marshal.loads(raw[len(magic) :])
    except (EOFError, ValueError, TypeError):
        return {}
    if not isinstance(data, dict) or len(data) > MAX_ENTRIES:
        return {}
    if not all(valid(k, v) for k, v in data.items()):
        return {}
    return data


def write_cache(path: str, magic: bytes, data: dict[Any, Any]) -> None:
    """Write `data` marshalled to `path` atomically; a failure leaves no temp file behind."""
    temp = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(temp, "wb") as handle:
            handle.write(magic + marshal.dumps(data))
        os.replace(temp, path)
    except (OSError, ValueError):
        try:
            os.unlink(temp)
        except OSError:
            pass


def load(path: str, magic: bytes) -> dict[str, bytes]:
    """The cache in `path`; empty when it is missing, another Python's, or damaged."""
    return read_cache(path, magic, lambda k, v: isinstance(k, str) and isinstance(v, bytes))


def _code(source: str) -> CodeType:
    """The compiled `source`: from the cache, else compiled now (and cached)."""
    raw = _cache.get(source)
    if raw is not None:
        try:
            code = marshal.loads(raw)
        except (EOFError, ValueError, TypeError):
            code = None
        if type(code) is type(_code.__code__):
            return code
    code = compile(source, "<string>", "exec")  # the builtin exec's own file name
    _cache[source] = marshal.dumps(code)
    _state["dirty"] = True
    return code


def save() -> None:
    """Write the cache when this process compiled something new (at exit)."""
    path, magic = _state.get("path"), magic_number()
    if not _state.get("dirty") or not isinstance(path, str) or magic is None:
        return
    if sys.dont_write_bytecode or len(_cache) > MAX_ENTRIES:
        return
    write_cache(path, magic, _cache)
    _state["dirty"] = False


def _cached_exec(
    source: str | CodeType,
    globals: dict[str, Any] | None = None,
    locals: Mapping[str, object] | None = None,
    /,
) -> None:
    """exec() for dataclasses: a source text is compiled once per Python, then read from disk."""
    if globals is None:  # as the builtin: the caller's namespaces
        frame = sys._getframe(1)
        globals = frame.f_globals
        if locals is None:
            locals = frame.f_locals
    if isinstance(source, str):
        source = _code(source)
    builtins.exec(source, globals, locals)


def enable(path: str | None = None) -> None:
    """Let dataclasses read its compiled methods from the cache (idempotent); `path`: another
    cache file than the package's own (tests)."""
    if "path" in _state:
        return
    path, magic = path or cache_path(), magic_number()
    _state["path"] = path
    if path is None or magic is None:
        return
    import atexit
    import dataclasses

    _cache.update(load(path, magic))
    dataclasses.exec = _cached_exec  # type: ignore[attr-defined]
    atexit.register(save)
