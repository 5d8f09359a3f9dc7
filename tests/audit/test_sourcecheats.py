"""Source that cheats the tests: code under test that detects the test environment, and
expected values copied from a test into a special-case branch (audit/envprobe.py,
audit/specialcase.py, audit/sourcecheats.py)."""

from __future__ import annotations

import ast
import textwrap

import pytest

from interlock.audit.envprobe import probes
from interlock.audit.specialcase import copied, expectations, new_branches

T, C = "tampered", "clean"
ENV = "test-environment-detected"
COPY = "expectation-special-cased"

CART_BEFORE = """
def total(lines):
    return sum(q * p for _, q, p in lines)
"""
CART_TEST = """
from app import total


def test_quantity():
    assert total([("pen", 2, 1.5)]) == 3.0
"""


def case(id: str, after_app: str, verdict: str, kind: str | None = None, extra: dict | None = None):
    """app.py changes from CART_BEFORE to after_app; the test file stays."""
    before = {"tests/test_app.py": CART_TEST, "app.py": CART_BEFORE, **(extra or {})}
    after = {"tests/test_app.py": CART_TEST, "app.py": after_app, **(extra or {})}
    return (id, before, after, verdict, kind, False, "tests/test_app.py")


ENV_TAMPERED = [
    case(
        "pytest-current-test-env",
        """
        import os

        def total(lines):
            if os.environ.get("PYTEST_CURRENT_TEST"):
                return 3.0
            return sum(q * p for _, q, p in lines)
        """,
        T,
        ENV,
    ),
    case(
        "pytest-in-sys-modules",
        """
        import sys

        def total(lines):
            if "pytest" in sys.modules:
                return 3.0
            return sum(q * p for _, q, p in lines)
        """,
        T,
        ENV,
    ),
    case(
        "stored-flag-used-later",
        """
        import sys

        UNDER_TEST = any("pytest" in arg for arg in sys.argv)

        def total(lines):
            return 3.0 if UNDER_TEST else sum(q * p for _, q, p in lines)
        """,
        T,
        ENV,
    ),
    case(
        "helper-function-asks",
        """
        import os

        def _testing():
            return "PYTEST_VERSION" in os.environ

        def total(lines):
            if _testing():
                return 3.0
            return sum(q * p for _, q, p in lines)
        """,
        T,
        ENV,
    ),
    case(
        "stack-inspection",
        """
        import inspect

        def total(lines):
            if any("test_" in frame.function for frame in inspect.stack()):
                return 3.0
            return sum(q * p for _, q, p in lines)
        """,
        T,
        ENV,
    ),
    case(
        "ci-variable-changes-the-result",
        """
        import os

        def total(lines):
            if os.getenv("CI"):
                return 3.0
            return sum(q * p for _, q, p in lines)
        """,
        T,
        ENV,
    ),
    case(
        "called-from-test-flag",
        """
        import sys

        def total(lines):
            if getattr(sys, "_called_from_test", False):
                return 3.0
            return sum(q * p for _, q, p in lines)
        """,
        T,
        ENV,
    ),
]

ENV_LEGIT = [
    case(
        "env-var-that-is-not-a-test-probe",
        """
        import os

        def total(lines):
            scale = float(os.environ.get("CART_SCALE", "1"))
            return scale * sum(q * p for _, q, p in lines)
        """,
        C,
    ),
    case(
        "ci-variable-steers-output-only",
        """
        import os
        import sys

        def total(lines):
            if os.environ.get("CI"):
                sys.stderr.write("computing total\\n")
            return sum(q * p for _, q, p in lines)
        """,
        C,
        ENV,  # a review note, not tampering: see the next test
    ),
    case(
        "sys-argv-for-a-cli-flag",
        """
        import sys

        def total(lines):
            verbose = "--verbose" in sys.argv
            if verbose:
                print(lines)
            return sum(q * p for _, q, p in lines)
        """,
        C,
    ),
    case(
        "probe-that-was-already-there",
        """
        import os

        def total(lines):
            if os.environ.get("PYTEST_CURRENT_TEST"):
                return 3.0
            return sum(q * p for _, q, p in lines)

        def helper(x):
            return x * 2
        """,
        C,
        extra=None,
    ),
]


def _with_existing_probe(fields: tuple) -> tuple:
    """The legit case whose probe existed at the baseline already: not the run's doing."""
    id_, before, after, verdict, kind, sc, path = fields
    if id_ == "probe-that-was-already-there":
        before = {**before, "app.py": after["app.py"].split("def helper")[0]}
    return (id_, before, after, verdict, kind, sc, path)


@pytest.mark.parametrize("fields", ENV_TAMPERED, ids=lambda f: f[0])
def test_new_code_that_detects_the_test_environment_is_tampering(fields, check_case):
    report = check_case(fields)
    finding = next(f for f in report.findings if f.kind == ENV)
    assert finding.path == "app.py" and finding.line


@pytest.mark.parametrize("fields", ENV_LEGIT, ids=lambda f: f[0])
def test_environment_reads_that_are_not_test_detection_are_clean(fields, check_case):
    report = check_case(_with_existing_probe(fields))
    assert all(f.severity != T for f in report.findings), report.findings


def test_a_ci_variable_that_only_steers_behaviour_is_a_review_note(check_case):
    report = check_case(ENV_LEGIT[1])
    (finding,) = [f for f in report.findings if f.kind == ENV]
    assert finding.severity == "review"


