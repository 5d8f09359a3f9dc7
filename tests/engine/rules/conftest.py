"""Fixtures for rule tests: Invocations built from text, without the parser or the walker.

The `inv` fixture is the builder: `inv("git -C sub reset --hard")` splits one simple command
like a shell would (quotes, `$` expansions make a word non-literal, unquoted `*?[` make it a
glob), takes leading `NAME=value` words as assignments and `>`/`>>`/`2>` words as redirects.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable

import pytest

from interlock.engine.invocation import Invocation
from interlock.shell.model import Redirect, Word

_REDIRECT = re.compile(r"^(\d*|&)(>>|>\||>|<)(.*)$")
_ASSIGN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def _raw_words(cmd: str) -> list[str]:
    """Split on unquoted blanks outside `$( )` and backticks, keeping each word's source."""
    words: list[str] = []
    cur, quote, depth, started = "", "", 0, False
    for i, ch in enumerate(cmd):
        if quote:
            cur += ch
            if ch == quote:
                quote = ""
            continue
        if ch in "'\"`":
            quote = ch
        elif ch == "(" and cmd[i - 1 : i] == "$":
            depth += 1
        elif ch == ")" and depth:
            depth -= 1
        elif ch.isspace() and not depth:
            if started:
                words.append(cur)
            cur, started = "", False
            continue
        cur += ch
        started = True
    if started:
        words.append(cur)
    return words


def _unquoted(raw: str) -> str:
    """The parts of raw outside single and double quotes."""
    out, quote = "", ""
    for ch in raw:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        else:
            out += ch
    return out


def _expands(raw: str) -> bool:
    out, quote = "", ""
    for ch in raw:
        if quote == "'":
            quote = "" if ch == "'" else quote
            continue
        if ch == "'" and not quote:
            quote = "'"
            continue
        out += ch
    return "$" in out or "`" in out or raw.startswith("~")  # tilde expansion, like the parser


def _word(raw: str) -> Word:
    """One shell word from its source text."""
    value = None if _expands(raw) else "".join(shlex.split(raw)) if raw else ""
    if raw in ("''", '""'):
        value = ""
    glob = any(c in _unquoted(raw) for c in "*?[")
    return Word(raw, value, glob)


def _inv(
    cmd: str,
    cwd: str | None = "",
    *,
    extra_args: bool = False,
    arg_roots: tuple[str, ...] | None = None,
    via: tuple[str, ...] = (),
) -> Invocation:
    """An Invocation for one simple command written as text."""
    raws = _raw_words(cmd)
    assignments: list[Word] = []
    while raws and _ASSIGN.match(raws[0]):
        assignments.append(_word(raws.pop(0)))
    argv: list[Word] = []
    redirects: list[Redirect] = []
    i = 0
    while i < len(raws):
        m = _REDIRECT.match(raws[i])
        if m and not raws[i].startswith(("'", '"')):
            fd = int(m.group(1)) if m.group(1).isdigit() else None
            target = m.group(3)
            if not target and i + 1 < len(raws):
                i += 1
                target = raws[i]
            op = ("&" if m.group(1) == "&" else "") + m.group(2)
            redirects.append(Redirect(op, fd, _word(target)))
        else:
            argv.append(_word(raws[i]))
        i += 1
    return Invocation(
        argv=tuple(argv),
        assignments=tuple(assignments),
        redirects=tuple(redirects),
        cwd=cwd,
        via=via,
        extra_args=extra_args,
        arg_roots=arg_roots,
    )


def _example(text: str) -> Invocation:
    """The invocation a rule example stands for: `a | xargs rm` is `rm` with run-time
    arguments; `find DIR ... -exec rm {} +` is `rm` with run-time arguments under DIR."""
    if "| xargs " in text:
        return _inv(text.split("| xargs ", 1)[1], extra_args=True)
    if " -exec " in text and text.startswith("find "):
        roots = tuple(w for w in text.split(" -", 1)[0].split()[1:])
        command = text.split(" -exec ", 1)[1].replace("{}", "").rstrip("+;\\ ")
        return _inv(command, extra_args=True, arg_roots=roots or (".",))
    return _inv(text)


@pytest.fixture(scope="session")
def inv() -> Callable[..., Invocation]:
    """`inv(cmd, cwd="", *, extra_args=False, arg_roots=None, via=())`: the Invocation of one
    simple command written as text."""
    return _inv


@pytest.fixture(scope="session")
def example() -> Callable[[str], Invocation]:
    """`example(text)`: the Invocation a rule's documented example stands for."""
    return _example
