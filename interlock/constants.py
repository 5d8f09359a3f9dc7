"""File names, environment variable names, markers and other fixed values."""

from interlock import __version__

VERSION = __version__

# Environment variables: every INTERLOCK_* name lives here.
ENV_HOME = "INTERLOCK_HOME"
ENV_MODE = "INTERLOCK_MODE"
ENV_RUN = "INTERLOCK_RUN"
ENV_WRAPPED = "INTERLOCK_WRAPPED"  # set by the shell wrapper / agent adapters: inside a run
ENV_HOOK_ACTIVE = "INTERLOCK_HOOK_ACTIVE"  # recursion guard for chained legacy hooks
ENV_NO_DAEMON = "INTERLOCK_NO_DAEMON"  # front doors do the work inline, never start a daemon
ENV_DAEMON_IDLE = "INTERLOCK_DAEMON_IDLE"  # idle seconds before the daemon exits
ENV_DAEMON_SERVICE = "INTERLOCK_DAEMON_SERVICE"  # `daemon run --service` across its re-exec
ENV_PYTHON = "INTERLOCK_PYTHON"  # recorded interpreter used by hook shims
ENV_ATTEMPT = "INTERLOCK_ATTEMPT"  # set by the wrapper for its child: the journaled attempt id
ENV_BASH = "INTERLOCK_BASH"  # the real bash the wrapper runs (default: /bin/bash, else PATH)
ENV_PREFIX = "INTERLOCK_"

# Files.
CONFIG_FILE = ".interlock.toml"
PYPROJECT = "pyproject.toml"
STATE_DIR_NAME = "interlock"  # under the git common dir
JOURNAL_FILE = "journal.db"
SOCKET_FILE = "daemon.sock"
PID_FILE = "daemon.pid"
LOG_FILE = "daemon.log"
STATE_README = "README"

# Refs.
REF_PREFIX = "refs/interlock/"

# Hooks.
HOOK_MARKER = "# interlock-hook v1"
HOOK_MARKERS_ALL = (HOOK_MARKER,)

# Daemon, watcher and recorder (H5).
DAEMON_IDLE_SECONDS = 30 * 60  # default for INTERLOCK_DAEMON_IDLE
DAEMON_SOCKET_WHERE = "daemon.sock.where"  # names the socket when its path is too long
DAEMON_SPAWN_MARK = "daemon.spawned"  # a front door started a daemon at this file's mtime
DAEMON_SPAWN_BACKOFF = 5.0  # seconds before a front door spawns again after a failed start
DAEMON_UNHEALTHY_MARK = "daemon.unhealthy"  # "<pid> <missed deadlines in a row>" (hotclient)
DAEMON_FED_MAX_PATHS = 2000  # a larger dirty set is snapshotted status-driven (one git status)
DAEMON_CONNECT_TIMEOUT = 0.25  # seconds a front door waits to connect before working inline
DAEMON_LOG_MAX = 1 << 20  # bytes of daemon.log before it rotates (one old copy kept)
SOCKET_PATH_MAX = 107  # AF_UNIX sun_path limit on Linux, minus the trailing NUL
WATCH_DEBOUNCE = 0.05  # seconds a path must be quiet before the recorder reads it
RECORDER_FILE = "recorder.db"
RECORDER_COMMIT_EVERY = 60.0  # seconds between commits that keep recorded blobs alive

# Snapshots, restore and retention (H3).
SNAPSHOT_LOCK_FILE = "snapshot.lock"  # in <git-dir>/interlock: serialises snapshot and restore
SNAPSHOT_IGNORED_MAX_BYTES = 1 << 20  # hand-made ignored files (.env) larger than this: skipped
SNAPSHOT_UNTRACKED_MAX_BYTES = 50 << 20  # untracked files larger than this: skipped, reported
SNAPSHOT_IGNORED_DIR_MAX_ENTRIES = 1000  # entries read from one ignored directory at most
GC_GREEN_RUNS = 20  # keep every green snapshot of this many most recent runs
GC_PRE_DAYS = 14.0  # keep pre-discard and pre-restore snapshots this many days

# Runs, the wrapper and the journal (issue 8).
RUN_LOCK_FILE = "run.lock"  # serialises finding or starting a run (one baseline per run)
EFFECT_LOCK_FILE = "effects.lock"  # serialises checking and recording side-effect attempts
RUN_LIVE_SECONDS = 30 * 60  # a run without a live agent counts as live this long after a command
TAIL_BYTES = 256 << 10  # the tail of a validator's output kept for its outcome
SCRIPT_MAX_BYTES = 1 << 20  # a script (file or stdin) larger than this is not judged: refused
JOURNAL_KEEP_DAYS = 30.0  # journal rows older than this are pruned (unresolved side effects kept)
JOURNAL_MAX_BYTES = 64 << 20  # and the oldest rows beyond this much are pruned
JOURNAL_PRUNE_EVERY = 3600.0  # seconds between prunes (the daemon, or a run start)
COUNT_DROP_RATIO = 0.5  # a pass running fewer than this share of the last full run is flagged

# Git hooks (H6): the hooks interlock installs (hooks/files.py, hooks/dispatch.py).
HOOK_NAMES = ("pre-commit", "pre-push", "reference-transaction", "post-checkout", "post-rewrite")


def build_stamp() -> str:
    """Which installed interlock this process runs: the version and the package directory's
    mtime (an upgrade re-creates its files). A thin client and the daemon compare stamps, so a
    daemon left running across an upgrade is replaced instead of answering with old code."""
    import posix  # not os: the hot client asks for this on every request, before os is loaded

    try:
        stamp = posix.stat(__file__.rpartition("/")[0]).st_mtime_ns  # the package's directory
    except OSError:
        stamp = 0
    return f"{VERSION}:{stamp}"


# The variables git exports to hooks: a git or a daemon started from a hook must not inherit
# them (interlock.git, the hot doors, the cold snapshot's early git status).
GIT_HOOK_ENV = frozenset(
    {
        "GIT_DIR",
        "GIT_INDEX_FILE",
        "GIT_WORK_TREE",
        "GIT_PREFIX",
        "GIT_OBJECT_DIRECTORY",
        "GIT_ALTERNATE_OBJECT_DIRECTORIES",
        "GIT_COMMON_DIR",
        "GIT_QUARANTINE_PATH",
        "GIT_EDITOR",
        "GIT_REFLOG_ACTION",
        "GIT_EXEC_PATH",
    }
)
