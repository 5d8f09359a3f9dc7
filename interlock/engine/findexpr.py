"""What a file search selects, read from its command line: `find ROOT... EXPRESSION`, `fd`
and `git ls-files`, for the deletions that act on their results (`find -delete`, `find -exec
rm {} +`, `fd -x rm`, `find ... | xargs rm`, `git ls-files -o | xargs rm`).

`Search` holds the start paths, the expression as a tree of `Node`s, and which action is the
one that destroys (`-delete`, one `-exec`, or the printing that feeds xargs). The tree side
(engine/findmatch.py) evaluates it on the paths that hold unsaved work, never on the whole
tree. Tests that look only at names and types (`-name`, `-iname`, `-path`, `-regex`,
`-type`, depth) are decided; tests that read file metadata (`-newer`, `-mtime`, `-size`,
`-empty`, `-perm`, `-user`...) can go either way, so both ways are followed (a superset). An
expression with anything else (an unknown primary, a word known only at run time, following
symlinks) is not understood: `Search.understood` is False and every path under the roots
counts, as before.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from interlock.shell.model import Word

# find tests decided by the path alone, and those that read metadata (either way).
_NAME_TESTS = frozenset(
    "-name -iname -path -ipath -wholename -iwholename -regex -iregex -type -xtype".split()
)
_META_TESTS = frozenset(
    "-newer -anewer -cnewer -mtime -atime -ctime -mmin -amin -cmin -used -size -perm -user "
    "-group -uid -gid -inum -links -samefile -lname -ilname -fstype -context -newerXY".split()
)
_META_FLAGS = frozenset(
    "-empty -readable -writable -executable -nouser -nogroup -true -false".split()
)
_OPTIONS_ARG = frozenset(("-maxdepth", "-mindepth", "-regextype", "-files0-from"))
_OPTIONS = frozenset(
    "-depth -d -xdev -mount -noleaf -ignore_readdir_race -noignore_readdir_race -daystart "
    "-warn -nowarn -P".split()
)
_FOLLOW = frozenset(("-follow", "-L", "-H"))
_PRINTS = frozenset(("-print", "-print0"))
_OUTPUTS = frozenset(("-printf", "-fprint", "-fprint0", "-fprintf", "-fls", "-ls"))
_EXEC = frozenset(("-exec", "-execdir", "-ok", "-okdir"))
_REGEX_TYPES = frozenset(("emacs", "findutils-default", "posix-basic", "posix-extended", "egrep"))
_MAX_NODES = 64


@dataclass(frozen=True)
class Node:
    """One part of an expression: `op` is `and`, `or`, `not`, `list` (`,`), `test` (kind,
    arg), `target` (the destroying action), `prune`, `action` (true, like -print) or `either`
    (an action whose status is unknown: `-exec cmd {} ;` other than the target)."""

    op: str
    kids: tuple[Node, ...] = ()
    kind: str = ""
    arg: str = ""


TRUE = Node("action")


@dataclass(frozen=True)
class Search:
    """What a file search selects for the command that destroys its results.

    starts: the start paths as typed (relative to `base`, the search's own directory; `""`
      for `git ls-files`, which prints paths relative to it without a prefix);
    expr: the expression (None when not understood: everything under the starts counts);
    subtree: the destroying command removes a whole directory that matches (`rm -r`);
    files_only: only files are selected (git ls-files), never a directory;
    kinds: the kinds of unsaved work it can select (None: any), as in engine.facts;
    mindepth/maxdepth: find's depth limits (the start path is depth 0).
    depth_first: -delete and -depth make -prune do nothing.
    """

    starts: tuple[str, ...]
    base: str | None
    expr: Node | None
    subtree: bool = False
    files_only: bool = False
    kinds: frozenset[str] | None = None
    mindepth: int = 0
    maxdepth: int | None = None
    depth_first: bool = False
    tool: str = "find"
    dot_git: bool = True  # it may reach `.git` (fd skips hidden entries unless -H)

    @property
    def understood(self) -> bool:
        return self.expr is not None


class _Unreadable(Exception):
    """An expression we do not read (the search is then taken to select everything)."""


def find_layout(literals: Sequence[str | None]) -> tuple[int, int, bool]:
    """Where find's start paths begin and end in its arguments (the literals after `find`,
    None for a word known only at run time), and whether a leading -H or -L follows
    symlinks. As GNU find reads them: leading options (-H -L -P, -D ARG, -O LEVEL) up to
    `--`; then every word is a start path until one that looks like an expression: `-X`
    (two characters or more), `(` or `!` (`-`, `)` and `,` are start paths there)."""
    i, follow = 0, False
    while i < len(literals):
        value = literals[i]
        if value == "--":
            i += 1
            break
        if value in ("-H", "-L", "-P") or (value or "").startswith("-O") and len(value or "") > 2:
            follow = follow or value in ("-H", "-L")
            i += 1
        elif value == "-D":
            i += 2
        else:
            break
    first = min(i, len(literals))
    while i < len(literals) and not _looks_like_expression(literals[i]):
        i += 1
    return first, i, follow


def _looks_like_expression(value: str | None) -> bool:
    if value is None:
        return False  # a start path known only at run time
    return (value.startswith("-") and len(value) > 1) or value in ("(", "!")


def starts_from_file(expression: Sequence[str | None]) -> bool:
    """`find -files0-from LIST`: GNU find reads its start paths from LIST (`-`: stdin), never
    from the command line (it refuses both): where it searches is known only at run time."""
    return "-files0-from" in expression


def find_parts(words: Sequence[Word]) -> tuple[list[str], list[str | None], bool]:
    """(start paths, expression words, whether symlinks are followed) of `find ARGS`;
    raises _Unreadable when a start path is not literal or is read from a file."""
    literals = [w.literal() for w in words]
    first, end, follow = find_layout(literals)
    if starts_from_file(literals[end:]):
        raise _Unreadable
    starts: list[str] = []
    for word, value in zip(words[first:end], literals[first:end], strict=True):
        if value is None or word.has_glob:
            raise _Unreadable
        starts.append(value)
    return starts or ["."], literals[end:], follow


class _Parser:
    """find's expression grammar: `,` < `-o` < `-a`/juxtaposition < `!` < primaries."""

    def __init__(self, words: list[str | None], target: int | None, printing: bool) -> None:
        self.words, self.target, self.printing = words, target, printing
        self.i = 0
        self.actions = 0  # actions that print or run something (find adds -print otherwise)
        self.execs = 0
        self.options: dict[str, str] = {}
        self.flags: set[str] = set()
        self.nodes = 0

    def peek(self) -> str | None:
        return self.words[self.i] if self.i < len(self.words) else None

    def take(self) -> str:
        if self.i >= len(self.words) or self.words[self.i] is None:
            raise _Unreadable
        word = self.words[self.i]
        self.i += 1
        return word or ""

    def parse(self) -> Node:
        if not self.words:
            return TRUE
        node = self.comma()
        if self.i != len(self.words):
            raise _Unreadable
        return node

    def comma(self) -> Node:
        node = self.disjunction()
        while self.peek() == ",":
            self.i += 1
            node = Node("list", (node, self.disjunction()))
        return node

    def disjunction(self) -> Node:
        node = self.conjunction()
        while self.peek() in ("-o", "-or"):
            self.i += 1
            node = Node("or", (node, self.conjunction()))
        return node

    def conjunction(self) -> Node:
        node = self.unary()
        while self.peek() not in (None, ",", "-o", "-or", ")") or (
            self.i < len(self.words) and self.words[self.i] is None
        ):
            if self.peek() in ("-a", "-and"):
                self.i += 1
            node = Node("and", (node, self.unary()))
        return node

    def unary(self) -> Node:
        self.nodes += 1
        if self.nodes > _MAX_NODES:
            raise _Unreadable
        word = self.peek()
        if word in ("!", "-not"):
            self.i += 1
            return Node("not", (self.unary(),))
        if word == "(":
            self.i += 1
            node = self.comma()
            if self.peek() != ")":
                raise _Unreadable
            self.i += 1
            return node
        return self.primary(self.take())

    def primary(self, word: str) -> Node:
        if word in _NAME_TESTS:
            arg = self.take()
            return Node("test", kind=word.lstrip("-").replace("wholename", "path"), arg=arg)
        if word in _META_TESTS or word.startswith("-newer"):
            self.take()
            return Node("test", kind="unknown")
        if word in _META_FLAGS:
            return TRUE if word == "-true" else Node("test", kind=word.lstrip("-"))
        if word in _OPTIONS_ARG:
            self.options[word] = self.take()
            return TRUE
        if word in _OPTIONS or word in _FOLLOW:
            self.flags.add(word)
            return TRUE
        if word == "-prune":
            return Node("prune")
        if word in ("-quit",):
            return TRUE  # stopping early only selects less
        if word == "-delete":
            self.actions += 1
            self.flags.add("-depth")
            return Node("target") if self.target == -1 else TRUE
        if word in _PRINTS:
            self.actions += 1
            return Node("target") if self.printing else TRUE
        if word in _OUTPUTS:
            self.actions += 1
            if word in ("-printf", "-fprint", "-fprint0", "-fprintf", "-fls"):
                self.take()
            if word == "-fprintf":
                self.take()
            if self.printing and word in ("-printf", "-ls"):
                raise _Unreadable  # what reaches xargs is not the path as found
            return TRUE
        if word in _EXEC:
            return self.exec()
        raise _Unreadable

    def exec(self) -> Node:
        if self.printing:
            raise _Unreadable  # what the command prints reaches xargs too
        self.actions += 1
        index = self.execs
        self.execs += 1
        plus = False
        while True:
            word = self.peek()
            self.i += 1
            if self.i > len(self.words):
                raise _Unreadable
            if word == ";":
                break
            if word == "+" and self.words[self.i - 2] == "{}":
                plus = True
                break
        if index == self.target:
            return Node("target")
        return TRUE if plus else Node("either")


