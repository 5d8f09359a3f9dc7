"""Python tests skipped, emptied, deleted or no longer collected; and legitimate changes."""

from __future__ import annotations

import sys

import pytest

T, C = "tampered", "clean"

BEFORE = """
import sys

import pytest

from app import total


def test_quantity():
    assert total([("pen", 2, 1.5)]) == 3.0


def test_empty():
    assert total([]) == 0
"""
HEAD = "import sys\n\nimport pytest\n\nfrom app import total\n\n\n"
QTY = 'def test_quantity():\n    assert total([("pen", 2, 1.5)]) == 3.0\n'
EMPTY = "\n\ndef test_empty():\n    assert total([]) == 0\n"


def deco(line: str, head: str = HEAD) -> str:
    return head + line + "\n" + QTY + EMPTY


def body(first_line: str) -> str:
    return (
        HEAD
        + f'def test_quantity():\n    {first_line}\n    assert total([("pen", 2, 1.5)]) == 3.0\n'
        + EMPTY
    )


TAMPERED = [
    ("mark-skip-bare", BEFORE, deco("@pytest.mark.skip"), T, "skip-added"),
    ("mark-skip-reason", BEFORE, deco('@pytest.mark.skip(reason="flaky")'), T, "skip-added"),
    ("skipif-true", BEFORE, deco('@pytest.mark.skipif(True, reason="x")'), T, "skip-added"),
    (
        "skipif-one-equals-one",
        BEFORE,
        deco('@pytest.mark.skipif(1 == 1, reason="x")'),
        T,
        "skip-added",
    ),
    (
        "skipif-version-gt-zero",
        BEFORE,
        deco('@pytest.mark.skipif(sys.version_info > (0,), reason="old")'),
        T,
        "skip-added",
    ),
    (
        "skipif-version-major",
        BEFORE,
        deco('@pytest.mark.skipif(sys.version_info[0] >= 3, reason="x")'),
        T,
        "skip-added",
    ),
    (
        "skipif-string-condition",
        BEFORE,
        deco('@pytest.mark.skipif("1 + 1 == 2")'),
        T,
        "skip-added",
    ),
    (
        "skipif-module-constant",
        BEFORE,
        HEAD
        + "SKIP_SLOW = True\n\n\n@pytest.mark.skipif(SKIP_SLOW, reason='slow')\n"
        + QTY
        + EMPTY,
        T,
        "skip-added",
    ),
    (
        "skipif-not-false",
        BEFORE,
        deco("@pytest.mark.skipif(not False, reason='x')"),
        T,
        "skip-added",
    ),
    ("xfail-nonstrict", BEFORE, deco('@pytest.mark.xfail(reason="known")'), T, "skip-added"),
    ("xfail-strict-false", BEFORE, deco("@pytest.mark.xfail(strict=False)"), T, "skip-added"),
    (
        "mark-alias",
        BEFORE,
        HEAD + "later = pytest.mark.skip\n\n\n@later\n" + QTY + EMPTY,
        T,
        "skip-added",
    ),
    (
        "from-pytest-import-mark",
        BEFORE,
        deco("@mark.skip", "import sys\n\nfrom pytest import mark\n\nfrom app import total\n\n\n"),
        T,
        "skip-added",
    ),
    (
        "module-pytestmark",
        BEFORE,
        HEAD + "pytestmark = pytest.mark.skip(reason='later')\n\n\n" + QTY + EMPTY,
        T,
        "skip-added",
    ),
    (
        "module-pytestmark-list",
        BEFORE,
        HEAD
        + "pytestmark = [pytest.mark.filterwarnings('ignore'), pytest.mark.skip]\n\n\n"
        + QTY
        + EMPTY,
        T,
        "skip-added",
    ),
    (
        "module-skip-call",
        BEFORE,
        HEAD + "pytest.skip('not now', allow_module_level=True)\n\n\n" + QTY + EMPTY,
        T,
        None,
    ),
    ("module-test-false", BEFORE, HEAD + "__test__ = False\n\n\n" + QTY + EMPTY, T, "skip-added"),
    ("body-pytest-skip", BEFORE, body('pytest.skip("later")'), T, "skip-added"),
    ("body-pytest-xfail", BEFORE, body('pytest.xfail("later")'), T, "skip-added"),
    ("body-skip-in-if-true", BEFORE, body('if 1:\n        pytest.skip("x")'), T, "skip-added"),
    (
        "body-skip-here",
        BEFORE,
        body(f'if sys.platform == "{sys.platform}":\n        pytest.skip("x")'),
        T,
        "skip-added",
    ),
    (
        "async-without-plugin",
        BEFORE,
        HEAD + 'async def test_quantity():\n    assert total([("pen", 2, 1.5)]) == 3.0\n' + EMPTY,
        T,
        "skip-added",
    ),
    (
        "generator-test",
        BEFORE,
        HEAD
        + 'def test_quantity():\n    assert total([("pen", 2, 1.5)]) == 3.0\n    yield\n'
        + EMPTY,
        T,
        "skip-added",
    ),
    (
        "body-emptied-pass",
        BEFORE,
        HEAD + "def test_quantity():\n    pass\n" + EMPTY,
        T,
        "body-emptied",
    ),
    (
        "body-emptied-ellipsis",
        BEFORE,
        HEAD + "def test_quantity():\n    ...\n" + EMPTY,
        T,
        "body-emptied",
    ),
    (
        "body-emptied-docstring",
        BEFORE,
        HEAD + 'def test_quantity():\n    """TODO."""\n' + EMPTY,
        T,
        "body-emptied",
    ),
    (
        "body-emptied-return",
        BEFORE,
        HEAD + "def test_quantity():\n    return\n" + EMPTY,
        T,
        "body-emptied",
    ),
    ("test-deleted", BEFORE, HEAD + EMPTY, T, "test-deleted"),
    (
        "renamed-uncollected",
        BEFORE,
        HEAD + QTY.replace("def test_", "def _test_") + EMPTY,
        T,
        "test-deleted",
    ),
    (
        "renamed-disabled-prefix",
        BEFORE,
        HEAD + QTY.replace("def test_", "def disabled_test_") + EMPTY,
        T,
        "test-deleted",
    ),
    ("del-test", BEFORE, HEAD + QTY + EMPTY + "\n\ndel test_quantity\n", T, "test-deleted"),
    (
        "shadowed-by-duplicate",
        BEFORE,
        HEAD + QTY + EMPTY + "\n\ndef test_quantity():\n    pass\n",
        T,
        "body-emptied",
    ),
    (
        "rebound-to-none",
        BEFORE,
        HEAD + QTY + EMPTY + "\n\ntest_quantity = None\n",
        T,
        "test-deleted",
    ),
    (
        "whole-file-deleted",
        {"tests/test_app.py": BEFORE},
        {"tests/test_app.py": None},
        T,
        "test-deleted",
    ),
    (
        "file-renamed-uncollected",
        {"tests/test_app.py": BEFORE},
        {"tests/test_app.py": None, "tests/app_checks.py": BEFORE},
        T,
        "test-deleted",
    ),
    (
        "renamed-and-skipped",
        BEFORE,
        deco("@pytest.mark.skip").replace("def test_quantity", "def test_qty"),
        T,
        None,
    ),
    (
        "autouse-fixture-skips",
        BEFORE,
        HEAD
        + "@pytest.fixture(autouse=True)\ndef _later():\n    pytest.skip('later')\n\n\n"
        + QTY
        + EMPTY,
        T,
        "skip-added",
    ),
]

