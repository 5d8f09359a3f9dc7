"""Building blocks for wrappers.py and spawners.py: option reading and the Unwrap type."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import TypedDict, Unpack

from interlock.engine.findexpr import Search
from interlock.engine.mounts import Mounts
from interlock.shell.lex import is_assignment_text, scan_word
from interlock.shell.model import Word

KEEP = "\0keep"  # Unwrap.cwd when the wrapper does not change directory

RUNTIME_CODE = "$RUNTIME_CODE"  # stands for code a program hands over at run time

# sh-compatible shells (`-c CODE`, a script file, or the script on stdin).
SHELLS = frozenset(
    (
        "bash",
        "sh",
        "zsh",
        "dash",
        "ksh",
        "mksh",
        "ash",
        "yash",
        "posh",
        "rbash",
        "ksh93",
        "lksh",
        "pdksh",
        "oksh",
        "hush",
    )
)
# Every shell that runs what its stdin gives it when it has no code and no script operand.
STDIN_SHELLS = SHELLS | frozenset(("fish", "tcsh", "csh", "xonsh", "elvish", "rc", "es", "nu"))


@dataclass(frozen=True)
class Script:
    """A command line a trampoline runs. `degraded` when it was built from a non-literal word
    (its expansions stay unknown); `same_shell` for eval; flags from `bash -e -o pipefail`;
    `args`: the words after `bash -c CODE` (`$0`, then `$1`...), None when not given."""

    text: str
    via: str
    degraded: bool = False
    same_shell: bool = False
    errexit: bool = False
    pipefail: bool = False
    args: tuple[Word, ...] | None = None


@dataclass(frozen=True)
class Unwrap:
    """What a wrapper hands control to (see wrappers.py): kind exec (rest), script (scripts)
    or spawn (children). `masks` says why the wrapper hides the inner exit status, if it does.
    `cwd`: KEEP, the directory the command runs in (relative to the wrapper's), or None when
    it is only known at run time.
    """

    kind: str
    via: str
    rest: tuple[Word, ...] = ()
    scripts: tuple[Script, ...] = ()
    children: tuple[Unwrap, ...] = ()
    assignments: tuple[Word, ...] = ()
    cwd: str | None = KEEP
    extra_args: bool = False
    arg_roots: tuple[str, ...] | None = None
    arg_search: Search | None = None  # what a file search hands over (engine.findexpr)
    arg_file: bool = False  # the run-time arguments are read from a file (`xargs -a LIST`)
    masks: str | None = None
    mounts: Mounts | None = None  # a container's binds: its paths on the host (engine.mounts)
    clears_env: bool = False  # `env -i`: the command sees only the wrapper's assignments
    # other commands the words may run (exec kind): where the command starts depends on a
    # run-time value (`timeout "$T" 5 cmd`: `5 cmd`, or `cmd` when $T is an option)
    alternatives: tuple[tuple[Word, ...], ...] = ()


class OptSpec:
    """Which options take a value: short letters, long names (without `--`).

    attached: short letters whose value can only be attached (`xargs -i{}`, `-l5`): alone
    they are flags, and the rest of the word is their value, never another option.
    flags: every other long option, when the program's whole set is known: then a unique
    abbreviation (`flock --time 3`, as getopt_long reads it) is resolved to its option;
    otherwise an unknown long name is read as a flag.
    """

    def __init__(
        self,
        short: str,
        long: Iterable[str] = (),
        attached: str = "",
        flags: Iterable[str] | None = None,
    ) -> None:
        self.short = short
        self.long = frozenset(long)
        self.attached = attached
        self.flags = None if flags is None else frozenset(flags)

    def resolve(self, name: str) -> str:
        """`time` -> `timeout` when the set is known and only that option starts with it."""
        if self.flags is None or name in self.long or name in self.flags:
            return name
        found = [k for k in self.long | self.flags if k.startswith(name)]
        return found[0] if len(found) == 1 else name


@dataclass(frozen=True)
class Options:
    """Options read by parse_options, in order: (`-u`, `root`), (`--chdir`, `x`), (`-E`, None).
    A value only known at run time is None in items; `words` keeps each option's value word
    (`-c "$CMD"`), literal or not."""

    items: tuple[tuple[str, str | None], ...]
    words: tuple[tuple[str, Word], ...] = ()

    def merged(self, other: Options) -> Options:
        return Options(self.items + other.items, self.words + other.words)

    def has(self, *names: str) -> bool:
        return any(name in names for name, _ in self.items)

    def value(self, *names: str) -> str | None:
        found = None
        for name, value in self.items:
            if name in names:
                found = value
        return found

    def word(self, *names: str) -> Word | None:
        """The value word of the last of these options, None when none was given."""
        found = None
        for name, word in self.words:
            if name in names:
                found = word
        return found

    def directory(self, *names: str, places: bool = True) -> str | None:
        """The directory the last of these options (which take a value) names: KEEP when
        none is given, None when its value is only known at run time (`-C "$D"`). `places`:
        a word naming the shell's own place (`-C "$(pwd)"`, shellstate.place_of) gives that
        place, in the walker's join_cwd terms."""
        found: str | None = KEEP
        given = 0
        for name, value in self.items:
            if name in names:
                found, given = value, given + 1
        words = [word for name, word in self.words if name in names]
        if found is None and places and len(words) == given:  # each one has its word
            return words[-1].place
        return found


def lit(word: Word) -> str | None:
    return word.literal()


def parse_options(words: tuple[Word, ...], i: int, spec: OptSpec) -> tuple[Options, int] | None:
    """Read GNU-style options from words[i:]; return them and the index of the first operand.

    Stops at `--` (skipped), at the first operand and at a non-literal word (which may be the
    command: unknown). None when an option lacks its value (a malformed command line).
    """
    items: list[tuple[str, str | None]] = []
    values: list[tuple[str, Word]] = []

    def take(name: str, word: Word) -> None:
        items.append((name, word.literal()))
        values.append((name, word))

    while i < len(words):
        v = words[i].literal()
        if v is None or v == "-" or not v.startswith("-"):
            break
        if v == "--":
            return Options(tuple(items), tuple(values)), i + 1
        if v.startswith("--"):
            name, eq, value = v[2:].partition("=")
            name = "--" + spec.resolve(name)
            if eq:
                take(name, Word(value, value))
            elif name[2:] in spec.long:
                if i + 1 >= len(words):
                    return None
                take(name, words[i + 1])
                i += 1
            else:
                items.append((name, None))
            i += 1
            continue
        for j in range(1, len(v)):
            name, attached = "-" + v[j], v[j + 1 :]
            if v[j] in spec.attached and attached:
                take(name, Word(attached, attached))
                break
            if v[j] in spec.attached:
                items.append((name, None))
                break
            if v[j] in spec.short:
                if attached:
                    take(name, Word(attached, attached))
                elif i + 1 < len(words):
                    take(name, words[i + 1])
                    i += 1
                else:
                    return None
                break
            items.append((name, None))
        i += 1
    return Options(tuple(items), tuple(values)), i


_WINDOWS_SUFFIXES = (".exe", ".com", ".bat", ".cmd")


def program_name(value: str) -> str:
    """The program a command word names, as the machine would resolve it: `/usr/bin/git` ->
    `git`; a case-insensitive file system or Windows also runs git for `GIT`, `Git.EXE` and
    `C:\\Program Files\\Git\\bin\\git.exe`, so names compare folded: lower case, without the
    directory (either slash) and without a Windows executable suffix."""
    base = value.rsplit("/", 1)[-1]
    if "\\" in base:
        base = base.rsplit("\\", 1)[-1]
    base = base.lower()
    if base.endswith(_WINDOWS_SUFFIXES) and len(base) > 4:
        return base[:-4]
    return base


def command_name(word: Word) -> str | None:
    """`/usr/bin/git` -> `git` (see program_name); None when the word is not a literal."""
    value = word.literal()
    if value is None:
        return None
    return program_name(value)


def strip_version(package: str) -> str:
    """`eslint@8` -> `eslint`, `@scope/pkg@1.2` -> `@scope/pkg` (npx and friends)."""
    at = package.rfind("@")
    return package[:at] if at > 0 else package


def shell_script(words: tuple[Word, ...]) -> tuple[int, bool, bool, str] | None:
    """Read `bash [options] ...`: (index of the operand, errexit, pipefail, mode) where mode
    is `c` (operand is the command string), `stdin` (script on stdin) or `file`. None when
    the shell runs no code at all: `-n` (`-o noexec`) reads the script and only checks it."""
    i, errexit, pipefail, c_mode, s_mode, noexec = 1, False, False, False, False, False
    while i < len(words):
        v = words[i].literal()
        if v is None:
            break
        if v in ("-", "--"):
            i += 1
            break
        if v.startswith("--"):
            i += 2 if v in ("--rcfile", "--init-file") else 1
            continue
        if len(v) < 2 or v[0] not in "-+":
            break
        on, k = v[0] == "-", 0
        for ch in v[1:]:
            c_mode |= ch == "c"
            s_mode |= ch == "s"
            if ch == "e":
                errexit = on
            elif ch == "n":
                noexec = on
            elif ch in "oO":
                k += 1
                option = words[i + k].literal() if i + k < len(words) else None
                if option == "pipefail":
                    pipefail = on
                elif option == "errexit":
                    errexit = on
                elif option == "noexec":
                    noexec = on
        i += 1 + k
    if noexec:
        return None
    mode = "c" if c_mode else "stdin" if s_mode or i >= len(words) else "file"
    return i, errexit, pipefail, mode


def exec_at(via: str, words: tuple[Word, ...], i: int, **kw: object) -> Unwrap | None:
    """The wrapper hands over to words[i:]; None when nothing follows (the wrapper runs alone)."""
    if i >= len(words):
        return None
    return Unwrap("exec", via, rest=words[i:], **kw)  # type: ignore[arg-type]


def exec_after(
    via: str,
    words: tuple[Word, ...],
    i: int,
    spec: OptSpec,
    accepts: Callable[[str], object] = lambda value: True,
    **kw: object,
) -> Unwrap | None:
    """The wrapper takes one operand at words[i] (`timeout DURATION`, `flock FILE`) and hands
    over to what follows; `spec`: its options, `accepts`: whether a literal word can be its
    operand. An operand known only at run time that may begin with `-` may be an option
    instead. Quoted (`"$T"`: one word), it is the operand, and the command follows it, or an
    option, and the operand follows it (after the option's value, or more options): each
    command the words allow is judged, the first as the wrapper's, the others as its
    `alternatives`. Alone (`flock -n "$FD"`), it runs nothing in either reading. Unquoted
    (`$T`, `$(f)`), it may be several words, the command among them: where the command starts
    is unknown, so it is handed over as the command's first word (an unknown command)."""
    if i < len(words) and could_be_option(words[i]):
        if not is_one_word(words[i]):
            return exec_at(via, words, i, **kw)
        found = exec_at(via, words, i + 1, **kw)
        others = _shifted(words, i, spec, accepts)
        return replace(found, alternatives=others) if found is not None and others else found
    return exec_at(via, words, i + 1, **kw)


def _shifted(
    words: tuple[Word, ...], i: int, spec: OptSpec, accepts: Callable[[str], object]
) -> tuple[tuple[Word, ...], ...]:
    """The commands that follow when words[i] is an option: a flag (`timeout "$T" 5 cmd`:
    `cmd`) or one that takes the next word as its value (`timeout "$T" KILL 5 cmd`)."""
    found: list[tuple[Word, ...]] = []
    for start in (i + 1, i + 2):
        parsed = parse_options(words, start, spec)
        if parsed is None or parsed[1] + 1 >= len(words):
            continue
        k = parsed[1]
        operand = words[k].literal()
        rest = words[k + 1 :]
        if operand is not None and not accepts(operand):
            continue
        if (rest[0].literal() or "x").startswith("-") or rest in found:
            continue  # no program is named `-x`
        found.append(rest)
    return tuple(found)


def is_one_word(word: Word) -> bool:
    """A literal, or `"$X"`: one double-quoted word, which field splitting leaves whole."""
    text = word.text
    quoted = len(text) >= 2 and text[0] == text[-1] == '"' and '"' not in text[1:-1]
    return quoted or word.literal() is not None


def could_be_option(word: Word) -> bool:
    """A non-literal word whose first character is only known at run time (`"$X"`, `$(f)`)."""
    return word.literal() is None and template(word)[:1] in ("$", "`", "")


def assignments_at(words: tuple[Word, ...], i: int) -> tuple[tuple[Word, ...], int]:
    """`NAME=value` words from i on (for `env` and `sudo`). The name must be written out; the
    value may be known only at run time (`env PYTHONPATH=$PWD pytest`), as a shell's own
    `NAME=$x cmd` prefix may: the rules read such a value as unknown."""
    start = i
    while i < len(words) and _is_assignment_word(words[i]):
        i += 1
    return words[start:i], i


def _is_assignment_word(word: Word) -> bool:
    value = word.literal()
    if value is not None:
        return is_assignment_text(value)
    text = template(word)
    eq = text.find("=")
    return eq > 0 and "$" not in text[:eq] and is_assignment_text(text)


def template(word: Word) -> str:
    """The word's text as an inner shell would get it, expansions kept unknown."""
    return scan_word(word.text, 0).template_text


class ScriptFlags(TypedDict, total=False):
    """How a trampoline runs its script (`eval`: same_shell; `bash -e -o pipefail -c`)."""

    same_shell: bool
    errexit: bool
    pipefail: bool


def script_from(word: Word, via: str, **kw: Unpack[ScriptFlags]) -> Unwrap:
    """A trampoline running one word as a command line (`bash -c WORD`)."""
    value = word.literal()
    if value is not None:
        return Unwrap("script", via, scripts=(Script(value, via, **kw),))
    return Unwrap("script", via, scripts=(Script(template(word), via, degraded=True, **kw),))


def join_script(words: tuple[Word, ...], via: str, **kw: Unpack[ScriptFlags]) -> Unwrap:
    """A trampoline running its words joined with spaces (`eval a b`, `watch a b`)."""
    values = [w.literal() for w in words]
    if all(v is not None for v in values):
        text = " ".join(v or "" for v in values)
        return Unwrap("script", via, scripts=(Script(text, via, **kw),))
    text = " ".join(template(w) for w in words)
    return Unwrap("script", via, scripts=(Script(text, via, degraded=True, **kw),))
