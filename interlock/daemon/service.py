"""The optional `systemd --user` service that keeps a worktree's daemon up across logins
(`interlock install --service`; `interlock uninstall` removes it).

The unit runs `python -m interlock daemon run --service --cwd WORKTREE`: no idle exit, and when
a daemon a front door started already holds the worktree, it waits for that one to exit and
takes over. `Restart=on-failure`: `interlock daemon stop` is respected until the next login.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from interlock.git import RepoLocation


def unit_name(loc: RepoLocation) -> str:
    digest = hashlib.sha256(os.fsencode(loc.worktree)).hexdigest()[:12]
    return f"interlock-{loc.worktree.name[:40] or 'root'}-{digest}.service".replace(" ", "_")


def unit_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(Path.home(), ".config")
    return Path(base) / "systemd" / "user"


def unit_text(loc: RepoLocation, python: str | None = None) -> str:
    argv = [python or sys.executable, "-m", "interlock", "daemon", "run", "--service"]
    argv += ["--cwd", os.fspath(loc.worktree)]
    command = " ".join(shlex.quote(a) for a in argv)
    return (
        "[Unit]\n"
        f"Description=interlock daemon for {loc.worktree}\n"
        f"ConditionPathIsDirectory={loc.worktree}\n\n"
        "[Service]\n"
        f"ExecStart={command}\n"
        f"WorkingDirectory={loc.worktree}\n"
        "Restart=on-failure\nRestartSec=10\n\n"
        "[Install]\nWantedBy=default.target\n"
    )


def _systemctl(*args: str) -> tuple[bool, str]:
    if shutil.which("systemctl") is None:
        return False, "systemctl is not installed"
    proc = subprocess.run(
        ["systemctl", "--user", *args], capture_output=True, text=True, timeout=30, check=False
    )
    return proc.returncode == 0, (proc.stderr or proc.stdout).strip()


def install_service(loc: RepoLocation) -> tuple[Path, str | None]:
    """Write the unit and enable it; (unit path, why enabling failed or None)."""
    from interlock.state import atomic_write

    path = unit_dir() / unit_name(loc)
    atomic_write(path, unit_text(loc).encode(), mode=0o644)
    ok, why = _systemctl("daemon-reload")
    if ok:
        ok, why = _systemctl("enable", "--now", path.name)
    return path, None if ok else (why or "systemctl --user failed")


def remove_service(loc: RepoLocation) -> Path | None:
    """Disable and remove the unit; its path when there was one."""
    path = unit_dir() / unit_name(loc)
    if not path.exists():
        return None
    _systemctl("disable", "--now", path.name)
    path.unlink()
    _systemctl("daemon-reload")
    return path
