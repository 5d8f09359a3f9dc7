"""Errors a user can fix. Anything else that escapes a command is a bug."""

from __future__ import annotations

import errno
import os
import shlex


class InterlockError(Exception):
    """A user-fixable problem; the message says what happened and what to do."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.hint = hint


class ConfigError(InterlockError):
    """A configuration file or value that cannot be used as written."""


class NotARepoError(InterlockError):
    """The command needs a git worktree and there is none."""


class GitError(InterlockError):
    """A git operation failed; carries the command and its output."""

    def __init__(self, args: list[str], returncode: int, stdout: str, stderr: str) -> None:
        message = (
            f"git {' '.join(args)} failed with code {returncode}"
            + (f"\n  stderr: {stderr.strip()}" if stderr.strip() else "")
            + (f"\n  stdout: {stdout.strip()}" if stdout.strip() else "")
        )
        super().__init__(message)
        self.args_ = args
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr


class RestoreError(InterlockError):
    """A restore that was declined or could not complete; nothing was written."""


class DaemonError(InterlockError):
    """The daemon could not be started, reached or stopped."""


class DiskFullError(InterlockError):
    """A write failed for lack of room: no space left, a disk quota, or a file-size limit."""


class ReadOnlyError(InterlockError):
    """A write failed because the filesystem (or the database) is read-only."""


_FULL_REASONS = {
    errno.ENOSPC: "no space left on the device",
    errno.EDQUOT: "the disk quota is exceeded",
    errno.EFBIG: "a file-size limit was reached (ulimit -f, or the filesystem's largest file)",
}
_SQLITE_FULL, _SQLITE_READONLY = 13, 8


def _write_errno(exc: BaseException) -> int | None:
    """The errno of a failed write: an OSError's, a libgit2 error's text, SQLite's code."""
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int):
        return {_SQLITE_FULL: errno.ENOSPC, _SQLITE_READONLY: errno.EROFS}.get(code & 0xFF)
    if isinstance(exc, OSError) and exc.errno in (*_FULL_REASONS, errno.EROFS):
        return exc.errno
    text = str(exc)  # pygit2 raises OSError or GitError with libgit2's message, no errno
    for number in (*_FULL_REASONS, errno.EROFS):
        if os.strerror(number) in text:
            return number
    return None


def write_failure(
    exc: BaseException, doing: str, after: str = "", where: str | os.PathLike[str] | None = None
) -> InterlockError | None:
    """A DiskFullError or ReadOnlyError for `exc` (or anything in its cause chain) when it is
    a write that failed for lack of room or a read-only filesystem; None otherwise.
    `doing` completes "interlock could not ..."; `after` says what state that left; `where`
    names the place written when the error itself does not (a failed write() names none)."""
    seen: BaseException | None = exc
    for _ in range(8):
        if seen is None or isinstance(seen, InterlockError):
            return seen if isinstance(seen, DiskFullError | ReadOnlyError) else None
        number = _write_errno(seen)
        if number is not None:
            return _failure(seen, number, doing, after, where)
        seen = seen.__cause__ or seen.__context__
    return None


def _failure(
    exc: BaseException,
    number: int,
    doing: str,
    after: str,
    fallback: str | os.PathLike[str] | None,
) -> InterlockError:
    name = getattr(exc, "filename", None)
    where = os.fsdecode(name) if isinstance(name, str | bytes) else ""
    if not where and fallback is not None:
        where = os.fspath(fallback)
    elif not where and hasattr(exc, "sqlite_errorcode"):
        where = "an interlock database"
    place = f", writing in {where}" if where else ""
    tail = f"; {after}" if after else ""
    if number == errno.EROFS:
        return ReadOnlyError(
            f"read-only: could not {doing}: the filesystem is read-only{place}{tail}",
            hint="remount it read-write (or work in a writable clone), then run the command again",
        )
    folder = where if os.path.isdir(where) else os.path.dirname(where) or "."
    hints = {
        errno.ENOSPC: f"free space on that filesystem (see: df -h {shlex.quote(folder)})",
        errno.EDQUOT: "free space within your quota (see: quota -s)",
        errno.EFBIG: "raise the limit (ulimit -f unlimited) in the shell that runs interlock",
    }
    return DiskFullError(
        f"disk full: could not {doing}: {_FULL_REASONS[number]}{place}{tail}",
        hint=f"{hints[number]}, then run the command again",
    )
