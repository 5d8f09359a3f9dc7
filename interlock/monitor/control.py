"""Pause and stop: a person's brakes.

- **pause** (`interlock pause`): new runs do not start. A command that would start one is
  refused with `[paused]`; runs already open go on (in-flight work is not interrupted). It is
  not a kill switch. `interlock resume` lifts it. Kept in `<git-dir>/interlock/paused.json`.
- **stop** (`interlock stop`, and the monitor's own stops): the run is over. A kill switch
  stop refuses every further command of the run, in every mode; a stop by the monitor (stuck
  after its one recovery, `max_turns` reached, an environment problem) refuses them in
  blocking mode and is a reminder in advisory mode. Each stop writes a handoff. A stopped run
  stays stopped; a person starts a new one (`interlock run start`).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from interlock.git import RepoLocation
from interlock.state import atomic_write, repo_state_dir

PAUSE_FILE = "paused.json"
KILL = "kill"  # the stop kind of the kill switch


def _pause_path(loc: RepoLocation) -> Path:
    return repo_state_dir(loc) / PAUSE_FILE


def paused(loc: RepoLocation) -> dict[str, Any] | None:
    """The pause in force ({time, by}), or None. A pause file that cannot be read still
    pauses (unknown is the guarded side)."""
    path = loc.state_dir / PAUSE_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return {"time": None, "by": "unknown (the pause file cannot be read)"}
    return data if isinstance(data, dict) else {"time": None, "by": "unknown"}


def pause(loc: RepoLocation, by: str) -> bool:
    """Pause new runs; False when already paused."""
    if paused(loc) is not None:
        return False
    data = {"time": time.time(), "by": by}
    atomic_write(_pause_path(loc), (json.dumps(data) + "\n").encode(), 0o600)
    return True


def resume(loc: RepoLocation) -> bool:
    """Lift the pause; False when there was none."""
    path = _pause_path(loc)
    try:
        path.unlink()
    except FileNotFoundError:
        return False
    return True
