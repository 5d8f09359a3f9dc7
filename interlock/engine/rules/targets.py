"""Targets of commands that act on named files, for the overwrite and disk families.

`file_targets()` turns the words a command writes into a `Targets`: temp variables are
dropped, devices are left to the disk family (`/dev/null` and streams are no files at all),
files inside `.git` to the git and self-disable families, literal temp paths are marked. `same_file()` compares two paths as written (each relative to
its own cwd), and `pipe_before()` finds the commands feeding a pipeline element: `cat f | sort
> f` reads the file its redirection empties.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence

from interlock.engine.findings import Targets
from interlock.engine.invocation import Invocation
from interlock.engine.rules.args import known_path, literal_or_text
from interlock.engine.rules.common import resolve, shell_path
from interlock.engine.rules.fs import in_git_dir, is_temp_literal, is_temp_var
from interlock.shell.model import Word

# Commands that do not read the content of files named as operands (echo f > f writes "f";
# find -name f and ls f look at names and metadata only).
_NON_READERS = frozenset(
    "echo printf touch mkdir basename dirname test [ [[ which type command true false : "
    "export local declare set unset find ls stat du file realpath readlink".split()
)


def is_dev_path(word: Word) -> bool:
    """Under /dev (a device, /dev/null, a stream), but not a file in /dev/shm."""
    text = literal_or_text(word).replace('"', "").replace("'", "")
    return text.startswith("/dev/") and not text.startswith("/dev/shm/")


def file_targets(
    words: Sequence[Word],
    cwd: str | None,
    *,
    creates: bool = False,
    single: bool = True,
    follows: bool = False,
    into: tuple[str, ...] = (),
) -> Targets | None:
    """The files named by `words`, or None when none is left to judge.

    A write that may be creating its file, to a path known only at run time (`> "$OUT"`),
    is not judged: it reads as a new file, like any write by text alone. A glob is known: the
    shell expands it to the files it matches (`echo x > *.log` writes over the one there).
    """
    kept = [w for w in words if not is_temp_var(w) and not is_dev_path(w) and not in_git_dir(w)]
    if creates:
        kept = [w for w in kept if known_path(w) is not None]
    if not kept:
        return None
    return Targets(
        "files",
        paths=tuple(literal_or_text(w) for w in kept),
        unknown=any(known_path(w) is None or w.has_glob for w in kept),
        temp_only=all(is_temp_literal(w, cwd) for w in kept),
        single=single,
        creates=creates,
        follows=follows,
        into=into,
    )


def instead_for(instead: str, targets: Targets) -> str:
    """A rule's advice with FILE replaced by the one file it is about, when there is one."""
    if len(targets.paths) != 1 or targets.unknown or "FILE" not in instead:
        return instead
    return instead.replace("FILE", shell_path(targets.paths[0]))


def same_file(cwd_a: str | None, a: str, cwd_b: str | None, b: str) -> bool:
    """Whether two literal paths, each relative to its own cwd, name the same file."""
    if cwd_a is None or cwd_b is None:
        return posixpath.normpath(a) == posixpath.normpath(b) and cwd_a == cwd_b
    return resolve(cwd_a, a) == resolve(cwd_b, b)


def reads_file(inv: Invocation, cwd: str | None, path: str) -> bool:
    """Whether `inv` reads the file `path` (relative to `cwd`): as an operand or as `< path`.
    A path known only at run time (`"$F"`) is read by a word of the same text in the same
    directory (`sort "$F" > "$F"`)."""
    for redirect in inv.redirects:
        target = _path_of(redirect.target, inv.cwd, cwd, path)
        reads = redirect.op == "<" or (redirect.op == "<>" and redirect.fd in (None, 0))
        if reads and target is not None and same_file(inv.cwd, target, cwd, path):
            return True
    if inv.name in _NON_READERS or inv.name is None:
        return False
    for word in inv.argv[1:]:
        value = _path_of(word, inv.cwd, cwd, path)
        if value is None or value.startswith("-"):
            value = value.split("=", 1)[1] if value and "=" in value else None
        if value and same_file(inv.cwd, value, cwd, path):
            return True
    return False


def _path_of(word: Word | None, cwd: str | None, at: str | None, path: str) -> str | None:
    """The word's value; for a word known only at run time, `path` when it is the same text
    in the same directory (the same file, whatever it turns out to be)."""
    if word is None or word.literal() is not None:
        return None if word is None else word.literal()
    return path if word.text == path and cwd == at else None


def pipe_before(inv: Invocation, earlier: Sequence[Invocation]) -> list[Invocation]:
    """The commands of inv's pipeline that come before it (they feed its stdin)."""
    if not inv.pipe:
        return []
    return [e for e in earlier if e.pipe == inv.pipe]


def basename_of(word: Word) -> str | None:
    """`dir/name/` -> `name`; None when the word is not a literal."""
    value = word.literal()
    if value is None:
        return None
    return posixpath.basename(value.rstrip("/")) or None
