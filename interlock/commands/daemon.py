"""`interlock daemon start|stop|status|path|run`."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

from interlock import constants, exitcodes, output, procinfo
from interlock.daemon import client, hotclient
from interlock.errors import DaemonError
from interlock.git import RepoLocation, require_repo

_START_WAIT = 15.0
_STOP_WAIT = 15.0


def _wait_for(predicate: Any, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return bool(predicate())


def _ping(loc: RepoLocation) -> dict[str, Any] | None:
    reply = client.request(loc, "ping")
    return reply if reply and reply.get("ok") else None


def _last_log_error(loc: RepoLocation) -> str | None:
    try:
        lines = (loc.state_dir / constants.LOG_FILE).read_text(errors="replace").splitlines()
    except OSError:
        return None
    errors = [line for line in lines[-50:] if " ERROR " in line]
    return errors[-1] if errors else None


def start(cwd: str | None, as_json: bool) -> int:
    """Start the daemon (even with INTERLOCK_NO_DAEMON set) and wait until it answers."""
    loc = require_repo(cwd)
    reply = _ping(loc)
    already = reply is not None
    if reply is None:
        if not client.is_daemon_locked(loc):
            from interlock.daemon.process import prepare_state_dir

            warning = prepare_state_dir(loc)[1]
            if warning:
                output.warn(warning)
            client.spawn_daemon(loc)
        if not _wait_for(lambda: _ping(loc) is not None, _START_WAIT):
            problem = _last_log_error(loc) or "it did not answer in time"
            raise DaemonError(
                f"the daemon did not start: {problem}",
                hint=f"see {loc.state_dir / constants.LOG_FILE}",
            )
        reply = _ping(loc) or {}
    if as_json:
        output.write_json({"running": True, "pid": reply.get("pid"), "already_running": already})
    else:
        state = "already running" if already else "started"
        output.write_out(f"interlock: daemon {state} (pid {reply.get('pid')}) for {loc.worktree}")
    return exitcodes.OK


def stop(cwd: str | None, as_json: bool) -> int:
    """Stop the daemon: ask it over the socket, else SIGTERM; wait until it has exited."""
    loc = require_repo(cwd)
    pid = client.read_pid(loc)
    was_running = client.is_daemon_locked(loc)
    if was_running:
        reply = client.request(loc, "stop")
        if reply is None and pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
        gone = _wait_for(lambda: not client.is_daemon_locked(loc), _STOP_WAIT)
        if gone and pid is not None:
            gone = _wait_for(lambda: not procinfo.is_alive(pid), _STOP_WAIT)
        if not gone:
            raise DaemonError(
                f"the daemon (pid {pid}) did not stop within {_STOP_WAIT:.0f} s",
                hint=f"kill it: kill -9 {pid}  (snapshots stay consistent; it recovers on start)",
            )
    cleaned = _clean_stale(loc)
    if as_json:
        output.write_json({"stopped": was_running, "pid": pid, "cleaned": cleaned})
    elif was_running:
        output.write_out(f"interlock: daemon stopped (pid {pid})")
    else:
        output.write_out(
            "interlock: daemon not running" + (" (removed stale files)" if cleaned else "")
        )
    return exitcodes.OK


def _clean_stale(loc: RepoLocation) -> list[str]:
    """Remove a dead daemon's pid file, socket and socket note; only when no daemon runs."""
    if client.is_daemon_locked(loc):
        return []
    removed = []
    sock = client.socket_path(loc)
    candidates = [client.pid_path(loc), loc.state_dir / constants.DAEMON_SOCKET_WHERE]
    if sock is not None and client.socket_problem(sock) is None:
        candidates.insert(0, sock)
    for path in candidates:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
            removed.append(str(path))
    return removed


