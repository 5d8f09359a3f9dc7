"""Every git access goes through here.

Two ways in: `run()` shells out to git (always with the hook environment stripped), and
`open_repo()` gives a pygit2 repository. pygit2 is imported lazily so the thin client,
which only needs `discover()`, stays light.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from interlock import constants
from interlock.errors import GitError, NotARepoError

TYPE_CHECKING = False  # not `typing`: discover() is on every command's path
if TYPE_CHECKING:
    from typing import Any

    import pygit2

_GIT_HOOK_ENV = constants.GIT_HOOK_ENV


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
    import subprocess  # lazily: a check that reads no tree fact forks nothing

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
    # On strings, not Path objects: the warm daemon runs this for every command it judges.
    here = os.path.realpath(os.fspath(start) if start is not None else os.getcwd())
    while True:
        if os.path.basename(here) == ".git":
            return None
        git_dir = _git_dir_at(here)
        if git_dir is not None:
            return RepoLocation(
                worktree=Path(here), git_dir=git_dir, common_dir=_common_dir_of(git_dir)
            )
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def _git_dir_at(top: str) -> Path | None:
    """The git dir (resolved) of a worktree whose top is `top` (real), or None."""
    dotgit = os.path.join(top, ".git")
    if os.path.isdir(dotgit):
        if not os.path.exists(os.path.join(dotgit, "HEAD")):
            return None
        return Path(os.path.realpath(dotgit))
    if os.path.isfile(dotgit):
        target = _read_gitfile(Path(dotgit))
        if target is None or not (target / "HEAD").exists():
            return None
        return target.resolve()
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


# --- object store (snapshots) ---
# Raw object I/O for interlock.memory (snapshot, store, scan, restore, retention).
# Object formats (modes, Entry, parse/format) live in interlock/objectformat.py, pure Python.

from interlock.objectformat import (  # noqa: E402
    BLOB,
    COMMIT,
    EXEC_MODE,  # noqa: F401 (re-exported)
    FILE_MODE,  # noqa: F401 (re-exported)
    GITLINK_MODE,  # noqa: F401 (re-exported)
    LINK_MODE,  # noqa: F401 (re-exported)
    TREE,
    TREE_MODE,  # noqa: F401 (re-exported)
    Entry,  # noqa: F401 (re-exported)
    TreeEntries,
    format_commit,
    format_tree,
    parse_commit,
    parse_tree,
)


def has_object(repo: pygit2.Repository, oid: str) -> bool:
    return bool(repo.odb.exists(oid))


def write_blob(repo: pygit2.Repository, data: bytes) -> str:
    """Store raw bytes as a loose blob (no filters) unless already present; returns its id."""
    import pygit2

    oid = str(pygit2.hash(data))
    return oid if repo.odb.exists(oid) else str(repo.odb.write(BLOB, data))


def read_object(repo: pygit2.Repository, oid: str, kind: int) -> bytes:
    """The raw content of an object of the given type (GitError for another type)."""
    found, data = repo.odb.read(oid)
    if found != kind:
        raise GitError(["cat-file", "-t", oid], 1, "", f"{oid} is not of type {kind}")
    return bytes(data)


def read_blob(repo: pygit2.Repository, oid: str) -> bytes:
    return read_object(repo, oid, BLOB)


def read_tree(repo: pygit2.Repository, oid: str) -> TreeEntries:
    """A tree's entries by raw name, parsed from the object itself."""
    return parse_tree(read_object(repo, oid, TREE))


def write_tree(repo: pygit2.Repository, entries: TreeEntries) -> str:
    """Write a loose tree object from entries; returns its id."""
    return str(repo.odb.write(TREE, format_tree(entries)))


def write_commit(
    repo: pygit2.Repository, tree: str, parents: list[str], message: str, when: float
) -> str:
    """Write a loose commit object by interlock; returns its id."""
    return str(repo.odb.write(COMMIT, format_commit(tree, parents, message, when)))


def read_commit(repo: pygit2.Repository, oid: str) -> tuple[str, list[str], str] | None:
    """(tree, parents, message) of a commit; None when missing or not a commit."""
    if not repo.odb.exists(oid):
        return None
    kind, data = repo.odb.read(oid)
    return parse_commit(bytes(data)) if kind == COMMIT else None


