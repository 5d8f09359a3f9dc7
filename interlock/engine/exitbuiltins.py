"""What shell builtins do to exit statuses, for the exit-status flow: `test`/`[` on tracked
statuses, `$?`/`${PIPESTATUS[i]}`/`$rc` values, assignments that keep a status, `set -e` and
`set -o pipefail`, and `trap` specs.

Plain functions on a `Shell`; `unknown` is the reading's source of "could go either way".
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from interlock.engine.exitstate import Shell, Status
from interlock.shell.lex import scan_word
from interlock.shell.model import Word

Unknown = Callable[[], Status]

_VAR = re.compile(r'^"?\$(?:\{)?(\?|[A-Za-z_][A-Za-z0-9_]*|PIPESTATUS\[(\d+)\])(?:\})?"?$')
_COMPARISONS: dict[str, Callable[[Any, Any], bool]] = {
    "-eq": operator.eq,
    "-ne": operator.ne,
    "-lt": operator.lt,
    "-le": operator.le,
    "-gt": operator.gt,
    "-ge": operator.ge,
    "=": operator.eq,
    "==": operator.eq,
    "!=": operator.ne,
}
# Signals whose trap can change the status of a line that runs to its end: the shell's exit
# and a failing command. Traps on INT/TERM/... only run when a signal arrives.
_SIGNALS = {"EXIT": "EXIT", "0": "EXIT", "SIGEXIT": "EXIT", "ERR": "ERR", "SIGERR": "ERR"}


def tracked(text: str, sh: Shell) -> Status | None:
    """The status a word stands for (`5`, `$?`, `${PIPESTATUS[0]}`, `$rc`), if known."""
    if _number(text):
        return Status(int(text) % 256)
    match = _VAR.match(text)
    if match is None:
        return None
    name, index = match.group(1), match.group(2)
    if name == "?":
        return sh.last
    if index is not None:
        k = int(index)
        return sh.pipestatus[k] if k < len(sh.pipestatus) else None
    return sh.variables.get(name)


def _number(text: str) -> bool:
    """ASCII digits only: `str.isdigit` also takes `²`, which bash reads as text and `int`
    refuses (`exit ²` raised ValueError)."""
    return text.isascii() and text.isdigit()


def value(text: str, sh: Shell, unknown: Unknown) -> Status:
    known = tracked(text, sh)
    return known if known is not None else unknown()


def test(args: Sequence[str], sh: Shell, unknown: Unknown) -> Status:
    """`[ $rc -eq 0 ]`, `test 0 -ne ${PIPESTATUS[0]}`, `[ "$?" = 0 ]`: known when both sides
    are tracked statuses or numbers; any other test can go either way."""
    if len(args) == 3 and args[1] in _COMPARISONS:
        left, right = _operand(args[0], sh), _operand(args[2], sh)
        if left is not None and right is not None:
            if args[1].startswith("-"):  # arithmetic: `-eq`, `-lt`, ...
                holds = _COMPARISONS[args[1]](int(left[0]), int(right[0]))
            else:  # `=`, `==`, `!=` compare text: `[ $rc = 00 ]` never holds
                holds = _COMPARISONS[args[1]](left[0], right[0])
            return Status(0 if holds else 1, left[1] or right[1])
    return unknown()


def _operand(text: str, sh: Shell) -> tuple[str, bool] | None:
    """A test operand as bash expands it, and whether it carries the validator's status."""
    bare = text.strip("'\"")
    if _number(bare):
        return bare, False
    status = tracked(text, sh)
    return (str(status.code), status.tainted) if status is not None else None


def assign(text: str, sh: Shell, unknown: Unknown) -> None:
    """`rc=$?` and `rc=1` keep a status under a name; any other assignment forgets it."""
    name, eq, assigned = text.partition("=")
    if not eq:
        return
    if _number(assigned):
        sh.variables[name] = Status(int(assigned) % 256)
        return
    match = _VAR.match(assigned)
    kept = match is not None and (
        match.group(1) == "?" or match.group(2) is not None or match.group(1) in sh.variables
    )
    if kept:
        sh.variables[name] = value(assigned, sh, unknown)
    else:
        sh.variables.pop(name, None)


def set_options(args: Sequence[str], sh: Shell) -> None:
    """`set -e`, `set +e`, `set -o pipefail`, `set -euxo pipefail`, ..."""
    k = 0
    while k < len(args):
        arg = args[k]
        if len(arg) > 1 and arg[0] in "-+":
            on = arg[0] == "-"
            for letter in arg[1:]:
                if letter == "e":
                    sh.errexit = on
                elif letter == "o" and k + 1 < len(args):
                    k += 1
                    if args[k] == "pipefail":
                        sh.pipefail = on
                    elif args[k] == "errexit":
                        sh.errexit = on
        k += 1


@dataclass(frozen=True)
class TrapSpec:
    """What a `trap` command does to the EXIT and ERR traps: `body` None resets them, an
    empty body ignores the signal (no trap runs)."""

    body: str | None
    signals: tuple[str, ...]


def trap_spec(args: Sequence[Word]) -> TrapSpec | None:
    """`trap 'exit 0' EXIT ERR`, `trap - EXIT`, `trap EXIT` (reset), `trap -p` (listing: None).

    A body known only at run time (`trap "rm -f $T" EXIT`) is read as its template text:
    the expansions stay unknown, the commands around them are what the trap runs.
    """
    words = list(args)
    if words and words[0].literal() == "--":
        words = words[1:]
    if not words or (words[0].literal() or "").startswith(("-p", "-l")):
        return None
    first = words[0].literal()
    if first == "-" or (len(words) == 1 and first is not None):
        return TrapSpec(None, _signals(words))  # `-` names no signal: no need to skip it
    body = first if first is not None else scan_word(words[0].text, 0).template_text
    return TrapSpec(body, _signals(words[1:]))


def _signals(words: Sequence[Word]) -> tuple[str, ...]:
    found: list[str] = []
    for word in words:
        name = (word.literal() or "").upper()
        signal = _SIGNALS.get(name)
        if signal is not None and signal not in found:
            found.append(signal)
    return tuple(found)