def _ago(seconds: float) -> str:
    seconds = max(0, int(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m {seconds % 60}s"
    return f"{seconds // 3600}h {seconds % 3600 // 60}m"


def _not_running(loc: RepoLocation) -> dict[str, Any]:
    pid = client.read_pid(loc)
    locked = client.is_daemon_locked(loc)
    state = "starting or not answering" if locked else "not running"
    if not locked and pid is not None:
        state += f" (stale pid file from pid {pid}: replaced on next start)"
    untrusted = client.trust_problem(loc)
    if untrusted is not None:
        state = f"not trusted: {untrusted}; every front door judges inline"
    return {
        "running": False,
        "state": state,
        "pid": pid if locked else None,
        "worktree": str(loc.worktree),
    }


def status(cwd: str | None, as_json: bool) -> int:
    """Print what the daemon knows: pid, uptime, watched dirs, dirty paths, RSS, last snapshot."""
    loc = require_repo(cwd)
    reply = client.request(loc, "status")
    info = reply if reply and reply.get("ok") else _not_running(loc)
    info.pop("ok", None)
    if as_json:
        output.write_json(info)
        return exitcodes.OK
    if not info.get("running"):
        output.write_out(f"daemon: {info['state']}")
        return exitcodes.OK
    for key, value in _status_lines(info):
        output.write_out(f"{key + ':':<15}{value}")
    return exitcodes.OK


def _recorder_lines(rec: dict[str, Any], now: float) -> list[tuple[str, str]]:
    if not rec.get("running"):
        state = "not running" + (f" ({rec['warning']})" if rec.get("warning") else "")
        return [("recorder", state)]
    summary = f"{rec.get('versions', 0)} versions, {rec.get('commits', 0)} commits"
    if rec.get("last_version"):
        summary += f", last {_ago(now - rec['last_version'])} ago"
    if not rec.get("baseline_done"):
        summary += "; reading the tree (baseline)"
    elif rec.get("idle"):
        summary += "; up to date"
    else:
        summary += f"; {rec.get('pending', 0)} changes waiting"
    lines = [("recorder", summary)]
    if rec.get("warning"):
        lines.append(("  warning", str(rec["warning"])))
    last = rec.get("last_rescan")
    if last:
        lines.append(
            (
                "  last rescan",
                f"{_ago(now - last['time'])} ago, because {last['reason']}: "
                f"{last['reread']} of {last['checked']} paths re-read, "
                f"{last['recorded']} new versions ({rec.get('rescans', 0)} rescans so far)",
            )
        )
    if rec.get("too_large_count"):
        shown = ", ".join(rec.get("too_large") or [])
        lines.append(
            (
                "  not recorded",
                f"{rec['too_large_count']} files over {rec['max_file_size'] / (1 << 20):g} MiB"
                f" (recorder_max_file_size): {shown}",
            )
        )
    if rec.get("policy"):
        lines.append(("  policy", str(rec["policy"])))
    return lines


def _status_lines(info: dict[str, Any]) -> list[tuple[str, str]]:
    now = time.time()
    snap = info.get("last_snapshot")
    if info.get("dirty_unknown"):
        dirty = f"not known ({info['dirty_unknown']}): the next snapshot reads the whole tree"
    else:
        dirty = f"{info['dirty_paths']} changed since the last snapshot"
    return [
        ("daemon", f"running (pid {info['pid']}, up {_ago(info['uptime'])})"),
        ("worktree", str(info["worktree"])),
        ("socket", str(info["socket"])),
        ("watcher", f"{info['watcher']} ({info['watched_dirs']} directories)"),
        ("dirty paths", dirty),
        ("memory (RSS)", f"{info['rss'] / 1e6:.1f} MB"),
        (
            "last snapshot",
            f"{snap['id']} ({snap['kind']}, {_ago(now - snap['time'])} ago)"
            if snap
            else "none yet",
        ),
        *_recorder_lines(info.get("recorder") or {}, now),
        ("idle exit", _idle_text(info.get("idle_exit_after"))),
    ]


def _idle_text(idle: float | None) -> str:
    if not idle:
        return "never (kept running as a service)"
    return f"after {idle:.0f} s without activity"


def path(cwd: str | None, as_json: bool) -> int:
    """Print where the daemon's state lives."""
    loc = require_repo(cwd)
    state = loc.state_dir
    sock = client.socket_path(loc)
    paths: dict[str, Path | None] = {
        "state_dir": state,
        "socket": sock,
        "pid_file": client.pid_path(loc),
        "log": state / constants.LOG_FILE,
        "recorder_db": state / constants.RECORDER_FILE,
    }
    if as_json:
        output.write_json({k: str(v) if v is not None else None for k, v in paths.items()})
    else:
        output.write_out(str(state))
    return exitcodes.OK


def run(cwd: str | None, idle: float | None, service: bool = False) -> int:
    """Be the daemon, in the foreground of this process (what `start` runs detached)."""
    from interlock.daemon.process import run_daemon

    loc = require_repo(cwd)
    os.chdir(loc.worktree)
    canonical = hotclient.daemon_argv(os.fspath(loc.worktree))
    if sys.orig_argv != canonical:
        # Clients trust only a daemon whose command line is exactly this (hotclient): become it.
        env = {k: v for k, v in os.environ.items() if k not in hotclient.GIT_HOOK_ENV}
        if idle is not None:
            env[constants.ENV_DAEMON_IDLE] = repr(idle)
        if service:  # the canonical command line has no --service: carry it over
            env[constants.ENV_DAEMON_SERVICE] = "1"
        os.execve(canonical[0], canonical, env)
    service = service or os.environ.pop(constants.ENV_DAEMON_SERVICE, "") == "1"
    return run_daemon(loc, idle, service)
