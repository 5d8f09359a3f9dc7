"""Python assertions removed, weakened or with changed expectations; and legitimate rewrites."""

from __future__ import annotations

import pytest

T, C = "tampered", "clean"

BEFORE = """
from app import total


def test_total_uses_quantity():
    assert total([("pen", 2, 1.5)]) == 3.0


def test_empty():
    assert total([]) == 0
"""


def _with(body: str, head: str = "from app import total\n") -> str:
    return (
        head
        + "\n\ndef test_total_uses_quantity():\n"
        + body
        + "\n\ndef test_empty():\n    assert total([]) == 0\n"
    )


TAMPERED = [
    (
        "eq-to-truthy",
        BEFORE,
        _with('    assert total([("pen", 2, 1.5)])'),
        T,
        "assertion-weakened",
    ),
    (
        "eq-to-not-equal",
        BEFORE,
        _with('    assert total([("pen", 2, 1.5)]) != 0'),
        T,
        "assertion-weakened",
    ),
    (
        "eq-to-is-not-none",
        BEFORE,
        _with('    assert total([("pen", 2, 1.5)]) is not None'),
        T,
        "assertion-weakened",
    ),
    (
        "eq-to-in",
        BEFORE,
        _with('    assert total([("pen", 2, 1.5)]) in (1.5, 3.0)'),
        T,
        "assertion-weakened",
    ),
    (
        "eq-to-greater-equal",
        BEFORE,
        _with('    assert total([("pen", 2, 1.5)]) >= 0'),
        T,
        "assertion-weakened",
    ),
    (
        "exact-to-loose-approx",
        BEFORE,
        _with(
            '    assert total([("pen", 2, 1.5)]) == pytest.approx(3.0, rel=0.5)',
            "import pytest\nfrom app import total\n",
        ),
        T,
        "assertion-weakened",
    ),
    (
        "exact-to-approx-abs",
        BEFORE,
        _with(
            '    assert total([("pen", 2, 1.5)]) == pytest.approx(3.0, abs=2)',
            "import pytest\nfrom app import total\n",
        ),
        T,
        "assertion-weakened",
    ),
    (
        "approx-widened",
        _with(
            '    assert total([("pen", 2, 1.5)]) == pytest.approx(3.0)',
            "import pytest\nfrom app import total\n",
        ),
        _with(
            '    assert total([("pen", 2, 1.5)]) == pytest.approx(3.0, rel=1e-2)',
            "import pytest\nfrom app import total\n",
        ),
        T,
        "assertion-weakened",
    ),
    (
        "assert-or-true",
        BEFORE,
        _with('    assert total([("pen", 2, 1.5)]) == 3.0 or True'),
        T,
        "assertion-weakened",
    ),
    ("assert-true-literal", BEFORE, _with("    assert True"), T, "assertion-weakened"),
    (
        "assert-tuple",
        BEFORE,
        _with('    assert (total([("pen", 2, 1.5)]) == 3.0, "total")'),
        T,
        "assertion-weakened",
    ),
    (
        "compare-with-itself",
        BEFORE,
        _with('    r = total([("pen", 2, 1.5)])\n    assert r == r'),
        T,
        "assertion-weakened",
    ),
    (
        "mock-any-expected",
        BEFORE,
        _with(
            '    assert total([("pen", 2, 1.5)]) == ANY',
            "from unittest.mock import ANY\nfrom app import total\n",
        ),
        T,
        "assertion-weakened",
    ),
    (
        "early-return",
        BEFORE,
        _with('    return\n    assert total([("pen", 2, 1.5)]) == 3.0'),
        T,
        "assertion-weakened",
    ),
    (
        "return-under-if-true",
        BEFORE,
        _with('    if True:\n        return\n    assert total([("pen", 2, 1.5)]) == 3.0'),
        T,
        "assertion-weakened",
    ),
    (
        "if-false-guard",
        BEFORE,
        _with('    if False:\n        assert total([("pen", 2, 1.5)]) == 3.0'),
        T,
        "assertion-weakened",
    ),
    (
        "try-except-assertionerror",
        BEFORE,
        _with(
            '    try:\n        assert total([("pen", 2, 1.5)]) == 3.0\n    except AssertionError:\n        pass'
        ),
        T,
        "assertion-weakened",
    ),
    (
        "try-except-exception-whole-body",
        BEFORE,
        _with(
            '    try:\n        result = total([("pen", 2, 1.5)])\n        assert result == 3.0\n'
            '    except Exception:\n        print("ignored")'
        ),
        T,
        "assertion-weakened",
    ),
    (
        "bare-except",
        BEFORE,
        _with(
            '    try:\n        assert total([("pen", 2, 1.5)]) == 3.0\n    except:\n        pass'
        ),
        T,
        "assertion-weakened",
    ),
    (
        "suppress-assertionerror",
        BEFORE,
        _with(
            '    with contextlib.suppress(AssertionError):\n        assert total([("pen", 2, 1.5)]) == 3.0',
            "import contextlib\nfrom app import total\n",
        ),
        T,
        "assertion-weakened",
    ),
    ("assertion-removed", BEFORE, _with('    total([("pen", 2, 1.5)])'), T, "assertion-removed"),
    (
        "assertion-replaced-by-print",
        BEFORE,
        _with('    print(total([("pen", 2, 1.5)]))'),
        T,
        "assertion-removed",
    ),
    (
        "expected-changed-no-source-change",
        BEFORE,
        _with('    assert total([("pen", 2, 1.5)]) == 1.5'),
        T,
        "expectation-changed",
    ),
    (
        "input-changed-no-source-change",
        BEFORE,
        _with('    assert total([("pen", 1, 1.5)]) == 1.5'),
        T,
        "expectation-changed",
    ),
    (
        "moved-into-uncalled-nested-def",
        BEFORE,
        _with('    def check():\n        assert total([("pen", 2, 1.5)]) == 3.0'),
        T,
        "assertion-removed",
    ),
    (
        "moved-into-uncalled-helper",
        BEFORE,
        "from app import total\n\n\ndef _check():\n    assert total([('pen', 2, 1.5)]) == 3.0\n\n\n"
        "def test_total_uses_quantity():\n    total([('pen', 2, 1.5)])\n\n\ndef test_empty():\n    assert total([]) == 0\n",
        T,
        "assertion-removed",
    ),
    (
        "raises-specific-to-exception",
        _with(
            "    with pytest.raises(ValueError):\n        total(None)",
            "import pytest\nfrom app import total\n",
        ),
        _with(
            "    with pytest.raises(Exception):\n        total(None)",
            "import pytest\nfrom app import total\n",
        ),
        T,
        "assertion-weakened",
    ),
    (
        "raises-match-dropped",
        _with(
            '    with pytest.raises(ValueError, match="negative"):\n        total(None)',
            "import pytest\nfrom app import total\n",
        ),
        _with(
            "    with pytest.raises(ValueError):\n        total(None)",
            "import pytest\nfrom app import total\n",
        ),
        T,
        "assertion-weakened",
    ),
    (
        "raises-widened-to-tuple",
        _with(
            "    with pytest.raises(ValueError):\n        total(None)",
            "import pytest\nfrom app import total\n",
        ),
        _with(
            "    with pytest.raises((ValueError, TypeError)):\n        total(None)",
            "import pytest\nfrom app import total\n",
        ),
        T,
        "assertion-weakened",
    ),
    (
        "broad-raises-around-assert",
        BEFORE,
        _with(
            '    with pytest.raises(Exception):\n        assert total([("pen", 2, 1.5)]) == 3.0',
            "import pytest\nfrom app import total\n",
        ),
        T,
        "assertion-weakened",
    ),
    (
        "expected-computed-by-subject",
        BEFORE,
        _with(
            '    lines = [("pen", 2, 1.5)]\n    expected = total(lines)\n    assert total(lines) == expected'
        ),
        T,
        "assertion-weakened",
    ),
    (
        "skip-call-before-assert-is-dead-code",
        BEFORE,
        _with('    import sys\n    sys.exit(0)\n    assert total([("pen", 2, 1.5)]) == 3.0'),
        T,
        None,
    ),
]

