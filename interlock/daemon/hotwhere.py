"""Where a worktree's daemon lives and whether the process on its socket is that daemon.

Part of the minimal client of the hot doors (interlock.daemon.hotclient, which re-exports
these names): stdlib only, no `os` (hotos), `socket`, `json`, pathlib or typing. Trust: see
hotclient.
"""

import sys

from interlock import constants
from interlock.daemon import hotos

# The C modules _socket and fcntl are imported where they are used, so that a door with the
# daemon disabled (INTERLOCK_NO_DAEMON) can ask daemon_disabled() without loading them.
TYPE_CHECKING = False  # not `typing`: importing it costs milliseconds on every command
if TYPE_CHECKING:
    import _socket
    from collections.abc import Mapping

GIT_HOOK_ENV = constants.GIT_HOOK_ENV  # never passed to a daemon
# Variables a check reads besides INTERLOCK_*: sent along, applied for the check's duration.
CHECK_ENV = ("HOME", "TMPDIR", "XDG_STATE_HOME")
DEAD_STATES = ("T", "t", "Z", "X", "x")  # stopped, traced, zombie, dead
MISSES_BEFORE_REPLACE = 3  # deadlines a daemon may miss in a row (while idle) before replacement


class Where:
    """A worktree's top and its own git dir (absolute, symlinks resolved)."""

    __slots__ = ("git_dir", "worktree")

    def __init__(self, worktree: str, git_dir: str) -> None:
        self.worktree = worktree
        self.git_dir = git_dir

    @property
    def state_dir(self) -> str:
        return hotos.join(self.git_dir, constants.STATE_DIR_NAME)

    def state(self, name: str) -> str:
        return hotos.join(self.git_dir, constants.STATE_DIR_NAME, name)


def _gitdir_of(top: str) -> str | None:
    """The git dir of the worktree whose top is `top`, by the rules of git.discover()."""
    dotgit = hotos.join(top, ".git")
    if hotos.isdir(dotgit):
        return dotgit if hotos.exists(hotos.join(dotgit, "HEAD")) else None
    try:
        with open(dotgit, "rb") as handle:
            text = hotos.fsdecode(handle.read(4096)).strip()
    except OSError:
        return None
    if not text.startswith("gitdir:"):
        return None
    target = hotos.join(top, text[len("gitdir:") :].strip())
    return target if hotos.exists(hotos.join(target, "HEAD")) else None


def find(start: str, real: bool = False) -> Where | None:
    """The worktree containing `start` (None inside a .git directory or outside a repo).

    `real`: `start` is already absolute with no symlink in it (what getcwd() returns: the
    kernel's own path of the directory), so it is not resolved again; nor is `<top>/.git`
    when it is a directory itself, not a symlink (the parents of a real path are real)."""
    here = start if real else hotos.realpath(start)
    while True:
        if hotos.basename(here) == ".git":
            return None
        git_dir = _gitdir_of(here)
        if git_dir is not None:
            dotgit = hotos.join(here, ".git")
            if git_dir != dotgit or hotos.islink(dotgit):
                git_dir = hotos.realpath(git_dir)
            return Where(here, git_dir)
        parent = hotos.dirname(here)
        if parent == here:
            return None
        here = parent


def healthy(where: Where) -> None:
    """The daemon answered: forget the deadlines it missed (hotlife counts them)."""
    try:
        hotos.unlink(where.state(constants.DAEMON_UNHEALTHY_MARK))
    except OSError:
        pass


def daemon_disabled() -> bool:
    """INTERLOCK_NO_DAEMON=1: front doors work inline and never start a daemon."""
    return hotos.getenv(constants.ENV_NO_DAEMON) not in ("", "0")


def check_env(environ: "Mapping[str, str]") -> dict[str, str]:
    """The part of an environment that can change a check's answer."""
    return {k: v for k, v in environ.items() if k.startswith("INTERLOCK_") or k in CHECK_ENV}


def build_stamp() -> str:
    return constants.build_stamp()


def daemon_argv(worktree: str, python: str | None = None) -> list[str]:
    """How a trusted daemon is started, and so what its /proc cmdline must be."""
    python = hotos.abspath(python or sys.executable)  # `venv/bin/../bin/python` is the same
    return [python, "-I", "-m", "interlock", "daemon", "run", "--cwd", worktree]