def objects_dir(repo: pygit2.Repository) -> Path:
    """The object directory (in the common git dir, also for a linked worktree)."""
    return _common_dir_of(Path(repo.path)) / "objects"


def commit_by_prefix(repo: pygit2.Repository, prefix: str) -> str | None:
    """The full id of the one commit whose id starts with prefix (>= 4 hex digits), else None."""
    import pygit2

    try:
        obj = repo.git_object_lookup_prefix(prefix)
    except (pygit2.AmbiguousError, ValueError):
        return None
    return str(obj.id) if obj is not None and obj.type == COMMIT else None


def list_refs(repo: pygit2.Repository, prefix: str, last: str = "") -> list[tuple[str, str]]:
    """(name, target id) of every direct ref whose name starts with prefix (and whose last
    component starts with `last`)."""
    found = []
    for raw in repo.raw_listall_references():
        if raw.startswith(prefix.encode()) and raw.rsplit(b"/", 1)[-1].startswith(last.encode()):
            ref = repo.references.get(raw.decode())
            if ref is not None and ref.type == 1:  # direct, not symbolic
                found.append((raw.decode(), str(ref.target)))
    return found


def set_ref(repo: pygit2.Repository, name: str, oid: str) -> None:
    """Create or move one of interlock's refs (refs/interlock/...) to oid."""
    if not name.startswith("refs/interlock/"):
        raise ValueError(f"interlock only writes refs under refs/interlock/: {name}")
    repo.references.create(name, oid, force=True)


def is_ignored(repo: pygit2.Repository, loc: RepoLocation, path: bytes) -> bool:
    """Whether ignore rules match path (a trailing `/` marks a directory); tracked-ness aside."""
    try:
        text = path.decode("utf-8")
    except UnicodeDecodeError:  # pygit2 takes str only: ask git itself
        args = ["check-ignore", "-q", "--no-index", "--", os.fsdecode(path)]
        return run(args, loc.worktree)[0] == 0
    return bool(repo.path_is_ignored(text))


def submodule_paths(repo: pygit2.Repository, loc: RepoLocation) -> list[str]:
    """Paths of the submodules `.gitmodules` declares (none without that file)."""
    if not (loc.worktree / ".gitmodules").exists():
        return []
    return [str(p) for p in repo.listall_submodules()]


def index_has(repo: pygit2.Repository, path: bytes) -> bool:
    """Whether path is in the index (any stage), re-read when it changed on disk."""
    index = repo.index
    index.read(False)
    return path in index


# --- daemon, recorder and recover (H5) ---


def index_blob(repo: pygit2.Repository, path: bytes) -> str | None:
    """The blob id the index holds for path (stage 0), or None."""
    index = repo.index
    index.read(False)
    try:
        return str(index[path.decode("utf-8")].id)
    except (KeyError, UnicodeDecodeError, ValueError):
        return None


def ref_target(repo: pygit2.Repository, name: str) -> str | None:
    """The id a direct ref points at, or None when it does not exist."""
    ref = repo.references.get(name)
    return str(ref.target) if ref is not None and ref.type == 1 else None


def hash_blob(data: bytes) -> str:
    """The blob id `data` would have (nothing written)."""
    import pygit2

    return str(pygit2.hash(data))


def hash_file(path: bytes) -> str:
    """The blob id of a file's raw bytes (no filters, nothing written)."""
    import pygit2

    return str(pygit2.hashfile(os.fsdecode(path)))


def blob_size(repo: pygit2.Repository, oid: str) -> int | None:
    """The size of a stored object, or None when it is not in the object store."""
    if not repo.odb.exists(oid):
        return None
    return int(repo.odb.read_header(oid)[1])


_STATE_FILES = ("index", "HEAD", "MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD", "BISECT_LOG")
_STATE_DIRS = ("rebase-merge", "rebase-apply")
_COMMON_FILES = ("packed-refs", "refs/stash", "logs/refs/stash", "config", "info/exclude")