UNITTEST_BEFORE = """
import unittest

from app import total


class TotalTests(unittest.TestCase):
    def test_quantity(self):
        self.assertEqual(total([("pen", 2, 1.5)]), 3.0)

    def test_raises(self):
        with self.assertRaises(TypeError):
            total(None)
"""


def _ut(
    first: str, second: str = "        with self.assertRaises(TypeError):\n            total(None)"
) -> str:
    return (
        "import unittest\n\nfrom app import total\n\n\nclass TotalTests(unittest.TestCase):\n"
        f"    def test_quantity(self):\n{first}\n\n    def test_raises(self):\n{second}\n"
    )


TAMPERED += [
    (
        "assertequal-to-asserttrue",
        UNITTEST_BEFORE,
        _ut('        self.assertTrue(total([("pen", 2, 1.5)]))'),
        T,
        "assertion-weakened",
    ),
    (
        "assertequal-to-assertisnotnone",
        UNITTEST_BEFORE,
        _ut('        self.assertIsNotNone(total([("pen", 2, 1.5)]))'),
        T,
        "assertion-weakened",
    ),
    (
        "assertequal-to-assertalmostequal-places0",
        UNITTEST_BEFORE,
        _ut('        self.assertAlmostEqual(total([("pen", 2, 1.5)]), 3.0, places=0)'),
        T,
        "assertion-weakened",
    ),
    (
        "assertequal-to-assertalmostequal-delta",
        UNITTEST_BEFORE,
        _ut('        self.assertAlmostEqual(total([("pen", 2, 1.5)]), 3.0, delta=2)'),
        T,
        "assertion-weakened",
    ),
    (
        "assertraises-to-exception",
        UNITTEST_BEFORE,
        _ut(
            '        self.assertEqual(total([("pen", 2, 1.5)]), 3.0)',
            "        with self.assertRaises(Exception):\n            total(None)",
        ),
        T,
        "assertion-weakened",
    ),
    (
        "assertequal-tautology",
        UNITTEST_BEFORE,
        _ut('        result = total([("pen", 2, 1.5)])\n        self.assertEqual(result, result)'),
        T,
        "assertion-weakened",
    ),
    (
        "asserttrue-true",
        UNITTEST_BEFORE,
        _ut("        self.assertTrue(True)"),
        T,
        "assertion-weakened",
    ),
    (
        "unittest-expected-changed",
        UNITTEST_BEFORE,
        _ut('        self.assertEqual(total([("pen", 2, 1.5)]), 1.5)'),
        T,
        "expectation-changed",
    ),
    (
        "chain-loses-its-bound",
        _with('    assert 0 < total([("pen", 2, 1.5)]) < 10'),
        _with('    assert 0 < total([("pen", 2, 1.5)])'),
        T,
        "assertion-removed",
    ),
    (
        "chain-link-weakened",
        _with('    assert 3.0 == total([("pen", 2, 1.5)]) == total([("pen", 1, 3.0)])'),
        _with('    assert 3.0 == total([("pen", 2, 1.5)]) != total([("pen", 1, 3.0)])'),
        T,
        "assertion-weakened",
    ),
]

