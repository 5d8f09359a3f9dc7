"""The conservative parser used when bashlex cannot read a command line.

A small recursive-descent parser over tokens.py's tokens that builds the same types as
bashlex's path (CommandList, Pipeline, SimpleCommand, Compound). It is loose where bash is
strict: a stray `fi`, `)` or `then` is skipped, an unterminated `if`/`for`/`{` is closed at
the end of the text, `(`/`)` inside a simple command (`find . ( -name a )`) are kept as words,
so every command that could run is still seen. A ParseResult built from it is `degraded`.
"""

from __future__ import annotations

from collections.abc import Callable

from interlock.shell.lex import find_subs, is_assignment_text
from interlock.shell.model import (
    EMPTY,
    CommandList,
    Compound,
    Node,
    Pipeline,
    Redirect,
    SimpleCommand,
    Word,
)
from interlock.shell.tokens import Token, Tokenizer, is_command_position

SubParser = Callable[[str], "Node | None"]
_LIST_OPS = frozenset({";", "&", "&&", "||", "\n"})
_CASE_ENDS = frozenset({";;", ";&", ";;&"})
_STRAY_KEYWORDS = frozenset({"then", "do", "done", "fi", "else", "elif", "esac", "}", "in"})


_RESERVED = frozenset(
    "if then else elif fi do done case esac while until for select function { } [[ ]] ! time"
    " coproc in".split()
)
_PLAIN_OPS = frozenset({";", "&&", "||", "|", "|&", "&", "\n"})


def is_plain(tokens: list[Token]) -> bool:
    """Only words, redirections and list/pipe operators, no keyword where a command starts:
    this parser reads such a line exactly as bash (and bashlex) would, much faster."""
    have_command = False  # a syntax error (`; ls`, `a |`, `< ` with no file) is not plain
    need_command = False
    for k, tok in enumerate(tokens):
        if tok.kind == "op":
            if tok.text not in _PLAIN_OPS or (tok.text != "\n" and not have_command):
                return False
            need_command = need_command or tok.text in ("&&", "||", "|", "|&")
            have_command = False
        elif tok.kind == "arith":
            return False
        elif tok.kind == "redir":
            nxt = tokens[k + 1] if k + 1 < len(tokens) else None
            if tok.heredoc is None and (nxt is None or nxt.kind != "word"):
                return False
            have_command, need_command = True, False
        elif tok.text in _RESERVED and is_command_position(tokens, k):
            return False
        else:
            have_command, need_command = True, False
    return not need_command


def sub_nodes(bodies: list[str], sub_parser: SubParser) -> tuple[Node, ...]:
    """Parse substitution bodies; empty ones run nothing and are dropped."""
    nodes = (sub_parser(body) for body in bodies if body.strip())
    return tuple(node for node in nodes if node is not None)


def token_word(source: str, tok: Token, sub_parser: SubParser) -> Word:
    """The Word for a token (operators inside `[[ ]]` become literal words)."""
    if tok.scan is None:
        subs = find_subs(source, tok.start, tok.end) if tok.kind == "arith" else []
        nodes = sub_nodes([sub.body(source) for sub in subs], sub_parser)
        return Word(tok.text, None if tok.kind == "arith" else tok.text, False, nodes)
    bodies = [sub.body(source) for sub in tok.scan.subs]
    return Word(tok.text, tok.scan.value, tok.scan.has_glob, sub_nodes(bodies, sub_parser))


