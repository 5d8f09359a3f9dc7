"""A cold snapshot's git commands, started before the process imports the rest of interlock.

    from interlock.memory import prescan
    early = prescan.start(worktree, git_dir)   # None: the snapshot runs them itself, later
    ...                                         # import pygit2 and the memory while git works
    take_snapshot(loc, ..., prescan=early)      # adopts the lock, reads the outputs
    early.close()                               # always: ends what was not used

A cold `interlock snapshot` process (no daemon) spends most of its wall time in one
`git status` over the whole worktree, and ~25 ms of CPU importing the memory. On a
machine with two cores the two can overlap: the launcher calls `start` first, with nothing
loaded but this module (stdlib `os` and `fcntl`, interlock.constants, interlock.plumbing),
and `git status` works while Python imports. The snapshot reads objects and writes its ref
through git's processes started here too (interlock.plumbing: `cat-file --batch-command`,
`update-ref --stdin`, `config`), so the process never imports pygit2 (~75 ms of CPU).
What the snapshot records does not change: the same two commands (STATUS_ARGS,
ATTRIBUTE_ARGS, which interlock.memory.scan runs itself otherwise) with the same
environment as interlock.git.run gives them (no variables git sets for hooks), and the
snapshot lock (interlock.memory.leftovers) taken before they start, so no other snapshot or
restore can run between what they read and the snapshot's ref.

`start` declines (None) whenever the ordinary order is the safer one: the state directory
is missing or not a plain directory (the snapshot creates or rebuilds it), the lock holds the
record of a holder that died midway (its temp files are cleared before anything is read), or
this system lacks `memfd_create` or `posix_spawn`. The outputs go to anonymous memory files,
not pipes: git never waits for this process to read them.

The tracked `.gitattributes` listing is kept in the state directory (ATTRIBUTES_CACHE) under
the index's own checksum, and reused while the index is byte for byte the one it was read
from: `git ls-files` reads the whole index (~15 ms of CPU at 100k files) for a list that
changes only when a `.gitattributes` is added to or removed from the index.
"""

from __future__ import annotations

import fcntl
import os
import stat
import time

from interlock import constants
from interlock.plumbing import GitReader

TYPE_CHECKING = False  # not `typing`: this module is loaded before anything else
if TYPE_CHECKING:
    from interlock.git import RepoLocation

# What interlock.memory.scan runs for a cold snapshot: every path's status (untracked files one
# by one, ignored ones as matched), without touching the index or entering submodules, and
# the tracked `.gitattributes` files (their rules may rewrite bytes on checkout).
STATUS_ARGS = (
    "--no-optional-locks",
    "status",
    "--porcelain=v2",
    "-z",
    "--untracked-files=all",
    "--ignored=matching",
    "--no-renames",
    "--ignore-submodules=all",
)
ATTRIBUTE_ARGS = ("ls-files", "-z", "--", ":(glob)**/.gitattributes")
# ATTRIBUTE_ARGS' output, kept in the state directory with the index it was read from: at 100k
# files reading the index costs `ls-files` ~15 ms of CPU, and the index changes far less often
# than a cold snapshot is taken.
ATTRIBUTES_CACHE = "tracked-attributes.cache"

GIT_HOOK_ENV = constants.GIT_HOOK_ENV  # a git started here must not inherit them