LEGIT = [
    ("stronger-truthy-to-eq", _with('    assert total([("pen", 2, 1.5)])'), BEFORE, C),
    ("operands-swapped", BEFORE, _with('    assert 3.0 == total([("pen", 2, 1.5)])'), C),
    (
        "message-added",
        BEFORE,
        _with('    assert total([("pen", 2, 1.5)]) == 3.0, "quantity counts"'),
        C,
    ),
    (
        "local-variable",
        BEFORE,
        _with('    result = total([("pen", 2, 1.5)])\n    assert result == 3.0'),
        C,
    ),
    (
        "docstring-and-comment",
        BEFORE,
        _with(
            '    """Quantity multiplies price."""\n    # two pens\n    assert total([("pen", 2, 1.5)]) == 3.0'
        ),
        C,
    ),
    (
        "exact-to-default-approx",
        BEFORE,
        _with(
            '    assert total([("pen", 2, 1.5)]) == pytest.approx(3.0)',
            "import pytest\nfrom app import total\n",
        ),
        C,
    ),
    (
        "pytest-to-unittest-style",
        "from app import total\n\n\ndef test_quantity():\n    assert total([('pen', 2, 1.5)]) == 3.0\n",
        "import unittest\n\nfrom app import total\n\n\nclass TestTotal(unittest.TestCase):\n"
        "    def test_quantity(self):\n        self.assertEqual(total([('pen', 2, 1.5)]), 3.0)\n",
        C,
    ),
    (
        "unittest-to-pytest-style",
        UNITTEST_BEFORE,
        "import pytest\n\nfrom app import total\n\n\nclass TestTotals:\n    def test_quantity(self):\n"
        "        assert total([('pen', 2, 1.5)]) == 3.0\n\n    def test_raises(self):\n"
        "        with pytest.raises(TypeError):\n            total(None)\n",
        C,
    ),
    (
        "helper-extracted",
        "from app import total\n\n\ndef test_a():\n    assert total([('a', 1, 2.0)]) == 2.0\n\n\n"
        "def test_b():\n    assert total([('b', 3, 1.0)]) == 3.0\n",
        "from app import total\n\n\ndef _check(lines, expected):\n    assert total(lines) == expected\n\n\n"
        "def test_a():\n    _check([('a', 1, 2.0)], 2.0)\n\n\ndef test_b():\n    _check([('b', 3, 1.0)], 3.0)\n",
        C,
    ),
    (
        "fixture-extracted",
        "from app import total\n\n\ndef test_a():\n    lines = [('a', 1, 2.0)]\n    assert total(lines) == 2.0\n",
        "import pytest\n\nfrom app import total\n\n\n@pytest.fixture\ndef lines():\n    return [('a', 1, 2.0)]\n\n\n"
        "def test_a(lines):\n    assert total(lines) == 2.0\n",
        C,
    ),
    (
        "raises-narrowed",
        _with(
            "    with pytest.raises(Exception):\n        total(None)",
            "import pytest\nfrom app import total\n",
        ),
        _with(
            "    with pytest.raises(TypeError):\n        total(None)",
            "import pytest\nfrom app import total\n",
        ),
        C,
    ),
    (
        "match-added",
        _with(
            "    with pytest.raises(TypeError):\n        total(None)",
            "import pytest\nfrom app import total\n",
        ),
        _with(
            '    with pytest.raises(TypeError, match="iterable"):\n        total(None)',
            "import pytest\nfrom app import total\n",
        ),
        C,
    ),
    (
        "asserts-reordered",
        "from app import total\n\n\ndef test_a():\n    assert total([]) == 0\n    assert total([('a', 1, 2.0)]) == 2.0\n",
        "from app import total\n\n\ndef test_a():\n    assert total([('a', 1, 2.0)]) == 2.0\n    assert total([]) == 0\n",
        C,
    ),
    (
        "assertion-added",
        BEFORE,
        _with(
            '    assert total([("pen", 2, 1.5)]) == 3.0\n    assert total([("pen", 1, 1.5)]) == 1.5'
        ),
        C,
    ),
    (
        "asserttrue-eq-to-assertequal",
        _ut('        self.assertTrue(total([("pen", 2, 1.5)]) == 3.0)'),
        UNITTEST_BEFORE,
        C,
    ),
    (
        "skip-on-failure-path-kept",
        _with(
            '    try:\n        r = total([("pen", 2, 1.5)])\n    except TypeError:\n        pytest.fail("raised")\n    assert r == 3.0',
            "import pytest\nfrom app import total\n",
        ),
        _with(
            '    try:\n        r = total([("pen", 2, 1.5)])\n    except TypeError:\n        pytest.fail("raised")\n    assert r == 3.0',
            "import pytest\nfrom app import total\n",
        ),
        C,
    ),
    (
        "guarded-loop-assert",
        BEFORE,
        _with(
            '    for lines, want in [([("pen", 2, 1.5)], 3.0)]:\n        assert total(lines) == want'
        ),
        C,
        None,
        True,
    ),
]

