"""Bind mounts of a container run: where the command inside really reads and writes.

`docker run -v "$PWD":/app img rm -rf /app/src` removes the host's ./src. The binds
(`-v/--volume SRC:DST[:MODE]`, `--mount type=bind,source=SRC,target=DST`) and the working
directory (`-w/--workdir`) are read here, and `enter` maps the command's absolute container
paths, and its working directory, back to host paths, so the target is judged where it is.

A host source is known when it is literal (absolute or `./x`), or the working directory
(`$PWD`, `${PWD}`, `$(pwd)`, backquoted pwd), with a literal rest. Anything else (a named
volume is not a host path; `$HOME/x`, `--volumes-from`, `--privileged`) leaves the mapping
unknown, and the command inside is judged from an unknown directory, as before.

A container path that reaches the host where the mapping is not known (`Mounts.reach`: the
bind targets, or `/` when the container may reach anything: `--privileged`, `docker exec`)
is no host path: `hide` makes such words unknown, so `cd src; docker run -v $PWD:/w img rm
/w/a.py` (the cwd src, or the start) is judged as an unknown target, never as a missing
host file `/w/a.py`. The walker hides them in code the container runs, too (`sh -c`).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass

from interlock.engine.places import TOP_CWD, under
from interlock.shell.model import Word

# A host source in the shell's directory (`$PWD`, `$(pwd)`), where the line's shell is.
SHELL = "$PWD"
# The host's working directory, as it is spelled in a -v source.
_PWD = re.compile(r"^(?:\$PWD|\$\{PWD\}|\$\(pwd\)|`pwd`)(?=[/:,]|$)")
_BIND_KEYS = ("source", "src")
_TARGET_KEYS = ("target", "destination", "dst")
# Options of `docker run` that give the container more of the host than its binds.
_OPAQUE = frozenset(("--volumes-from", "--privileged"))


@dataclass(frozen=True)
class Mounts:
    """binds: (container path, host path relative to the docker command's directory or
    absolute); workdir: the container's working directory if given; known: every way the
    container reaches the host is in binds."""

    binds: tuple[tuple[str, str], ...] = ()
    workdir: str | None = None
    known: bool = True
    unmapped: tuple[str, ...] = ()  # container paths bound to a host place not known

    def reach(self) -> tuple[str, ...]:
        """The container paths that may be the host's: under a bind, or under `unmapped`."""
        return tuple(target for target, _ in self.binds) + self.unmapped


# A container that may reach any host path, where (`docker exec`: its mounts are not on the
# line; a root only known at run time).
OPAQUE = Mounts(known=False, unmapped=("/",))


def _text(word: Word) -> str:
    """The word with its quotes removed, expansions kept as they are spelled."""
    literal = word.literal()
    return literal if literal is not None else word.text.replace('"', "").replace("'", "")


def _host(source: str) -> str | None:
    """A bind's host side as a path (relative to the docker command's directory; `$PWD/x`:
    to the shell's, which a wrapper's `-C` does not move), or None."""
    match = _PWD.match(source)
    if match is not None:
        rest = source[match.end() :]
        return None if "$" in rest or "`" in rest else SHELL + rest
    if "$" in source or "`" in source or source.startswith("~"):
        return None
    if source.startswith("/") or source == "." or source.startswith(("./", "../")):
        return source
    return ""  # a named volume: not on the host


# A bind as read: (DST, host), host None when only known at run time (`-v "$X":/w`); True:
# no host path (a named or anonymous volume); None: not understood (it may reach anything).
_Bind = tuple[str, str | None] | None | bool


def _volume(spec: str) -> _Bind:
    """`SRC:DST[:MODE]` (see _Bind)."""
    parts = spec.split(":")
    if len(parts) == 1:
        return True  # `-v /data`: an anonymous volume
    if len(parts) not in (2, 3) or not parts[1].startswith("/"):
        return None
    host = _host(parts[0])
    return True if host == "" else (posixpath.normpath(parts[1]), host)


def _mount(spec: str) -> _Bind:
    """`type=bind,source=SRC,target=DST[,readonly]` (see _Bind)."""
    fields = dict(part.partition("=")[::2] for part in spec.split(","))
    kind = fields.get("type", "volume")
    target = next((fields[k] for k in _TARGET_KEYS if k in fields), None)
    source = next((fields[k] for k in _BIND_KEYS if k in fields), None)
    if kind in ("tmpfs", "volume"):
        return True  # memory, or a volume docker keeps: not the host's files
    if kind != "bind" or target is None or source is None or not target.startswith("/"):
        return None
    host = _host(source)
    return None if host == "" else (posixpath.normpath(target), host)


def read_mounts(options: tuple[Word, ...], short_values: str) -> Mounts:
    """The binds and working directory that docker run's option words give."""
    binds: list[tuple[str, str]] = []
    unmapped: list[str] = []
    workdir: str | None = None
    known = True
    i = 0
    while i < len(options):
        text = _text(options[i])
        name, value = text, None
        if text.startswith("--") and "=" in text:
            name, _, value = text.partition("=")
        elif text.startswith("-") and not text.startswith("--") and len(text) > 2:
            for j, letter in enumerate(text[1:], start=1):
                if letter in short_values:
                    name = "-" + letter
                    value = text[j + 1 :] or None
                    break
        if name in _OPAQUE:
            known = False
            unmapped.append("/")
        if name in ("-v", "--volume", "--mount", "-w", "--workdir"):
            if value is None:
                i += 1
                value = _text(options[i]) if i < len(options) else ""
            if name in ("-w", "--workdir"):
                workdir = posixpath.normpath(value) if value.startswith("/") else None
                known = known and workdir is not None
            else:
                bind = _mount(value) if name == "--mount" else _volume(value)
                if not isinstance(bind, tuple):
                    known = known and bind is True
                    unmapped += ["/"] if bind is None else []
                elif bind[1] is None:
                    known = False
                    unmapped.append(bind[0])
                else:
                    binds.append((bind[0], bind[1]))
        i += 1
    return Mounts(tuple(binds), workdir, known, tuple(dict.fromkeys(unmapped)))


