"""`interlock snapshot` taken in this process (no daemon answered): the click CLI and the
launcher's cold path (interlock/__main__.py, which starts the snapshot's `git status` before
it imports this) call the same function, so the output is the same.

Kept apart from interlock.commands.snapshot (the other snapshot commands) so that the cold
path imports only what taking a snapshot needs: no click, restore, recorder or daemon client.
"""

from __future__ import annotations

import os
import time

from interlock import constants, exitcodes, output
from interlock.git import require_repo
from interlock.memory.prescan import Prescan
from interlock.memory.snapshot import changed_vs_head, take_snapshot
from interlock.snapshotreport import snapshot_report


def snapshot(
    cwd: str | None,
    message: str | None,
    kind: str,
    as_json: bool,
    prescan: Prescan | None = None,
) -> int:
    """Take a snapshot of the worktree at `cwd` and print it. `prescan`: its git status and
    lock, started early (interlock.memory.prescan); used only when it serves this worktree,
    and closed by the caller."""
    loc = require_repo(cwd)
    if prescan is not None and not prescan.serves(loc):
        prescan.close()  # another worktree than the launcher found: the ordinary order
        prescan = None
    started = prescan.started if prescan is not None else time.perf_counter()
    run = os.environ.get(constants.ENV_RUN) or None
    info = take_snapshot(loc, kind=kind, message=message, run=run, prescan=prescan)
    ms = round((time.perf_counter() - started) * 1000, 1)
    reader = prescan.reader.use(loc) if prescan is not None and prescan.reader else None
    changed = changed_vs_head(loc, info, reader)
    output.write_out(snapshot_report(info.to_json(), changed, ms, as_json).removesuffix("\n"))
    return exitcodes.OK