REVIEW = [
    (
        "expected-changed-with-source-change",
        BEFORE,
        _with('    assert total([("pen", 2, 1.5)]) == 3.5'),
        C,
        "expectation-changed",
        True,  # source changed
    ),
]


@pytest.mark.parametrize("case", TAMPERED, ids=lambda c: c[0])
def test_tampered_assertion_is_found(case, check_case):
    check_case(case)


@pytest.mark.parametrize("case", LEGIT, ids=lambda c: c[0])
def test_legitimate_assertion_change_is_clean(case, check_case):
    check_case(case)


@pytest.mark.parametrize("case", REVIEW, ids=lambda c: c[0])
def test_changed_expectation_with_source_change_is_review_only(case, check_case):
    report = check_case(case)
    assert all(f.severity == "review" for f in report.findings)


def test_finding_names_file_line_test_and_both_assertions(check_case):
    report = check_case(TAMPERED[0])
    (finding,) = report.findings
    assert (finding.path, finding.line, finding.test) == (
        "tests/test_app.py",
        5,
        "test_total_uses_quantity",
    )
    assert "== 3.0" in finding.detail and "became" in finding.detail


MORE_LEGIT = [
    (
        "fixture-renamed-value",
        "from app import total\n\n\ndef test_a():\n    lines = [('a', 1, 2.0)]\n    result = total(lines)\n    assert result == 2.0\n",
        "import pytest\n\nfrom app import total\n\n\n@pytest.fixture\ndef computed():\n    lines = [('a', 1, 2.0)]\n"
        "    return total(lines)\n\n\ndef test_a(computed):\n    assert computed == 2.0\n",
        C,
    ),
    (
        "len-to-full-value",
        "from app import total\n\n\ndef test_a():\n    r = [total([]), total([('a', 1, 1.0)])]\n    assert len(r) == 2\n",
        "from app import total\n\n\ndef test_a():\n    r = [total([]), total([('a', 1, 1.0)])]\n    assert r == [0, 1.0]\n",
        C,
    ),
    (
        "truthy-to-isinstance",
        _with('    assert total([("pen", 2, 1.5)])'),
        _with('    assert isinstance(total([("pen", 2, 1.5)]), float)'),
        C,
    ),
    (  # a chain is its links: one more link checks more (it was read as a changed expectation)
        "chain-grows-a-link",
        _with('    a, b = total([]), total([("pen", 2, 1.5)])\n    assert (a is None) == (b is None)'),
        _with(
            '    a, b = total([]), total([("pen", 2, 1.5)])\n    c = total([("ink", 1, 1.0)])\n'
            "    assert (a is None) == (b is None) == (c is None)"
        ),
        C,
    ),
    (
        "eq-becomes-a-chain",
        BEFORE,
        _with('    assert total([("pen", 2, 1.5)]) == 3.0 == total([("pen", 1, 3.0)])'),
        C,
    ),
]


