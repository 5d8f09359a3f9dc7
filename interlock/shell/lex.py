"""Quote-aware scanning of shell words: values, globs and the substitutions inside them.

`scan_word` reads one word starting at an index and reports what bash would make of it:
its value after quote removal (None when any part expands), whether it globs, and where its
command, backtick and process substitutions are (so they can be parsed and walked). Both the
bashlex path (for words bashlex found) and the fallback tokenizer use it, so a word means the
same thing whichever parser read the line.

Tilde expansion (`~`, `~user`) is treated as an expansion (value None), never resolved; brace
expansion (`{a,b}`, `{1..3}`) too, since it turns one word into several.
"""

from __future__ import annotations

from dataclasses import dataclass, field

METACHARS = frozenset(" \t\r\n;&|()<>")
_NAME_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_NAME_CHARS = _NAME_START | frozenset("0123456789")
_SPECIAL_PARAMS = frozenset("@*#?$!-0123456789")
_EXTGLOB = frozenset("?*+@!")
_ANSI_ESCAPES = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "v": "\v",
    "e": "\x1b",
    "E": "\x1b",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}
SUB_PLACEHOLDER = "$__interlock_subst"


@dataclass(frozen=True)
class Sub:
    """A command (`$(...)`), backtick or process (`<(...)`) substitution inside a word."""

    kind: str  # "cmd", "backtick" or "proc"
    start: int  # index of `$`, the opening backtick or `<`/`>`
    body_start: int
    body_end: int
    closed: bool = True

    def body(self, source: str) -> str:
        text = source[self.body_start : self.body_end]
        if self.kind == "backtick":
            return _unescape_backtick(text)
        return text


@dataclass
class WordScan:
    """What `scan_word` found: see the module docstring. `template` is the value with each
    expansion kept as its source text (command substitutions replaced by a placeholder
    parameter), i.e. what an inner `bash -c` would be given, with the unknowns still unknown."""

    start: int
    end: int = 0
    parts: list[str] = field(default_factory=list)
    template: list[str] = field(default_factory=list)
    expanded: bool = False
    has_glob: bool = False
    subs: list[Sub] = field(default_factory=list)
    arith: list[tuple[int, int]] = field(default_factory=list)
    array: tuple[int, int] | None = None
    incomplete: bool = False

    @property
    def value(self) -> str | None:
        return None if self.expanded else "".join(self.parts)

    @property
    def template_text(self) -> str:
        return "".join(self.template)

    def lit(self, text: str) -> None:
        self.parts.append(text)
        self.template.append(text)

    def expansion(self, source_text: str) -> None:
        self.expanded = True
        self.template.append(source_text)


def _unescape_backtick(text: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text) and text[i + 1] in "\\`$":
            out.append(text[i + 1])
            i += 2
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def skip_single(s: str, i: int, limit: int) -> tuple[int, bool]:
    """i is just after an opening `'`; return the index after the closing one, and closed."""
    j = s.find("'", i, limit)
    return (limit, False) if j < 0 else (j + 1, True)


def skip_ansi(s: str, i: int, limit: int) -> tuple[int, bool]:
    """i is just after `$'`; backslash escapes a quote."""
    while i < limit:
        c = s[i]
        if c == "\\":
            i += 2
        elif c == "'":
            return i + 1, True
        else:
            i += 1
    return limit, False


def skip_backtick(s: str, i: int, limit: int) -> tuple[int, bool]:
    """i is just after an opening backtick; return the index after the closing one."""
    while i < limit:
        c = s[i]
        if c == "\\":
            i += 2
        elif c == "`":
            return i + 1, True
        else:
            i += 1
    return limit, False


def skip_double(s: str, i: int, limit: int) -> tuple[int, bool]:
    """i is just after an opening `"`; nested `$(`, `${` and backticks are skipped whole."""
    while i < limit:
        c = s[i]
        if c == "\\":
            i += 2
        elif c == '"':
            return i + 1, True
        elif c == "`":
            i, closed = skip_backtick(s, i + 1, limit)
            if not closed:
                return limit, False
        elif c == "$" and i + 1 < limit and s[i + 1] in "({":
            i, closed = skip_group(s, i + 2, limit, ")" if s[i + 1] == "(" else "}")
            if not closed:
                return limit, False
        else:
            i += 1
    return limit, False


def skip_group(s: str, i: int, limit: int, close: str) -> tuple[int, bool]:
    """i is just after an opening `(` or `{`; return the index after the matching close.

    Quotes, backticks, nested groups and `#` comments (in `(` groups) are skipped whole.
    """
    opener = "(" if close == ")" else "{"
    depth = 1
    at_word_start = True
    while i < limit:
        c = s[i]
        if c == "\\":
            i += 2
            at_word_start = False
            continue
        if c == "'":
            i, closed = skip_single(s, i + 1, limit)
        elif c == '"':
            i, closed = skip_double(s, i + 1, limit)
        elif c == "`":
            i, closed = skip_backtick(s, i + 1, limit)
        elif c == "$" and i + 1 < limit and s[i + 1] == "'":
            i, closed = skip_ansi(s, i + 2, limit)
        elif c == "#" and at_word_start and close == ")":
            j = s.find("\n", i, limit)
            i, closed = (limit, True) if j < 0 else (j, True)
        else:
            if c == opener:
                depth += 1
            elif c == close:
                depth -= 1
                if depth == 0:
                    return i + 1, True
            at_word_start = c in " \t\n;&|()"
            i += 1
            continue
        if not closed:
            return limit, False
        at_word_start = False
    return limit, False


