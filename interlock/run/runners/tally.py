"""What one runner's output says before it becomes an `Outcome`: counts that add up across
sessions (cargo's test binaries, tox environments, workspaces), the failing ids seen, and
whether the runner said in so many words that it ran nothing."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Output:
    """A run's output as the parsers read it.

    lines: the cleaned lines (no escapes, `\\r` rewrites resolved).
    direct: the tool is this runner itself, so its output is one session and its own exit
      codes mean what its docs say (pytest's 5); False for a wrapper (`npm test`, `make`,
      `tox`) whose output may hold several sessions, of any runner.
    cut: the text filled the whole tail, so its head was cut.
    """

    lines: Sequence[str]
    exit_code: int
    direct: bool
    cut: bool = False


# A family's parser: its Tally of the output, or None when the output is not in its format.
Parser = Callable[[Output], "Tally | None"]

# A test id longer than this is cut (a parametrized id can hold a whole data blob); the cut
# is the same every time, so the same test keeps the same id across attempts.
MAX_ID = 300
# Lines longer than this are not read for ids or results (no runner writes one; a minified
# bundle or a data dump in the output does).
MAX_LINE = 16 * 1024


@dataclass
class Tally:
    """Counts read from a runner's output. None: the output does not say (go test without
    -v prints no passing tests). `failed` holds failures and errors alike."""

    passed: int | None = 0
    failed: int | None = 0
    skipped: int | None = 0
    failing: list[str] = field(default_factory=list)
    no_tests: bool = False  # the runner said it ran nothing ("no tests ran", exit 5, ...)

    def __add__(self, other: Tally) -> Tally:
        return Tally(
            _plus(self.passed, other.passed),
            _plus(self.failed, other.failed),
            _plus(self.skipped, other.skipped),
            self.failing + other.failing,
            self.no_tests and other.no_tests,
        )


def _plus(a: int | None, b: int | None) -> int | None:
    return None if a is None or b is None else a + b


def total(tallies: Sequence[Tally]) -> Tally | None:
    """The sum of several sessions' tallies, or None when there are none."""
    if not tallies:
        return None
    result = tallies[0]
    for tally in tallies[1:]:
        result = result + tally
    return result


def one_session(tallies: Sequence[Tally]) -> Tally | None:
    """The closing counts of a runner named directly, which prints them once. Several that
    disagree (`pytest && echo '=== 500 passed in 1s ==='`, two runs of it in one command
    line, an inner session in captured output) make the counts unknown rather than a guess."""
    if not tallies:
        return None
    if all(t == tallies[0] for t in tallies):
        return Tally(
            tallies[0].passed, tallies[0].failed, tallies[0].skipped, [], tallies[0].no_tests
        )
    return Tally(None, None, None, [], all(t.no_tests for t in tallies))


def short_id(text: str) -> str:
    """A failing test's id as kept: trimmed, and cut at MAX_ID characters."""
    text = text.strip()
    return text if len(text) <= MAX_ID else text[: MAX_ID - 1] + "…"


_COUNT = re.compile(r"(\d{1,9}) ([a-z][a-z ]*)")


def counts(parts: Sequence[str]) -> dict[str, int] | None:
    """`["3 passed", "1 failed"]` -> {"passed": 3, "failed": 1}; None if a part is not
    `N word(s)` (then the line is not a summary). Repeated words add up."""
    found: dict[str, int] = {}
    for part in parts:
        match = _COUNT.fullmatch(part.strip())
        if match is None:
            return None
        key = match.group(2).strip()
        found[key] = found.get(key, 0) + int(match.group(1))
    return found


def unknown_if_cut(tally: Tally, out: Output) -> Tally:
    """For output whose counts are a sum over parts with no closing total (go's packages,
    cargo's test binaries): a cut head lost parts, so the counts are unknown; a failure may
    have been cut away only if the run failed."""
    if not out.cut:
        return tally
    failed = 0 if out.exit_code == 0 else None
    return Tally(None, failed, None, tally.failing, tally.no_tests)


# CSI sequences (colour, cursor moves, erase), OSC (titles, links), other escapes. A
# string escape ends at its line: a stray ESC P must not swallow the rest of the output.
_ESCAPE = re.compile(
    r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b\n]*(?:\x07|\x1b\\)?|[PX^_][^\x1b\n]*(?:\x1b\\)?"
    r"|[ -/]*[0-~])|\x9b[0-?]*[ -/]*[@-~]"
)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def clean_lines(text: str) -> list[str]:
    """The lines a terminal would end up showing: escapes removed, and of a line rewritten
    with `\\r` (a progress bar, a spinner) its last non-blank version. Trailing blanks go."""
    if "\x1b" in text or "\x9b" in text:
        text = _ESCAPE.sub("", text)
    text = _CONTROL.sub("", text.replace("\r\n", "\n"))  # keeps \r and \n
    lines = []
    for line in text.split("\n"):
        if "\r" in line:
            shown = [part for part in line.split("\r") if part.strip()]
            line = shown[-1] if shown else ""
        lines.append(line.rstrip())
    return lines
