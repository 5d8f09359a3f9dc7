"""interlock's own model of a shell command line, built from bashlex.

Rules never see bashlex: they see these types. A `Word` knows whether it is a plain literal
(`literal()` returns its value after quote removal) or contains an expansion (`None`).

`parse(text)` never raises. It masks what bashlex cannot read (shellprep.py), converts
bashlex's tree, and falls back to the conservative parser (shellfallback.py) when bashlex
fails, marking the result `degraded`. Word values always come from interlock's own scanner
(shelllex.py), so `$'a\\nb'`, `${X:-$(cmd)}` and other spots where bashlex is wrong or blind
read the same whichever parser built the tree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from interlock.shellprep import Mask, Prepared
    from interlock.shelltokens import Tokenizer

ParseStatus = Literal["ok", "degraded", "unparsed"]


@dataclass(frozen=True)
class Word:
    """One shell word, e.g. `"$HOME"/x` or `'a b'`.

    `text` is the source text; `value` the literal after quote removal, or None when any part
    is a parameter, command, arithmetic or process expansion, a tilde (`~/x`: never resolved to
    $HOME) or a brace expansion (`{a,b}`). `has_glob` is True for unquoted `*`, `?`, `[...]`
    and extglob groups. `substitutions` holds the parsed `$(...)`, backtick and `<(...)`
    bodies found in the word, so the walker can visit them.
    """

    text: str
    value: str | None
    has_glob: bool = False
    substitutions: tuple[Node, ...] = ()

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


# -- parsing -------------------------------------------------------------------------------

MAX_DEPTH = 24  # command substitutions nested inside each other that one parse() reads
_EMPTY = CommandList((), ())


class _TooDeep(Exception):
    """Substitutions nested deeper than MAX_DEPTH."""


def parse(text: str) -> ParseResult:
    """Read a command line into interlock's types; never raises (see the module docstring)."""
    reader = _Reader()
    try:
        root = reader.read(text, 0)
    except (_TooDeep, RecursionError):
        reason = f"command substitutions nested more than {MAX_DEPTH} deep"
        return ParseResult(text, None, "unparsed", error=reason)
    status: ParseStatus = "degraded" if reader.degraded else "ok"
    if reader.incomplete:  # bash would refuse it: the root is only a conservative reading
        status = "unparsed"
    notes = tuple(reader.notes)
    return ParseResult(text, root, status, reader.error, reader.column, reader.incomplete, notes)


class _Reader:
    """One parse() call: reads the text and every substitution body inside it."""

    def __init__(self) -> None:
        self.degraded = False
        self.incomplete = False
        self.error: str | None = None
        self.column: int | None = None
        self.notes: list[str] = []

    def read(self, text: str, depth: int) -> Node | None:
        if depth > MAX_DEPTH:
            raise _TooDeep
        if not text.strip():
            return None
        from interlock.shellfallback import is_plain, parse_fallback
        from interlock.shellprep import prepare
        from interlock.shelltokens import tokenize

        tokenizer = tokenize(text)
        if tokenizer.incomplete:  # bash refuses it too; bashlex can even hang on it (`${`)
            return self._fallback(text, tokenizer, depth, "incomplete", None)
        if is_plain(tokenizer.tokens):  # words and list operators only: the reading is exact
            return parse_fallback(text, tokenizer, lambda body: self.read(body, depth + 1))[0]
        prepared = prepare(text, tokenizer)
        try:
            trees = _bashlex_parse(prepared.text)
        except (
            Exception
        ) as exc:  # bashlex raises many kinds: ParsingError, NotImplementedError, ...
            column = getattr(exc, "position", None)
            return self._fallback(text, tokenizer, depth, _describe(exc), column)
        try:
            return _Converter(self, text, prepared, depth).top(trees)
        except (AttributeError, IndexError, KeyError, TypeError, ValueError) as exc:
            return self._fallback(text, tokenizer, depth, f"unexpected bashlex tree: {exc!r}", None)

    def _fallback(
        self, text: str, tokenizer: Tokenizer, depth: int, reason: str, column: object
    ) -> Node | None:
        from interlock.shellfallback import parse_fallback

        self.degraded = True
        if tokenizer.incomplete:
            self.incomplete = True
            reason = tokenizer.error or reason
            column = tokenizer.column
        if depth > 0:
            reason = f"a substitution was read by the fallback: {reason}"
            self.notes.append(reason)
            column = None
        if self.error is None:
            self.error = reason
            self.column = column if isinstance(column, int) else None
        root, unterminated = parse_fallback(text, tokenizer, lambda b: self.read(b, depth + 1))
        if unterminated is not None and not self.incomplete:
            self.incomplete = True
            where = "the command line" if depth == 0 else "a substitution"
            self.error = f"unexpected end of {where}: {unterminated} expected"
            self.column = len(text) if depth == 0 else None
        return root