def find_subs(s: str, i: int, limit: int) -> list[Sub]:
    """Command and backtick substitutions inside a region that is not itself a word
    (the inside of `${...}`, `$((...))` or an unquoted heredoc body)."""
    subs: list[Sub] = []
    while i < limit:
        c = s[i]
        if c == "\\":
            i += 2
        elif c == "`":
            end, closed = skip_backtick(s, i + 1, limit)
            subs.append(Sub("backtick", i, i + 1, end - 1 if closed else end, closed))
            i = end
        elif c == "$" and s.startswith("((", i + 1):
            i += 3
        elif c == "$" and i + 1 < limit and s[i + 1] == "(":
            end, closed = skip_group(s, i + 2, limit, ")")
            subs.append(Sub("cmd", i, i + 2, end - 1 if closed else end, closed))
            i = end
        else:
            i += 1
    return subs


def _is_assignment_prefix(parts: list[str], scan: WordScan) -> bool:
    if scan.expanded or scan.has_glob:
        return False
    text = "".join(parts)
    if text.endswith("+="):
        text = text[:-1]
    if not text.endswith("=") or len(text) < 2:
        return False
    name = text[:-1]
    return name[0] in _NAME_START and all(ch in _NAME_CHARS for ch in name)


def scan_word(s: str, i: int, limit: int | None = None) -> WordScan:
    """Scan the word starting at s[i]; it ends at an unquoted metacharacter or at limit."""
    n = len(s) if limit is None else limit
    w = WordScan(start=i)
    quoted_any = False
    while i < n:
        c = s[i]
        if c in METACHARS:
            if c == "(" and _is_assignment_prefix(w.parts, w) and not quoted_any:
                end, closed = skip_group(s, i + 1, n, ")")
                w.array = (i, end)
                w.subs.extend(find_subs(s, i + 1, end))
                w.expansion(s[i:end])
                w.incomplete |= not closed
                i = end
                continue
            if c in "<>" and i + 1 < n and s[i + 1] == "(":  # `<(..)`, also `--opt=<(..)`
                end, closed = skip_group(s, i + 2, n, ")")
                w.subs.append(Sub("proc", i, i + 2, end - 1 if closed else end, closed))
                w.expansion(SUB_PLACEHOLDER)
                w.incomplete |= not closed
                i = end
                continue
            if c == "(" and i > w.start and s[i - 1] in _EXTGLOB and w.parts:
                end, closed = skip_group(s, i + 1, n, ")")
                w.has_glob = True
                w.lit(s[i:end])
                w.incomplete |= not closed
                i = end
                continue
            break
        if c == "\\":
            if i + 1 >= n:
                w.lit("\\")
                i += 1
            elif s[i + 1] == "\n":
                i += 2
            else:
                w.lit(s[i + 1])
                quoted_any = True
                i += 2
        elif c == "'":
            end, closed = skip_single(s, i + 1, n)
            w.lit(s[i + 1 : end - 1 if closed else end])
            w.incomplete |= not closed
            quoted_any = True
            i = end
        elif c == '"':
            i = _scan_double(s, i + 1, n, w)
            quoted_any = True
        elif c == "$":
            i = _scan_dollar(s, i, n, w, in_double=False)
        elif c == "`":
            i = _scan_backtick(s, i, n, w)
        elif c in "*?[":
            w.has_glob = True
            w.lit(c)
            i += 1
        elif c == "{" and _is_brace_expansion(s, i, n):
            w.expansion(c)
            i += 1
        elif c == "~" and _tilde_expands(s, i, w):
            w.expansion(c)
            i += 1
        else:
            j = i + 1
            while j < n and s[j] not in _SPECIAL_IN_WORD:
                j += 1
            w.lit(s[i:j])
            i = j
    w.end = i
    return w


_SPECIAL_IN_WORD = METACHARS | frozenset("\\'\"$`*?[{~(")


def _tilde_expands(s: str, i: int, w: WordScan) -> bool:
    if i == w.start:
        return True
    prev = s[i - 1]
    return prev in ":=" and "=" in "".join(w.parts) and not w.expanded


def _is_brace_expansion(s: str, i: int, n: int) -> bool:
    depth = 0
    j = i
    while j < n and s[j] not in METACHARS and s[j] not in "'\"":
        ch = s[j]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                inner = s[i + 1 : j]
                return "," in inner or ".." in inner
        j += 1
    return False