def _depth(options: dict[str, str], name: str) -> int | None:
    value = options.get(name)
    if value is None:
        return None
    if not value.isdigit():
        raise _Unreadable
    return int(value)


def find_search(
    words: Sequence[Word],
    base: str | None,
    *,
    target: int | None = None,
    printing: bool = False,
    subtree: bool = False,
) -> Search | None:
    """The search `find ARGS` (words after `find`) does for one destroying action: target
    -1 is `-delete`, N the N-th `-exec`, printing the paths it prints (for xargs). None when
    even the start paths are unknown (the caller keeps its old reading)."""
    try:
        starts, expression, follow = find_parts(words)
    except _Unreadable:
        return None
    parser = _Parser(list(expression), target, printing)
    try:
        expr = parser.parse()
        regextype = parser.options.get("-regextype", "emacs")
        if regextype not in _REGEX_TYPES:
            raise _Unreadable
        if printing and parser.actions == 0:
            expr = Node("and", (expr, Node("target")))  # find's implicit -print
        mindepth = _depth(parser.options, "-mindepth") or 0
        maxdepth = _depth(parser.options, "-maxdepth")
    except _Unreadable:
        return Search(tuple(starts), base, None, subtree)
    if follow or parser.flags & _FOLLOW:
        return Search(tuple(starts), base, None, subtree)
    if regextype != "emacs":
        expr = _with_regextype(expr, regextype)
    depth_first = "-depth" in parser.flags or "-d" in parser.flags
    return Search(tuple(starts), base, expr, subtree, False, None, mindepth, maxdepth, depth_first)


