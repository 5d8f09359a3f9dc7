"""Operator-aware tokenizer for shell text: words, operators, redirections and heredocs.

Used by the fallback parser (fallback.py) and by parse() to find heredoc bodies and
arithmetic before bashlex sees the text. Never raises: an unclosed quote or substitution
sets `incomplete` and the rest of the text becomes part of the open word.
"""

from __future__ import annotations

from dataclasses import dataclass

from interlock.shell.lex import METACHARS, WordScan, scan_word, skip_group

OPERATORS = (";;&", ";;", ";&", ";", "&&", "&", "||", "|&", "|", "(", ")")
REDIRECTS = ("<<<", "<<-", "<<", "<>", "<&", "<", ">>", ">&", ">|", ">", "&>>", "&>")
_CMD_START_OPS = frozenset({";", "&", "&&", "||", "|", "|&", "(", "\n", ";;", ";&", ";;&"})
_CMD_START_WORDS = frozenset({"then", "do", "else", "elif", "if", "while", "until", "!", "{"})
_CMD_START_WORDS |= {"time", "for"}

# A redirection's fd is ASCII digits: `¹<x` is a word (str.isdigit() accepts `¹`).
_DIGITS = frozenset("0123456789")


@dataclass
class HereDoc:
    """A here-document: `<<EOF` (or `<<-'EOF'`) and the body lines that follow."""

    delimiter: str
    quoted: bool
    strip_tabs: bool
    body_start: int = 0
    body_end: int = 0  # index after the terminator line (or the end of the text)
    body: str = ""
    closed: bool = False


@dataclass
class Token:
    """kind: word, op (`;` `&&` `|` `(` newline ...), redir (`>`, `2>&`, `<<` ...) or arith
    (`(( ... ))` in command position). For a heredoc redir, end is after the delimiter."""

    kind: str
    text: str
    start: int
    end: int
    scan: WordScan | None = None
    fd: int | None = None
    heredoc: HereDoc | None = None


class Tokenizer:
    """Split text into tokens; see the module docstring."""

    def __init__(self, text: str) -> None:
        self.s = text
        self.tokens: list[Token] = []
        self.heredocs: list[tuple[Token, HereDoc]] = []
        self.incomplete = False
        self.error: str | None = None
        self.column: int | None = None
        self._pending: list[HereDoc] = []

    def run(self) -> list[Token]:
        s, n, i = self.s, len(self.s), 0
        while i < n:
            c = s[i]
            if c in " \t\r":
                i += 1
            elif c == "\\" and s.startswith("\n", i + 1):
                i += 2
            elif c == "#":
                j = s.find("\n", i)
                i = n if j < 0 else j
            elif c == "\n":
                self.tokens.append(Token("op", "\n", i, i + 1))
                i = self._read_heredocs(i + 1)
            elif c == "(" and s.startswith("((", i) and self._command_position():
                i = self._arith(i)
            elif c in "<>" and s.startswith("(", i + 1):
                i = self._word(i)
            elif c in ";&|()<>":
                i = self._operator(i)
            elif c in _DIGITS and (j := self._fd_digits_end(i)):
                i = self._operator(j, fd=int(s[i:j]), start=i)
            else:
                i = self._word(i)
        if self._pending:
            for doc in self._pending:
                doc.body_start = doc.body_end = n
            self._pending = []
        return self.tokens

    def _note(self, message: str, at: int) -> None:
        if self.error is None:
            self.error, self.column = message, at

    def _command_position(self) -> bool:
        return is_command_position(self.tokens, len(self.tokens))

    def _word(self, i: int) -> int:
        scan = scan_word(self.s, i)
        if scan.end == i:  # a lone metacharacter that is not an operator: keep it as a word
            scan.end = i + 1
            scan.lit(self.s[i])
        if scan.incomplete:
            self.incomplete = True
            self._note("unclosed quote or substitution", i)
        self.tokens.append(Token("word", self.s[i : scan.end], i, scan.end, scan=scan))
        return scan.end

    def _arith(self, i: int) -> int:
        end, closed = skip_group(self.s, i + 2, len(self.s), ")")
        if closed and end < len(self.s) and self.s[end] == ")":
            end += 1
        elif not closed:
            self.incomplete = True
            self._note("unclosed `((`", i)
        self.tokens.append(Token("arith", self.s[i:end], i, end))
        return end

    def _fd_digits_end(self, i: int) -> int:
        """For `2>x`: the index of the `>` after the digits, or 0 when this is a word."""
        j = i
        while j < len(self.s) and self.s[j] in _DIGITS:
            j += 1
        if j >= len(self.s) or self.s[j] not in "<>" or self.s.startswith("(", j + 1):
            return 0
        return j

    def _operator(self, i: int, fd: int | None = None, start: int | None = None) -> int:
        s = self.s
        begin = i if start is None else start
        for op in REDIRECTS:
            if s.startswith(op, i):
                token = Token("redir", op, begin, i + len(op), fd=fd)
                self.tokens.append(token)
                if op in ("<<", "<<-"):
                    return self._heredoc_delimiter(token, i + len(op), op == "<<-")
                return i + len(op)
        for op in OPERATORS:
            if s.startswith(op, i):
                self.tokens.append(Token("op", op, i, i + len(op)))
                return i + len(op)
        self.tokens.append(Token("word", s[i], i, i + 1))  # unreachable for valid callers
        return i + 1

    def _heredoc_delimiter(self, token: Token, i: int, strip_tabs: bool) -> int:
        s, n = self.s, len(self.s)
        while i < n and s[i] in " \t":
            i += 1
        if i >= n or s[i] in METACHARS:
            self._note("here-document without a delimiter", token.start)
            return i
        scan = scan_word(s, i)
        text = s[i : scan.end]
        delimiter = "".join(ch for ch in text if ch not in "'\"\\")
        if text.startswith("$'") or text.startswith('$"'):
            delimiter = delimiter[1:]
        quoted = any(ch in text for ch in "'\"\\")
        doc = HereDoc(delimiter, quoted, strip_tabs)
        token.heredoc = doc
        token.end = scan.end
        token.text = s[token.start : scan.end]
        self.heredocs.append((token, doc))
        self._pending.append(doc)
        return scan.end

    def _read_heredocs(self, i: int) -> int:
        s, n = self.s, len(self.s)
        for doc in self._pending:
            doc.body_start = i
            while i < n:
                j = s.find("\n", i)
                line_end = n if j < 0 else j
                line = s[i:line_end].rstrip("\r")
                if doc.strip_tabs:
                    line = line.lstrip("\t")
                next_i = n if j < 0 else j + 1
                if line == doc.delimiter:
                    doc.body = s[doc.body_start : i]
                    doc.body_end, doc.closed = next_i, True
                    i = next_i
                    break
                i = next_i
            else:
                doc.body = s[doc.body_start : n]
                doc.body_end = n
        self._pending = []
        return i


def is_command_position(tokens: list[Token], k: int) -> bool:
    """Whether tokens[k] starts a command (roughly: after an operator or a keyword)."""
    if k == 0:
        return True
    last = tokens[k - 1]
    if last.kind == "op":
        return last.text in _CMD_START_OPS
    return last.kind == "word" and last.text in _CMD_START_WORDS


def tokenize(text: str) -> Tokenizer:
    """Run the tokenizer over text and return it (tokens, heredocs, incomplete, error)."""
    tokenizer = Tokenizer(text)
    tokenizer.run()
    return tokenizer
