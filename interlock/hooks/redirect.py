"""Hooks for a repository whose core.hooksPath is a folder git would commit: a tracked
`.githooks/`, an untracked `hooks/` that `git add -A` would take, husky's `.husky/_` (ignored,
but rewritten by every `npm install`). interlock's hook files name this machine's Python, so
they must never land there; and the project's own hooks there must keep running.

So interlock's hooks go to a folder inside the git dir, which git never commits, and this
repository's own config (`.git/config`, never committed either) points core.hooksPath at it:

    <common-dir>/interlock/hooks/
      <hook>          interlock's shim, for each of interlock's hooks (constants.HOOK_NAMES)
      <hook>.legacy   runs the project's <hook> from the folder core.hooksPath named before,
                      which interlock's shim runs first, as it runs any hook it chains
      <hook>          for every other client-side hook: runs the project's one, nothing else
      chain.json      what core.hooksPath was ({"hooks_path": ".githooks", "local": true})

A relative core.hooksPath is resolved as git does, against the worktree the hook runs in, so
each linked worktree runs its own checkout's hooks. Hooks that git runs on every ref update or
index write (reference-transaction, post-index-change) are chained only when the project has
one at install time, so that a repository without them does not pay a process per update.
`uninstall` puts core.hooksPath back and removes the folder.
"""

from __future__ import annotations

import json
import os
import shlex
from dataclasses import dataclass
from pathlib import Path

from interlock import constants
from interlock.git import RepoLocation, run
from interlock.state import atomic_write

CHAIN_MARKER = "# interlock-chain v1"
CHAIN_FILE = "chain.json"
CLIENT_HOOKS = (
    "applypatch-msg",
    "pre-applypatch",
    "post-applypatch",
    "pre-commit",
    "pre-merge-commit",
    "prepare-commit-msg",
    "commit-msg",
    "post-commit",
    "pre-rebase",
    "post-checkout",
    "post-merge",
    "pre-push",
    "pre-auto-gc",
    "post-rewrite",
    "sendemail-validate",
    "reference-transaction",
    "post-index-change",
)
HOT_HOOKS = frozenset({"reference-transaction", "post-index-change"})

_PASS_THROUGH = """\
#!/bin/sh
{marker}
# Written by `interlock install`: runs the project's {name} hook from {shown}, where
# core.hooksPath pointed before interlock chained it (interlock's own hook files stay inside
# .git, so that nothing naming this machine is ever committed). `interlock uninstall` puts
# core.hooksPath back and removes this file.
dir={quoted}
case $dir in
/*) ;;
"~"/*) dir=$HOME/${{dir#"~/"}} ;;
*) dir=$(pwd)/$dir ;;
esac
[ -x "$dir/{name}" ] || exit 0
exec "$dir/{name}" "$@"
"""


@dataclass(frozen=True)
class Chain:
    """The core.hooksPath interlock took over: its value, and whether this repository's own
    config set it (else it came from the user's or the system's config)."""

    hooks_path: str
    local: bool


def directory(loc: RepoLocation) -> Path:
    return loc.common_dir / constants.STATE_DIR_NAME / "hooks"


