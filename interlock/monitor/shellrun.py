"""Commands the monitor runs itself, never through the wrapper: a declared metric, or the
failing call again outside interlock (`world`). Real bash, in its own process group, with
stdin closed, a deadline (the whole group is killed past it) and a bounded output tail.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass

from interlock import constants

TAIL_BYTES = 64 << 10  # output kept from a command the monitor runs
_BASHES = ("/bin/bash", "/usr/bin/bash", "/usr/local/bin/bash")


@dataclass(frozen=True)
class Ran:
    """How a command the monitor ran ended: its exit status (None: killed past its deadline
    or could not start), its combined output's tail, and why it did not finish."""

    exit: int | None
    output: str
    problem: str | None = None


def find_bash() -> str:
    """The real bash ($INTERLOCK_BASH, else the usual places): never a `bash` found on PATH,
    which may be interlock's own wrapper linked under that name."""
    named = os.environ.get(constants.ENV_BASH)
    if named and os.access(named, os.X_OK):
        return named
    return next((b for b in _BASHES if os.access(b, os.X_OK)), "/bin/bash")


def clean_env(env: Mapping[str, str]) -> dict[str, str]:
    """`env` without interlock's own variables: the command runs as it would outside a run."""
    return {k: v for k, v in env.items() if not k.startswith(constants.ENV_PREFIX)}


def run_shell(
    command: str,
    cwd: str,
    env: Mapping[str, str] | None = None,
    timeout: float = 10.0,
    *,
    with_stderr: bool = True,
) -> Ran:
    """Run `bash -c command` in cwd; never raises for the command's own failure. The output is
    stdout and stderr as they interleave (with_stderr), else stdout alone."""
    try:
        proc = subprocess.Popen(
            [find_bash(), "-c", command],
            cwd=cwd,
            env=clean_env(os.environ if env is None else env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT if with_stderr else subprocess.DEVNULL,
            start_new_session=True,
        )
    except OSError as exc:
        return Ran(None, "", f"could not start bash in {cwd}: {exc.strerror}")
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        text = out[-TAIL_BYTES:].decode("utf-8", "replace")
        return Ran(None, text, f"did not finish within {timeout:g} s")
    text = out[-TAIL_BYTES:].decode("utf-8", "replace")
    return Ran(proc.returncode, text)
