"""`interlock recover PATH... [--list] [--at TIME]` and `recover --since TIME [DIR...]`: earlier
versions of files, written back.

The work and its report are interlock.memory.recoverrun's, shared with the daemon's `recover`
operation (which the launcher's door asks first: interlock.daemon.hotrecover). This is the
cold path: no daemon needed, and it starts one, so that what happens next is recorded.
"""

from __future__ import annotations

import os

from interlock import constants
from interlock.daemon import client
from interlock.git import RepoLocation
from interlock.memory import recoverrun
from interlock.memory.recoverpick import locate, parse_time

__all__ = ["locate", "parse_time", "recover"]


def _start_daemon(loc: RepoLocation) -> None:
    client.ensure_daemon(loc)  # from now on, every change is recorded again


def recover(
    paths: list[str],
    cwd: str | None,
    at: str | None,
    since: str | None,
    list_only: bool,
    as_json: bool,
) -> int:
    """List the versions of files, or write back the chosen version of each path (see the
    CLI's help)."""
    run_id = os.environ.get(constants.ENV_RUN) or None
    return recoverrun.run(paths, cwd, at, since, list_only, as_json, run_id, _start_daemon)