def _scan_double(s: str, i: int, n: int, w: WordScan) -> int:
    while i < n:
        c = s[i]
        if c == '"':
            return i + 1
        if c == "\\":
            nxt = s[i + 1] if i + 1 < n else ""
            if nxt == "\n":
                i += 2
            elif nxt in '$`"\\':
                w.lit(nxt)
                i += 2
            else:
                w.lit("\\")
                i += 1
        elif c == "$":
            i = _scan_dollar(s, i, n, w, in_double=True)
        elif c == "`":
            i = _scan_backtick(s, i, n, w)
        else:
            j = i + 1
            while j < n and s[j] not in '"\\$`':
                j += 1
            w.lit(s[i:j])
            i = j
    w.incomplete = True
    return n


def _scan_backtick(s: str, i: int, n: int, w: WordScan) -> int:
    end, closed = skip_backtick(s, i + 1, n)
    w.subs.append(Sub("backtick", i, i + 1, end - 1 if closed else end, closed))
    w.expansion(SUB_PLACEHOLDER)
    w.incomplete |= not closed
    return end


def _scan_dollar(s: str, i: int, n: int, w: WordScan, in_double: bool) -> int:
    nxt = s[i + 1] if i + 1 < n else ""
    if nxt == "'" and not in_double:
        return _scan_ansi(s, i + 2, n, w)
    if nxt == '"' and not in_double:
        return _scan_double(s, i + 2, n, w)
    if nxt == "(":
        if s.startswith("((", i + 1):
            end, closed = skip_group(s, i + 3, n, ")")
            if closed and end < n and s[end] == ")":
                w.arith.append((i, end + 1))
                w.subs.extend(find_subs(s, i + 3, end - 1))
                w.expansion(s[i : end + 1])
                return end + 1
        end, closed = skip_group(s, i + 2, n, ")")
        w.subs.append(Sub("cmd", i, i + 2, end - 1 if closed else end, closed))
        w.expansion(SUB_PLACEHOLDER)
        w.incomplete |= not closed
        return end
    if nxt == "[":
        end, closed = _skip_bracket(s, i + 2, n)
        w.arith.append((i, end))
        w.subs.extend(find_subs(s, i + 2, end))
        w.expansion(s[i:end])
        w.incomplete |= not closed
        return end
    if nxt == "{":
        end, closed = skip_group(s, i + 2, n, "}")
        w.subs.extend(find_subs(s, i + 2, end))
        w.expansion(s[i:end])
        w.incomplete |= not closed
        return end
    if nxt and nxt in _SPECIAL_PARAMS:
        w.expansion(s[i : i + 2])
        return i + 2
    if nxt and nxt in _NAME_START:
        j = i + 2
        while j < n and s[j] in _NAME_CHARS:
            j += 1
        w.expansion(s[i:j])
        return j
    w.lit("$")
    return i + 1


def _skip_bracket(s: str, i: int, n: int) -> tuple[int, bool]:
    depth = 1
    while i < n:
        if s[i] == "[":
            depth += 1
        elif s[i] == "]":
            depth -= 1
            if depth == 0:
                return i + 1, True
        i += 1
    return n, False


def _scan_ansi(s: str, i: int, n: int, w: WordScan) -> int:
    out: list[str] = []
    while i < n:
        c = s[i]
        if c == "'":
            w.lit("".join(out))
            return i + 1
        if c != "\\" or i + 1 >= n:
            out.append(c)
            i += 1
            continue
        esc = s[i + 1]
        i += 2
        if esc in _ANSI_ESCAPES:
            out.append(_ANSI_ESCAPES[esc])
        elif esc in "xuU01234567":
            i = _ansi_number(s, i, n, esc, out)
        elif esc == "c" and i < n:
            out.append(chr(ord(s[i]) & 0x1F))
            i += 1
        else:
            out.append("\\" + esc)
    w.lit("".join(out))
    w.incomplete = True
    return n


def _ansi_number(s: str, i: int, n: int, esc: str, out: list[str]) -> int:
    if esc in "01234567":
        digits, base, start = esc, 8, i
        width = 2
    else:
        digits, base, start = "", 16, i
        width = {"x": 2, "u": 4, "U": 8}[esc]
    allowed = "01234567" if base == 8 else "0123456789abcdefABCDEF"
    j = start
    while j < n and j - start < width and s[j] in allowed:
        j += 1
    digits += s[start:j]
    if not digits:
        out.append("\\" + esc)
        return j
    code = int(digits, base)
    out.append(chr(code) if code <= 0x10FFFF else "\ufffd")
    return j


def is_assignment_text(text: str) -> bool:
    """`NAME=...`, `NAME+=...` or `NAME[i]=...` (an assignment when before the command name)."""
    eq = text.find("=")
    if eq <= 0:
        return False
    name = text[:eq].removesuffix("+")
    bracket = name.find("[")
    if bracket > 0 and name.endswith("]"):
        name = name[:bracket]
    if not name or not (name[0].isalpha() or name[0] == "_") or not name.isascii():
        return False
    return all(ch.isalnum() or ch == "_" for ch in name)
