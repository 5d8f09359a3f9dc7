"""What `interlock status` shows of the run monitor: its state, the failing set and for how
long, the stall and budget counters, the safe-state rung, the pause."""

from __future__ import annotations

import time
from typing import Any

from interlock.errors import InterlockError
from interlock.git import RepoLocation
from interlock.journal import Journal
from interlock.monitor import control, evidence, progress, state, todo
from interlock.monitor.safestate import SAFE_STATE_CEILING
from interlock.run import session
from interlock.run.records import Run


def _failing(stored: list[state.Stored]) -> dict[str, Any] | None:
    history = evidence.failing_history(stored)
    if not history or not history[-1]["failing"]:
        return None
    now = history[-1]
    return {
        "tests": now["failing"],
        "since": now["since"],
        "for_seconds": round(time.time() - now["since"], 1),
        "since_attempt": now["first_attempt"],
        "attempts": now["attempts"],
    }


def summary(loc: RepoLocation, journal: Journal, run: Run | None) -> dict[str, Any]:
    """The monitor's part of `interlock status --json`."""
    paused = control.paused(loc)
    if run is None:
        return {"state": "paused" if paused else "no run", "paused": paused}
    st = state.load(journal, run.id)
    stop = state.stop_of(journal, run.id)
    config = session.run_config(run)
    try:
        outstanding = len(todo.outstanding(loc))
    except InterlockError:
        outstanding = None
    word = "stopped" if stop else ("recovering" if st.recovery else st.verdict)
    threshold = config.progress_stall_threshold
    return {
        "state": word,
        "verdict": st.verdict,
        "reason": st.verdict_reason,
        "stop": stop,
        "paused": paused,
        "records": st.records,
        "failing": _failing(state.read_records(journal, run.id)),
        "recovery": st.recovery,
        "recoveries": len(st.recoveries),
        "stall": {
            "threshold": threshold,
            "armed": st.last_progress is not None,
            "barren": progress.barren(st),
            "notices": st.stalls,
            "ceiling": progress.STALL_CEILING,
            "last_progress": {"turn": st.last_progress, "what": st.progress_what},
        },
        "budget": {"turns": st.turns, "max_turns": config.max_turns, "notices": st.budget},
        "safe_state": {
            "mode": config.safe_state_abort,
            "streak": st.streak,
            "notices": st.safe_states,
            "ceiling": SAFE_STATE_CEILING,
        },
        "outstanding": outstanding,
    }


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{int(seconds)}s"
    if seconds < 5400:
        return f"{int(seconds // 60)}m"
    return f"{seconds / 3600:.1f}h"


def lines(data: dict[str, Any]) -> list[str]:
    """The human lines of `interlock status` for the monitor's part."""
    out: list[str] = []
    if data.get("paused"):
        by = data["paused"].get("by")
        out.append(f"paused:   yes, by {by}: new runs do not start (interlock resume)")
    if "budget" not in data:
        return out
    stop = data["stop"]
    if stop:
        out.append(f"monitor:  stopped: {stop.get('reason')} (handoff: {stop.get('handoff')})")
    else:
        reason = f" ({data['reason']})" if data["reason"] else ""
        out.append(f"monitor:  {data['state']}{reason}")
    failing = data["failing"]
    if failing:
        tests = ", ".join(failing["tests"][:3]) + (" ..." if len(failing["tests"]) > 3 else "")
        out.append(
            f"failing:  {len(failing['tests'])} test(s) for {_duration(failing['for_seconds'])} "
            f"(since attempt #{failing['since_attempt']}, {failing['attempts']} check(s)): {tests}"
        )
    budget = data["budget"]
    limit = budget["max_turns"]
    marks = ", ".join(f"{m}%" for m in budget["notices"]) or "none yet"
    out.append(
        f"turns:    {budget['turns']} of {limit} (budget notices: {marks})"
        if limit
        else f"turns:    {budget['turns']} (no max_turns)"
    )
    stall = data["stall"]
    if stall["threshold"] is None:
        out.append("stall:    off (progress_stall_threshold not set)")
    elif not stall["armed"]:
        out.append("stall:    not armed yet (no progress event so far)")
    else:
        out.append(
            f"stall:    {stall['barren']} of {stall['threshold']} barren turns "
            f"(notices {stall['notices']}/{stall['ceiling']}; last progress: "
            f"{stall['last_progress']['what']})"
        )
    return out
