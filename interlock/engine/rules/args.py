"""Option parsing for rules: the way git, GNU tools and most runners read their arguments.

`parse_args(words, spec)` splits words into options (short clusters like `-fdx` or `-nm msg`,
long options with `=value` or a separate value, unique abbreviations like `--forc`) and
positionals, before and after `--`. Options may follow positionals (GNU/git permutation)
unless the spec says options stop at the first positional. A word whose value is unknown
(`$X`) is kept as a positional with `literal() is None`: rules decide what unknown means.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from interlock.shell.lex import scan_word
from interlock.shell.model import Word


class OptSpec:
    """What a command's options look like.

    short_value: short options that take a value (`-m msg`, `-mmsg`).
    short_optional: short options whose value can only be attached (`-uno`, `-S`).
    long_value: long options (without `--`) that take a value (`--message msg`, `--message=msg`).
    long_flags: other known long options, used only to resolve abbreviations.
    stop_at_positional: options end at the first positional (git's global options, xargs).
    """

    __slots__ = ("short_value", "short_optional", "long_value", "long_flags", "stop_at_positional")

    def __init__(
        self,
        short_value: str = "",
        short_optional: str = "",
        long_value: frozenset[str] = frozenset(),
        long_flags: frozenset[str] = frozenset(),
        stop_at_positional: bool = False,
    ) -> None:
        self.short_value = short_value
        self.short_optional = short_optional
        self.long_value = long_value
        self.long_flags = long_flags
        self.stop_at_positional = stop_at_positional

    def known_longs(self) -> frozenset[str]:
        return self.long_value | self.long_flags


def spec(
    short_value: str = "",
    long_value: str = "",
    long_flags: str = "",
    *,
    short_optional: str = "",
    stop_at_positional: bool = False,
) -> OptSpec:
    """Build an OptSpec from space-separated long option names (without `--`)."""
    return OptSpec(
        short_value=short_value,
        short_optional=short_optional,
        long_value=frozenset(long_value.split()),
        long_flags=frozenset(long_flags.split()),
        stop_at_positional=stop_at_positional,
    )


class Opt:
    """One option as written: name `-f` or `--force` (abbreviations resolved), its value."""

    __slots__ = ("name", "value", "word", "unknown_value", "prefix")

    def __init__(
        self,
        name: str,
        value: str | None = None,
        word: Word | None = None,
        unknown_value: bool = False,
        prefix: str = "",
    ) -> None:
        self.name = name
        self.value = value
        self.word = word  # the word the value came from, when it had one
        self.unknown_value = unknown_value  # the value word is not a literal
        # an unknown value's literal start (`core.pager=` of `-c core.pager="$X"`)
        self.prefix = prefix

    @property
    def text(self) -> str | None:
        """The value, or the value word's source text when it is not a literal."""
        if self.value is not None:
            return self.value
        return self.word.text if self.word is not None else None


class Args:
    """A parsed argument list."""

    __slots__ = ("opts", "positionals", "after_dashdash", "dashdash", "rest")

    def __init__(
        self,
        opts: tuple[Opt, ...] = (),
        positionals: tuple[Word, ...] = (),
        after_dashdash: tuple[Word, ...] = (),
        dashdash: bool = False,
        rest: tuple[Word, ...] = (),
    ) -> None:
        self.opts = opts
        self.positionals = positionals
        self.after_dashdash = after_dashdash
        self.dashdash = dashdash
        self.rest = rest  # stop_at_positional: the positional and after

    def has(self, *names: str) -> bool:
        return any(o.name in names for o in self.opts)

    def values(self, *names: str) -> list[Opt]:
        return [o for o in self.opts if o.name in names]

    def last(self, *names: str) -> Opt | None:
        found = self.values(*names)
        return found[-1] if found else None

    def operands(self) -> tuple[Word, ...]:
        """Positionals before and after `--`."""
        return self.positionals + self.after_dashdash


def resolve_long(name: str, known: frozenset[str]) -> str:
    """`forc` -> `force` when it is the unique known long option starting with it.

    When several start with it and one of them is a prefix of all the others (`forc`:
    `force`, `force-with-lease`, `force-if-includes`), it is read as that one: some git
    versions accept it so, and the others refuse the command, so reading it as the shortest
    never lets a destructive spelling through.
    """
    if name in known or not name:
        return name
    matches = [k for k in known if k.startswith(name)]
    if len(matches) == 1:
        return matches[0]
    shortest = min(matches, key=len, default=name)
    return shortest if matches and all(m.startswith(shortest) for m in matches) else name


def literal_prefix(word: Word) -> str:
    """The word's value up to its first expansion: `--exec=` of `--exec="$X"`, `-C` of
    `-C"$d"`, `core.pager=` of `"core.pager=$X"` (the whole value when it is a literal)."""
    lit = word.literal()
    if lit is not None:
        return lit
    scan = scan_word(word.text, 0)
    known: list[str] = []
    # each literal piece is in both lists; an expansion only in the template
    for part, piece in zip(scan.parts, scan.template, strict=False):
        if part != piece:
            break
        known.append(part)
    return "".join(known)


def may_expand_to(known: str, text: str) -> bool:
    """Whether a word whose literal start is `known` (literal_prefix) may begin with `text`
    once its expansions are read: `--test_tag_filters=` of `"--$OPT"`, `addopts=` of `add$X`."""
    return known.startswith(text) or text.startswith(known)


def _value_opt(name: str, word: Word) -> Opt:
    """An option whose value is the word `word`."""
    lit = word.literal()
    return Opt(name, lit, word, lit is None, literal_prefix(word) if lit is None else "")


def _parse_long(word: str, words: Sequence[Word], i: int, sp: OptSpec) -> tuple[Opt, int]:
    body = word[2:]
    name, eq, value = body.partition("=")
    name = resolve_long(name, sp.known_longs())
    if eq:
        return Opt("--" + name, value), i + 1
    if name in sp.long_value and i + 1 < len(words):
        return _value_opt("--" + name, words[i + 1]), i + 2
    return Opt("--" + name), i + 1


def _parse_short(word: str, words: Sequence[Word], i: int, sp: OptSpec) -> tuple[list[Opt], int]:
    opts: list[Opt] = []
    chars = word[1:]
    for pos, ch in enumerate(chars):
        rest = chars[pos + 1 :]
        if ch in sp.short_value:
            if rest:
                opts.append(Opt("-" + ch, rest))
                return opts, i + 1
            if i + 1 < len(words):
                opts.append(_value_opt("-" + ch, words[i + 1]))
                return opts, i + 2
            opts.append(Opt("-" + ch))
            return opts, i + 1
        if ch in sp.short_optional:
            opts.append(Opt("-" + ch, rest or None))
            return opts, i + 1
        opts.append(Opt("-" + ch))
    return opts, i + 1


_LONG_WITH_VALUE = re.compile(r"^--([A-Za-z0-9][A-Za-z0-9-]*)=(.*)$", re.S)
_SHORT_CLUSTER = re.compile(r"^-([A-Za-z0-9]+)(.*)$", re.S)


def _unknown_value(word: Word, sp: OptSpec) -> list[Opt] | None:
    """`--file="$DIR/x"`, `--upload-pack="$X"`, `-f"$D"`, `-fu$X`: an option written out
    plainly with a value only known at run time in the same word. The value word keeps its text
    (for rules that read its shape) and `prefix` its literal start (`core.pager=` of
    `-c"core.pager=$X"`). None when the word is not such an option."""
    text = scan_word(word.text, 0).template_text
    known = literal_prefix(word)

    def after(head: str) -> str:
        return known[len(head) :] if known.startswith(head) else ""

    if m := _LONG_WITH_VALUE.match(text):
        name = resolve_long(m.group(1), sp.known_longs())
        prefix = after(f"--{m.group(1)}=")
        return [Opt("--" + name, None, Word(m.group(2), None), True, prefix)]
    if not (m := _SHORT_CLUSTER.match(text)):
        return None
    opts: list[Opt] = []
    letters = m.group(1)
    for pos, ch in enumerate(letters):
        if ch in sp.short_value or ch in sp.short_optional:
            value = Word(letters[pos + 1 :] + m.group(2), None)
            return opts + [Opt("-" + ch, None, value, True, after("-" + letters[: pos + 1]))]
        opts.append(Opt("-" + ch))
    return None  # `-rf$X`: more options, or a value, only known at run time


def parse_args(words: Sequence[Word], sp: OptSpec) -> Args:
    """Split `words` (arguments, without the command name) per `sp`."""
    opts: list[Opt] = []
    positionals: list[Word] = []
    i = 0
    while i < len(words):
        word = words[i]
        lit = word.literal()
        if lit == "--":
            return Args(tuple(opts), tuple(positionals), tuple(words[i + 1 :]), True)
        if lit is not None and lit.startswith("--") and len(lit) > 2:
            opt, i = _parse_long(lit, words, i, sp)
            opts.append(opt)
        elif lit is not None and lit.startswith("-") and len(lit) > 1:
            found, i = _parse_short(lit, words, i, sp)
            opts.extend(found)
        elif lit is None and (unknown := _unknown_value(word, sp)) is not None:
            opts.extend(unknown)
            i += 1
        elif sp.stop_at_positional:
            return Args(tuple(opts), (), (), False, tuple(words[i:]))
        else:
            positionals.append(word)
            i += 1
    return Args(tuple(opts), tuple(positionals))


_TILDE = r"^~[A-Za-z0-9._-]*(/[^$`*?\[\]'\"\\]*)?$"


def known_path(word: Word) -> str | None:
    """The word's value, or its text for a plain tilde path (`~/x`, `~user/x`); else None."""
    lit = word.literal()
    if lit is not None:
        return lit
    return word.text if re.match(_TILDE, word.text) else None


def literal_or_text(word: Word) -> str:
    """The word's value, or its source text when it has expansions (for messages, heuristics)."""
    lit = word.literal()
    return lit if lit is not None else word.text