def _describe(exc: Exception) -> str:
    message = getattr(exc, "message", None) or str(exc) or type(exc).__name__
    return f"bashlex: {message}"


def _bashlex_parse(text: str) -> list[Any]:
    import bashlex

    _guard_bashlex()
    return list(bashlex.parse(text))


def _guard_bashlex() -> None:
    """bashlex 0.18 loops forever on a `${` with no `}` after it in the word it expands (even
    inside single quotes: `echo '${'`); make that a parse error, which we fall back from."""
    import bashlex.errors
    import bashlex.subst

    original = getattr(bashlex.subst, "_paramexpand", None)
    if original is None or getattr(original, "interlock_guard", False):
        return

    def guarded(parserobj: Any, string: str, sindex: int) -> Any:
        if string.startswith("${", sindex) and string.find("}", sindex + 2) < 0:
            raise bashlex.errors.ParsingError("bad substitution: no closing `}`", string, sindex)
        return original(parserobj, string, sindex)

    guarded.interlock_guard = True  # type: ignore[attr-defined]
    bashlex.subst._paramexpand = guarded


class _Converter:
    """bashlex nodes -> interlock's types, for one (masked) text."""

    def __init__(self, reader: _Reader, source: str, prepared: Prepared, depth: int) -> None:
        self.reader = reader
        self.src = source
        self.masks = prepared.masks
        self.depth = depth

    def sub(self, body: str) -> Node | None:
        return self.reader.read(body, self.depth + 1)

    def text(self, n: Any) -> str:
        return self.src[n.pos[0] : n.pos[1]]

    def top(self, trees: list[Any]) -> Node | None:
        nodes = [node for node in (self.node(t) for t in trees) if node is not None]
        if len(nodes) <= 1:
            return nodes[0] if nodes else None
        items: list[Node] = []
        ops: list[str] = []
        for node in nodes:
            if isinstance(node, CommandList) and node.items:
                items.extend(node.items)
                ops.extend(node.ops[:-1])
                ops.append(node.ops[-1] or ";")
            else:
                items.append(node)
                ops.append(";")
        return CommandList(tuple(items), tuple(ops), self.src)

    def node(self, n: Any) -> Node | None:
        kind = n.kind
        if kind == "list":
            return self.list(n)
        if kind == "pipeline":
            return self.pipeline(n)
        if kind == "command":
            return self.command(n)
        if kind == "compound":
            return self.compound(n)
        if kind == "function":
            body = self.node(n.body) or _EMPTY
            return Compound("function", (body,), name=n.name.word, text=self.text(n))
        if kind in ("reservedword", "operator", "pipe"):
            return None
        raise ValueError(f"bashlex node kind {kind}")

    def list(self, n: Any) -> Node | None:
        items: list[Node] = []
        ops: list[str] = []
        for part in n.parts:
            if part.kind == "operator":
                if len(ops) < len(items):
                    ops.append(";" if part.op == "\n" else part.op)
                continue
            node = self.node(part)
            if node is None:
                continue
            if len(ops) < len(items):
                ops.append(";")
            items.append(node)
        ops.extend("" for _ in range(len(items) - len(ops)))
        if len(items) == 1 and ops[0] in ("", ";"):
            return items[0]
        return CommandList(tuple(items), tuple(ops), self.text(n)) if items else None

    def pipeline(self, n: Any) -> Node | None:
        negated = False
        commands: list[Node] = []
        stderr: list[bool] = []
        for part in n.parts:
            if part.kind == "reservedword" and part.word == "!":
                negated = not negated
            elif part.kind == "pipe":
                stderr.append(part.pipe == "|&")
            elif (node := self.node(part)) is not None:
                commands.append(node)
        if len(commands) == 1 and not negated:
            return commands[0]
        return Pipeline(tuple(commands), negated, self.text(n), tuple(stderr))

    def command(self, n: Any) -> Node:
        first = n.parts[0]
        mask = self.masks.get(first.pos[0]) if first.kind == "word" else None
        if mask is not None and mask.kind in ("cond", "arith"):
            return self.masked_compound(n, mask)
        assignments: list[Word] = []
        words: list[Word] = []
        redirects: list[Redirect] = []
        for part in n.parts:
            if part.kind == "assignment" and not words:
                assignments.append(self.word(part))
            elif part.kind in ("word", "assignment"):
                words.append(self.word(part))
            elif part.kind == "redirect":
                redirects.append(self.redirect(part))
        return SimpleCommand(tuple(assignments), tuple(words), tuple(redirects), self.text(n))

    def masked_compound(self, n: Any, mask: Mask) -> Compound:
        from interlock.shellfallback import token_word

        words = tuple(token_word(mask.source, tok, self.sub) for tok in mask.tokens)
        redirects = tuple(self.redirect(p) for p in n.parts if p.kind == "redirect")
        kind = "arith" if mask.kind == "arith" else "cond"
        return Compound(kind, (), words, redirects, text=self.src[mask.start : mask.end])

    def word(self, n: Any) -> Word:
        from interlock.shelllex import scan_word

        start, end = n.pos
        scan = scan_word(self.src, start, end)
        # bashlex also reports substitutions inside single quotes: only the scanner's count.
        found = {p.pos[0]: p for p in n.parts if p.kind.endswith("substitution")}
        nodes: list[Node] = []
        for sub in scan.subs:
            known = found.pop(sub.start, None)
            if known is not None and sub.kind != "backtick" and known.command is not None:
                node = self.node(known.command)
            else:
                body = sub.body(self.src)
                node = self.sub(body) if body.strip() else None
            if node is not None:
                nodes.append(node)
        return Word(self.src[start:end], scan.value, scan.has_glob, tuple(nodes))

    def redirect(self, n: Any) -> Redirect:
        output = n.output
        fd = n.input if isinstance(n.input, int) else None
        if isinstance(output, int) or isinstance(output, str):
            return Redirect(n.type, fd, Word(str(output), str(output)))
        mask = self.masks.get(output.pos[0])
        if mask is not None and mask.kind == "heredoc" and mask.doc is not None:
            return self.heredoc(fd, mask)
        return Redirect(n.type, fd, self.word(output))

    def heredoc(self, fd: int | None, mask: Mask) -> Redirect:
        from interlock.shelllex import find_subs

        doc = mask.doc
        assert doc is not None
        op = "<<-" if doc.strip_tabs else "<<"
        delimiter = self.src[mask.start - 1 + len(op) : mask.end].strip()
        nodes: list[Node] = []
        if not doc.quoted:
            body_end = doc.body_start + len(doc.body)
            for sub in find_subs(self.src, doc.body_start, body_end):
                body = sub.body(self.src)
                if body.strip() and (node := self.sub(body)) is not None:
                    nodes.append(node)
        target = Word(delimiter, doc.delimiter)
        return Redirect(op, fd, target, doc.body, doc.quoted, tuple(nodes))

    def compound(self, n: Any) -> Node:
        redirects = tuple(self.redirect(r) for r in n.redirects)
        first = n.list[0]
        if first.kind == "reservedword" and first.word in ("(", "{"):
            body = self.node(n.list[1]) if len(n.list) > 2 else None
            kind = "subshell" if first.word == "(" else "group"
            return Compound(kind, (body or _EMPTY,), redirects=redirects, text=self.text(n))
        kind = first.kind
        parts: list[Node] = []
        words: list[Word] = []
        has_else = False
        seen_in = False
        for part in first.parts:
            if part.kind == "reservedword":
                has_else |= part.word == "else"
                seen_in |= part.word == "in"
            elif part.kind == "word":
                mask = self.masks.get(part.pos[0])
                if seen_in:
                    words.append(self.word(part))
                elif mask is not None and mask.kind == "arith":
                    words.append(self.masked_compound(part, mask).words[0])
            else:
                parts.append(self.node(part) or _EMPTY)
        return Compound(kind, tuple(parts), tuple(words), redirects, has_else, text=self.text(n))
