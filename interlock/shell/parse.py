"""Read a command line into interlock's model: `parse(text)`, which never raises.

One tokenization per text feeds every reader (parse once): the tokenizer's output decides the
fast path (a plain line of words and list operators is read exactly by the fallback parser,
without bashlex), feeds the masking of what bashlex cannot read (prep.py), gives the word scans
the bashlex conversion reuses (bashtree.py), and is the input of the conservative fallback
parser (fallback.py) when bashlex fails, which marks the result `degraded`. Substitution
bodies are read by the same path, each tokenized once per parse() call.
"""

from __future__ import annotations

from interlock.shell.bashtree import Converter, bashlex_parse
from interlock.shell.fallback import is_plain, parse_fallback
from interlock.shell.model import Node, ParseResult, ParseStatus
from interlock.shell.prep import prepare
from interlock.shell.tokens import Tokenizer, tokenize

MAX_DEPTH = 24  # command substitutions nested inside each other that one parse() reads


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
        self._tokenized: dict[str, Tokenizer] = {}

    def tokenize(self, text: str) -> Tokenizer:
        """Each distinct text once per parse(): the masking step and the reader share it."""
        tokenizer = self._tokenized.get(text)
        if tokenizer is None:
            tokenizer = self._tokenized[text] = tokenize(text)
        return tokenizer

    def read(self, text: str, depth: int) -> Node | None:
        if depth > MAX_DEPTH:
            raise _TooDeep
        if not text.strip():
            return None
        tokenizer = self.tokenize(text)
        if tokenizer.incomplete:  # bash refuses it too; bashlex can even hang on it (`${`)
            return self._fallback(text, tokenizer, depth, "incomplete", None)
        if is_plain(tokenizer.tokens):  # words and list operators only: the reading is exact
            return parse_fallback(text, tokenizer, lambda body: self.read(body, depth + 1))[0]
        prepared = prepare(text, tokenizer, self.tokenize)
        try:
            trees = bashlex_parse(prepared.text)
        except (
            Exception
        ) as exc:  # bashlex raises many kinds: ParsingError, NotImplementedError, ...
            column = getattr(exc, "position", None)
            return self._fallback(text, tokenizer, depth, _describe(exc), column)
        try:
            return Converter(text, prepared, lambda body: self.read(body, depth + 1)).top(trees)
        except (AttributeError, IndexError, KeyError, TypeError, ValueError) as exc:
            return self._fallback(text, tokenizer, depth, f"unexpected bashlex tree: {exc!r}", None)

    def _fallback(
        self, text: str, tokenizer: Tokenizer, depth: int, reason: str, column: object
    ) -> Node | None:
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