def state_fingerprint(loc: RepoLocation) -> tuple[tuple[int, int, int] | None, ...]:
    """Stat data (inode, size, mtime) of what `git status` and the stash list depend on besides
    the worktree: index, HEAD and its branch ref, packed refs, stash, operation markers,
    config, excludes. Equal fingerprints: git's view of the repository did not change."""
    paths = [loc.git_dir / n for n in (*_STATE_FILES, *_STATE_DIRS)]
    paths += [loc.common_dir / n for n in _COMMON_FILES]
    try:
        head = (loc.git_dir / "HEAD").read_bytes()
    except OSError:
        head = b""
    if head.startswith(b"ref: "):
        paths.append(loc.common_dir / os.fsdecode(head[5:].strip()))
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(Path.home(), ".config")
    paths.append(Path(xdg) / "git" / "ignore")
    found: list[tuple[int, int, int] | None] = []
    for path in paths:
        try:
            st = os.stat(path)
        except OSError:
            found.append(None)
            continue
        found.append((st.st_ino, st.st_size, st.st_mtime_ns))
    return tuple(found)


# --- file sets (audit) ---
# Reads for interlock/audit/sources.py: whole-tree listings, raw diffs and blob contents, each
# in one git process. Paths are decoded with os.fsdecode (surrogate escapes keep odd bytes).

EMPTY_TREE_OID = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
_DIFF_RAW = (
    "--raw",
    "-z",
    "--no-renames",
    "--no-abbrev",
    "--no-ext-diff",
    "--no-color",
    "--ignore-submodules=all",
)


def resolve_rev(loc: RepoLocation, rev: str) -> str | None:
    """The commit (or tree) id a revision names, or None when git does not know it."""
    for suffix in ("^{commit}", "^{tree}"):
        code, out, _ = run(
            ["rev-parse", "-q", "--verify", "--end-of-options", rev + suffix], loc.worktree
        )
        if code == 0:
            return out.decode().strip()
    return None


def ls_tree_files(loc: RepoLocation, rev: str) -> dict[str, tuple[str, str]]:
    """Every file of a tree-ish: path -> (mode, blob id); submodules are left out."""
    _, out, _ = run(["ls-tree", "-r", "-z", "--full-tree", rev], loc.worktree, check=True)
    files: dict[str, tuple[str, str]] = {}
    for record in out.split(b"\0"):
        if not record:
            continue
        meta, _, path = record.partition(b"\t")
        mode, kind, oid = meta.split(b" ")
        if kind == b"blob":
            files[os.fsdecode(path)] = (mode.decode(), oid.decode())
    return files


def diff_raw(
    loc: RepoLocation, args: list[str], index_file: str | None = None
) -> list[tuple[str, str, str, str]]:
    """`git diff --raw ARGS` as (status, path, old blob id, new blob id); ids of worktree
    files are all zeros. index_file: read that index instead of the worktree's own."""
    _, out, _ = run(
        ["diff", *_DIFF_RAW, *args],
        loc.worktree,
        env=no_git_env({"GIT_INDEX_FILE": index_file}) if index_file else None,
        check=True,
    )
    parts = out.split(b"\0")
    entries: list[tuple[str, str, str, str]] = []
    for i in range(0, len(parts) - 1, 2):
        meta = parts[i].lstrip(b":").split(b" ")
        if len(meta) < 5:
            continue
        entries.append(
            (meta[4][:1].decode(), os.fsdecode(parts[i + 1]), meta[2].decode(), meta[3].decode())
        )
    return entries


_GITLINK = 0o160000
_ZERO_OID = "0" * 40
# libgit2 walks every tree of the base where git skips unchanged ones (its cache-tree): past
# about 3,000 entries git's process is cheaper than reading in process (measured: 500 entries
# 1.6 ms in process against 3.0 ms for git; 8,000 entries 7.7 against 3.8; 100,000 entries 80
# against 16). An index file of this size holds ~1,000-2,000 entries.
_IN_PROCESS_INDEX_BYTES = 128 * 1024


def staged_changes(
    loc: RepoLocation,
    rev: str,
    index_file: str | None = None,
    repo: pygit2.Repository | None = None,
) -> list[tuple[str, str, str, str]]:
    """`git diff --raw --cached REV` (diff_raw's form): what the index (or `index_file`)
    changes from the tree of REV. Read in process when pygit2 gives git's answer exactly,
    else by git: every commit's pre-commit hook asks this, and the git process was most of
    the daemon's audit."""
    found = _staged_in_process(loc, rev, index_file, repo)
    if found is not None:
        return found
    return diff_raw(loc, ["--cached", rev], index_file)


