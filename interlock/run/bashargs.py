"""bash's invocation forms, as the wrapper must read them (the hot path: standard library only).

`read_args(argv)` follows bash's own rules (`man bash`, INVOCATION): long options first
(`--login`, `--noprofile`, `--rcfile FILE`...), then single-letter options that may be
grouped and repeated (`-lc`, `-e -o pipefail`, `+o errexit`, `-O extglob`) until `--`, `-`
or the first word that is not an option. Then:
- with `-c`: that word is the command string, the next is `$0`, the rest `$1`...;
- else the word is a script file and the rest its arguments;
- with no word left (or `-s`): the script comes on stdin; an interactive shell (`-i`, or
  stdin and stderr on a terminal) is a person's, and is not judged command by command.
`--help`, `--version`, `-n`, `-D` and the string dumps run no code.
An option bash does not know is refused rather than guessed at: bash would fail on it, or
read it in a way interlock did not.
"""

from __future__ import annotations

_LONG_FLAGS = frozenset(
    {
        "--login",
        "--noprofile",
        "--norc",
        "--posix",
        "--noediting",
        "--restricted",
        "--verbose",
        "--debugger",
        "--debug",
    }
)
_LONG_VALUED = frozenset({"--rcfile", "--init-file"})
_LONG_INERT = frozenset(
    {"--help", "--version", "--dump-strings", "--dump-po-strings", "--pretty-print"}
)
_SET_LETTERS = frozenset("abefhkmnptuvxBCEHPT")
_INVOCATION_LETTERS = frozenset("cilrsD")
# Codex runs its commands as `bash -c '. "$1" && shift && exec "$@"' SNAPSHOT ARGV...`.
_SNAPSHOT_PROLOGUES = ('. "$1" && shift && exec "$@"',)


class BashCall:
    """How bash was asked to run, e.g. `-e -o pipefail -c 'pytest | tail'`.

    mode: command | file | stdin | interactive | inert | invalid.
    command: the `-c` string; script: the script file; args: `$0`... for -c, else `$1`...
    """

    __slots__ = ("mode", "command", "script", "args", "errexit", "pipefail", "error")

    def __init__(self) -> None:
        self.mode = "stdin"
        self.command: str | None = None
        self.script: str | None = None
        self.args: list[str] = []
        self.errexit = False
        self.pipefail = False
        self.error: str | None = None

    def judged_text(self, code: str) -> str:
        """The text to judge for `code`: the shell options that change how a failure flows,
        as `set` lines, then the code (positional parameters of known prologues filled in)."""
        if self.mode == "command" and code in _SNAPSHOT_PROLOGUES and len(self.args) >= 3:
            code = f". {quote(self.args[1])} && exec " + " ".join(quote(a) for a in self.args[2:])
        prefix = ("set -e\n" if self.errexit else "") + (
            "set -o pipefail\n" if self.pipefail else ""
        )
        return prefix + code


def quote(word: str) -> str:
    """Single-quote a word for the shell (shlex.quote without importing re)."""
    if word and all(c.isalnum() or c in "@%+=:,./-_" for c in word):
        return word
    return "'" + word.replace("'", "'\"'\"'") + "'"


def _set_option(call: BashCall, name: str, on: bool) -> None:
    if name == "pipefail":
        call.pipefail = on
    elif name == "errexit":
        call.errexit = on


def _letters(call: BashCall, word: str, argv: list[str], i: int, flags: set[str]) -> int:
    """Apply one option word (`-xec`, `+o`); returns the index of the next word."""
    on = word[0] == "-"
    for letter in word[1:]:
        if letter in "oO":
            if i + 1 >= len(argv):
                call.mode, call.error = "invalid", f"{word[0]}{letter} needs an option name"
                return len(argv)
            i += 1
            if letter == "o":
                _set_option(call, argv[i], on)
        elif letter in _SET_LETTERS or (on and letter in _INVOCATION_LETTERS):
            flags.add(letter if on else "+" + letter)
            if letter == "e":
                call.errexit = on
        else:
            call.mode, call.error = "invalid", f"unknown option {word[0]}{letter}"
            return len(argv)
    return i + 1


def read_args(argv: list[str], stdin_tty: bool = False, stderr_tty: bool = False) -> BashCall:
    """Read bash's arguments (see the module docstring)."""
    call = BashCall()
    i = 0
    while i < len(argv) and argv[i].startswith("--") and len(argv[i]) > 2:
        word = argv[i]
        if word in _LONG_INERT:
            call.mode = "inert"
            return call
        if word in _LONG_VALUED:
            i += 1
        elif word not in _LONG_FLAGS:
            call.mode, call.error = "invalid", f"unknown option {word}"
            return call
        i += 1
    flags: set[str] = set()
    while i < len(argv) and call.mode != "invalid":
        word = argv[i]
        if word in ("--", "-"):
            i += 1
            break
        if len(word) < 2 or word[0] not in "-+":
            break
        i = _letters(call, word, argv, i, flags)
    if call.mode == "invalid":
        return call
    rest = argv[i:]
    if flags & {"n", "D"}:
        call.mode = "inert"
    elif "c" in flags:
        call.mode = "command" if rest else "inert"  # bash itself says -c needs an argument
        call.command = rest[0] if rest else None
        call.args = rest[1:]
    elif rest and "s" not in flags:
        call.mode, call.script, call.args = "file", rest[0], rest[1:]
    else:
        call.args = rest
        interactive = "i" in flags or (stdin_tty and stderr_tty)
        call.mode = "interactive" if interactive else "stdin"
    return call