CLASS_BEFORE = """
import unittest

from app import total


class TotalTests(unittest.TestCase):
    def test_quantity(self):
        self.assertEqual(total([("pen", 2, 1.5)]), 3.0)

    def test_empty(self):
        self.assertEqual(total([]), 0)
"""


def cls(
    decorator: str = "",
    setup: str = "",
    method_deco: str = "",
    attr: str = "",
    base: str = "unittest.TestCase",
) -> str:
    return (
        "import unittest\n\nfrom app import total\n\n\n"
        + (decorator + "\n" if decorator else "")
        + f"class TotalTests({base}):\n"
        + (f"    {attr}\n\n" if attr else "")
        + setup
        + (f"    {method_deco}\n" if method_deco else "")
        + '    def test_quantity(self):\n        self.assertEqual(total([("pen", 2, 1.5)]), 3.0)\n\n'
        + "    def test_empty(self):\n        self.assertEqual(total([]), 0)\n"
    )


TAMPERED += [
    ("unittest-skip", CLASS_BEFORE, cls(method_deco='@unittest.skip("later")'), T, "skip-added"),
    (
        "unittest-skipif-true",
        CLASS_BEFORE,
        cls(method_deco='@unittest.skipIf(True, "x")'),
        T,
        "skip-added",
    ),
    (
        "unittest-skipunless-false",
        CLASS_BEFORE,
        cls(method_deco='@unittest.skipUnless(False, "x")'),
        T,
        "skip-added",
    ),
    (
        "unittest-expectedfailure",
        CLASS_BEFORE,
        cls(method_deco="@unittest.expectedFailure"),
        T,
        "skip-added",
    ),
    ("unittest-class-skip", CLASS_BEFORE, cls(decorator='@unittest.skip("x")'), T, "skip-added"),
    (
        "unittest-setup-skiptest",
        CLASS_BEFORE,
        cls(setup='    def setUp(self):\n        self.skipTest("later")\n\n'),
        T,
        "skip-added",
    ),
    (
        "unittest-raise-skiptest",
        CLASS_BEFORE,
        cls(
            setup="    @classmethod\n    def setUpClass(cls):\n        raise unittest.SkipTest('x')\n\n"
        ),
        T,
        "skip-added",
    ),
    (
        "unittest-unittest-skip-attr",
        CLASS_BEFORE,
        cls(attr="__unittest_skip__ = True"),
        T,
        "skip-added",
    ),
    ("testcase-base-removed", CLASS_BEFORE, cls(base="object"), T, "test-deleted"),
    ("class-test-false", CLASS_BEFORE, cls(attr="__test__ = False"), T, "skip-added"),
    (
        "unittest-method-self-skiptest",
        CLASS_BEFORE,
        CLASS_BEFORE.replace(
            "    def test_quantity(self):\n",
            "    def test_quantity(self):\n        self.skipTest('x')\n",
        ),
        T,
        "skip-added",
    ),
]