def _with_regextype(node: Node, regextype: str) -> Node:
    if node.op == "test" and node.kind in ("regex", "iregex"):
        return Node("test", kind=f"{node.kind}:{regextype}", arg=node.arg)
    if node.kids:
        return Node(node.op, tuple(_with_regextype(k, regextype) for k in node.kids))
    return node


def regex_of(kind: str, pattern: str) -> re.Pattern[str]:
    """find's -regex/-iregex pattern (emacs syntax by default) as a Python pattern; raises
    re.error when it cannot be read."""
    flavour = kind.partition(":")[2] or "emacs"
    flags = re.I if kind.startswith("iregex") else 0
    if flavour in ("posix-extended", "egrep"):
        return re.compile(pattern, flags)
    out: list[str] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            out.append(nxt if nxt in "(){}|" else "\\" + nxt)
            i += 2
            continue
        if c in "(){}|" or (flavour == "posix-basic" and c in "+?"):
            out.append("\\" + c)
        else:
            out.append(c)
        i += 1
    return re.compile("".join(out), flags)


def glob_regex(pattern: str, ignore_case: bool = False) -> re.Pattern[str]:
    """A shell pattern as fnmatch(3) reads it without FNM_PATHNAME (`*` also matches `/`,
    `\\x` is x), as -name, -path and git's pathspecs use it."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        if c == "*":
            out.append(".*")
        elif c == "?":
            out.append(".")
        elif c == "[":
            end = pattern.find("]", i + 2 if pattern[i + 1 : i + 2] in ("!", "^") else i + 1)
            if end < 0:
                out.append(re.escape(c))
            else:
                body = pattern[i + 1 : end]
                if body[:1] in ("!", "^"):
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = end
        else:
            out.append(re.escape(c))
        i += 1
    return re.compile("(?s:" + "".join(out) + r")\Z", re.I if ignore_case else 0)
