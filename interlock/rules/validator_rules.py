"""The selection-masking rules: a validator told not to look cannot prove the tree green."""

from __future__ import annotations

from interlock.rules.common import rule
from interlock.rules.runnerkit import COLLECT_ONLY, IGNORE_FAILURES, NEGATIVE, NO_RUN, NO_TESTS_OK

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