PARAM_BEFORE = """
import pytest

from app import total


@pytest.mark.parametrize("lines, expected", [
    ([("pen", 2, 1.5)], 3.0),
    ([("cup", 1, 4.0)], 4.0),
    ([], 0),
])
def test_total(lines, expected):
    assert total(lines) == expected
"""

TAMPERED += [
    (
        "param-case-removed",
        PARAM_BEFORE,
        PARAM_BEFORE.replace('    ([("cup", 1, 4.0)], 4.0),\n', ""),
        T,
        "test-deleted",
    ),
    (
        "param-case-expected-changed",
        PARAM_BEFORE,
        PARAM_BEFORE.replace("3.0)", "1.5)"),
        T,
        "expectation-changed",
    ),
    (
        "param-case-skipped",
        PARAM_BEFORE,
        PARAM_BEFORE.replace(
            '    ([("pen", 2, 1.5)], 3.0),',
            '    pytest.param([("pen", 2, 1.5)], 3.0, marks=pytest.mark.skip),',
        ),
        T,
        "skip-added",
    ),
    (
        "param-all-cases-removed",
        PARAM_BEFORE,
        "import pytest\n\nfrom app import total\n\n\n@pytest.mark.parametrize('lines, expected', [])\n"
        "def test_total(lines, expected):\n    assert total(lines) == expected\n",
        T,
        None,
    ),
]

