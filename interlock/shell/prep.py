"""Rewrite shell text so that bashlex can read it, without moving any character.

bashlex fails on quoted heredoc delimiters, never looks inside heredoc bodies, and raises on
`$(( ))`, `$[ ]`, `(( ))`, `[[ ]]`, arrays (`a=(1 2)`) and the `time` keyword. `prepare()`
masks those spans with same-length placeholders (so every position bashlex reports is still a
position in the original text) and records what each mask stood for; bashtree.py puts the real
constructs back when it converts bashlex's tree:

- `<<'EOF'` + body  ->  `<____` + blank lines (a Mask of kind heredoc at the word's start)
- `$((1+2))`        ->  `${____}` (the word is re-read from the original text anyway)
- `a=(1 2)`         ->  `a=_____`
- `[[ -f x ]]`      ->  `__________` (kind cond, with the tokens inside)
- `(( i++ ))`       ->  `_________` (kind arith, with its token)
- `time -p`         ->  spaces
- CR                ->  space; a final backslash -> `_` (the word is re-read anyway)
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from interlock.shell.tokens import HereDoc, Token, Tokenizer, is_command_position, tokenize

_NEEDS_TOKENS = re.compile(r"<<|\(\(|\$\[|=\(|\[\[|(?:^|[\s;&|({!])time(?:\s|$)")
_MAX_NESTED = 20


@dataclass(frozen=True)
class Mask:
    """A span replaced for bashlex: kind heredoc (tokens: the redirect, doc set), cond
    (tokens: the words inside `[[ ]]`) or arith (tokens: the `(( ))` token)."""

    start: int
    end: int
    kind: str
    tokens: tuple[Token, ...] = ()
    doc: HereDoc | None = None
    source: str = ""  # the text the tokens' positions index into


@dataclass
class Prepared:
    """The text bashlex reads (same length as the source) and the masks by start index."""

    text: str
    masks: dict[int, Mask] = field(default_factory=dict)
    tokenizer: Tokenizer | None = None


def prepare(
    source: str,
    tokenizer: Tokenizer | None = None,
    tokenize_text: Callable[[str], Tokenizer] = tokenize,
) -> Prepared:
    """Mask what bashlex cannot read; see the module docstring. Pass the tokenizer already
    run over source, if any, and the caller's tokenizer for substitution bodies (parse()
    shares one per text), so that no text is tokenized twice."""
    chars: list[str] | None = None
    if "\r" in source:
        chars = list(source.replace("\r", " "))
    stripped = source.rstrip("\n")
    trailing = len(stripped) - len(stripped.rstrip("\\"))
    if trailing % 2 == 1:  # bash reads a final backslash as a literal `\`; bashlex fails
        chars = chars if chars is not None else list(source)
        chars[len(stripped) - 1] = "_"
    prepared = Prepared(source, tokenizer=tokenizer)
    if _NEEDS_TOKENS.search(source):
        chars = chars if chars is not None else list(source)
        prepared.tokenizer = tokenizer if tokenizer is not None else tokenize_text(source)
        masker = _Masker(source, chars, prepared, tokenize_text)
        _mask_tokens(masker, prepared.tokenizer.tokens, 0, 0)
        for token, doc in prepared.tokenizer.heredocs:
            _mask_heredoc(source, token, doc, chars, prepared)
    if chars is not None:
        prepared.text = "".join(chars)
    return prepared


def _fill(chars: list[str], start: int, end: int, text: str) -> None:
    chars[start:end] = list(text)


def _mask_heredoc(source: str, token: Token, doc: HereDoc, chars: list[str], out: Prepared) -> None:
    op_start = source.find("<<", token.start, token.end)
    if op_start < 0:
        return
    _fill(chars, op_start, token.end, "<" + "_" * (token.end - op_start - 1))
    for k in range(doc.body_start, doc.body_end):
        if chars[k] != "\n":
            chars[k] = " "
    out.masks[op_start + 1] = Mask(op_start + 1, token.end, "heredoc", (token,), doc, source)


@dataclass
class _Masker:
    """One prepare() call: the source, its characters as masked so far, the result, and the
    tokenizer for substitution bodies."""

    source: str
    chars: list[str]
    out: Prepared
    tokenize_text: Callable[[str], Tokenizer]


def _mask_tokens(m: _Masker, tokens: list[Token], offset: int, depth: int) -> None:
    source, chars, out = m.source, m.chars, m.out
    base = source[offset:] if offset else source
    k = 0
    while k < len(tokens):
        tok = tokens[k]
        start, end = tok.start + offset, tok.end + offset
        if tok.kind == "arith" and is_command_position(tokens, k):
            _fill(chars, start, end, "_" * (end - start))
            out.masks[start] = Mask(start, end, "arith", (tok,), source=base)
        elif tok.kind == "word" and tok.text == "[[" and is_command_position(tokens, k):
            close = next((m for m in range(k + 1, len(tokens)) if tokens[m].text == "]]"), -1)
            if close > 0:
                stop = tokens[close].end + offset
                _fill(chars, start, stop, "_" * (stop - start))
                out.masks[start] = Mask(
                    start, stop, "cond", tuple(tokens[k + 1 : close]), source=base
                )
                k = close
        elif tok.kind == "word" and tok.text == "time" and is_command_position(tokens, k):
            _fill(chars, start, end, " " * (end - start))
            if k + 1 < len(tokens) and tokens[k + 1].text == "-p":
                nxt = tokens[k + 1]
                _fill(chars, nxt.start + offset, nxt.end + offset, "  ")
                k += 1
        elif tok.scan is not None:
            _mask_word(m, tok, offset, depth)
        k += 1


def _mask_word(m: _Masker, tok: Token, offset: int, depth: int) -> None:
    source, chars, out = m.source, m.chars, m.out
    assert tok.scan is not None
    for a, b in tok.scan.arith:
        a, b = a + offset, b + offset
        filler = "${" + "_" * (b - a - 3) + "}" if b - a >= 4 else "$" + "_" * (b - a - 1)
        _fill(chars, a, b, filler)
    if tok.scan.array is not None:
        a, b = tok.scan.array
        _fill(chars, a + offset, b + offset, "_" * (b - a))
    if depth >= _MAX_NESTED:
        return
    for sub in tok.scan.subs:
        if sub.kind == "backtick" or (tok.scan.array and tok.scan.array[0] <= sub.start):
            continue
        if any(a <= sub.start < b for a, b in tok.scan.arith):
            continue
        start = sub.body_start + offset
        body = source[start : sub.body_end + offset]
        if _NEEDS_TOKENS.search(body):
            inner = m.tokenize_text(body)
            _mask_tokens(m, inner.tokens, start, depth + 1)
            for token, doc in inner.heredocs:
                shifted = Token(token.kind, token.text, token.start + start, token.end + start)
                moved = HereDoc(doc.delimiter, doc.quoted, doc.strip_tabs)
                moved.body_start, moved.body_end = doc.body_start + start, doc.body_end + start
                moved.body, moved.closed = doc.body, doc.closed
                shifted.fd, shifted.heredoc = token.fd, moved
                _mask_heredoc(source, shifted, moved, chars, out)
