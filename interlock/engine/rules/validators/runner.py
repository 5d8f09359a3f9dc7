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
from interlock.engine.rules.common import rule
from interlock.shell.model import Word

NEGATIVE = "validator.negative-selection"
NARROWED = "validator.narrowed"
COLLECT_ONLY = "validator.collect-only"
NO_TESTS_OK = "validator.pass-with-no-tests"
IGNORE_FAILURES = "validator.ignore-failures"
NO_RUN = "validator.no-run"
EXIT_MASKED = "validator.exit-masked"
EXIT_FORGED = "validator.exit-forged"
REGENERATED = "validator.regenerated"

_PROOF = "a pass from it says nothing about the tests it was told to leave out"

# Severity: a validator whose success is forged (failures turned into a pass, expectations
# regenerated, named tests left out) is refused in blocking mode; one whose status is only
# hidden or that only looks at part of the suite runs with a warning and is never credited
# as green.
rule(
    NEGATIVE,
    "masked-validator",
    "negative selection: named tests are excluded from the run",
    f"`-k 'not x'`, `--deselect`, `--ignore` of test paths, `--skip`, exclusion patterns and "
    f"regex lookaheads in name patterns: {_PROOF}",
    "run the full suite, or a positive selection of the tests you mean (`-k name`, `file::test`)",
    (
        "pytest -k 'not test_token'",
        "pytest --deselect tests/test_api.py::test_token",
        "pytest --ignore=tests/test_api.py",
        "pytest --ignore-glob='*_slow.py'",
        "cargo test -- --skip token",
        "go test -skip TestToken ./...",
        "npx jest --testPathIgnorePatterns api",
        "npx jest -t '^(?!.*token)'",
    ),
    ("pytest -k token", "pytest tests/test_api.py::test_token", "pytest --ignore=build"),
)
rule(
    NARROWED,
    "masked-validator",
    "narrowed run: a category of tests (a marker, tag, group or label) is left out",
    "`-m 'not slow'`, `--exclude-tag`, `rspec --tag ~slow`, `phpunit --exclude-group`: the "
    "project's own categories, not tests picked by name, so the run is allowed with a warning; "
    "its pass covers only part of the suite and is never credited as green",
    "run the full suite before calling the work verified",
    (
        "pytest -m 'not integration'",
        "rspec --tag ~slow",
        "phpunit --exclude-group slow",
        "ctest -LE slow",
    ),
    ("pytest -m smoke", "pytest"),
    severity="warn",
)
rule(
    COLLECT_ONLY,
    "masked-validator",
    "collect-only / list: the validator runs no test",
    "collecting or listing tests proves they import, not that they pass; listing is ordinary "
    "exploration, so it runs with a warning and is never credited as green",
    "run the tests (drop --co/--collect-only/--list)",
    ("pytest --co -q", "pytest --collect-only", "npx jest --listTests", "go test -list . ./..."),
    ("pytest -q",),
    severity="warn",
)
rule(
    NO_TESTS_OK,
    "masked-validator",
    "running no test counts as success: --passWithNoTests and the like",
    "a selection that matches nothing (a typo, a deleted test) then passes",
    "drop --passWithNoTests and select tests that exist",
    (
        "npm test -- --passWithNoTests",
        "npx jest --passWithNoTests",
        "pytest --suppress-no-test-exit-code",
        "npm test --if-present",
        "tox --skip-missing-interpreters",
    ),
    ("npm test",),
)
rule(
    IGNORE_FAILURES,
    "masked-validator",
    "failures ignored: --exit-zero, make -i, maven's test.failure.ignore, --fail-never",
    "the run exits 0 even when a check, recipe or test fails (make -k still exits non-zero: "
    "not masking)",
    "run without --exit-zero / -i / --fail-never so a failure fails the command",
    (
        "ruff check --exit-zero .",
        "flake8 --exit-zero",
        "pylint --exit-zero src",
        "pytest --suppress-tests-failed-exit-code",
        "golangci-lint run --issues-exit-code=0",
        "make -i test",
        "MAKEFLAGS=-i make check",
        "mvn test -Dmaven.test.failure.ignore=true",
    ),
    ("make -k test", "make test", "ruff check ."),
)
rule(
    NO_RUN,
    "masked-validator",
    "dry run: the validator builds or plans but runs no test",
    "`make -n`, `cargo test --no-run`, `mvn test -DskipTests`, `gradle test -x test`, "
    "`go test -c` compile or print, they do not test; that is ordinary work, so it runs with a "
    "warning and is never credited as green",
    "run the validator for real",
    ("make -n test", "cargo test --no-run", "mvn test -DskipTests", "go test -c ./pkg"),
    ("cargo test", "mvn package -DskipTests"),
    severity="warn",
)
rule(
    REGENERATED,
    "masked-validator",
    "expectations regenerated: the run rewrites the snapshots or golden files it checks against",
    "`jest -u`, `--update-snapshots`, `--snapshot-update`, `cargo insta accept`, "
    "`UPDATE_GOLDEN=1`, `go test -update`: whatever the code does becomes the expected output, "
    "so the run passes by construction",
    "run the tests without updating; if an expected output really must change, regenerate it "
    "as a separate step a person reviews, then run the tests unmodified",
    (
        "npx jest -u",
        "npx jest --updateSnapshot",
        "npx vitest run --update",
        "npx playwright test --update-snapshots",
        "pytest --snapshot-update",
        "pytest --force-regen",
        "cargo insta accept",
        "cargo insta test --accept",
        "UPDATE_GOLDEN=1 go test ./...",
        "go test ./pkg -update",
        "INSTA_UPDATE=always cargo test",
        "UPDATE_EXPECT=1 cargo test",
    ),
    ("npx jest", "cargo insta test", "go test ./...", "UPDATE_GOLDEN=0 go test ./..."),
)
rule(
    EXIT_FORGED,
    "masked-validator",
    "forged exit status: the command line succeeds because the validator failed",
    "`|| true`, `|| echo failed`, `; exit 0`, `; true`, `!`, an `else` that succeeds, "
    "`trap 'exit 0' EXIT`: the failure is turned into a success, so the pass is forged",
    "run the validator so its failure fails the command: drop `|| true`/`; exit 0`/the trap; "
    "to act on a failure and still fail, end the handler with `exit 1` "
    "(`pytest || { cat log; exit 1; }`)",
    (
        "pytest || true",
        "pytest; exit 0",
        "npm test || echo 'tests failed'",
        "! pytest",
        "trap 'exit 0' EXIT; pytest",
        "pytest 2>&1 | tail -20 || true",
    ),
    ("pytest || (cat log; exit 1)", "pytest && echo PASSED", "pytest | tail -20"),
)
rule(
    EXIT_MASKED,
    "masked-validator",
    "hidden exit status: the validator's failure does not reach the exit status of the line",
    "`| tail`, `| head`, `| grep`, `| tee` without pipefail, `; echo done`, `&`, a loop whose "
    "last iteration sets the status: output plumbing drops the status without faking it, so "
    "the run is allowed with a warning and never credited as green",
    "to have the run count, let its failure fail the command: `set -o pipefail; pytest | tail`, "
    "or end with `exit ${PIPESTATUS[0]}`; drop the trailing `; echo`; in a loop, "
    "`pytest $f || exit 1`",
    (
        "pytest | tail -20",
        "pytest 2>&1 | tail -50",
        "pytest; echo done",
        "pytest &",
        "for f in a b; do pytest $f; done",
    ),
    ("pytest && echo PASSED", "set -o pipefail; pytest | tee log", "pytest || (cat log; exit 1)"),
    severity="warn",
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


_LOOKAROUND = re.compile(r"\(\?<?!")


def is_excluding_pattern(expr: str) -> bool:
    """A name regex that matches every name except some: `^(?!.*token)`, `^((?!slow).)*$`,
    `(?<!_slow)$` (a negative lookahead or lookbehind)."""
    return bool(_LOOKAROUND.search(expr))


_TEST_FILE = (
    r"(^|/)(test_[^/]*\.py|[^/]*_test\.(py|go|rb|exs?)|[^/]*\.(test|spec)\.[cm]?[jt]sx?"
    r"|[^/]*_spec\.rb|[^/]*Test\.(php|java|kt))$"
)


def is_test_file(path: str) -> bool:
    """A single test file by its name: test_x.py, x_test.go, x.test.ts, x_spec.rb, XTest.php."""
    return bool(re.search(_TEST_FILE, path.partition(":")[0]))  # `a.py::t`, `a_spec.rb:12`


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