class FallbackParser:
    """Build a Node from tokens; see the module docstring."""

    def __init__(self, source: str, tokenizer: Tokenizer, sub_parser: SubParser) -> None:
        self.src = source
        self.toks = tokenizer.tokens
        self.i = 0
        self.sub_parser = sub_parser
        self.unterminated: str | None = None  # what bash would still wait for at the end

    def ended_early(self, missing: str) -> None:
        """At the end of the text with `missing` still open: bash refuses such a line."""
        if self.peek() is None and self.unterminated is None:
            self.unterminated = missing

    def parse(self) -> Node | None:
        nodes: list[Node] = []
        while self.i < len(self.toks):
            node = self.list(frozenset())
            if node is not None:
                nodes.append(node)
            if self.i < len(self.toks):  # a stray closer at the top level: skip it
                self.i += 1
        if not nodes:
            return None
        if len(nodes) == 1:
            return nodes[0]
        return CommandList(tuple(nodes), tuple(";" for _ in nodes), text=self.src)

    # -- helpers -------------------------------------------------------------------------
    def peek(self) -> Token | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def at_word(self, *texts: str) -> bool:
        tok = self.peek()
        return tok is not None and tok.kind == "word" and tok.text in texts

    def at_op(self, *texts: str) -> bool:
        tok = self.peek()
        return tok is not None and tok.kind == "op" and tok.text in texts

    def expect_word(self, text: str) -> None:
        if self.at_word(text):
            self.i += 1
        else:
            self.ended_early(f"`{text}`")

    def skip_newlines(self) -> None:
        while self.at_op("\n"):
            self.i += 1

    def is_stop(self, tok: Token, stops: frozenset[str]) -> bool:
        if tok.kind == "op":
            return tok.text in stops or (tok.text == ")" and ")" in stops)
        return tok.kind == "word" and tok.text in stops

    def span(self, first: int) -> str:
        if first >= self.i or first >= len(self.toks):
            return ""
        return self.src[self.toks[first].start : self.toks[self.i - 1].end]

    def word(self, tok: Token) -> Word:
        return token_word(self.src, tok, self.sub_parser)

    def _sub_nodes(self, bodies: list[str]) -> tuple[Node, ...]:
        return sub_nodes(bodies, self.sub_parser)

    # -- grammar -------------------------------------------------------------------------
    def list(self, stops: frozenset[str]) -> Node | None:
        first = self.i
        items: list[Node] = []
        ops: list[str] = []
        while True:
            self.skip_newlines()
            tok = self.peek()
            if tok is None or self.is_stop(tok, stops):
                break
            before = self.i
            item = self.pipeline(stops)
            if item is None:
                if self.i == before:
                    break
                continue
            items.append(item)
            if self.at_op(*_LIST_OPS):
                op = self.toks[self.i].text
                self.i += 1
                ops.append(";" if op == "\n" else op)
            else:
                ops.append("")
                break
        if not items:
            return None
        if ops[-1] in ("&&", "||"):
            self.ended_early(f"a command after `{ops[-1]}`")
            ops[-1] = ""
        if len(items) == 1 and ops[0] in ("", ";"):
            return items[0]
        return CommandList(tuple(items), tuple(ops), text=self.span(first))

    def pipeline(self, stops: frozenset[str]) -> Node | None:
        first = self.i
        negated = False
        while self.at_word("!", "time"):
            if self.toks[self.i].text == "!":
                negated = not negated
            elif self.i + 1 < len(self.toks) and self.toks[self.i + 1].text == "-p":
                self.i += 1  # `time -p`
            self.i += 1
        commands: list[Node] = []
        stderr: list[bool] = []
        command = self.command(stops)
        if command is None:
            return None
        commands.append(command)
        while self.at_op("|", "|&"):
            stderr.append(self.toks[self.i].text == "|&")
            self.i += 1
            self.skip_newlines()
            command = self.command(stops)
            if command is None:
                self.ended_early("a command after `|`")
                break
            commands.append(command)
        if len(commands) == 1 and not negated:
            return commands[0]
        return Pipeline(tuple(commands), negated, self.span(first), tuple(stderr))

    def command(self, stops: frozenset[str]) -> Node | None:
        tok = self.peek()
        if tok is None or self.is_stop(tok, stops):
            return None
        if tok.kind == "op":
            if tok.text == "(":
                self.i += 1
                return self.compound_tail("subshell", (self.body(")"),), self.i - 1)
            return None
        if tok.kind == "arith":
            self.i += 1
            return self.compound_tail("arith", (), self.i - 1, words=(self.word(tok),))
        handler = self._KEYWORDS.get(tok.text) if tok.kind == "word" else None
        if handler is not None:
            return handler(self, stops)
        if tok.kind == "word" and tok.text in _STRAY_KEYWORDS:
            self.i += 1  # loose: a keyword out of place acts as a separator
            return None
        if self._at_function_def():
            return self.function_def(stops)
        return self.simple()

    def body(self, closer: str) -> Node:
        node = self.list(frozenset({closer}))
        if (closer == ")" and self.at_op(")")) or self.at_word(closer):
            self.i += 1
        else:
            self.ended_early(f"`{closer}`")
        return node if node is not None else EMPTY

    def compound_tail(
        self,
        kind: str,
        parts: tuple[Node, ...],
        first: int,
        words: tuple[Word, ...] = (),
        has_else: bool = False,
        name: str | None = None,
    ) -> Compound:
        redirects: list[Redirect] = []
        while (tok := self.peek()) is not None and tok.kind == "redir":
            redirects.append(self.redirect())
        text = self.span(first)
        return Compound(kind, parts, words, tuple(redirects), has_else, name, text)

    def group(self, stops: frozenset[str]) -> Node:
        first = self.i
        self.i += 1
        return self.compound_tail("group", (self.body("}"),), first)

    def if_(self, stops: frozenset[str]) -> Node:
        first = self.i
        self.i += 1
        parts: list[Node] = [self.body("then")]
        parts.append(self.list(frozenset({"elif", "else", "fi"})) or EMPTY)
        while self.at_word("elif"):
            self.i += 1
            parts.append(self.body("then"))
            parts.append(self.list(frozenset({"elif", "else", "fi"})) or EMPTY)
        has_else = self.at_word("else")
        if has_else:
            self.i += 1
            parts.append(self.list(frozenset({"fi"})) or EMPTY)
        self.expect_word("fi")
        return self.compound_tail("if", tuple(parts), first, has_else=has_else)

    def while_(self, stops: frozenset[str]) -> Node:
        first = self.i
        kind = self.toks[self.i].text
        self.i += 1
        cond = self.body("do")
        body = self.body("done")
        return self.compound_tail(kind, (cond, body), first)

    def for_(self, stops: frozenset[str]) -> Node:
        first = self.i
        kind = self.toks[self.i].text
        self.i += 1
        words: list[Word] = []
        tok = self.peek()
        if tok is not None and tok.kind in ("word", "arith"):
            self.i += 1
            if tok.kind == "arith":
                words.append(self.word(tok))
        self.skip_newlines()
        if self.at_word("in"):
            self.i += 1
            while (tok := self.peek()) is not None and tok.kind == "word":
                words.append(self.word(tok))
                self.i += 1
        while self.at_op(";", "\n"):
            self.i += 1
        closer = "}" if self.at_word("{") else "done"
        if self.at_word("do", "{"):
            self.i += 1
        body = self.body(closer)
        return self.compound_tail(
            "select" if kind == "select" else "for", (body,), first, tuple(words)
        )

    def case(self, stops: frozenset[str]) -> Node:
        first = self.i
        self.i += 1
        words: list[Word] = []
        if (tok := self.peek()) is not None and tok.kind == "word":
            words.append(self.word(tok))
            self.i += 1
        self.skip_newlines()
        self.expect_word("in")
        items: list[Node] = []
        while True:
            self.skip_newlines()
            tok = self.peek()
            if tok is None or self.at_word("esac"):
                break
            before = self.i
            if self.at_op("("):
                self.i += 1
            while (tok := self.peek()) is not None and not (tok.kind == "op" and tok.text == ")"):
                if tok.kind == "word":
                    words.append(self.word(tok))
                elif tok.kind == "op" and tok.text != "|":
                    break
                self.i += 1
            if self.at_op(")"):
                self.i += 1
            items.append(self.list(_CASE_ENDS | {"esac"}) or EMPTY)
            if self.at_op(*_CASE_ENDS):
                self.i += 1
            if self.i == before:
                self.i += 1
        self.expect_word("esac")
        return self.compound_tail("case", tuple(items), first, tuple(words))

    def cond(self, stops: frozenset[str]) -> Node:
        first = self.i
        self.i += 1
        words: list[Word] = []
        while (tok := self.peek()) is not None and not (tok.kind == "word" and tok.text == "]]"):
            if tok.kind == "op" and tok.text in ("\n", ";", "&") and not words:
                break
            if tok.kind == "op" and tok.text in (";", "\n"):
                break
            words.append(self.word(tok))
            self.i += 1
        self.expect_word("]]")
        return self.compound_tail("cond", (), first, tuple(words))

    def coproc(self, stops: frozenset[str]) -> Node | None:
        self.i += 1
        tok = self.peek()
        nxt = self.toks[self.i + 1] if self.i + 1 < len(self.toks) else None
        if tok is not None and tok.kind == "word" and nxt is not None:
            if (nxt.kind == "op" and nxt.text == "(") or (nxt.kind == "word" and nxt.text == "{"):
                self.i += 1  # coproc NAME { ...; }
        return self.command(stops)

    def _at_function_def(self) -> bool:
        if self.i + 2 >= len(self.toks):
            return False
        a, b = self.toks[self.i + 1], self.toks[self.i + 2]
        return a.kind == "op" and a.text == "(" and b.kind == "op" and b.text == ")"

    def function_def(self, stops: frozenset[str]) -> Node:
        first = self.i
        if self.at_word("function"):
            self.i += 1
        name_tok = self.peek()
        name = name_tok.text if name_tok is not None else ""
        self.i += 1
        if self.at_op("(") and self.i + 1 < len(self.toks) and self.toks[self.i + 1].text == ")":
            self.i += 2
        self.skip_newlines()
        body = self.command(stops) or EMPTY
        return Compound("function", (body,), name=name, text=self.span(first))

    def function_kw(self, stops: frozenset[str]) -> Node | None:
        nxt = self.toks[self.i + 1] if self.i + 1 < len(self.toks) else None
        if nxt is None or nxt.kind != "word":
            return self.simple()
        return self.function_def(stops)

    def simple(self) -> Node | None:
        first = self.i
        assignments: list[Word] = []
        words: list[Word] = []
        redirects: list[Redirect] = []
        parens = 0
        while (tok := self.peek()) is not None:
            if tok.kind in ("word", "arith"):
                if not words and tok.kind == "word" and is_assignment_text(tok.text):
                    assignments.append(self.word(tok))
                else:
                    words.append(self.word(tok))
                self.i += 1
            elif tok.kind == "redir":
                redirects.append(self.redirect())
            elif words and tok.text == "(" or (tok.text == ")" and parens > 0):
                parens += 1 if tok.text == "(" else -1  # loose: `find . ( -name a )`
                words.append(Word(tok.text, tok.text))
                self.i += 1
            else:
                break
        if self.i == first:
            return None
        text = self.span(first)
        return SimpleCommand(tuple(assignments), tuple(words), tuple(redirects), text)

    def redirect(self) -> Redirect:
        tok = self.toks[self.i]
        self.i += 1
        doc = tok.heredoc
        if doc is not None:
            op = "<<-" if doc.strip_tabs else "<<"
            delim = self.src[tok.start : tok.end].split(op, 1)[-1].strip()
            subs = (
                []
                if doc.quoted
                else find_subs(self.src, doc.body_start, doc.body_start + len(doc.body))
            )
            nodes = self._sub_nodes([s.body(self.src) for s in subs])
            delimiter = Word(delim, doc.delimiter)
            return Redirect(op, tok.fd, delimiter, doc.body, doc.quoted, nodes)
        target: Word | None = None
        nxt = self.peek()
        if nxt is not None and nxt.kind == "word":
            target = self.word(nxt)
            self.i += 1
        return Redirect(tok.text, tok.fd, target)

    _KEYWORDS: dict[str, Callable[[FallbackParser, frozenset[str]], Node | None]] = {
        "{": group,
        "if": if_,
        "while": while_,
        "until": while_,
        "for": for_,
        "select": for_,
        "case": case,
        "[[": cond,
        "coproc": coproc,
        "function": function_kw,
    }


def parse_fallback(
    source: str, tokenizer: Tokenizer, sub_parser: SubParser
) -> tuple[Node | None, str | None]:
    """Build a Node from an already-run tokenizer (None when the text has no command), and
    what was still open at the end of the text (`fi`, a command after `&&`...), if anything.
    """
    parser = FallbackParser(source, tokenizer, sub_parser)
    return parser.parse(), parser.unterminated