def socket_path(where: Where) -> str | None:
    """Where this worktree's daemon listens (a long path is named in daemon.sock.where)."""
    default = where.state(constants.SOCKET_FILE)
    if len(hotos.fsencode(default)) <= constants.SOCKET_PATH_MAX:
        return default
    try:
        with open(where.state(constants.DAEMON_SOCKET_WHERE), "rb") as handle:
            text = handle.read().strip()
    except OSError:
        return None
    return hotos.fsdecode(text) if text else None


def read_pid(where: Where) -> int | None:
    try:
        with open(where.state(constants.PID_FILE), "rb") as handle:
            text = handle.read(64).strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def is_locked(where: Where) -> bool:
    """True when a daemon holds the pid file's lock (one is running or starting)."""
    try:
        fd = hotos.os_open(where.state(constants.PID_FILE), hotos.O_RDONLY | hotos.O_CLOEXEC)
    except OSError:
        return False
    try:
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        hotos.close(fd)  # closing drops a probe lock we may have taken
    return False


def _read_proc(pid: int, name: str) -> bytes | None:
    try:
        with open(f"/proc/{pid}/{name}", "rb") as handle:
            return handle.read(1 << 16)
    except OSError:
        return None


def process_state(pid: int) -> str | None:
    """The one-letter state of a process (R, S, D, T, t, Z...), None when it is gone."""
    raw = _read_proc(pid, "stat")
    if raw is None:
        return None
    fields = raw.rpartition(b")")[2].split()
    return fields[0].decode("ascii", "replace") if fields else None


def is_busy(pid: int) -> bool:
    """True when a thread of `pid` is running or waiting for the disk (R, D): a daemon that is
    merely slow - starting up, or on a loaded machine - rather than stuck."""
    try:
        tasks = hotos.listdir(f"/proc/{pid}/task")
    except OSError:
        return False
    for tid in tasks:
        raw = _read_proc(pid, f"task/{tid}/stat")
        fields = raw.rpartition(b")")[2].split() if raw else []
        if fields and fields[0] in (b"R", b"D"):
            return True
    return False


def is_our_daemon(pid: int, where: Where) -> bool:
    """True when process `pid` runs exactly `daemon_argv(where.worktree)`."""
    raw = _read_proc(pid, "cmdline")
    if not raw:
        return False
    argv = [hotos.fsdecode(a) for a in raw.rstrip(b"\0").split(b"\0")]
    return [hotos.abspath(argv[0]), *argv[1:]] == daemon_argv(where.worktree)


def trust_problem(
    sock: "_socket.socket", where: Where, vouched: bool = False
) -> tuple[int, str | None]:
    """(peer pid, why its answers must not be trusted, or None).

    `vouched`: the request on `sock` named the daemon this client accepts (`expect_daemon`)
    and only an `ok` answer to it will be used; the pid file's lock is then not tested here.
    The peer passed every other check: its uid is ours, it is the pid the pid file names, and
    /proc/PID/cmdline is exactly `daemon_argv` (this interpreter, `-I -m interlock`, this
    worktree), so it runs this install's daemon code (a process of the same user that forges
    its command line could as well hold the lock: the uid is the boundary, as before). That
    code serves such a request only after testing, from its side, that the pid file is the
    very file it holds locked for its life and names it (interlock.daemon.process._vouch),
    else it refuses before acting; a daemon of another build refuses by its `build` stamp.
    What the lock test defends against - a stale pid file, a second daemon, a daemon whose
    pid file was replaced - thus ends in a refusal, never in an answer that counts."""
    import _socket

    creds = sock.getsockopt(_socket.SOL_SOCKET, _socket.SO_PEERCRED, 12)
    pid = int.from_bytes(creds[0:4], sys.byteorder, signed=True)
    uid = int.from_bytes(creds[4:8], sys.byteorder, signed=True)
    if uid != hotos.getuid():
        return pid, f"the process on the socket (pid {pid}) belongs to uid {uid}"
    owner = read_pid(where)
    if owner != pid:
        return (
            pid,
            f"the process on the socket (pid {pid}) is not the daemon named by the pid file ({owner})",
        )
    if not vouched and not is_locked(where):
        return pid, "the daemon's pid file is not locked"
    if not is_our_daemon(pid, where):
        return pid, f"pid {pid} is not interlock's daemon for this worktree"
    return pid, None