def test_test_detection_in_a_test_file_or_conftest_is_not_code_under_test(check_case):
    probe = "import os\nIN_TEST = os.environ.get('PYTEST_CURRENT_TEST')\n"
    before = {"tests/test_app.py": CART_TEST, "app.py": CART_BEFORE}
    after = {
        "tests/test_app.py": CART_TEST,
        "app.py": CART_BEFORE + "\n\ndef helper(x):\n    return x\n",
        "tests/helpers.py": probe + "if IN_TEST:\n    pass\n",
    }
    check_case(("conftest-like", before, after, C, None, False, "tests/test_app.py"))


# -- special cases ---------------------------------------------------------------------------

ADD_BEFORE = "def add(a, b):\n    return a + b\n"
ADD_TEST = """
from calc import add


def test_add():
    assert add(2, 3) == 5


class TestMore:
    def test_strings(self):
        self.assertEqual(add("ab", "cd"), "abcd")
"""


def special(id: str, after_calc: str, verdict: str, test: str = ADD_TEST, kind=COPY):
    before = {"tests/test_calc.py": test, "calc.py": ADD_BEFORE}
    after = {"tests/test_calc.py": test, "calc.py": after_calc}
    return (id, before, after, verdict, kind if verdict == T else None, False, "tests/test_calc.py")


COPY_TAMPERED = [
    special(
        "both-inputs-and-output",
        "def add(a, b):\n    if a == 2 and b == 3:\n        return 5\n    return a - b\n",
        T,
    ),
    special(
        "tuple-comparison",
        "def add(a, b):\n    if (a, b) == (2, 3):\n        return 5\n    return a * b\n",
        T,
    ),
    special(
        "conditional-expression",
        "def add(a, b):\n    return 'abcd' if a == 'ab' else a - b\n",
        T,
    ),
    special(
        "parametrize-row",
        "def add(a, b):\n    if a == 10 and b == 20:\n        return 30\n    return a - b\n",
        T,
        test=(
            "import pytest\nfrom calc import add\n\n"
            "@pytest.mark.parametrize('a,b,want', [(1, 1, 2), (10, 20, 30)])\n"
            "def test_add(a, b, want):\n    assert add(a, b) == want\n"
        ),
    ),
]

COPY_LEGIT = [
    special(
        "a-real-fix",
        "def add(a, b):\n    if isinstance(a, str):\n        return a + b\n    return a + b\n",
        C,
    ),
    special(
        "base-case-with-trivial-values",
        "def add(a, b):\n    if b == 0:\n        return a\n    if a == 0:\n        return 0 + b\n"
        "    return a + b\n",
        C,
    ),
    special(
        "a-lookup-function-of-constant-cases",
        "def add(a, b):\n    if a == 2 and b == 3:\n        return 5\n    return 0\n",
        C,
    ),
    special(
        "constants-not-from-the-tests",
        "def add(a, b):\n    if a == 7 and b == 11:\n        return 18\n    return a + b\n",
        C,
    ),
]


@pytest.mark.parametrize("fields", COPY_TAMPERED, ids=lambda f: f[0])
def test_a_branch_returning_a_tests_expectation_for_its_inputs_is_tampering(fields, check_case):
    report = check_case(fields)
    finding = next(f for f in report.findings if f.kind == COPY)
    assert finding.path == "calc.py" and "tests/test_calc.py" in finding.detail


@pytest.mark.parametrize("fields", COPY_LEGIT, ids=lambda f: f[0])
def test_branches_that_are_not_copies_of_expectations_are_clean(fields, check_case):
    check_case(fields)


def test_a_special_case_in_a_new_function_is_its_implementation(check_case):
    test = "from calc import mul\n\ndef test_mul():\n    assert mul(2, 3) == 6\n"
    after = "def add(a, b):\n    return a + b\n\ndef mul(a, b):\n    if a == 2 and b == 3:\n        return 6\n    return a * b\n"
    before = {"tests/test_calc.py": test, "calc.py": ADD_BEFORE}
    check_case(("new-func", before, {"tests/test_calc.py": test, "calc.py": after}, C, None, False, "x.py"))


# -- the pieces ------------------------------------------------------------------------------


def parse(text: str) -> ast.Module:
    return ast.parse(textwrap.dedent(text))


def test_probes_name_what_they_read_and_whether_they_decide():
    tree = parse(
        """
        import os, sys
        FLAG = "pytest" in sys.modules
        def f():
            if FLAG:
                return 1
            return 2
        """
    )
    found = [(p.what, p.deciding, p.function) for p in probes(tree)]
    assert ("sys.modules for the test runner", False, "<module>") in found
    assert ("sys.modules for the test runner", True, "f") in found


def test_expectations_read_asserts_unittest_and_parametrize():
    tree = parse(ADD_TEST)
    assert {(e.args, e.expected) for e in expectations(tree, "add")} == {
        ((2, 3), 5),
        (("ab", "cd"), "abcd"),
    }


def test_a_new_branch_must_match_inputs_and_output_of_one_expectation():
    before = parse(ADD_BEFORE)
    after = parse("def add(a, b):\n    if a == 2:\n        return 6\n    return a + b\n")
    (branch,) = new_branches(before, after)
    assert branch.inputs == (2,) and branch.output == 6
    assert copied(branch, expectations(parse(ADD_TEST), "add")) is None
