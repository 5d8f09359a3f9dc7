"""A request's environment, seen only by the thread serving it.

A check asks the daemon to judge a command as the client's process would: with its
INTERLOCK_* variables (mode, run id), HOME, TMPDIR... The engine reads those from
`os.environ`, deep down (config, paths, `~`). Setting them in the daemon's own environment for
the duration of a request would leak them to every other thread (the recorder, the facts
refresher, a snapshot, a hook run at the same moment) and, when a bad key stopped the update
halfway, to every later request.

So `install()` replaces `os.environ` once, at the daemon's start, with a mapping that reads
through to the real environment except, on a thread inside `applied(env)`, for the request's
variables (a variable the request lacks reads as unset there). Nothing is ever written to the
real environment for a request. `validate(env)` checks a whole request before any of it is
used.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator, Mapping, MutableMapping


class BadEnvironment(ValueError):
    """A request's env that cannot be used; nothing of it was applied."""


def validate(env: object, is_relevant: Callable[[str], bool]) -> dict[str, str]:
    """The request's env as a plain dict of relevant str -> str, or BadEnvironment."""
    if not isinstance(env, dict):
        raise BadEnvironment("env must be an object of strings")
    for key, value in env.items():
        if not isinstance(key, str) or not isinstance(value, str):
            raise BadEnvironment(f"env: {key!r} must map a string to a string")
        if not key or "=" in key or "\0" in key or "\0" in value:
            raise BadEnvironment(f"env: {key!r} is not a usable variable")
        if not is_relevant(key):
            raise BadEnvironment(f"env: {key!r} is not a variable a check reads")
    return dict(env)


class _Overlay(MutableMapping[str, str]):
    """os.environ, with the current thread's request variables laid over it."""

    def __init__(self, real: MutableMapping[str, str], is_relevant: Callable[[str], bool]) -> None:
        self._real = real
        self._relevant = is_relevant
        self._local = threading.local()

    def _request(self) -> dict[str, str] | None:
        env: dict[str, str] | None = getattr(self._local, "env", None)
        return env

    def __getitem__(self, key: str) -> str:
        env = self._request()
        if env is not None and isinstance(key, str) and self._relevant(key):
            return env[key]
        return self._real[key]

    def __setitem__(self, key: str, value: str) -> None:
        env = self._request()
        if env is not None and self._relevant(key):
            env[key] = value  # stays with the request
        else:
            self._real[key] = value

    def __delitem__(self, key: str) -> None:
        env = self._request()
        if env is not None and self._relevant(key):
            del env[key]
        else:
            del self._real[key]

    def __iter__(self) -> Iterator[str]:
        env = self._request()
        if env is None:
            yield from self._real
            return
        yield from (k for k in self._real if not self._relevant(k))
        yield from env

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def copy(self) -> dict[str, str]:
        return dict(self)

    @contextlib.contextmanager
    def applied(self, env: Mapping[str, str]) -> Iterator[None]:
        previous = self._request()
        self._local.env = dict(env)
        try:
            yield
        finally:
            self._local.env = previous


_installed: list[_Overlay] = []


def install(is_relevant: Callable[[str], bool]) -> None:
    """Lay the per-thread overlay over os.environ (once per process)."""
    if not _installed:
        overlay = _Overlay(os.environ, is_relevant)
        _installed.append(overlay)
        # Replacing, not clearing, is the point: the real environment stays as it is.
        os.environ = overlay  # type: ignore[assignment]  # noqa: B003


@contextlib.contextmanager
def applied(env: Mapping[str, str]) -> Iterator[None]:
    """Within this block, on this thread only, the request's variables are the environment's."""
    if not _installed:
        raise RuntimeError("reqenv.install() must run first")
    with _installed[0].applied(env):
        yield
