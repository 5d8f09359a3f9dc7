"""Shell state the walker follows through a command line: the working directory (`cd`,
`pushd`, `popd`), the directories a failed `cd` may leave the shell in, `set -e`, and which
commands surely exited 0 so far (engine.walk builds one Scope per shell); and the place a word
names when it is the shell's own directory (`"$(pwd)/src"`, `"$PWD"`, `"$(git rev-parse
--show-toplevel)"`: place_of), so `cd`, `git -C` and a wrapper's `-C` to it are known places.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field

from interlock.engine.invocation import Invocation
from interlock.engine.places import START_CWD, TOP_CWD, cwd_of
from interlock.engine.shellvars import Vars
from interlock.shell.lex import scan_word
from interlock.shell.model import CommandList, Compound, Node, SimpleCommand, Word

# The invocations that surely exited 0 when a node did (an `&&` chain: all of them; a
# pipeline: its last command).
Success = tuple[Invocation, ...]
_MAX_ALTS = 6  # alternative directories kept before the rest are read as unknown (None)


@dataclass
class Scope:
    """Shell state that `cd` and `set -e` change; copied for subshells.

    alts: other directories the shell may be in, after a `cd` that may have failed.
    stack: `pushd`'s directory stack: each entry is where it started, with its alternatives.
    done: the invocations that surely exited 0 so far on this path.
    vars: the shell variables the line assigned (engine.shellvars).
    shell: which shell process it is (a copy for a subshell is another one).
    """

    cwd: str | None = ""
    stack: list[tuple[str | None, tuple[str | None, ...]]] = field(default_factory=list)
    alts: tuple[str | None, ...] = ()
    done: Success = ()
    errexit: bool = False
    vars: Vars = field(default_factory=Vars)
    shell: object = field(default_factory=object)

    def copy(self) -> Scope:
        shell = object()
        return Scope(
            self.cwd, list(self.stack), self.alts, self.done, self.errexit, self.vars, shell
        )

    def at(self, cwd: str | None, alts: tuple[str | None, ...]) -> Scope:
        """A copy in another directory (a wrapper's `-C DIR`, a branch)."""
        return Scope(cwd, list(self.stack), alts, self.done, self.errexit, self.vars, self.shell)

    def set_alts(self, alts: tuple[str | None, ...]) -> None:
        unique = tuple(a for a in dict.fromkeys(alts) if a != self.cwd or a is None)
        if len(unique) > _MAX_ALTS:
            unique = unique[:_MAX_ALTS] + (None,)
        self.alts = unique


# The directory of a `cd` into a temp dir named at run time (`cd "$(mktemp -d)"`, `cd
# "$TMPDIR/x"`): where exactly is unknown, but it is a temp dir, as such a target would be.
TEMP_CWD = "/tmp/(a temp directory named at run time)"


# What `git rev-parse` prints for the top: an absolute path, or the way up to it (empty at the
# top, so only a quoted word stays one argument: `cd ""` stays, a bare `cd` goes home).
_TOP_OPTIONS = {"--show-toplevel": False, "--show-cdup": True}
# A word that starts with the shell's directory: `$PWD`, `${PWD}`, `$(...)` or `` `...` ``
# (whose command is read by _printed_place), in double quotes or not; the rest is literal.
_PLACE_HEAD = re.compile(
    r'^("?)(\$PWD(?![A-Za-z0-9_])|\$\{PWD\}|\$\([^()`$]*\)|`[^`$()]*`)(.*)$', re.S
)


def _printed_place(node: Node, scope: Scope) -> str | None:
    """What a substitution without side effects prints: `pwd` ("pwd"), `git rev-parse
    --show-toplevel` or `--show-cdup` (the option); None for anything else (another command,
    an assignment or redirection on it, a function of the line by that name)."""
    if not isinstance(node, SimpleCommand) or node.assignments or node.redirects:
        return None
    words = [w.literal() for w in node.words]
    if not words or words[0] in scope.vars.functions:
        return None
    if words[0] == "pwd" and all(w in ("-P", "-L") for w in words[1:]):
        return "pwd"
    if words[:2] == ["git", "rev-parse"] and len(words) == 3 and words[2] in _TOP_OPTIONS:
        return words[2]
    return None


def place_of(word: Word, scope: Scope) -> str | None:
    """The directory a word names when it starts with the shell's own place (`Word.place`):
    `"$(pwd)"`, `"$PWD/src"`, `` `pwd` `` where the cwd is known (one place, no
    alternatives); `"$(git rev-parse --show-toplevel)"`, `"$(git rev-parse --show-cdup)"`
    where the shell is in the start's worktree. The result is absolute in join_cwd's terms
    (a path, TOP_CWD or START_CWD, then the rest); None for any other word or place."""
    match = _PLACE_HEAD.match(word.text)  # (a literal word never starts with `$` or a quote)
    if match is None:
        return None
    quote, head, after = match.groups()
    rest = scan_word(quote + after, 0)
    if rest.value is None or rest.has_glob or rest.end != len(quote + after):
        return None
    tail = rest.value
    if head[:1] == "`" or head.startswith("$("):  # the word's one substitution: the rest is literal
        kind = _printed_place(word.substitutions[0], scope) if word.substitutions else None
    else:  # `$PWD`: unless the line assigned it (`PWD=/x`), what `cd` set
        kind = None if "PWD" in scope.vars.values or scope.vars.wild else "pwd"
    if kind is None:
        return None
    if kind != "pwd":
        if not all(c in ("", TOP_CWD) for c in (scope.cwd, *scope.alts)):
            return None  # from elsewhere, the top may be another worktree's (a nested one)
        if _TOP_OPTIONS[kind]:  # the way up ('' at the top): unquoted and alone, no word
            fits = (quote or tail) and not tail.startswith("/")
            return join_cwd(TOP_CWD, tail or ".") if fits else None
        base = TOP_CWD
    elif scope.cwd is None or scope.alts:
        return None  # an unknown place, or one of several
    else:
        base = scope.cwd if scope.cwd.startswith("/") else f"{START_CWD}/{scope.cwd}"
    if tail and not tail.startswith("/"):
        return None  # `"$(pwd)x"`: another name
    base = base.rstrip("/")
    return f"{base}/{tail.strip('/')}" if tail.strip("/") else base


def _is_temp_dir(text: str) -> bool:
    from interlock.engine.rules.fs import is_temp_path  # the rules import the walker

    return is_temp_path(text)


def join_cwd(cwd: str | None, directory: str) -> str | None:
    """`sub` + `../x` -> `x`; absolute stays absolute; '' is where the line started."""
    if directory.startswith("/"):  # a path, or a place (place_of)
        return cwd_of(directory)
    if cwd is None:
        return None
    if cwd == TOP_CWD or cwd.startswith(TOP_CWD + "/"):  # `..` may leave it: kept as written
        under = posixpath.normpath(posixpath.join(cwd[len(TOP_CWD) :].lstrip("/"), directory))
        return TOP_CWD if under == "." else f"{TOP_CWD}/{under}"
    joined = posixpath.normpath(posixpath.join(cwd or ".", directory))
    return "" if joined == "." else joined


def ends_shell(node: Node) -> bool:
    """`exit`/`return` (alone or last in a group): the list does not go on after it."""
    if isinstance(node, SimpleCommand):
        return bool(node.words) and node.words[0].literal() in ("exit", "return")
    if isinstance(node, Compound) and node.kind == "group" and node.parts:
        return ends_shell(node.parts[0])
    if isinstance(node, CommandList) and node.items:
        return ends_shell(node.items[-1])
    return False


def _builtin_name(node: Node) -> str | None:
    """The builtin a simple command runs, through `builtin`/`command` (`builtin cd x`)."""
    if not isinstance(node, SimpleCommand):
        return None
    words = [w.literal() for w in node.words]
    while words[:1] in (["builtin"], ["command"]):
        words = words[1:]
    return words[0] if words else None


def is_cd(node: Node) -> bool:
    return _builtin_name(node) in ("cd", "pushd", "popd")


def is_popd(node: Node) -> bool:
    return _builtin_name(node) == "popd"


def change_directory(inv: Invocation, scope: Scope) -> None:
    name = inv.name
    if name not in ("cd", "pushd", "popd"):
        return
    args = [w for w in inv.argv[1:] if (w.literal() or "x")[0] != "-" or w.literal() == "-"]
    if name == "popd":
        # back where pushd started, whether or not pushd succeeded; where that was may itself
        # be uncertain (`cd a; pushd b; popd`: a, or here if `cd a` failed)
        scope.cwd, scope.alts = scope.stack.pop() if scope.stack and not args else (None, ())
        return
    target = args[0].literal() if args else None
    target = args[0].place if args and target is None else target
    if name == "pushd":
        scope.stack.append((scope.cwd, scope.alts))
        if target is not None and target[:1] in "+-" and target[1:].isdigit():
            target = None
    if target is None and args and _is_temp_dir(args[0].text):
        scope.cwd = TEMP_CWD  # `cd "$(mktemp -d)"`, `cd "$TMPDIR"`: somewhere in a temp dir
        scope.alts = ()
    elif target is None or target == "-" or args[0].has_glob:
        scope.cwd = None
        scope.alts = ()
    else:
        scope.cwd = join_cwd(scope.cwd, target)
        scope.set_alts(tuple(join_cwd(a, target) for a in scope.alts))


def set_options(inv: Invocation, scope: Scope) -> None:
    """`set -e`, `set -euo pipefail`, `set -o errexit` (and `+e`) in this shell."""
    if inv.name != "set":
        return
    words = [w.literal() or "" for w in inv.argv[1:]]
    for k, word in enumerate(words):
        if word in ("-o", "+o") and k + 1 < len(words) and words[k + 1] == "errexit":
            scope.errexit = word == "-o"
        elif word[:1] in "-+" and word[1:].isalpha() and "e" in word[1:]:
            scope.errexit = word[0] == "-"
