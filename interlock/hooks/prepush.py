"""The pre-push hook: a push that would drop commits from the remote.

git gives the hook one line per ref, `<local ref> <local sha> <remote ref> <remote sha>`. A
line drops remote commits when it deletes a remote branch, or when the remote sha is not an
ancestor of the local one; a remote sha this clone does not have cannot be proven kept, so it
counts as dropped. Such a push blocks in blocking mode and warns in advisory mode, unless it is
`--force-with-lease` with the expected value. git does not tell the hook its flags, so they are
read from the `git push` command line among this process's ancestors: an explicit expected
value must equal the remote sha. A bare lease (`--force-with-lease`, `--force-with-lease=REF`)
never excuses a drop: it only checks the remote against this clone's remote-tracking ref,
which after a `reset --soft`, an amend or a rebase is exactly the commit being dropped. A push
that contains the remote tip drops nothing and needs no lease.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from interlock import exitcodes, journal, output
from interlock.git import RepoLocation, run

MAX_ANCESTORS = 8


@dataclass(frozen=True)
class PushLine:
    """One ref a push updates, e.g. refs/heads/main 5d6e... -> refs/heads/main 1a2b...."""

    local_ref: str
    local_sha: str
    remote_ref: str
    remote_sha: str


@dataclass(frozen=True)
class Drop:
    """A line that would drop remote commits: why, and how many when known."""

    line: PushLine
    reason: str
    count: int | None


@dataclass(frozen=True)
class Lease:
    """`--force-with-lease[=<ref>[:<expect>]]`; ref None means every ref."""

    ref: str | None
    expect: str | None


def _zero(oid: str) -> bool:
    return not oid.strip("0")


def parse_lines(data: bytes) -> list[PushLine]:
    lines = []
    for text in os.fsdecode(data).splitlines():
        words = text.split()
        if len(words) == 4:
            lines.append(PushLine(*words))
    return lines


def _short(ref: str) -> str:
    for prefix in ("refs/heads/", "refs/tags/"):
        if ref.startswith(prefix):
            return ref[len(prefix) :]
    return ref


def find_drop(loc: RepoLocation, line: PushLine) -> Drop | None:
    """How this line would drop remote commits, or None when it keeps them all."""
    if _zero(line.remote_sha):
        return None
    if _zero(line.local_sha):
        return Drop(line, "deletes the branch on the remote", None)
    code, _, _ = run(["cat-file", "-e", f"{line.remote_sha}^{{commit}}"], loc.worktree)
    if code != 0:
        return Drop(line, "the remote has commits this clone never fetched", None)
    code, _, _ = run(["merge-base", "--is-ancestor", line.remote_sha, line.local_sha], loc.worktree)
    if code == 0:
        return None
    code, out, _ = run(
        ["rev-list", "--count", line.remote_sha, "--not", line.local_sha], loc.worktree
    )
    count = int(out.strip()) if code == 0 and out.strip().isdigit() else None
    return Drop(
        line, f"the remote has commits that {_short(line.local_ref)} does not contain", count
    )


def parse_leases(argv: Sequence[str]) -> list[Lease]:
    """The leases of a `git ... push ...` command line (later options win, as in git)."""
    try:
        start = list(argv).index("push") + 1
    except ValueError:
        return []
    leases: list[Lease] = []
    for arg in argv[start:]:
        if arg == "--":
            break
        if arg == "--no-force-with-lease":
            leases = []
        elif arg == "--force-with-lease":
            leases.append(Lease(None, None))
        elif arg.startswith("--force-with-lease="):
            ref, colon, expect = arg[len("--force-with-lease=") :].partition(":")
            leases.append(Lease(ref or None, expect if colon else None))
    return leases


def push_command_line() -> list[str] | None:
    """The `git push` command line among this process's ancestors, if it can be read."""
    from interlock.procinfo import parent_pid, process_cmdline

    pid: int | None = os.getpid()
    for _ in range(MAX_ANCESTORS):
        pid = parent_pid(pid)
        if pid is None or pid <= 1:
            return None
        argv = process_cmdline(pid)
        if argv and os.path.basename(argv[0]) in ("git", "git.exe") and "push" in argv:
            return list(argv)
    return None


def _ref_matches(lease_ref: str, remote_ref: str) -> bool:
    """git's short-name rules: `main` names refs/heads/main, refs/tags/main, refs/main."""
    return remote_ref in (
        lease_ref,
        f"refs/{lease_ref}",
        f"refs/heads/{lease_ref}",
        f"refs/tags/{lease_ref}",
    )


def _resolve(loc: RepoLocation, rev: str) -> str | None:
    code, out, _ = run(["rev-parse", "-q", "--verify", f"{rev}^{{object}}"], loc.worktree)
    return out.decode().strip() if code == 0 else None


def lease_accepts(loc: RepoLocation, remote: str, leases: Sequence[Lease], line: PushLine) -> bool:
    """True when a lease on this ref expects exactly the commits the push replaces."""
    specific = [lease for lease in leases if lease.ref and _ref_matches(lease.ref, line.remote_ref)]
    general = [lease for lease in leases if lease.ref is None]
    candidates = specific or general
    if not candidates:
        return False
    chosen = candidates[-1]
    if chosen.expect is None:
        return False  # a bare lease: see the module docstring
    return _resolve(loc, chosen.expect) == line.remote_sha


def render_drop(drop: Drop, remote: str, block: bool) -> str:
    line = drop.line
    branch = _short(line.remote_ref)
    where = f"{remote or 'the remote'}'s {branch}"
    what = f"{drop.count} commit{'s' if drop.count != 1 else ''}" if drop.count else "commits"
    head = "blocked" if block else "warning (advisory mode, the push goes ahead)"
    return output.format_message(
        "discard",
        f"{head}: git push would drop {what} from {where}",
        [
            ("why", f"{drop.reason} ({where} is at {line.remote_sha[:12]})"),
            (
                "instead",
                f"git fetch {remote or 'REMOTE'} and merge or rebase onto {line.remote_sha[:12]}, "
                f"then push; to replace them on purpose: git push --force-with-lease="
                f"{branch}:{line.remote_sha}",
            ),
        ],
    )


def check_push(
    loc: RepoLocation, mode: str, remote: str, stdin: bytes, run_id: str | None = None
) -> int:
    """The whole pre-push hook after the chained one; returns its exit status."""
    lines = parse_lines(stdin)
    drops = [drop for line in lines if (drop := find_drop(loc, line)) is not None]
    leases = parse_leases(push_command_line() or []) if drops else []
    unleased = [d for d in drops if not lease_accepts(loc, remote, leases, d.line)]
    block = bool(unleased) and mode == "blocking"
    for drop in unleased:
        output.write_err(render_drop(drop, remote, block))
    data: dict[str, Any] = {
        "hook": "pre-push",
        "mode": mode,
        "remote": remote,
        "verdict": "block" if block else ("warn" if unleased else "allow"),
        "would_block": bool(unleased),
        "updates": [
            {
                "local_ref": line.local_ref,
                "local_sha": line.local_sha,
                "remote_ref": line.remote_ref,
                "remote_sha": line.remote_sha,
                "drops": any(d.line == line for d in drops),
                "leased": any(d.line == line for d in drops)
                and all(d.line != line for d in unleased),
            }
            for line in lines
        ],
    }
    journal.record(loc, "hook", data, run=run_id)
    return exitcodes.ERROR if block else exitcodes.OK
