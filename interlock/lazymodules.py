"""Standard-library modules a cold check imports but almost never uses, run on first use.

A cold `interlock check` (no daemon) imports `dataclasses`, which imports `inspect` (with
`ast`, `dis`, `tokenize` and `linecache`) for the one case of a dataclass without a docstring;
`pathlib` imports `urllib.parse`, which imports `ipaddress` for bracketed URL hosts; the engine
imports `base64` to decode a PowerShell `-EncodedCommand`. Together they were ~8 ms of the
process's CPU on the development VM. `defer()` puts each of them, before anything imports
it, in sys.modules as a module whose code has not run yet: `import inspect` binds it, and the
first attribute read (`inspect.signature`) runs the module's code in that same module object,
which from then on is the ordinary module.

The import statement itself reads `__spec__` of a module it finds in sys.modules (to wait for
one that is still initialising), so `__spec__` and the other import-system attributes are
answered without running the code; importlib.util.LazyLoader runs the code there already.

Only for short single-threaded processes: the inline check calls it. Two threads reading a
deferred module first at once could both run its code, so the daemon, which serves requests
on threads, imports modules the usual way.
"""

from __future__ import annotations

import sys
from types import ModuleType

DEFERRED = ("inspect", "ipaddress", "base64")
# What the import system reads from a module in sys.modules: answered without running it.
_IMPORT_ATTRIBUTES = frozenset(
    {"__spec__", "__name__", "__loader__", "__package__", "__path__", "__class__"}
)


class _Deferred(ModuleType):
    """A module whose code runs at the first read of an attribute other than the above."""

    def __getattribute__(self, name: str) -> object:
        if name in _IMPORT_ATTRIBUTES:
            return super().__getattribute__(name)
        _run(self)
        return getattr(self, name)

    def __setattr__(self, name: str, value: object) -> None:
        _run(self)
        setattr(self, name, value)

    def __delattr__(self, name: str) -> None:
        _run(self)
        delattr(self, name)


def _run(module: ModuleType) -> None:
    """Run a deferred module's code in it; from then on it is an ordinary module."""
    object.__setattr__(module, "__class__", ModuleType)
    spec = module.__spec__
    assert spec is not None and spec.loader is not None
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(spec.name, None)  # as a failed import: the next one tries again
        raise


def defer(names: tuple[str, ...] = DEFERRED) -> list[str]:
    """Put each module not imported yet in sys.modules, its code to run on first use; the
    names deferred (a module that cannot be found is left to fail where it is imported)."""
    from importlib.machinery import PathFinder
    from importlib.util import module_from_spec

    deferred = []
    for name in names:
        if name in sys.modules:
            continue
        spec = PathFinder.find_spec(name)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            continue
        module = module_from_spec(spec)
        object.__setattr__(module, "__class__", _Deferred)
        sys.modules[name] = module
        deferred.append(name)
    return deferred
