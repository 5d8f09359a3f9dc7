"""A small scanner for C-like test files (JS/TS, Go, Rust, Java/Kotlin).

`scan()` blanks comments and the contents of string literals, keeping offsets and newlines,
so that regular expressions and bracket matching over the result never see code inside a
comment or a string. The original text is still used for names and assertion keys.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

_OPEN = {"(": ")", "[": "]", "{": "}"}


@dataclass(frozen=True)
class CCheck:
    """One assertion in a non-Python test, e.g. `expect(total).toBe(3)`."""

    key: str
    subject: str
    rank: int
    text: str
    line: int
    expected: str = ""


@dataclass
class CTest:
    """One test block/function with its assertions and whether it runs."""

    ident: str
    name: str
    line: int
    body: str
    checks: list[CCheck] = field(default_factory=list)
    skip: str | None = None
    skip_truth: str = "always"
    focus: bool = False


@dataclass
class Scanned:
    """Original text, the blanked code, and line offsets."""

    text: str
    code: str
    starts: list[int]

    def line_of(self, offset: int) -> int:
        low, high = 0, len(self.starts) - 1
        while low < high:
            mid = (low + high + 1) // 2
            if self.starts[mid] <= offset:
                low = mid
            else:
                high = mid - 1
        return low + 1

    def original(self, start: int, end: int) -> str:
        return self.text[start:end]

    def squash(self, start: int, end: int) -> str:
        return re.sub(r"\s+", " ", self.text[start:end]).strip()


def _blank(chars: list[str], start: int, end: int) -> None:
    for i in range(start, min(end, len(chars))):
        if chars[i] != "\n":
            chars[i] = " "


def _string_end(text: str, i: int, quote: str, escapes: bool = True) -> int:
    """Offset just past the string starting at text[i] == quote."""
    j = i + len(quote)
    while j < len(text):
        if escapes and text[j] == "\\":
            j += 2
            continue
        if text.startswith(quote, j):
            return j + len(quote)
        if len(quote) == 1 and quote != "`" and text[j] == "\n":
            return j
        j += 1
    return len(text)


def scan(text: str, lang: str) -> Scanned:
    """Blank comments and string contents (see the module docstring)."""
    chars = list(text)
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        two = text[i : i + 2]
        if two == "//":
            end = text.find("\n", i)
            end = n if end == -1 else end
            _blank(chars, i, end)
            i = end
        elif two == "/*":
            end = text.find("*/", i + 2)
            end = n if end == -1 else end + 2
            _blank(chars, i, end)
            i = end
        elif (
            lang == "rust"
            and re.match(r'(b?r#*)"', text[i : i + 8])
            and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_"))
        ):
            prefix = re.match(r'(b?r(#*))"', text[i : i + 8])
            assert prefix is not None
            end_quote = '"' + prefix.group(2)
            end = _string_end(text, i + len(prefix.group(1)), end_quote, escapes=False)
            _blank(chars, i + len(prefix.group(0)), end - len(end_quote))
            i = end
        elif (
            ch in '"`'
            or (ch == "'" and lang in ("js",))
            or (
                ch == "'"
                and lang in ("go", "java", "rust")
                and re.match(r"'(\\.[^']*|[^'\\\n])'", text[i : i + 12])
            )
        ):
            quote = '"""' if text.startswith('"""', i) and lang == "java" else ch
            raw = lang == "go" and ch == "`"
            end = _string_end(text, i, quote, escapes=not raw)
            _blank(chars, i + len(quote), end - len(quote))
            i = end
        else:
            i += 1
    starts = [0] + [m.end() for m in re.finditer("\n", text)]
    return Scanned(text, "".join(chars), starts)


def match_close(code: str, open_at: int) -> int:
    """Offset of the bracket closing code[open_at], or len(code)."""
    stack = [_OPEN[code[open_at]]]
    i = open_at + 1
    while i < len(code) and stack:
        ch = code[i]
        if ch in _OPEN:
            stack.append(_OPEN[ch])
        elif ch in ")]}":
            if ch == stack[-1]:
                stack.pop()
            else:
                return i
        i += 1
    return i - 1 if not stack else len(code)


def first_string(scanned: Scanned, start: int, end: int) -> str | None:
    """The string literal that opens [start, end) of the original text, if any."""
    i = start
    while i < end and scanned.code[i].isspace():
        i += 1
    if i < end and scanned.text[i] in "'\"`":
        close = _string_end(scanned.text, i, scanned.text[i])
        return scanned.text[i + 1 : close - 1]
    return None


def call_span(scanned: Scanned, start: int, limit: int) -> int:
    """End of a call chain starting at start: `expect(x).not.toBe(3)` -> after `)`."""
    code = scanned.code
    i = start
    while i < limit:
        match = re.match(r"\s*(\.\s*[\w$]+|::[\w$]+|!)?\s*", code[i:limit])
        step = match.end() if match else 0
        j = i + step
        if j < limit and code[j] in "([":
            j = match_close(code, j) + 1
            i = j
            continue
        if match and match.group(1):
            i = i + step
            continue
        return i
    return limit


def collect_checks(
    scanned: Scanned,
    start: int,
    end: int,
    pattern: re.Pattern[str],
    rank_of: Callable[[str, str], int],
    subject_group: int = 0,
) -> list[CCheck]:
    """Checks matching pattern (which must end at an opening bracket) in [start, end);
    `rank_of(name, text)` ranks each one."""
    found: list[CCheck] = []
    for match in pattern.finditer(scanned.code, start, end):
        stop = call_span(scanned, match.end() - 1, end)
        text = scanned.squash(match.start(), stop)
        open_at = match.end() - 1
        close = match_close(scanned.code, open_at)
        subject = scanned.squash(open_at + 1, close)
        if subject_group and match.lastindex and match.lastindex >= subject_group:
            subject = match.group(subject_group) + ":" + subject.split(",", 1)[0]
        tail = scanned.code[close + 1 : stop]
        flat = tail
        while True:
            shorter = re.sub(r"\([^()]*\)", "", flat)
            if shorter == flat:
                break
            flat = shorter
        chain = re.findall(r"\.\s*([A-Za-z_$][\w$]*)", flat)
        head = re.findall(r"[\w$]+", scanned.code[match.start() : open_at])
        name = chain[-1] if chain else (head[-1] if head else "")
        last_open = tail.rfind("(")
        expected = scanned.squash(close + 1 + last_open, stop) if chain and last_open >= 0 else ""
        rank = rank_of(name, text)
        found.append(
            CCheck(
                re.sub(r"\s+", "", text),
                subject,
                rank,
                text[:140],
                scanned.line_of(match.start()),
                expected,
            )
        )
    return found


def elements(scanned: Scanned, open_at: int) -> list[tuple[int, int]]:
    """Spans of the comma-separated elements directly inside the bracket at open_at."""
    code = scanned.code
    close = match_close(code, open_at)
    spans: list[tuple[int, int]] = []
    start, i = open_at + 1, open_at + 1
    while i < close:
        ch = code[i]
        if ch in _OPEN:
            i = match_close(code, i) + 1
            continue
        if ch == ",":
            spans.append((start, i))
            start = i + 1
        i += 1
    spans.append((start, close))
    return [(a, b) for a, b in spans if code[a:b].strip()]


def table_checks(scanned: Scanned, open_at: int) -> list[CCheck]:
    """Each row of a test table (`test.each([...])`, a Go `[]struct{...}{...}` literal) as a
    check: a row removed is a case deleted, a row changed is a changed expectation."""
    return [
        CCheck(
            "case:" + re.sub(r"\s+", "", scanned.text[a:b]),
            "table row",
            4,
            scanned.squash(a, b)[:140],
            scanned.line_of(a),
            scanned.squash(a, b),
        )
        for a, b in elements(scanned, open_at)
    ]
