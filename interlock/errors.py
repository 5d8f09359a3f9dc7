"""Errors a user can fix. Anything else that escapes a command is a bug."""

from __future__ import annotations


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
