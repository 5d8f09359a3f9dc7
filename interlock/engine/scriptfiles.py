"""Scripts a command line runs from files: `./x.sh`, `bash x.sh`, `source x.sh`, `python x.py`.

An agent that writes its discard (or `pytest || true`, or a kill of the daemon) into a file
and runs the file would walk past a judge that reads only the typed line. So when the walker
meets a command that runs a file it can read, the file's text is judged as nested code at
that point (engine.walk): a shell script as a child shell's code (`source`/`.`: the same
shell, whose state carries over), a Python script through the inline-Python reading
(engine.inline).

Which commands run a file (`runs_file`):
- a program named by a path (`./x.sh`, `tools/ci.sh`, `/abs/x.sh`), or a bare name found on
  PATH in a directory inside the worktree (`bin/` put on PATH); with a shell shebang or none
  (the shell runs a file without one itself), or a Python one;
- a shell given a script operand (`bash x.sh`, `sh -e ./x.sh`): cwd first, then PATH inside
  the worktree, as bash looks;
- `source x.sh` / `. x.sh`: PATH inside the worktree, then cwd, as bash looks;
- `python x.py` (any `python3.X`, `pypy`);
- a shell, `source /dev/stdin` or python reading its code from a file on stdin (`bash < x.sh`,
  `python - < x.py`).
Every launcher the walker already unwraps (`setsid -f`, `nohup`, `timeout`, `xargs`,
`script -qc`, `find -exec`...) hands its command over before this is asked.

Reading is a tree fact (`ScriptFiles`, given by engine.check; None judges the text alone, as
`--assume-dirty` does). A file that is absent, not a regular file, unreadable, larger than
MAX_BYTES, binary (a NUL byte, not UTF-8), or with another interpreter's shebang is not read:
it stays what it was before, a program interlock cannot see into.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass

from interlock.engine.invocation import Invocation
from interlock.engine.unwrap import SHELLS, command_name, shell_script
from interlock.shell.model import Word

MAX_BYTES = 64 * 1024
_FD_PATH = re.compile(r"^(?:/dev/fd/|/proc/self/fd/)([0-9]+)$")
# Paths that name the judge's own descriptors or kernel files, not a script of the tree.
_NOT_FILES = ("/dev/", "/proc/", "/sys/")
_PYTHON = re.compile(r"^(python|pypy)[0-9.]*$")
_SOURCE = frozenset(("source", "."))


@dataclass(frozen=True)
class ScriptFile:
    """A readable script: `shown` (the path as the line names it), `path` (absolute), its
    text, language (`sh` or `python`), and `-e` from a `#!/bin/bash -e` shebang."""

    shown: str
    path: str
    text: str
    language: str
    errexit: bool = False


@dataclass(frozen=True)
class FileRun:
    """A command that runs a script file: how (`bash x.sh`, `source x.sh`, `./x.sh`),
    whether in the same shell (`source`), and the flags a shell was given (`bash -e x.sh`)."""

    file: ScriptFile
    via: str
    language: str = "sh"
    same_shell: bool = False
    errexit: bool = False
    pipefail: bool = False


def _shebang(text: str) -> tuple[str, bool] | None:
    """(language, errexit) the first line asks for; None for another interpreter."""
    if not text.startswith("#!"):
        return "sh", False
    words = text[2 : text.find("\n") if "\n" in text else len(text)].split()
    if words and command_name(Word(words[0], words[0])) == "env":
        words = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
    if not words:
        return None
    name = command_name(Word(words[0], words[0])) or ""
    if name in SHELLS:
        flags = "".join(w[1:] for w in words[1:] if w.startswith("-") and not w.startswith("--"))
        return "sh", "e" in flags
    if _PYTHON.match(name):
        return "python", False
    return None


_O_PATH = getattr(os, "O_PATH", 0)


def real_path(path: str) -> str:
    """os.path.realpath(path). A directory is resolved by the kernel (opened with O_PATH, its
    /proc/self/fd link read: three system calls, where realpath stats every component in
    Python; every check looks each PATH entry up); anything else, or where /proc cannot say,
    by os.path.realpath itself."""
    if _O_PATH:
        try:
            fd = os.open(path, _O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
        except (OSError, ValueError):
            return os.path.realpath(path)
        try:
            real = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            real = ""
        finally:
            os.close(fd)
        if real.startswith("/") and not real.endswith(" (deleted)"):
            return real
    return os.path.realpath(path)


class ScriptFiles:
    """Reads the script files a line runs, relative to where it starts (module docstring).

    start: the absolute directory the line starts in; root: the worktree (None outside one:
    no PATH lookup then); path: the PATH the commands are looked up in."""

    def __init__(self, start: str, root: str | None, path: str | None) -> None:
        self.start = start
        self.root = os.path.realpath(root) if root is not None else None
        self._path = path or ""
        self._path_dirs: list[str] | None = None
        self._cache: dict[str, ScriptFile | None] = {}

    def path_dirs(self) -> list[str]:
        """The PATH directories inside the worktree (read once; usually none)."""
        if self._path_dirs is None:
            self._path_dirs = []
            if self.root is not None:
                for entry in self._path.split(os.pathsep):
                    real = real_path(os.path.join(self.start, entry or "."))
                    if real == self.root or real.startswith(self.root + os.sep):
                        self._path_dirs.append(os.path.join(self.start, entry or "."))
        return self._path_dirs

    def read(self, cwd: str | None, name: str, order: str) -> ScriptFile | None:
        """The script `name` names, looked up as `order` says: `exec` (a path, else PATH),
        `shell` (cwd, then PATH), `source` (PATH, then cwd), `here` (cwd only: python);
        None when it cannot be read."""
        if "/" in name:
            if not name.startswith("/") and cwd is None or name.startswith(_NOT_FILES):
                return None
            return self._load(name, os.path.join(self.start, cwd or "", name))
        here = [os.path.join(self.start, cwd)] if cwd is not None else []
        places = {
            "exec": self.path_dirs(),
            "shell": here + self.path_dirs(),
            "source": self.path_dirs() + here,
            "here": here,
        }[order]
        for directory in places:
            found = self._load(name, os.path.join(directory, name))
            if found is not None:
                return found
        return None

    def present(self, cwd: str | None, name: str) -> bool:
        """Whether anything is on disk where `read(cwd, name, "here")` looks (True when
        where it looks is unknown: it may be)."""
        if cwd is None and not name.startswith("/"):
            return True
        return os.path.lexists(os.path.join(self.start, cwd or "", name))

    def text(self, cwd: str | None, name: str) -> str | None:
        """The text of any small regular file (a project's pyproject.toml), looked up as
        `read` looks `here`; None when it cannot be read."""
        if cwd is None and not name.startswith("/"):
            return None
        return _text_of(os.path.normpath(os.path.join(self.start, cwd or "", name)))

    def _load(self, shown: str, path: str) -> ScriptFile | None:
        path = os.path.normpath(path)
        if path not in self._cache:
            self._cache[path] = _read(shown, path)
        return self._cache[path]


def _read(shown: str, path: str) -> ScriptFile | None:
    text = _text_of(path)
    kind = _shebang(text) if text is not None else None
    if text is None or kind is None:
        return None
    return ScriptFile(shown, path, text, kind[0], kind[1])


def _text_of(path: str) -> str | None:
    """A regular file's text: None when it is not one, too large, binary or not UTF-8."""
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_BYTES:
            return None
        # O_NONBLOCK: a file swapped for a FIFO after the stat must not hang the judge
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        data = os.read(fd, MAX_BYTES + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    if len(data) > MAX_BYTES or b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _descriptor(operand: str | None) -> int | None:
    """The descriptor a script operand names: 0 for `/dev/stdin` and `-`, N for `/dev/fd/N`."""
    if operand in ("/dev/stdin", "-"):
        return 0
    match = _FD_PATH.match(operand or "")
    return int(match.group(1)) if match else None


def _fed_script(
    name: str, fd: int, fed: dict[int, str], cwd: str | None, files: ScriptFiles, **flags: bool
) -> FileRun | None:
    """`bash < x.sh`, `bash /dev/fd/3 3< x.sh`: the file a redirection opens as the code
    (looked up where the command runs, as the shell opens it)."""
    path = fed.get(fd)
    script = files.read(cwd, path, "here") if path else None
    if script is None:
        return None
    language = "python" if _PYTHON.match(name) else "sh"
    return FileRun(script, f"{name} < {path}", language, **flags)


def runs_file(
    words: tuple[Word, ...],
    cwd: str | None,
    files: ScriptFiles,
    fed: dict[int, str] | None = None,
) -> FileRun | None:
    """The script file these words (a command after its wrappers) run, if it can be read;
    `fed`: the files the command's `<` redirections open, by descriptor."""
    fed = fed or {}
    head = words[0].literal() if words else None
    if not head:
        return None
    name = command_name(words[0]) or ""
    if name in SHELLS:
        found = shell_script(words)
        if found is None or found[3] == "c":
            return None
        flags = {"errexit": found[1], "pipefail": found[2]}
        if found[3] == "stdin":
            return _fed_script(name, 0, fed, cwd, files, **flags)
        operand = words[found[0]].literal()
        if (fd := _descriptor(operand)) is not None:
            return _fed_script(name, fd, fed, cwd, files, **flags)
        script = files.read(cwd, operand, "shell") if operand else None
        if script is None:
            return None
        # a shell reads any text as its own code: a `#!/usr/bin/env python` line is a comment
        return FileRun(script, f"{name} {operand}", errexit=found[1], pipefail=found[2])
    if name in _SOURCE:
        operand = words[1].literal() if len(words) > 1 else None
        if (fd := _descriptor(operand)) is not None:
            return _fed_script(name, fd, fed, cwd, files, same_shell=True)
        script = files.read(cwd, operand, "source") if operand else None
        if script is None:
            return None
        return FileRun(script, f"{name} {operand}", same_shell=True)
    if _PYTHON.match(name):
        return _python_file(words, cwd, files, fed)
    if "/" not in head and not files.path_dirs():
        return None  # a bare name looked up where no worktree directory is: not a script here
    script = files.read(cwd, head, "exec")
    if script is None:
        return None
    return FileRun(script, head, script.language, errexit=script.errexit)


def _python_file(
    words: tuple[Word, ...], cwd: str | None, files: ScriptFiles, fed: dict[int, str]
) -> FileRun | None:
    """`python [options] x.py`: the first operand after the options that take none."""
    i = 1
    while i < len(words):
        value = words[i].literal()
        if value is None:
            return None
        if value == "--":
            i += 1
            break
        if not value.startswith("-") or value == "-":
            break
        if any(ch in value[1:] for ch in "cm"):
            return None  # code or a module given on the command line (engine.inline reads -c)
        i += 2 if value in ("-W", "-X", "-Q") else 1
    operand = words[i].literal() if i < len(words) else None
    fd = 0 if i >= len(words) else _descriptor(operand)
    if fd is not None:
        return _fed_script(command_name(words[0]) or "python", fd, fed, cwd, files)
    if not operand:
        return None
    script = files.read(cwd, operand, "here")
    if script is None:
        return None
    return FileRun(script, f"{command_name(words[0])} {operand}", "python")


_WRITE_OPS = frozenset((">", ">>", ">|", "&>", "&>>"))
_COPIERS = frozenset(("cp", "mv", "install", "ln", "rsync"))


def _written_paths(inv: Invocation) -> list[str]:
    """Literal paths an invocation writes: redirections, `tee` files, a copy's target."""
    paths = [
        value
        for r in inv.redirects
        if r.op in _WRITE_OPS and r.target is not None and (value := r.target.literal())
    ]
    operands = [w.literal() for w in inv.argv[1:] if not (w.literal() or "-").startswith("-")]
    if inv.name == "tee":
        paths += [p for p in operands if p]
    elif inv.name in _COPIERS and operands and operands[-1]:
        paths.append(operands[-1])
    return paths


def written_earlier(earlier: list[Invocation], cwd: str | None, path: str) -> bool:
    """Whether a command before this one on the line writes the script's path: the file on
    disk is then not what runs (engine.hidden judges what the line writes there)."""
    target = _key(cwd, path)
    name = os.path.basename(path)
    for inv in earlier:
        for written in _written_paths(inv):
            key = _key(inv.cwd, written)
            if key == target or (None in (key, target) and os.path.basename(written) == name):
                return True
    return False


def _key(cwd: str | None, path: str) -> str | None:
    if path.startswith("/"):
        return os.path.normpath(path)
    return None if cwd is None else os.path.normpath(os.path.join(cwd or ".", path))