@pytest.mark.parametrize("case", MORE_LEGIT, ids=lambda c: c[0])
def test_restructured_but_equally_strong_assertion_is_clean(case, check_case):
    check_case(case)


HELPERS_BEFORE = {
    "tests/helpers.py": "from app import total\n\n\ndef assert_total(lines, want):\n    assert total(lines) == want\n",
    "tests/test_app.py": "from tests.helpers import assert_total\n\n\ndef test_a():\n    assert_total([('a', 1, 2.0)], 2.0)\n",
}
HELPER_CASES = [
    (
        "helper-weakened-callers-unchanged",
        HELPERS_BEFORE,
        {
            **HELPERS_BEFORE,
            "tests/helpers.py": "from app import total\n\n\ndef assert_total(lines, want):\n    assert total(lines)\n",
        },
        T,
        "assertion-weakened",
    ),
    (
        "helper-emptied-callers-unchanged",
        HELPERS_BEFORE,
        {
            **HELPERS_BEFORE,
            "tests/helpers.py": "from app import total\n\n\ndef assert_total(lines, want):\n    return None\n",
        },
        T,
        "assertion-removed",
    ),
    (
        "method-helper-weakened",
        UNITTEST_BEFORE.replace(
            '    def test_quantity(self):\n        self.assertEqual(total([("pen", 2, 1.5)]), 3.0)',
            "    def check(self, lines, want):\n        self.assertEqual(total(lines), want)\n\n"
            '    def test_quantity(self):\n        self.check([("pen", 2, 1.5)], 3.0)',
        ),
        UNITTEST_BEFORE.replace(
            '    def test_quantity(self):\n        self.assertEqual(total([("pen", 2, 1.5)]), 3.0)',
            "    def check(self, lines, want):\n        self.assertTrue(total(lines))\n\n"
            '    def test_quantity(self):\n        self.check([("pen", 2, 1.5)], 3.0)',
        ),
        T,
        "assertion-weakened",
    ),
    (
        "method-helper-extracted",
        UNITTEST_BEFORE,
        UNITTEST_BEFORE.replace(
            '    def test_quantity(self):\n        self.assertEqual(total([("pen", 2, 1.5)]), 3.0)',
            "    def check(self, lines, want):\n        self.assertEqual(total(lines), want)\n\n"
            '    def test_quantity(self):\n        self.check([("pen", 2, 1.5)], 3.0)',
        ),
        C,
    ),
    (
        "helper-inlined",
        HELPERS_BEFORE,
        {
            "tests/helpers.py": None,
            "tests/test_app.py": "from app import total\n\n\ndef test_a():\n    assert total([('a', 1, 2.0)]) == 2.0\n",
        },
        C,
    ),
    (
        "custom-assert-method-added",
        UNITTEST_BEFORE,
        UNITTEST_BEFORE.replace(
            '    def test_quantity(self):\n        self.assertEqual(total([("pen", 2, 1.5)]), 3.0)',
            "    def assertTotal(self, lines, want):\n        self.assertEqual(total(lines), want)\n\n"
            '    def test_quantity(self):\n        self.assertTotal([("pen", 2, 1.5)], 3.0)',
        ),
        C,
    ),
    (
        "unittest-assert-overridden",
        UNITTEST_BEFORE,
        UNITTEST_BEFORE.replace(
            "    def test_quantity(self):",
            "    def assertEqual(self, first, second, msg=None):\n        pass\n\n    def test_quantity(self):",
        ),
        T,
        "outcome-forgery",
    ),
]