class _Job:
    """One git command writing to two anonymous memory files."""

    def __init__(self, args: tuple[str, ...], worktree: str, env: dict[str, str]) -> None:
        self.args = list(args)
        self.pid: int | None = None
        self.out = self.err = -1
        try:
            self.out = os.memfd_create("interlock-git-out", os.MFD_CLOEXEC)
            self.err = os.memfd_create("interlock-git-err", os.MFD_CLOEXEC)
            actions = [
                (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                (os.POSIX_SPAWN_DUP2, self.out, 1),
                (os.POSIX_SPAWN_DUP2, self.err, 2),
            ]
            # `-C`: posix_spawn has no chdir; git then runs as if started in the worktree
            self.pid = os.posix_spawnp(
                "git", ["git", "-C", worktree, *args], env, file_actions=actions
            )
        except BaseException:
            self.close()
            raise

    def result(self) -> tuple[int, bytes, bytes]:
        """Wait for the command: (exit status, stdout, stderr)."""
        assert self.pid is not None, "a job's result is read once"
        _, status = os.waitpid(self.pid, 0)
        self.pid = None
        return os.waitstatus_to_exitcode(status), _read_all(self.out), _read_all(self.err)

    def close(self) -> None:
        if self.pid is not None:  # not read: the snapshot failed or was not taken
            try:
                os.kill(self.pid, 9)  # SIGKILL (the signal module would import enum)
                os.waitpid(self.pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
            self.pid = None
        for fd in (self.out, self.err):
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self.out = self.err = -1


def _read_all(fd: int) -> bytes:
    chunks: list[bytes] = []
    offset = 0
    while True:
        chunk = os.pread(fd, 1 << 20, offset)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        offset += len(chunk)


class Prescan:
    """The snapshot lock, held, and the cold scan's two git commands, running."""

    def __init__(self, worktree: str, git_dir: str, lock_fd: int) -> None:
        self.worktree, self.git_dir, self.lock_fd = worktree, git_dir, lock_fd
        self.started = time.perf_counter()  # the snapshot's time counts from here
        self.jobs: dict[str, _Job] = {}
        self.cached: dict[str, bytes] = {}  # outputs known without running their command
        self.index_key: bytes | None = None  # the index the attributes job reads
        self.reader: GitReader | None = None  # git's processes reading for the snapshot
        self.lock_adopted = False

    def serves(self, loc: RepoLocation) -> bool:
        """Started for this worktree and its own git dir (as interlock.git.discover found them)."""
        real = os.path.realpath
        return real(self.worktree) == real(loc.worktree) and real(self.git_dir) == real(loc.git_dir)

    def adopt_lock(self) -> int:
        """The lock's fd, for the snapshot to hold and release (close() then leaves it)."""
        self.lock_adopted = True
        return self.lock_fd

    def output(self, name: str) -> bytes:
        """The stdout of `status` or `attributes` once git is done; GitError (as
        interlock.git.run(check=True) raises it) when git failed."""
        if name in self.cached:
            return self.cached[name]
        code, out, err = self.jobs[name].result()
        if code != 0:
            from interlock.errors import GitError

            args = self.jobs[name].args
            raise GitError(args, code, out.decode(errors="replace"), err.decode(errors="replace"))
        if name == "attributes" and self.index_key is not None:
            if index_key(self.git_dir) == self.index_key:  # the index git read is this one
                _remember_attributes(self.git_dir, self.index_key, out)
        return out

    def close(self) -> None:
        """End the commands not read, and release the lock unless the snapshot adopted it."""
        for job in self.jobs.values():
            job.close()
        self.jobs.clear()
        if self.reader is not None:
            self.reader.close()
            self.reader = None
        if not self.lock_adopted:
            self.lock_adopted = True
            try:
                os.close(self.lock_fd)  # closing the only descriptor releases the flock
            except OSError:
                pass


def git_env() -> dict[str, str]:
    """The environment interlock.git.run gives git (interlock.git.no_git_env)."""
    env = {k: v for k, v in os.environ.items() if k not in GIT_HOOK_ENV}
    env.setdefault("GIT_TERMINAL_PROMPT", "0")
    return env


def index_key(git_dir: str) -> bytes | None:
    """What names the index's content: its own checksum (the last 20 bytes, which git writes
    over everything before them), with the command that reads it; None when there is no index
    or it carries no checksum (index.skipHash)."""
    try:
        fd = os.open(os.path.join(git_dir, "index"), os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        size = os.fstat(fd).st_size
        tail = os.pread(fd, 20, size - 20) if size >= 32 else b""
    except OSError:
        return None
    finally:
        os.close(fd)
    if len(tail) != 20 or tail == bytes(20):
        return None
    return tail.hex().encode() + b" " + b" ".join(a.encode() for a in ATTRIBUTE_ARGS)


def _cached_attributes(git_dir: str, key: bytes) -> bytes | None:
    """The tracked .gitattributes listed for the index named by key, or None."""
    path = os.path.join(git_dir, constants.STATE_DIR_NAME, ATTRIBUTES_CACHE)
    try:
        with open(path, "rb") as handle:
            data = handle.read(1 << 20)
    except OSError:
        return None
    head, newline, out = data.partition(b"\n")
    return out if newline and head == key and (not out or out.endswith(b"\0")) else None


def _remember_attributes(git_dir: str, key: bytes, out: bytes) -> None:
    """Keep the listing for the next cold snapshot (written aside, then renamed: a reader
    sees the old file or the new one); a failure only costs the next one a git ls-files."""
    if len(out) >= 1 << 19:  # a listing this long is not worth a cache
        return
    path = os.path.join(git_dir, constants.STATE_DIR_NAME, ATTRIBUTES_CACHE)
    temp = f"{path}.{os.getpid()}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = os.open(temp, flags, 0o600)  # never through a file planted at that name
    except OSError:
        return
    try:
        try:
            data = memoryview(key + b"\n" + out)
            while data:
                written = os.write(fd, data)
                if written <= 0:
                    raise OSError("short write")
                data = data[written:]
        finally:
            os.close(fd)
        os.replace(temp, path)
    except OSError:
        try:
            os.unlink(temp)
        except OSError:
            pass


def _lock(git_dir: str) -> int | None:
    """The snapshot lock's fd, held; None when the ordinary path must take it (see above)."""
    state = os.path.join(git_dir, constants.STATE_DIR_NAME)
    try:
        if not stat.S_ISDIR(os.lstat(state).st_mode):
            return None
        fd = os.open(
            os.path.join(state, constants.SNAPSHOT_LOCK_FILE), os.O_RDWR | os.O_CREAT, 0o600
        )
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        if os.pread(fd, 1, 0):  # a holder died midway: its leftovers are cleared first
            os.close(fd)
            return None
    except OSError:
        os.close(fd)
        return None
    return fd


def start(worktree: str, git_dir: str) -> Prescan | None:
    """Take the snapshot lock of the worktree at `worktree` (its own git dir `git_dir`) and
    start its cold scan's git commands; None when the snapshot should do both itself."""
    if not hasattr(os, "memfd_create") or not hasattr(os, "posix_spawnp"):
        return None
    fd = _lock(git_dir)
    if fd is None:
        return None
    early = Prescan(worktree, git_dir, fd)
    try:
        env = git_env()
        early.jobs["status"] = _Job(STATUS_ARGS, worktree, env)
        early.index_key = index_key(git_dir)
        known = _cached_attributes(git_dir, early.index_key) if early.index_key else None
        if known is not None:
            early.cached["attributes"] = known
        else:
            early.jobs["attributes"] = _Job(ATTRIBUTE_ARGS, worktree, env)
        early.reader = GitReader.start(worktree, env)  # None: the snapshot reads by pygit2
    except OSError:  # git not found, no memory: the snapshot runs them itself and says why
        early.close()
        return None
    return early
