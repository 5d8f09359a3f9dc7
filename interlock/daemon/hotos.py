"""The part of `os` and `os.path` the hot doors use, on the `posix` module alone.

`python -I -S -c pass` does not import `os`, and importing it (with `_collections_abc`,
`stat`, `posixpath` and the decoded environment) cost a warm `interlock check` or git hook
~1.2 ms of its ~13. The minimal client (hotwhere, hotclient, the launcher's entry point and
the hook shims' dispatch) uses these instead; each does what its namesake in `os`/`os.path`
does for `str` paths on Linux (realpath is posixpath.realpath line for line), and
tests/daemon/test_hotos.py compares them on symlinks, loops, `..`, relative and odd paths.
Everything slower (starting a daemon, the full CLI) imports `os` as usual.

The modules a warm door loads (this one, hotwhere, hotclient, interlock.constants, the
package, interlock.launch, interlock.checkdoor, interlock.snapdoor, interlock.adapters.hot) do
without `from __future__ import annotations`: it imports the `__future__` module, ~0.1 ms of
every start. Their annotations are evaluated, so those naming what only a type checker
imports (`TYPE_CHECKING`) are written as strings; the doors' import-list tests pin it.
"""

import posix
import sys

TYPE_CHECKING = False  # not `typing`
if TYPE_CHECKING:
    from collections.abc import Mapping

getcwd = posix.getcwd
getuid = posix.getuid
lstat = posix.lstat
listdir = posix.listdir
unlink = posix.unlink
os_open = posix.open
close = posix.close
O_RDONLY = posix.O_RDONLY
O_CLOEXEC = posix.O_CLOEXEC
_S_IFMT, _S_IFDIR, _S_IFLNK, _S_IFREG = 0o170000, 0o040000, 0o120000, 0o100000
_environ: dict[str, str] = {}


def fsdecode(raw: bytes) -> str:
    return raw.decode(sys.getfilesystemencoding(), sys.getfilesystemencodeerrors())


def fsencode(text: str) -> bytes:
    return text.encode(sys.getfilesystemencoding(), sys.getfilesystemencodeerrors())


def environ() -> "Mapping[str, str]":
    """The environment as `os.environ` has it: os.environ itself once os is loaded (a long-lived
    process may change it), else the process's environment decoded as os does (read once:
    without os, nothing in this process changes it)."""
    os_module = sys.modules.get("os")
    if os_module is not None:
        return os_module.environ
    if not _environ:
        _environ.update({fsdecode(k): fsdecode(v) for k, v in posix.environ.items()})
    return _environ


def getpid() -> int:
    return posix.getpid()


def _decoded_all() -> bool:
    return "os" in sys.modules or bool(_environ)


def getenv(name: str, default: str = "") -> str:
    if _decoded_all():
        return environ().get(name, default)
    raw = posix.environ.get(fsencode(name))  # one variable decoded, not the whole environment
    return default if raw is None else fsdecode(raw)


def environ_of(prefix: str) -> dict[str, str]:
    """The variables whose names start with `prefix` (ASCII), as `environ()` has them: only
    those are decoded (the whole environment cost an agent hook event ~40 us)."""
    if _decoded_all():
        return {k: v for k, v in environ().items() if k.startswith(prefix)}
    start = fsencode(prefix)
    return {fsdecode(k): fsdecode(v) for k, v in posix.environ.items() if k.startswith(start)}


def join(a: str, *parts: str) -> str:
    path = a
    for b in parts:
        if b.startswith("/"):
            path = b
        elif not path or path.endswith("/"):
            path += b
        else:
            path += "/" + b
    return path


def split(p: str) -> tuple[str, str]:
    i = p.rfind("/") + 1
    head, tail = p[:i], p[i:]
    if head and head != "/" * len(head):
        head = head.rstrip("/")
    return head, tail


def dirname(p: str) -> str:
    return split(p)[0]


def basename(p: str) -> str:
    return p[p.rfind("/") + 1 :]


def _normpath(path: str) -> str:
    """posixpath.normpath in Python (for an interpreter without posix._path_normpath)."""
    if not path:
        return "."
    initial = 1 if path.startswith("/") else 0
    if initial and path.startswith("//") and not path.startswith("///"):
        initial = 2
    parts: list[str] = []
    for comp in path.split("/"):
        if comp in ("", "."):
            continue
        if comp != ".." or (not initial and not parts) or (parts and parts[-1] == ".."):
            parts.append(comp)
        elif parts:
            parts.pop()
    path = "/" * initial + "/".join(parts)
    return path or "."


normpath = getattr(posix, "_path_normpath", _normpath)


def abspath(path: str) -> str:
    if not path.startswith("/"):
        path = join(getcwd(), path)
    return str(normpath(path))


def _stat_mode(path: str, follow: bool) -> int | None:
    try:
        return (posix.stat(path) if follow else posix.lstat(path)).st_mode
    except (OSError, ValueError):
        return None


def exists(path: str) -> bool:
    return _stat_mode(path, True) is not None


def lexists(path: str) -> bool:
    return _stat_mode(path, False) is not None


def isdir(path: str) -> bool:
    mode = _stat_mode(path, True)
    return mode is not None and mode & _S_IFMT == _S_IFDIR


def islink(path: str) -> bool:
    mode = _stat_mode(path, False)
    return mode is not None and mode & _S_IFMT == _S_IFLNK


def isfile(path: str) -> bool:
    mode = _stat_mode(path, True)
    return mode is not None and mode & _S_IFMT == _S_IFREG


def realpath(filename: str) -> str:
    """posixpath.realpath(filename) (not strict): symlinks resolved, loops left as they are."""
    path, _ = _joinrealpath("", filename, {})
    return abspath(path)


def _joinrealpath(path: str, rest: str, seen: dict[str, str | None]) -> tuple[str, bool]:
    if rest.startswith("/"):
        rest = rest[1:]
        path = "/"
    while rest:
        name, _, rest = rest.partition("/")
        if not name or name == ".":
            continue
        if name == "..":
            if path:
                path, name = split(path)
                if name == "..":
                    path = join(path, "..", "..")
            else:
                path = ".."
            continue
        newpath = join(path, name)
        try:
            mode = posix.lstat(newpath).st_mode
        except OSError:  # (a ValueError, a NUL in the path, propagates as in posixpath)
            mode = 0
        if mode & _S_IFMT != _S_IFLNK:
            path = newpath
            continue
        if newpath in seen:
            known = seen[newpath]
            if known is not None:
                path = known
                continue
            return join(newpath, rest), False  # a symlink loop: the rest unchanged
        seen[newpath] = None
        path, ok = _joinrealpath(path, posix.readlink(newpath), seen)
        if not ok:
            return join(path, rest), False
        seen[newpath] = path
    return path, True
