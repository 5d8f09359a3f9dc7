"""What the runner recognisers share: their result type, name classification, and the
masked-validator rules (exit-status masking and selection masking) they report.

A recogniser reads one runner's arguments and returns `Seen` (tool, tier, and masking when
the run was told not to look) or None when the command line is not a validator run (help,
version, listing environments, an install).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from interlock.engine.findings import Tier
from interlock.engine.invocation import Invocation
from interlock.engine.rules.args import literal_or_text
from interlock.engine.rules.common import rule
from interlock.shell.model import Word

NEGATIVE = "validator.negative-selection"
COLLECT_ONLY = "validator.collect-only"
NO_TESTS_OK = "validator.pass-with-no-tests"
IGNORE_FAILURES = "validator.ignore-failures"
NO_RUN = "validator.no-run"
EXIT_MASKED = "validator.exit-masked"

_PROOF = "a pass from it says nothing about the tests it was told to leave out"

rule(
    NEGATIVE,
    "masked-validator",
    "negative selection: the validator runs with tests excluded",
    f"`-k 'not x'`, `--deselect`, `--ignore` of test paths, `--skip`, exclusion patterns: {_PROOF}",
    "run the full suite, or a positive selection of the tests you mean (`-k name`, `file::test`)",
    (
        "pytest -k 'not test_token'",
        "pytest --deselect tests/test_api.py::test_token",
        "pytest --ignore=tests/test_api.py",
        "cargo test -- --skip token",
        "go test -skip TestToken ./...",
        "npx jest --testPathIgnorePatterns api",
    ),
    ("pytest -k token", "pytest tests/test_api.py::test_token", "pytest --ignore=build"),
)
rule(
    COLLECT_ONLY,
    "masked-validator",
    "collect-only / list: the validator runs no test",
    "collecting or listing tests proves they import, not that they pass",
    "run the tests (drop --co/--collect-only/--list)",
    ("pytest --co -q", "pytest --collect-only", "npx jest --listTests", "go test -list . ./..."),
    ("pytest -q",),
)
rule(
    NO_TESTS_OK,
    "masked-validator",
    "--passWithNoTests: running no test counts as success",
    "a selection that matches nothing (a typo, a deleted test) then passes",
    "drop --passWithNoTests and select tests that exist",
    (
        "npm test -- --passWithNoTests",
        "npx jest --passWithNoTests",
        "pytest --suppress-no-test-exit-code",
    ),
    ("npm test",),
)
rule(
    IGNORE_FAILURES,
    "masked-validator",
    "failures ignored: make -i, maven's test.failure.ignore, --fail-never",
    "the run exits 0 even when a recipe or a test fails (make -k still exits non-zero: not masking)",
    "run without -i / --fail-never so a failure fails the command",
    ("make -i test", "MAKEFLAGS=-i make check", "mvn test -Dmaven.test.failure.ignore=true"),
    ("make -k test", "make test"),
)
rule(
    NO_RUN,
    "masked-validator",
    "dry run: the validator builds or plans but runs no test",
    "`make -n`, `cargo test --no-run`, `mvn test -DskipTests`, `gradle test -x test`, "
    "`go test -c` compile or print, they do not test",
    "run the validator for real",
    ("make -n test", "cargo test --no-run", "mvn test -DskipTests", "go test -c ./pkg"),
    ("cargo test", "mvn package -DskipTests"),
)
rule(
    EXIT_MASKED,
    "masked-validator",
    "the validator's failure cannot reach the exit status of the command line",
    "`|| true`, `; echo done`, a pipe without pipefail, `&`, `!`: the command line succeeds "
    "even when the validator fails, so its pass proves nothing",
    "run the validator so its failure fails the command: drop `|| true`/`; echo`, use "
    "`set -o pipefail` for pipes, or end with `exit ${PIPESTATUS[0]}`",
    ("pytest || true", "pytest | tail -20", "pytest; echo done", "pytest &"),
    ("pytest && echo PASSED", "set -o pipefail; pytest | tee log", "pytest || (cat log; exit 1)"),
)


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