def _on_host(path: str, binds: tuple[tuple[str, str], ...]) -> str | None:
    """The host path (in the binds' terms) of an absolute container path, or None."""
    path = posixpath.normpath(path)
    best: tuple[str, str] | None = None
    for target, host in binds:
        if (path == target or path.startswith(target.rstrip("/") + "/")) and (
            best is None or len(target) > len(best[0])
        ):
            best = (target, host)
    if best is None:
        return None
    rest = path[len(best[0]) :].lstrip("/")
    return posixpath.normpath(posixpath.join(best[1], rest)) if rest else best[1]


def _where(host: str, cwd: str, shell: str | None) -> str | None:
    """`host` (relative to the docker command's directory, or to the shell's: SHELL, or
    absolute) from where the line started; None when the shell's directory is unknown."""
    rest = under(SHELL, host)
    if rest is not None:
        if shell is None:
            return None
        host, cwd = rest or ".", shell
    return host if host.startswith("/") else posixpath.normpath(posixpath.join(cwd or ".", host))


def _relative(path: str, inner: str) -> str | None:
    """A path (relative to where the line started, or absolute) as seen from `inner`. Under
    the top of the worktree (a place known by name only) it is named from inside that only."""
    if under(TOP_CWD, path) is not None:
        return posixpath.relpath(path, inner) if under(TOP_CWD, inner) is not None else None
    if path.startswith("/"):
        return path
    if inner.startswith("/"):
        return None
    return posixpath.relpath(path, inner or ".")


def _is_path_free(words: tuple[Word, ...]) -> bool:
    """Every argument is an option or an absolute path, and one is a path: nothing the
    command is given depends on the directory (a bare `make` reads the image's WORKDIR)."""
    firsts = [(w.literal() or "x")[:1] for w in words[1:]]
    return "/" in firsts and all(c in "-/" for c in firsts)


def _path_in(word: Word) -> str | None:
    """The path a literal word names (`/w/x`; `/w/x` of `--out=/w/x`), or None."""
    literal = word.literal()
    if literal is None:
        return None
    return literal.partition("=")[2] if literal.startswith("-") else literal


def is_under(path: str, roots: tuple[str, ...]) -> bool:
    path = posixpath.normpath(path)
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)


def hide(words: tuple[Word, ...], reach: tuple[str, ...]) -> tuple[Word, ...]:
    """The words, those naming a container path under `reach` made unknown (kept as typed)."""
    if not reach:
        return words
    out = list(words)
    for k, word in enumerate(words):  # (the reach is absolute: a relative path is never in it)
        path = _path_in(word)
        if path is not None and is_under(path, reach):
            out[k] = Word(word.text, None, word.has_glob, word.substitutions)
    return tuple(out)


def hide_args(argv: tuple[Word, ...], reach: tuple[str, ...]) -> tuple[Word, ...]:
    """A command's words, its arguments under `reach` hidden (the program stays named)."""
    return argv[:1] + hide(argv[1:], reach)


def enter(
    mounts: Mounts, rest: tuple[Word, ...], cwd: str | None, shell: str | None
) -> tuple[tuple[Word, ...], str | None]:
    """The command inside, its absolute container paths under a bind replaced by where they
    are on the host, and the directory it runs in (None: unknown). `cwd`: the docker
    command's directory (relative to where the line started, as the walker keeps it), and
    `shell` the shell's (`$PWD` in a source); None when it is unknown, or one of several:
    the paths under reach are then unknown words."""
    if not mounts.known or cwd is None:
        return hide_args(rest, mounts.reach()), None
    found = [(target, _where(host, cwd, shell)) for target, host in mounts.binds]
    binds = tuple((target, host) for target, host in found if host is not None)
    if len(binds) < len(found):  # `$PWD` of a shell whose directory is not known
        return hide_args(rest, mounts.reach()), None
    if mounts.workdir is not None:
        inner = _on_host(mounts.workdir, binds)
    else:
        inner = cwd if _is_path_free(rest) else None  # the image's own WORKDIR is unknown
    if inner is None:
        return hide_args(rest, mounts.reach()), None
    words = list(rest)
    for k, word in enumerate(rest[1:], start=1):
        literal = word.literal()
        if literal is None:
            continue
        prefix, eq, path = literal.partition("=") if literal.startswith("-") else ("", "", literal)
        if not path.startswith("/"):
            continue
        host = _on_host(path, binds)
        seen = None if host is None else _relative(host, inner)
        if host is not None and seen is None:  # not to be named from the directory inside
            return hide_args(rest, mounts.reach()), None
        if seen is not None:  # shown as typed (messages quote the command), read as mapped
            words[k] = Word(word.text, f"{prefix}{eq}{seen}")
    return tuple(words), inner