LEGIT = [
    (
        "platform-skipif-win32",
        BEFORE,
        deco('@pytest.mark.skipif(sys.platform == "win32", reason="posix")'),
        C,
    ),
    (
        "skipif-old-python",
        BEFORE,
        deco('@pytest.mark.skipif(sys.version_info < (3, 8), reason="old")'),
        C,
    ),
    ("skip-removed", deco('@pytest.mark.skip(reason="bug 41")'), BEFORE, C),
    (
        "skip-reason-reworded",
        deco('@pytest.mark.skip(reason="bug 41")'),
        deco('@pytest.mark.skip(reason="issue 41")'),
        C,
    ),
    ("xfail-removed", deco("@pytest.mark.xfail"), BEFORE, C),
    ("custom-marker-added", BEFORE, deco("@pytest.mark.slow"), C),
    ("timeout-marker-added", BEFORE, deco("@pytest.mark.timeout(5)"), C),
    (
        "new-skipped-test-added",
        BEFORE,
        BEFORE
        + "\n\n@pytest.mark.skip(reason='todo')\ndef test_new():\n    assert total([]) == 0\n",
        C,
    ),
    (
        "new-test-added",
        BEFORE,
        BEFORE
        + "\n\ndef test_two_lines():\n    assert total([('a', 1, 1.0), ('b', 1, 2.0)]) == 3.0\n",
        C,
    ),
    (
        "test-renamed",
        BEFORE,
        BEFORE.replace("def test_quantity", "def test_quantity_multiplies_price"),
        C,
    ),
    (
        "moved-into-class",
        BEFORE,
        HEAD
        + "class TestTotal:\n    def test_quantity(self):\n        assert total([('pen', 2, 1.5)]) == 3.0\n\n"
        "    def test_empty(self):\n        assert total([]) == 0\n",
        C,
    ),
    (
        "moved-to-other-file",
        {"tests/test_app.py": BEFORE},
        {"tests/test_app.py": HEAD + EMPTY, "tests/test_quantity.py": HEAD + QTY},
        C,
    ),
    (
        "file-renamed",
        {"tests/test_app.py": BEFORE},
        {"tests/test_app.py": None, "tests/test_totals.py": BEFORE},
        C,
    ),
    (
        "split-in-two",
        HEAD
        + "def test_all():\n    assert total([('pen', 2, 1.5)]) == 3.0\n    assert total([]) == 0\n",
        BEFORE,
        C,
    ),
    (
        "merged-into-one",
        BEFORE,
        HEAD
        + "def test_all():\n    assert total([('pen', 2, 1.5)]) == 3.0\n    assert total([]) == 0\n",
        C,
    ),
    (
        "tests-to-parametrize",
        BEFORE,
        HEAD + "@pytest.mark.parametrize('lines, want', [([('pen', 2, 1.5)], 3.0), ([], 0)])\n"
        "def test_total(lines, want):\n    assert total(lines) == want\n",
        C,
    ),
    (
        "param-case-added",
        PARAM_BEFORE,
        PARAM_BEFORE.replace("    ([], 0),\n", "    ([], 0),\n    ([('x', 0, 9.0)], 0),\n"),
        C,
    ),
    (
        "param-ids-added",
        PARAM_BEFORE,
        PARAM_BEFORE.replace("])\ndef", "], ids=['two', 'one', 'none'])\ndef"),
        C,
    ),
    (
        "formatting-only",
        BEFORE,
        BEFORE.replace('("pen", 2, 1.5)', "('pen',2,1.5)").replace("\n\n\ndef", "\n\ndef"),
        C,
    ),
    (
        "async-with-plugin",
        BEFORE,
        HEAD
        + '@pytest.mark.asyncio\nasync def test_quantity():\n    assert total([("pen", 2, 1.5)]) == 3.0\n'
        + EMPTY,
        C,
    ),
    (
        "unittest-platform-skipif",
        CLASS_BEFORE,
        cls(method_deco='@unittest.skipIf(sys.platform == "win32", "posix")').replace(
            "import unittest\n", "import sys\nimport unittest\n"
        ),
        C,
    ),
    (
        "deleted-test-was-skipped",
        deco("@pytest.mark.skip(reason='obsolete')"),
        HEAD + EMPTY.lstrip("\n"),
        C,
    ),
]

REVIEW = [
    (
        "skipif-tool-probe",
        BEFORE,
        deco('@pytest.mark.skipif(shutil.which("docker") is None, reason="docker")').replace(
            "import sys\n", "import shutil\nimport sys\n"
        ),
        C,
        "skip-added",
    ),
]

TAMPERED += [
    (
        "skipif-env-var-unset-here",
        BEFORE,
        deco(
            '@pytest.mark.skipif(not os.environ.get("INTERLOCK_TEST_NEVER_SET"), reason="db")'
        ).replace("import sys\n", "import os\nimport sys\n"),
        T,
        "skip-added",
    ),
    (
        "importorskip-missing-module",
        BEFORE,
        body('pytest.importorskip("no_such_module_xyz")'),
        T,
        "skip-added",
    ),
    (
        "early-return-on-this-platform",
        BEFORE,
        body(f'if sys.platform == "{sys.platform}":\n        return'),
        T,
        "assertion-weakened",
    ),
]

LEGIT += [
    (
        "skipif-env-var-set-elsewhere",
        BEFORE,
        deco(
            '@pytest.mark.skipif(os.environ.get("INTERLOCK_TEST_NEVER_SET") == "1", reason="ci")'
        ).replace("import sys\n", "import os\nimport sys\n"),
        C,
    ),
    (
        "early-return-on-other-platform",
        BEFORE,
        body('if sys.platform == "win32":\n        return'),
        C,
    ),
]


@pytest.mark.parametrize("case", TAMPERED, ids=lambda c: c[0])
def test_skipped_or_removed_test_is_found(case, check_case):
    check_case(case)


@pytest.mark.parametrize("case", LEGIT, ids=lambda c: c[0])
def test_legitimate_test_change_is_clean(case, check_case):
    check_case(case)


@pytest.mark.parametrize("case", REVIEW, ids=lambda c: c[0])
def test_undecidable_skip_condition_is_review_only(case, check_case):
    report = check_case(case)
    assert report.findings and all(f.severity == "review" for f in report.findings)


def test_module_level_skip_is_reported_once_for_the_module(check_case):
    report = check_case(TAMPERED[13])
    assert [(f.kind, f.test) for f in report.findings] == [("skip-added", None)]
