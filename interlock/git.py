"""Every git access goes through here.

Two ways in: `run()` shells out to git (always with the hook environment stripped), and
`open_repo()` gives a pygit2 repository. pygit2 is imported lazily so the thin client,
which only needs `discover()`, stays light.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from interlock.errors import GitError, NotARepoError

if TYPE_CHECKING:
    import pygit2

# Variables git exports to hooks; another git started from a hook must not inherit them.
_GIT_HOOK_ENV = (
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
)


def no_git_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The current environment without the variables git sets for hooks."""
    env = {k: v for k, v in os.environ.items() if k not in _GIT_HOOK_ENV}
    env.setdefault("GIT_TERMINAL_PROMPT", "0")
    if extra:
        env.update(extra)
    return env


def run(
    args: list[str],
    cwd: str | os.PathLike[str],
    *,
    input: bytes | None = None,
    env: dict[str, str] | None = None,
    check: bool = False,
) -> tuple[int, bytes, bytes]:
    """Run `git ARGS` in cwd; returns (returncode, stdout, stderr) as bytes."""
    proc = subprocess.run(
        ["git", *args],
        cwd=os.fspath(cwd),
        input=input,
        capture_output=True,
        env=env if env is not None else no_git_env(),
        check=False,
    )
    if check and proc.returncode != 0:
        raise GitError(
            args,
            proc.returncode,
            proc.stdout.decode(errors="replace"),
            proc.stderr.decode(errors="replace"),
        )
    return proc.returncode, proc.stdout, proc.stderr


def run_text(args: list[str], cwd: str | os.PathLike[str], **kwargs: Any) -> str:
    """Run git, raise GitError on failure, return stdout as text (surrogate-escaped)."""
    _, out, _ = run(args, cwd, check=True, **kwargs)
    return os.fsdecode(out)


@dataclass(frozen=True)
class RepoLocation:
    """Where a worktree lives: its top, its own git dir, and the common git dir."""

    worktree: Path
    git_dir: Path
    common_dir: Path

    @property
    def is_linked(self) -> bool:
        return self.git_dir != self.common_dir

    @property
    def worktree_id(self) -> str:
        """`main` for the main worktree, else the linked worktree's name under .git/worktrees."""
        return self.git_dir.name if self.is_linked else "main"

    @property
    def state_dir(self) -> Path:
        """Per-worktree interlock state: <git-dir>/interlock."""
        return self.git_dir / "interlock"


def _read_gitfile(path: Path) -> Path | None:
    try:
        text = path.read_text(encoding="utf-8", errors="surrogateescape").strip()
    except OSError:
        return None
    if not text.startswith("gitdir:"):
        return None
    target = Path(text[len("gitdir:") :].strip())
    return target if target.is_absolute() else (path.parent / target)


def _common_dir_of(git_dir: Path) -> Path:
    commondir = git_dir / "commondir"
    try:
        rel = commondir.read_text(encoding="utf-8").strip()
    except OSError:
        return git_dir
    target = Path(rel)
    return (target if target.is_absolute() else git_dir / target).resolve()


def discover(start: str | os.PathLike[str] | None = None) -> RepoLocation | None:
    """Find the worktree containing `start` (default: cwd) without running git.

    Returns None outside a worktree (and inside a bare repository or a .git directory).
    """
    here = Path(start if start is not None else os.getcwd()).resolve()
    for candidate in (here, *here.parents):
        if candidate.name == ".git":
            return None
        dotgit = candidate / ".git"
        if dotgit.is_dir():
            if not (dotgit / "HEAD").exists():
                continue
            git_dir = dotgit.resolve()
        elif dotgit.is_file():
            target = _read_gitfile(dotgit)
            if target is None or not (target / "HEAD").exists():
                continue
            git_dir = target.resolve()
        else:
            continue
        return RepoLocation(worktree=candidate, git_dir=git_dir, common_dir=_common_dir_of(git_dir))
    return None


def require_repo(start: str | os.PathLike[str] | None = None) -> RepoLocation:
    loc = discover(start)
    if loc is None:
        where = os.fspath(start) if start is not None else os.getcwd()
        raise NotARepoError(
            f"not inside a git worktree: {where}",
            hint="run this inside a repository, or pass --cwd DIR",
        )
    return loc


def open_repo(loc: RepoLocation) -> pygit2.Repository:
    import pygit2

    return pygit2.Repository(os.fspath(loc.git_dir))


def head_oid(loc: RepoLocation) -> str | None:
    """The commit HEAD points at, or None on an unborn branch."""
    code, out, _ = run(["rev-parse", "-q", "--verify", "HEAD^{commit}"], loc.worktree)
    return out.decode().strip() if code == 0 else None


def in_progress_operation(loc: RepoLocation) -> str | None:
    """A merge, rebase, cherry-pick, revert or bisect in progress, by name."""
    markers = {
        "rebase-merge": "rebase",
        "rebase-apply": "rebase",
        "MERGE_HEAD": "merge",
        "CHERRY_PICK_HEAD": "cherry-pick",
        "REVERT_HEAD": "revert",
        "BISECT_LOG": "bisect",
    }
    for name, op in markers.items():
        if (loc.git_dir / name).exists():
            return op
    return None