def _staged_in_process(
    loc: RepoLocation, rev: str, index_file: str | None, repo: pygit2.Repository | None = None
) -> list[tuple[str, str, str, str]] | None:
    """The index-to-tree diff by libgit2, or None where git is cheaper (a large index) or
    where libgit2's answer could differ from git's:
    an index other than version 2 (3 and 4 carry intent-to-add and skip-worktree entries,
    which git's diff treats specially: sparse checkouts, sparse indexes, `git add -N`), a
    split index (libgit2 refuses its `link` extension), unmerged entries, a gitlink on either side (git ignores submodules here),
    an object format or an index libgit2 cannot read."""
    import pygit2

    path = index_file or os.fspath(loc.git_dir / "index")
    try:
        with open(path, "rb") as index_head:
            if index_head.read(8) != b"DIRC\0\0\0\2":
                return None
            if os.fstat(index_head.fileno()).st_size > _IN_PROCESS_INDEX_BYTES:
                return None
        repo = repo or open_repo(loc)
        index = pygit2.Index(path) if index_file else repo.index
        if index.conflicts is not None:
            return None
        tree = repo[rev].peel(pygit2.Tree)
        flags = pygit2.enums.DiffOption.INCLUDE_TYPECHANGE
        deltas = list(tree.diff_to_index(index, flags).deltas)
    except (OSError, KeyError, ValueError, pygit2.GitError):
        return None
    entries = []
    for delta in deltas:
        old, new = delta.old_file, delta.new_file
        if _GITLINK in (old.mode, new.mode):
            return None
        entries.append(
            (
                delta.status_char(),
                os.fsdecode(new.raw_path if delta.status_char() != "D" else old.raw_path),
                str(old.id) if delta.status_char() != "A" else _ZERO_OID,
                str(new.id) if delta.status_char() != "D" else _ZERO_OID,
            )
        )
    return entries


def untracked_paths(loc: RepoLocation) -> list[str]:
    """Untracked files git does not ignore."""
    _, out, _ = run(
        ["ls-files", "-o", "--exclude-standard", "-z", "--full-name"], loc.worktree, check=True
    )
    return [os.fsdecode(p) for p in out.split(b"\0") if p]


def cat_blobs(loc: RepoLocation, oids: list[str]) -> dict[str, bytes]:
    """Contents of many blobs in one `git cat-file --batch`; missing ones are left out."""
    if not oids:
        return {}
    _, out, _ = run(
        ["cat-file", "--batch"],
        loc.worktree,
        input="".join(f"{o}\n" for o in oids).encode(),
        check=True,
    )
    blobs: dict[str, bytes] = {}
    pos = 0
    while pos < len(out):
        end = out.index(b"\n", pos)
        header = out[pos:end].split(b" ")
        pos = end + 1
        if len(header) != 3:
            continue
        size = int(header[2])
        blobs[header[0].decode()] = out[pos : pos + size]
        pos += size + 1
    return blobs


def diff_tree_lines(repo: pygit2.Repository, old_tree: str | None, new_tree: str) -> int:
    """How many lines differ between two trees (None: the empty tree): lines added plus lines
    removed, a binary file or a mode-only change counting as one. The run monitor's measure of
    how big a patch is and how much it changed."""
    import pygit2

    if old_tree == new_tree:
        return 0
    new = repo[new_tree]
    if not isinstance(new, pygit2.Tree):
        raise ValueError(f"{new_tree} is not a tree")
    if old_tree is None:
        diff = new.diff_to_tree(swap=True)
    else:
        old = repo[old_tree]
        if not isinstance(old, pygit2.Tree):
            raise ValueError(f"{old_tree} is not a tree")
        diff = old.diff_to_tree(new)
    total = 0
    for patch in diff:
        if patch is None:  # an unmodified delta: nothing to count
            continue
        _, added, removed = patch.line_stats
        total += (added + removed) or 1
    return total
