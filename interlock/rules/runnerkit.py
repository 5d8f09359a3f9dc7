"""What the runner recognisers share: their result type and name classification.

A recogniser reads one runner's arguments and returns `Seen` (tool, tier, and masking when
the run was told not to look) or None when the command line is not a validator run (help,
version, listing environments, an install).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from interlock.findings import Tier
from interlock.invocation import Invocation
from interlock.rules.args import literal_or_text
from interlock.shellmodel import Word

NEGATIVE = "validator.negative-selection"
COLLECT_ONLY = "validator.collect-only"
NO_TESTS_OK = "validator.pass-with-no-tests"
IGNORE_FAILURES = "validator.ignore-failures"
NO_RUN = "validator.no-run"


class Seen:
    """A recognised validator run: `tool`, `tier`, and why it is masked (rule + reason)."""

    __slots__ = ("tool", "tier", "masked_by", "rule")

    def __init__(
        self, tool: str, tier: Tier, masked_by: str | None = None, rule: str | None = None
    ) -> None:
        self.tool = tool
        self.tier = tier
        self.masked_by = masked_by
        self.rule = rule

    def masked(self, rule_id: str, why: str) -> Seen:
        """The same run, masked (the first reason found is kept)."""
        if self.masked_by is not None:
            return self
        return Seen(self.tool, self.tier, why, rule_id)

    def tiered(self, fast: bool) -> Seen:
        return Seen(self.tool, "fast" if fast else "slow", self.masked_by, self.rule)


# A recogniser: the runner's words (after its name) and the invocation -> Seen or None.
Inner = Callable[[tuple[Word, ...], Invocation], "Seen | None"]

_NOT = "(?i)" r"(^|[\s(])not(\s|\(|$)|^!|[\s(]!\w"


def is_negative(expr: str) -> bool:
    """A selection expression that excludes: `not slow`, `a and not b`, `!e2e`."""
    return bool(re.search(_NOT, expr.strip()))


_TEST_FILE = (
    r"(^|/)(test_[^/]*\.py|[^/]*_test\.(py|go|rb|exs?)|[^/]*\.(test|spec)\.[cm]?[jt]sx?"
    r"|[^/]*_spec\.rb|[^/]*Test\.(php|java|kt))$"
)


def is_test_file(path: str) -> bool:
    """A single test file by its name: test_x.py, x_test.go, x.test.ts, x_spec.rb, XTest.php."""
    return bool(re.search(_TEST_FILE, path.split("::", 1)[0].split(":", 1)[0]))


_FILE_LIKE = r"\.[A-Za-z]{1,5}$|::|:\d+$"


def is_file_target(word: Word) -> bool:
    """A positional naming one file or test (`tests/a.py`, `a.py::t`, `x.spec.ts`, `f.rb:12`)."""
    lit = word.literal()
    if lit is None or word.has_glob:
        return False
    return bool(re.search(_FILE_LIKE, lit)) or is_test_file(lit)


def all_targeted(words: tuple[Word, ...] | list[Word]) -> bool:
    """Every positional names one file or test (and there is at least one)."""
    return bool(words) and all(is_file_target(w) for w in words)


_TOKEN = r"[-_:/.\s]+"
_FAST = frozenset(
    "lint lints linter linters typecheck typechecks typing types type mypy pyright flake8 "
    "pylint ruff eslint tsc vet clippy stylelint checkstyle style shellcheck spellcheck "
    "golangci staticcheck prettier black isort pep8 pycodestyle pyflakes rubocop phpstan "
    "psalm detekt ktlint".split()
)
_TESTISH = frozenset(
    "test tests unittest unittests unit spec specs e2e integration coverage cov pytest ci "
    "jest vitest mocha".split()
)
_CHECKISH = frozenset("check checks verify validate build all default compile".split())
_FORMAT = frozenset("fmt format formatting".split())
_NOT_VALIDATOR = frozenset(
    "clean distclean mrproper install uninstall run serve server dev start stop deploy publish "
    "release docs doc help setup deps dependencies bootstrap watch up down shell venv env init "
    "upload push pull update upgrade tag version bump docker image login logs migrate migration "
    "seed db print list tidy generate gen codegen proto vendor download fetch reset restart "
    "debug console repl open preview changelog lock sync fix storybook graph tasks".split()
)


def classify_name(name: str, unknown: Tier | None = "slow") -> Tier | None:
    """Tier of a make target, npm script, tox env or task by its name, None if not a check.

    `test`, `test:unit`, `check`, `build`, `ci` -> slow; `lint`, `typecheck`, `fmt-check`,
    `format:check` -> fast; `clean`, `install`, `dev`, `format` (writes) -> None; any other
    name gets `unknown` (slow for make targets: a program to build; an unknown validator
    errs toward silence; None for npm scripts, which are as often servers as checks).
    """
    tokens = [t for t in re.split(_TOKEN, name.lower()) if t]
    if not tokens:
        return None
    words = set(tokens)
    if words & _TESTISH:
        return "slow"
    if words & _FAST or (words & _FORMAT and words & {"check", "verify", "lint", "diff"}):
        return "fast"
    if words & _FORMAT:
        return None
    if words & _CHECKISH:
        return "slow"
    if words & _NOT_VALIDATOR:
        return None
    return unknown


def slowest(tiers: list[Tier | None]) -> Tier | None:
    found = [t for t in tiers if t is not None]
    if not found:
        return None
    return "slow" if "slow" in found else "fast"


def texts(words: tuple[Word, ...] | list[Word]) -> list[str]:
    return [literal_or_text(w) for w in words]
