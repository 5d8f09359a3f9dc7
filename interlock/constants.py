"""File names, environment variable names, markers and other fixed values."""

from __future__ import annotations

from interlock import __version__

VERSION = __version__

# Environment variables: every INTERLOCK_* name lives here.
ENV_HOME = "INTERLOCK_HOME"
ENV_MODE = "INTERLOCK_MODE"
ENV_RUN_ID = "INTERLOCK_RUN_ID"
ENV_WRAPPED = "INTERLOCK_WRAPPED"  # set by the shell wrapper / agent adapters: inside a run
ENV_HOOK_ACTIVE = "INTERLOCK_HOOK_ACTIVE"  # recursion guard for chained legacy hooks
ENV_NO_DAEMON = "INTERLOCK_NO_DAEMON"  # front doors do the work inline, never start a daemon
ENV_DAEMON_IDLE = "INTERLOCK_DAEMON_IDLE"  # idle seconds before the daemon exits
ENV_PYTHON = "INTERLOCK_PYTHON"  # recorded interpreter used by hook shims
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