def read_chain(loc: RepoLocation) -> Chain | None:
    try:
        data = json.loads((directory(loc) / CHAIN_FILE).read_text("utf-8"))
        return Chain(str(data["hooks_path"]), bool(data["local"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def is_chain_file(path: Path) -> bool:
    try:
        return CHAIN_MARKER in path.read_bytes()[:512].decode("utf-8", errors="replace")
    except OSError:
        return False


def committable_reason(loc: RepoLocation, target: Path, husky: bool) -> str | None:
    """Why hook files written into `target` (inside the worktree) would be committed or
    lost; None when writing there is fine (a folder git ignores)."""
    if husky:
        return "husky rewrites it on every install"
    code, out, _ = run(["ls-files", "-z", "--", os.fspath(target)], loc.worktree)
    if code == 0 and out.strip(b"\0"):
        return "it holds files tracked by git"
    probe = os.fspath(target / "pre-commit")
    if run(["check-ignore", "-q", "--no-index", "--", probe], loc.worktree)[0] != 0:
        return "git does not ignore it, so `git add -A` would commit interlock's files"
    return None


def _original_scope(loc: RepoLocation) -> bool:
    """True when this repository's own config sets core.hooksPath."""
    code, out, _ = run(["config", "--local", "--get", "core.hooksPath"], loc.worktree)
    return code == 0 and bool(out.strip())


def pass_through(name: str, hooks_path: str) -> str:
    return _PASS_THROUGH.format(
        marker=CHAIN_MARKER, name=name, shown=hooks_path, quoted=shlex.quote(hooks_path)
    )


def chained_names(loc: RepoLocation, hooks_path: str) -> list[str]:
    """The client-side hooks to chain: all but the hot ones the project does not have."""
    target = Path(os.path.expanduser(hooks_path))
    folder = target if target.is_absolute() else loc.worktree / target
    return [n for n in CLIENT_HOOKS if n not in HOT_HOOKS or os.path.lexists(folder / n)]


def write_chain(loc: RepoLocation, hooks_path: str) -> list[str]:
    """Write the pass-through hooks and chain.json for the project's folder `hooks_path`
    (core.hooksPath before interlock); returns the names chained."""
    folder = directory(loc)
    folder.mkdir(parents=True, exist_ok=True)
    names = chained_names(loc, hooks_path)
    for name in names:
        file = f"{name}.legacy" if name in constants.HOOK_NAMES else name
        atomic_write(folder / file, pass_through(name, hooks_path).encode(), mode=0o755)
    for name in constants.HOOK_NAMES:  # a hot hook the project no longer has
        stale = folder / f"{name}.legacy"
        if name not in names and is_chain_file(stale):
            stale.unlink()
    known = read_chain(loc)
    local = known.local if known is not None and is_active(loc) else _original_scope(loc)
    record = {"hooks_path": hooks_path, "local": local}
    atomic_write(folder / CHAIN_FILE, json.dumps(record).encode() + b"\n", mode=0o644)
    return names


def activate(loc: RepoLocation) -> None:
    run(
        ["config", "--local", "core.hooksPath", os.fspath(directory(loc))], loc.worktree, check=True
    )


def is_active(loc: RepoLocation) -> bool:
    _, out, _ = run(["config", "--get", "core.hooksPath"], loc.worktree)
    value = os.fsdecode(out).strip()
    return bool(value) and os.path.realpath(value) == os.path.realpath(directory(loc))


def remove(loc: RepoLocation) -> str | None:
    """Put core.hooksPath back (when it still points here) and remove interlock's folder;
    returns what core.hooksPath is now, None when there was nothing to undo."""
    chain = read_chain(loc)
    folder = directory(loc)
    if chain is None and not folder.is_dir():
        return None
    if chain is not None and is_active(loc):
        if chain.local:
            run(["config", "--local", "core.hooksPath", chain.hooks_path], loc.worktree, check=True)
        else:
            run(["config", "--local", "--unset", "core.hooksPath"], loc.worktree)
    for entry in list(folder.iterdir()) if folder.is_dir() else []:
        if entry.name == CHAIN_FILE or is_chain_file(entry) or _is_interlock_hook(entry):
            entry.unlink()
    try:
        folder.rmdir()
    except OSError:  # someone put something else there: leave it
        pass
    _, out, _ = run(["config", "--get", "core.hooksPath"], loc.worktree)
    return os.fsdecode(out).strip() or "(unset)"


def _is_interlock_hook(path: Path) -> bool:
    try:
        head = path.read_bytes()[:4096].decode("utf-8", errors="replace")
    except OSError:
        return False
    return any(line.strip() in constants.HOOK_MARKERS_ALL for line in head.splitlines())