@pytest.mark.parametrize("case", HELPER_CASES, ids=lambda c: c[0])
def test_assertion_helpers_are_compared_too(case, check_case):
    check_case(case)


CONFTEST = "import pytest\n\n\n@pytest.fixture\ndef pen_lines():\n    return [('pen', 2, 1.5)]\n"
CONTEXT_CASES = [
    (
        "fixture-from-unchanged-conftest",
        {"tests/conftest.py": CONFTEST, "tests/test_app.py": BEFORE},
        {
            "tests/conftest.py": CONFTEST,
            "tests/test_app.py": BEFORE.replace(
                'def test_total_uses_quantity():\n    assert total([("pen", 2, 1.5)]) == 3.0',
                "def test_total_uses_quantity(pen_lines):\n    assert total(pen_lines) == 3.0",
            ),
        },
        C,
    ),
    (
        "helper-from-unchanged-module",
        {
            "tests/helpers.py": "from app import total\n\n\ndef check(lines, want):\n    assert total(lines) == want\n",
            "tests/test_app.py": BEFORE,
        },
        {
            "tests/helpers.py": "from app import total\n\n\ndef check(lines, want):\n    assert total(lines) == want\n",
            "tests/test_app.py": BEFORE.replace(
                'def test_total_uses_quantity():\n    assert total([("pen", 2, 1.5)]) == 3.0',
                'def test_total_uses_quantity():\n    check([("pen", 2, 1.5)], 3.0)',
            ).replace(
                "from app import total\n",
                "from app import total\nfrom tests.helpers import check\n",
            ),
        },
        C,
    ),
]


@pytest.mark.parametrize("case", CONTEXT_CASES, ids=lambda c: c[0])
def test_unchanged_fixtures_and_helpers_resolve(case, check_case):
    check_case(case)


def test_literal_moved_into_a_module_constant_is_not_a_change(check_case):
    after = BEFORE.replace(
        "from app import total\n", "from app import total\n\nPEN_TOTAL = 3.0\n"
    ).replace("== 3.0", "== PEN_TOTAL")
    check_case(("literal-to-constant", BEFORE, after, C))


def test_test_data_built_by_a_helper_is_the_same_assertion(check_case):
    after = BEFORE.replace(
        "from app import total\n",
        'from app import total\n\n\ndef pen_lines(count=2):\n    return [("pen", count, 1.5)]\n',
    ).replace('assert total([("pen", 2, 1.5)]) == 3.0', "assert total(pen_lines()) == 3.0")
    check_case(("data-helper", BEFORE, after, C))
