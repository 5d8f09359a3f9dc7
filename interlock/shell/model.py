"""interlock's own model of a shell command line: the types every reader builds and every
rule sees (rules never see bashlex).

A `Word` knows whether it is a plain literal (`literal()` returns its value after quote
removal) or contains an expansion (`None`). `interlock.shell.parse.parse()` builds these.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

ParseStatus = Literal["ok", "degraded", "unparsed"]


@dataclass(frozen=True)
class Word:
    """One shell word, e.g. `"$HOME"/x` or `'a b'`.

    `text` is the source text; `value` the literal after quote removal, or None when any part
    is a parameter, command, arithmetic or process expansion, a tilde (`~/x`: never resolved to
    $HOME) or a brace expansion (`{a,b}`). `has_glob` is True for unquoted `*`, `?`, `[...]`
    and extglob groups. `substitutions` holds the parsed `$(...)`, backtick and `<(...)`
    bodies found in the word, so the walker can visit them. `carried`: commands whose output a
    variable in the word may hold (`P=$(pgrep x); kill $P`: the pgrep), put there by the
    walker (engine.shellvars); they do not run here. `place` is set by the walker on a
    word that names the shell's own directory (`"$(pwd)"`, `"$PWD/src"`, `"$(git rev-parse
    --show-toplevel)"`): that directory in engine.shellstate's terms, or None.
    """

    text: str
    value: str | None
    has_glob: bool = False
    substitutions: tuple[Node, ...] = ()
    carried: tuple[Node, ...] = field(default=(), compare=False)
    place: str | None = None

    def literal(self) -> str | None:
        return self.value


@dataclass(frozen=True)
class Redirect:
    """A redirection, e.g. `2>&1`, `> out.log`, `<<'EOF'`. For heredocs `heredoc` is the body
    and `target` the delimiter; `substitutions` holds the parsed `$(...)`/backtick bodies of
    an unquoted heredoc body (they run when the heredoc is read)."""

    op: str
    fd: int | None = None
    target: Word | None = None
    heredoc: str | None = None
    heredoc_quoted: bool = False
    substitutions: tuple[Node, ...] = ()


@dataclass(frozen=True)
class SimpleCommand:
    """Assignments, words and redirections, e.g. `FOO=1 git push -f 2>/dev/null`."""

    assignments: tuple[Word, ...]
    words: tuple[Word, ...]
    redirects: tuple[Redirect, ...] = ()
    text: str = ""


@dataclass(frozen=True)
class Pipeline:
    """`a | b | c`, possibly negated with `!`; `|&` is recorded per pipe in `stderr_pipes`."""

    commands: tuple[Node, ...]
    negated: bool = False
    text: str = ""
    stderr_pipes: tuple[bool, ...] = ()


@dataclass(frozen=True)
class CommandList:
    """Commands joined by operators: `items[i]` is followed by `ops[i]`.

    ops are `;`, `&`, `&&`, `||` (a newline is `;`); the last op may be `;`, `&` or ``.
    Precedence is already resolved: `&&`/`||` chains are flat and left-associative, and a
    `;`/`&` separates such chains.
    """

    items: tuple[Node, ...]
    ops: tuple[str, ...]
    text: str = ""


@dataclass(frozen=True)
class Compound:
    """A compound command: `kind` is subshell, group, if, while, until, for, select, case,
    function, arith (`(( ))`) or cond (`[[ ]]`).

    `parts` are the bodies in order: for `if`, [cond1, body1, cond2, body2, ..., else_body?];
    for `while`/`until`, [cond, body]; for `for`/`select`, [body]; for `case`, one per item;
    for `function`, [body]; for subshell/group, [body]. `has_else` tells an if's last part.
    `words` holds words the compound evaluates (the `for` list, the `case` subject, the
    contents of `[[ ]]`/`(( ))`), `name` a function's name.
    """

    kind: str
    parts: tuple[Node, ...] = ()
    words: tuple[Word, ...] = ()
    redirects: tuple[Redirect, ...] = ()
    has_else: bool = False
    name: str | None = None
    text: str = ""


Node = SimpleCommand | Pipeline | CommandList | Compound


@dataclass(frozen=True)
class ParseResult:
    """The outcome of reading a command line.

    status `ok`: read exactly (by bashlex, or by the tokenizer for plain lines of words and
    list operators); `degraded`: the fallback parser had to be used, so structure may be
    approximate; `unparsed`: bash would not run it as written or it cannot be read at all.
    `error` says why (with `column` when known). `incomplete` marks an unclosed quote,
    substitution or construct (`if` without `fi`, a trailing `&&`) as distinct from text too
    deeply nested to read: an incomplete result is `unparsed` but keeps in `root` a
    conservative reading (the open quote runs to the end), since bash runs the complete lines
    before the broken one; otherwise an unparsed `root` is None.
    """

    source: str
    root: Node | None
    status: ParseStatus
    error: str | None = None
    column: int | None = None
    incomplete: bool = False
    notes: tuple[str, ...] = field(default_factory=tuple)


EMPTY = CommandList((), ())  # a body that runs nothing
