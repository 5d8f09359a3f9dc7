"""Read a repository through git's own processes, without pygit2: the cold snapshot's reader.

    reader = GitReader.start(worktree, env)   # None when the processes cannot be started
    access = reader.use(loc)                  # None: not a repository it can read (sha256)
    access.head(); access.read(oid, TREE); access.missing([...]); access.set_ref(name, oid)
    reader.close()                            # always: ends what is still running

A cold `interlock snapshot` process spends ~75 ms of CPU importing pygit2 (libgit2, OpenSSL,
its enums) to read a few trees and write one ref. This reader gives the snapshot the same
answers from processes started next to its `git status` (interlock.memory.prescan), before
Python imports the rest, so they are ready when asked:
- `git cat-file --batch-command --buffer` (git >= 2.36): HEAD, commits, trees, which blobs
  exist; many requests go in one write, then their answers are read. Replace refs are not
  followed (GIT_NO_REPLACE_OBJECTS=1): pygit2 does not follow them, and a snapshot must store
  what the object ids name.
- `git update-ref --stdin -z`: the snapshot's ref, written the way git writes refs (loose or
  packed, reflogs by git's rules; no hooks, as pygit2 runs none), fed once the pack is
  flushed; the ref is the commit point.
- `git config -z --get-regexp`: the settings the scan reads (core.autocrlf,
  core.attributesFile) and the object format.
It satisfies the same small interface as interlock.repoaccess.PygitAccess
(interlock.memory.store calls it RepoAccess). What it cannot answer exactly as pygit2 does (ignore rules for a path,
the submodules libgit2 lists) is asked of pygit2, opened only then. Whatever goes wrong with a
process (an older git without --batch-command, a process that died, an answer that does not
parse) raises ReaderBroken, and the snapshot starts again through pygit2: never a wrong or
partial snapshot.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # not `typing`: this module is loaded before the snapshot's imports
if TYPE_CHECKING:
    from pathlib import Path

    import pygit2

    from interlock.git import RepoLocation

# Only `os` is imported up front: interlock.memory.prescan loads this module before it starts
# `git status`, so every import here would delay it (errors pulls in shlex and re).
COMMIT, TREE, BLOB, TAG = 1, 2, 3, 4  # as interlock.objectformat numbers them
_KINDS = {b"blob": BLOB, b"tree": TREE, b"commit": COMMIT, b"tag": TAG}
_CONFIG_KEYS = ("core.autocrlf", "core.attributesfile", "extensions.objectformat")
CONFIG_ARGS = (
    "config",
    "-z",
    "--get-regexp",
    r"^(core\.(autocrlf|attributesfile)|extensions\.objectformat)$",
)
# Each write to cat-file holds at most this many bytes: a pipe always takes one page, so the
# write never waits for git, which may itself wait for its answers to be read.
_WRITE_BYTES = 4000
_CHUNK = 1 << 20


class ReaderBroken(Exception):
    """A reader process failed or answered what it should not: take the pygit2 path."""


class Proc:
    """One git process: stdin a pipe (or /dev/null), stdout a pipe or an anonymous memory
    file, stderr an anonymous memory file (read when it fails)."""

    def __init__(
        self, args: list[str], worktree: str, env: dict[str, str], *, stdin: bool, stdout_pipe: bool
    ) -> None:
        self.args = args
        self.pid: int | None = None
        self.stdin = self.stdout = self.err = self._out_memfd = -1
        child: list[int] = []
        try:
            self.err = os.memfd_create("interlock-git-err", os.MFD_CLOEXEC)
            actions: list[tuple[int | str, ...]] = []
            if stdin:
                read_end, self.stdin = os.pipe()
                child.append(read_end)
                actions.append((os.POSIX_SPAWN_DUP2, read_end, 0))
            else:
                actions.append((os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0))
            if stdout_pipe:
                self.stdout, write_end = os.pipe()
                child.append(write_end)
                actions.append((os.POSIX_SPAWN_DUP2, write_end, 1))
            else:
                self._out_memfd = os.memfd_create("interlock-git-out", os.MFD_CLOEXEC)
                actions.append((os.POSIX_SPAWN_DUP2, self._out_memfd, 1))
            actions.append((os.POSIX_SPAWN_DUP2, self.err, 2))
            # `-C`: posix_spawn has no chdir; git then runs as if started in the worktree
            self.pid = os.posix_spawnp(
                "git", ["git", "-C", worktree, *args], env, file_actions=actions
            )
        except BaseException:
            self.close()
            raise
        finally:
            for fd in child:
                os.close(fd)

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self.stdin, view) :]

    def close_stdin(self) -> None:
        if self.stdin >= 0:
            os.close(self.stdin)
            self.stdin = -1

    def wait(self) -> tuple[int, bytes, bytes]:
        """Wait for the process: (exit status, stdout if a memory file, stderr)."""
        assert self.pid is not None, "a process is waited for once"
        self.close_stdin()
        _, status = os.waitpid(self.pid, 0)
        self.pid = None
        out = read_memfd(self._out_memfd) if self._out_memfd >= 0 else b""
        return os.waitstatus_to_exitcode(status), out, read_memfd(self.err)

    def close(self) -> None:
        if self.pid is not None:  # not waited for: its answer is not needed any more
            try:
                os.kill(self.pid, 9)  # SIGKILL (the signal module would import enum)
                os.waitpid(self.pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
            self.pid = None
        for fd in (self.stdin, self.stdout, self.err, self._out_memfd):
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self.stdin = self.stdout = self.err = self._out_memfd = -1


def read_memfd(fd: int) -> bytes:
    chunks: list[bytes] = []
    offset = 0
    while True:
        chunk = os.pread(fd, _CHUNK, offset)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        offset += len(chunk)


def blob_id_of_file(path: bytes) -> str:
    """The blob id of a file's raw bytes (as pygit2.hashfile gives it), read in chunks; a
    file that grows or shrinks while read is read again."""
    import hashlib

    for _ in range(3):
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            digest = hashlib.sha1(b"blob %d\0" % size)
            total = 0
            while chunk := handle.read(_CHUNK):
                digest.update(chunk)
                total += len(chunk)
            if total == size:
                return digest.hexdigest()
    raise OSError(f"{os.fsdecode(path)} kept changing while it was read")


class CatFile:
    """`git cat-file --batch-command --buffer`: requests written in batches, answers read."""

    def __init__(self, worktree: str, env: dict[str, str]) -> None:
        self.proc = Proc(
            ["cat-file", "--batch-command", "--buffer"],
            worktree,
            {**env, "GIT_NO_REPLACE_OBJECTS": "1"},
            stdin=True,
            stdout_pipe=True,
        )
        self._out = open(self.proc.stdout, "rb", buffering=1 << 16, closefd=False)
        self.broken = False

    def ask(self, command: str, names: list[str]) -> list[tuple[str, int, bytes | int] | None]:
        """Answers to `command NAME` for each name, in order: (oid, kind, contents for
        `contents` or size for `info`), None for a missing object."""
        if self.broken:
            raise ReaderBroken("the cat-file process failed earlier")
        try:
            answers: list[tuple[str, int, bytes | int] | None] = []
            lines = [f"{command} {name}\n".encode() for name in names]
            start = 0
            while start < len(lines):
                end, size = start, 0
                while end < len(lines) and (end == start or size + len(lines[end]) < _WRITE_BYTES):
                    size += len(lines[end])
                    end += 1
                self.proc.write(b"".join(lines[start:end]) + b"flush\n")
                answers += [self._answer(command == "contents") for _ in range(start, end)]
                start = end
            return answers
        except (OSError, ValueError, ReaderBroken) as exc:
            self.broken = True
            raise ReaderBroken(f"git cat-file: {exc}") from exc

    def _answer(self, with_contents: bool) -> tuple[str, int, bytes | int] | None:
        header = self._out.readline()
        if not header.endswith(b"\n"):
            raise ReaderBroken("the process ended (a git older than 2.36?)")
        parts = header.split()
        if len(parts) == 2 and parts[1] in (b"missing", b"ambiguous"):
            return None
        if len(parts) != 3 or parts[1] not in _KINDS:
            raise ReaderBroken(f"unexpected answer {header[:80]!r}")
        oid, kind, size = parts[0].decode(), _KINDS[parts[1]], int(parts[2])
        if not with_contents:
            return oid, kind, size
        data = self._out.read(size + 1)
        if len(data) != size + 1 or data[-1:] != b"\n":
            raise ReaderBroken("an object's contents were cut short")
        return oid, kind, data[:-1]

    def close(self) -> None:
        self._out.close()
        self.proc.close()


class GitReader:
    """The repository as git's processes read it (see the module docstring)."""

    batched = True  # answers cost a round trip: ask for many at once

    def __init__(self, worktree: str, env: dict[str, str]) -> None:
        self.worktree, self.env = worktree, env
        self.loc: RepoLocation | None = None
        self._procs: list[Proc] = []
        self.cat = CatFile(worktree, env)
        self._procs.append(self.cat.proc)
        try:
            self.cat.proc.write(b"contents HEAD\nflush\n")  # answered while Python imports
        except OSError:  # it ended already (a git without --batch-command): pygit2 reads
            self.cat.broken = True
        self._head_waiting = True
        self.config_proc = Proc(list(CONFIG_ARGS), worktree, env, stdin=False, stdout_pipe=False)
        self._procs.append(self.config_proc)
        # No hooks (`core.hooksPath=/dev/null`): pygit2 runs none for a snapshot's ref, and a
        # reference-transaction hook (interlock's own among them) has no business with it.
        self.ref_proc = Proc(
            ["-c", "core.hooksPath=/dev/null", "update-ref", "--stdin", "-z"],
            worktree,
            env,
            stdin=True,
            stdout_pipe=False,
        )
        self._procs.append(self.ref_proc)
        self._config: dict[str, str] | None = None
        self._head: tuple[str | None, str | None] | None = None
        self._commits: dict[str, tuple[str, list[str], str] | None] = {}
        self._listed: set[bytes] = set()  # directories whose index entries were listed
        self._in_index: set[bytes] = set()
        self._repo: pygit2.Repository | None = None

    @classmethod
    def start(cls, worktree: str, env: dict[str, str]) -> GitReader | None:
        """The reader's processes, started; None when they cannot be (no git, no memory)."""
        try:
            return cls(worktree, env)
        except OSError:
            return None

    def use(self, loc: RepoLocation) -> GitReader | None:
        """This reader for the worktree at loc (the one it was started in), or None when it
        cannot read this repository as pygit2 would: its settings could not be read, or the
        object format is not sha1 (pack.py writes sha1 packs only)."""
        try:
            config = self._settings()
        except ReaderBroken:
            return None
        if config.get("extensions.objectformat", "sha1").lower() != "sha1":
            return None
        self.loc = loc
        return self

    @property
    def broken(self) -> bool:
        """Whether a process failed (the snapshot was then taken through pygit2)."""
        return self.cat.broken

    @property
    def opened_pygit2(self) -> bool:
        """Whether something this reader does not answer itself was asked of pygit2."""
        return self._repo is not None

    def _settings(self) -> dict[str, str]:
        if self._config is None:
            code, out, err = self.config_proc.wait()
            if code not in (0, 1):  # 1: none of the keys is set
                raise ReaderBroken(f"git config: {err.decode(errors='replace').strip()}")
            found: dict[str, str] = {}
            for record in out.split(b"\0"):
                key, newline, value = record.partition(b"\n")
                if key:  # a key set without `= value` means true
                    found[key.decode().lower()] = (
                        value.decode(errors="surrogateescape") if newline else "true"
                    )
            self._config = found
        return self._config

    def config(self, key: str) -> str | None:
        """A setting's value (the last one set wins, as in git), or None when unset."""
        if key.lower() not in _CONFIG_KEYS:
            raise KeyError(f"the git reader does not read {key}")
        return self._settings().get(key.lower())

    def _take_head(self) -> None:
        if not self._head_waiting:
            return
        if self.cat.broken:
            raise ReaderBroken("the cat-file process failed earlier")
        self._head_waiting = False
        try:
            answer = self.cat._answer(True)
        except (OSError, ValueError, ReaderBroken) as exc:
            self.cat.broken = True
            raise ReaderBroken(f"git cat-file: {exc}") from exc
        if answer is None:
            self._head = self._unborn()
            return
        oid, kind, data = answer
        if kind != COMMIT or not isinstance(data, bytes):
            raise ReaderBroken("HEAD does not name a commit")
        from interlock.objectformat import parse_commit

        commit = parse_commit(data)
        self._commits[oid] = commit
        self._head = (oid, commit[0])

    def _unborn(self) -> tuple[None, None]:
        """HEAD names no object: an unborn branch when HEAD is a symbolic ref to a branch that
        does not exist; anything else (a detached HEAD or a branch at a missing commit) is for
        pygit2 to report as it does."""
        assert self.loc is not None
        try:
            text = (self.loc.git_dir / "HEAD").read_bytes()
            packed_refs = self.loc.common_dir / "packed-refs"
            packed = packed_refs.read_bytes() if packed_refs.exists() else b""
        except OSError as exc:
            raise ReaderBroken(f"cannot read HEAD: {exc}") from exc
        if not text.startswith(b"ref: "):
            raise ReaderBroken("HEAD names a missing commit")
        ref = text[5:].strip()
        loose = [d / os.fsdecode(ref) for d in (self.loc.git_dir, self.loc.common_dir)]
        if any(p.exists() for p in loose) or b" " + ref + b"\n" in packed:
            raise ReaderBroken("HEAD's branch names a missing commit")
        return None, None

    def _ask(self, command: str, names: list[str]) -> list[tuple[str, int, bytes | int] | None]:
        self._take_head()
        return self.cat.ask(command, names) if names else []

    def head(self) -> tuple[str | None, str | None]:
        """(HEAD's commit id, its tree id), both None on an unborn branch; read once."""
        self._take_head()
        if self._head is None:
            raise ReaderBroken("HEAD could not be read")
        return self._head

    def has(self, oid: str) -> bool:
        return not self.missing([oid])

    def missing(self, oids: list[str]) -> set[str]:
        """The ids among oids that the object store lacks (one batch)."""
        answers = self._ask("info", oids)
        return {oid for oid, answer in zip(oids, answers, strict=True) if answer is None}

    def read_many(self, oids: list[str], kind: int) -> dict[str, bytes]:
        """The raw contents of objects of one kind (KeyError for a missing one, GitError for
        another kind, as interlock.git.read_object)."""
        found: dict[str, bytes] = {}
        for oid, answer in zip(oids, self._ask("contents", oids), strict=True):
            if answer is None:
                raise KeyError(oid)
            if answer[1] != kind or not isinstance(answer[2], bytes):
                from interlock.errors import GitError

                raise GitError(["cat-file", "-t", oid], 1, "", f"{oid} is not of type {kind}")
            found[oid] = answer[2]
        return found

    def read(self, oid: str, kind: int) -> bytes:
        return self.read_many([oid], kind)[oid]

    def commit(self, oid: str) -> tuple[str, list[str], str] | None:
        """(tree, parents, message) of a commit; None when missing or not a commit."""
        if oid not in self._commits:
            from interlock.objectformat import parse_commit

            answer = self._ask("contents", [oid])[0]
            data = answer[2] if answer is not None and answer[1] == COMMIT else None
            self._commits[oid] = parse_commit(data) if isinstance(data, bytes) else None
        return self._commits[oid]

    def objects_dir(self) -> Path:
        assert self.loc is not None, "use(loc) first"
        return self.loc.common_dir / "objects"

    def set_ref(self, name: str, oid: str) -> None:
        """Create or move one of interlock's refs (refs/interlock/...) to oid, by git."""
        if not name.startswith("refs/interlock/"):
            raise ValueError(f"interlock only writes refs under refs/interlock/: {name}")
        proc = self.ref_proc
        proc.write(b"update %s\0%s\0\0" % (name.encode(), oid.encode()))
        code, out, err = proc.wait()
        if code != 0:
            from interlock.errors import GitError

            raise GitError(
                ["update-ref", name, oid],
                code,
                out.decode(errors="replace"),
                err.decode(errors="replace"),
            )

    def index_has(self, path: bytes) -> bool:
        """Whether path is in the index (any stage). The index entries below its directory
        are listed by git once (this is asked for files in ignored directories only)."""
        parts = path.split(b"/")
        dirs = [b"/".join(parts[:i]) for i in range(1, len(parts))]
        if not any(d in self._listed for d in dirs) and b"" not in self._listed:
            self._list_index(dirs[-1] if dirs else b"")
        return path in self._in_index

    def _list_index(self, directory: bytes) -> None:
        from interlock.git import run

        spec = [":(literal)" + os.fsdecode(directory)] if directory else []
        out = run(["ls-files", "-z", "--cached", "--", *spec], self.worktree, check=True)[1]
        self._in_index.update(p for p in out.split(b"\0") if p)
        self._listed.add(directory)

    @property
    def repo(self) -> pygit2.Repository:
        """pygit2's view, opened only for what this reader does not answer itself."""
        if self._repo is None:
            from interlock.git import open_repo

            assert self.loc is not None, "use(loc) first"
            self._repo = open_repo(self.loc)
        return self._repo

    def is_ignored(self, loc: RepoLocation, path: bytes) -> bool:
        from interlock.git import is_ignored

        return is_ignored(self.repo, loc, path)

    def submodule_paths(self, loc: RepoLocation) -> list[str]:
        """As interlock.git.submodule_paths: libgit2 lists the submodules of `.gitmodules`,
        the index, HEAD and the config, which only it reproduces exactly; without a
        `.gitmodules` there are none, and pygit2 is not loaded."""
        if not (loc.worktree / ".gitmodules").exists():
            return []
        from interlock.git import submodule_paths

        return submodule_paths(self.repo, loc)

    def hash_file(self, path: bytes) -> str:
        return blob_id_of_file(path)

    def close(self) -> None:
        self.cat.close()
        for proc in self._procs:
            proc.close()
