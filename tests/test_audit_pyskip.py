"""Python tests skipped, emptied, deleted or no longer collected; and legitimate changes."""

from __future__ import annotations

import sys

import pytest
from auditkit import Case, check_case

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
    Case("mark-skip-bare", BEFORE, deco("@pytest.mark.skip"), T, "skip-added"),
    Case("mark-skip-reason", BEFORE, deco('@pytest.mark.skip(reason="flaky")'), T, "skip-added"),
    Case("skipif-true", BEFORE, deco('@pytest.mark.skipif(True, reason="x")'), T, "skip-added"),
    Case(
        "skipif-one-equals-one",
        BEFORE,
        deco('@pytest.mark.skipif(1 == 1, reason="x")'),
        T,
        "skip-added",
    ),
    Case(
        "skipif-version-gt-zero",
        BEFORE,
        deco('@pytest.mark.skipif(sys.version_info > (0,), reason="old")'),
        T,
        "skip-added",
    ),
    Case(
        "skipif-version-major",
        BEFORE,
        deco('@pytest.mark.skipif(sys.version_info[0] >= 3, reason="x")'),
        T,
        "skip-added",
    ),
    Case(
        "skipif-string-condition",
        BEFORE,
        deco('@pytest.mark.skipif("1 + 1 == 2")'),
        T,
        "skip-added",
    ),
    Case(
        "skipif-module-constant",
        BEFORE,
        HEAD
        + "SKIP_SLOW = True\n\n\n@pytest.mark.skipif(SKIP_SLOW, reason='slow')\n"
        + QTY
        + EMPTY,
        T,
        "skip-added",
    ),
    Case(
        "skipif-not-false",
        BEFORE,
        deco("@pytest.mark.skipif(not False, reason='x')"),
        T,
        "skip-added",
    ),
    Case("xfail-nonstrict", BEFORE, deco('@pytest.mark.xfail(reason="known")'), T, "skip-added"),
    Case("xfail-strict-false", BEFORE, deco("@pytest.mark.xfail(strict=False)"), T, "skip-added"),
    Case(
        "mark-alias",
        BEFORE,
        HEAD + "later = pytest.mark.skip\n\n\n@later\n" + QTY + EMPTY,
        T,
        "skip-added",
    ),
    Case(
        "from-pytest-import-mark",
        BEFORE,
        deco("@mark.skip", "import sys\n\nfrom pytest import mark\n\nfrom app import total\n\n\n"),
        T,
        "skip-added",
    ),
    Case(
        "module-pytestmark",
        BEFORE,
        HEAD + "pytestmark = pytest.mark.skip(reason='later')\n\n\n" + QTY + EMPTY,
        T,
        "skip-added",
    ),
    Case(
        "module-pytestmark-list",
        BEFORE,
        HEAD
        + "pytestmark = [pytest.mark.filterwarnings('ignore'), pytest.mark.skip]\n\n\n"
        + QTY
        + EMPTY,
        T,
        "skip-added",
    ),
    Case(
        "module-skip-call",
        BEFORE,
        HEAD + "pytest.skip('not now', allow_module_level=True)\n\n\n" + QTY + EMPTY,
        T,
        None,
    ),
    Case(
        "module-test-false", BEFORE, HEAD + "__test__ = False\n\n\n" + QTY + EMPTY, T, "skip-added"
    ),
    Case("body-pytest-skip", BEFORE, body('pytest.skip("later")'), T, "skip-added"),
    Case("body-pytest-xfail", BEFORE, body('pytest.xfail("later")'), T, "skip-added"),
    Case("body-skip-in-if-true", BEFORE, body('if 1:\n        pytest.skip("x")'), T, "skip-added"),
    Case(
        "body-skip-here",
        BEFORE,
        body(f'if sys.platform == "{sys.platform}":\n        pytest.skip("x")'),
        T,
        "skip-added",
    ),
    Case(
        "async-without-plugin",
        BEFORE,
        HEAD + 'async def test_quantity():\n    assert total([("pen", 2, 1.5)]) == 3.0\n' + EMPTY,
        T,
        "skip-added",
    ),
    Case(
        "generator-test",
        BEFORE,
        HEAD
        + 'def test_quantity():\n    assert total([("pen", 2, 1.5)]) == 3.0\n    yield\n'
        + EMPTY,
        T,
        "skip-added",
    ),
    Case(
        "body-emptied-pass",
        BEFORE,
        HEAD + "def test_quantity():\n    pass\n" + EMPTY,
        T,
        "body-emptied",
    ),
    Case(
        "body-emptied-ellipsis",
        BEFORE,
        HEAD + "def test_quantity():\n    ...\n" + EMPTY,
        T,
        "body-emptied",
    ),
    Case(
        "body-emptied-docstring",
        BEFORE,
        HEAD + 'def test_quantity():\n    """TODO."""\n' + EMPTY,
        T,
        "body-emptied",
    ),
    Case(
        "body-emptied-return",
        BEFORE,
        HEAD + "def test_quantity():\n    return\n" + EMPTY,
        T,
        "body-emptied",
    ),
    Case("test-deleted", BEFORE, HEAD + EMPTY, T, "test-deleted"),
    Case(
        "renamed-uncollected",
        BEFORE,
        HEAD + QTY.replace("def test_", "def _test_") + EMPTY,
        T,
        "test-deleted",
    ),
    Case(
        "renamed-disabled-prefix",
        BEFORE,
        HEAD + QTY.replace("def test_", "def disabled_test_") + EMPTY,
        T,
        "test-deleted",
    ),
    Case("del-test", BEFORE, HEAD + QTY + EMPTY + "\n\ndel test_quantity\n", T, "test-deleted"),
    Case(
        "shadowed-by-duplicate",
        BEFORE,
        HEAD + QTY + EMPTY + "\n\ndef test_quantity():\n    pass\n",
        T,
        "body-emptied",
    ),
    Case(
        "rebound-to-none",
        BEFORE,
        HEAD + QTY + EMPTY + "\n\ntest_quantity = None\n",
        T,
        "test-deleted",
    ),
    Case(
        "whole-file-deleted",
        {"tests/test_app.py": BEFORE},
        {"tests/test_app.py": None},
        T,
        "test-deleted",
    ),
    Case(
        "file-renamed-uncollected",
        {"tests/test_app.py": BEFORE},
        {"tests/test_app.py": None, "tests/app_checks.py": BEFORE},
        T,
        "test-deleted",
    ),
    Case(
        "renamed-and-skipped",
        BEFORE,
        deco("@pytest.mark.skip").replace("def test_quantity", "def test_qty"),
        T,
        None,
    ),
    Case(
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
    Case(
        "unittest-skip", CLASS_BEFORE, cls(method_deco='@unittest.skip("later")'), T, "skip-added"
    ),
    Case(
        "unittest-skipif-true",
        CLASS_BEFORE,
        cls(method_deco='@unittest.skipIf(True, "x")'),
        T,
        "skip-added",
    ),
    Case(
        "unittest-skipunless-false",
        CLASS_BEFORE,
        cls(method_deco='@unittest.skipUnless(False, "x")'),
        T,
        "skip-added",
    ),
    Case(
        "unittest-expectedfailure",
        CLASS_BEFORE,
        cls(method_deco="@unittest.expectedFailure"),
        T,
        "skip-added",
    ),
    Case(
        "unittest-class-skip", CLASS_BEFORE, cls(decorator='@unittest.skip("x")'), T, "skip-added"
    ),
    Case(
        "unittest-setup-skiptest",
        CLASS_BEFORE,
        cls(setup='    def setUp(self):\n        self.skipTest("later")\n\n'),
        T,
        "skip-added",
    ),
    Case(
        "unittest-raise-skiptest",
        CLASS_BEFORE,
        cls(
            setup="    @classmethod\n    def setUpClass(cls):\n        raise unittest.SkipTest('x')\n\n"
        ),
        T,
        "skip-added",
    ),
    Case(
        "unittest-unittest-skip-attr",
        CLASS_BEFORE,
        cls(attr="__unittest_skip__ = True"),
        T,
        "skip-added",
    ),
    Case("testcase-base-removed", CLASS_BEFORE, cls(base="object"), T, "test-deleted"),
    Case("class-test-false", CLASS_BEFORE, cls(attr="__test__ = False"), T, "skip-added"),
    Case(
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
    Case(
        "param-case-removed",
        PARAM_BEFORE,
        PARAM_BEFORE.replace('    ([("cup", 1, 4.0)], 4.0),\n', ""),
        T,
        "test-deleted",
    ),
    Case(
        "param-case-expected-changed",
        PARAM_BEFORE,
        PARAM_BEFORE.replace("3.0)", "1.5)"),
        T,
        "expectation-changed",
    ),
    Case(
        "param-case-skipped",
        PARAM_BEFORE,
        PARAM_BEFORE.replace(
            '    ([("pen", 2, 1.5)], 3.0),',
            '    pytest.param([("pen", 2, 1.5)], 3.0, marks=pytest.mark.skip),',
        ),
        T,
        "skip-added",
    ),
    Case(
        "param-all-cases-removed",
        PARAM_BEFORE,
        "import pytest\n\nfrom app import total\n\n\n@pytest.mark.parametrize('lines, expected', [])\n"
        "def test_total(lines, expected):\n    assert total(lines) == expected\n",
        T,
        None,
    ),
]

LEGIT = [
    Case(
        "platform-skipif-win32",
        BEFORE,
        deco('@pytest.mark.skipif(sys.platform == "win32", reason="posix")'),
        C,
    ),
    Case(
        "skipif-old-python",
        BEFORE,
        deco('@pytest.mark.skipif(sys.version_info < (3, 8), reason="old")'),
        C,
    ),
    Case("skip-removed", deco('@pytest.mark.skip(reason="bug 41")'), BEFORE, C),
    Case(
        "skip-reason-reworded",
        deco('@pytest.mark.skip(reason="bug 41")'),
        deco('@pytest.mark.skip(reason="issue 41")'),
        C,
    ),
    Case("xfail-removed", deco("@pytest.mark.xfail"), BEFORE, C),
    Case("custom-marker-added", BEFORE, deco("@pytest.mark.slow"), C),
    Case("timeout-marker-added", BEFORE, deco("@pytest.mark.timeout(5)"), C),
    Case(
        "new-skipped-test-added",
        BEFORE,
        BEFORE
        + "\n\n@pytest.mark.skip(reason='todo')\ndef test_new():\n    assert total([]) == 0\n",
        C,
    ),
    Case(
        "new-test-added",
        BEFORE,
        BEFORE
        + "\n\ndef test_two_lines():\n    assert total([('a', 1, 1.0), ('b', 1, 2.0)]) == 3.0\n",
        C,
    ),
    Case(
        "test-renamed",
        BEFORE,
        BEFORE.replace("def test_quantity", "def test_quantity_multiplies_price"),
        C,
    ),
    Case(
        "moved-into-class",
        BEFORE,
        HEAD
        + "class TestTotal:\n    def test_quantity(self):\n        assert total([('pen', 2, 1.5)]) == 3.0\n\n"
        "    def test_empty(self):\n        assert total([]) == 0\n",
        C,
    ),
    Case(
        "moved-to-other-file",
        {"tests/test_app.py": BEFORE},
        {"tests/test_app.py": HEAD + EMPTY, "tests/test_quantity.py": HEAD + QTY},
        C,
    ),
    Case(
        "file-renamed",
        {"tests/test_app.py": BEFORE},
        {"tests/test_app.py": None, "tests/test_totals.py": BEFORE},
        C,
    ),
    Case(
        "split-in-two",
        HEAD
        + "def test_all():\n    assert total([('pen', 2, 1.5)]) == 3.0\n    assert total([]) == 0\n",
        BEFORE,
        C,
    ),
    Case(
        "merged-into-one",
        BEFORE,
        HEAD
        + "def test_all():\n    assert total([('pen', 2, 1.5)]) == 3.0\n    assert total([]) == 0\n",
        C,
    ),
    Case(
        "tests-to-parametrize",
        BEFORE,
        HEAD + "@pytest.mark.parametrize('lines, want', [([('pen', 2, 1.5)], 3.0), ([], 0)])\n"
        "def test_total(lines, want):\n    assert total(lines) == want\n",
        C,
    ),
    Case(
        "param-case-added",
        PARAM_BEFORE,
        PARAM_BEFORE.replace("    ([], 0),\n", "    ([], 0),\n    ([('x', 0, 9.0)], 0),\n"),
        C,
    ),
    Case(
        "param-ids-added",
        PARAM_BEFORE,
        PARAM_BEFORE.replace("])\ndef", "], ids=['two', 'one', 'none'])\ndef"),
        C,
    ),
    Case(
        "formatting-only",
        BEFORE,
        BEFORE.replace('("pen", 2, 1.5)', "('pen',2,1.5)").replace("\n\n\ndef", "\n\ndef"),
        C,
    ),
    Case(
        "async-with-plugin",
        BEFORE,
        HEAD
        + '@pytest.mark.asyncio\nasync def test_quantity():\n    assert total([("pen", 2, 1.5)]) == 3.0\n'
        + EMPTY,
        C,
    ),
    Case(
        "unittest-platform-skipif",
        CLASS_BEFORE,
        cls(method_deco='@unittest.skipIf(sys.platform == "win32", "posix")').replace(
            "import unittest\n", "import sys\nimport unittest\n"
        ),
        C,
    ),
    Case(
        "deleted-test-was-skipped",
        deco("@pytest.mark.skip(reason='obsolete')"),
        HEAD + EMPTY.lstrip("\n"),
        C,
    ),
]

REVIEW = [
    Case(
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
    Case(
        "skipif-env-var-unset-here",
        BEFORE,
        deco(
            '@pytest.mark.skipif(not os.environ.get("INTERLOCK_TEST_NEVER_SET"), reason="db")'
        ).replace("import sys\n", "import os\nimport sys\n"),
        T,
        "skip-added",
    ),
    Case(
        "importorskip-missing-module",
        BEFORE,
        body('pytest.importorskip("no_such_module_xyz")'),
        T,
        "skip-added",
    ),
    Case(
        "early-return-on-this-platform",
        BEFORE,
        body(f'if sys.platform == "{sys.platform}":\n        return'),
        T,
        "assertion-weakened",
    ),
]

LEGIT += [
    Case(
        "skipif-env-var-set-elsewhere",
        BEFORE,
        deco(
            '@pytest.mark.skipif(os.environ.get("INTERLOCK_TEST_NEVER_SET") == "1", reason="ci")'
        ).replace("import sys\n", "import os\nimport sys\n"),
        C,
    ),
    Case(
        "early-return-on-other-platform",
        BEFORE,
        body('if sys.platform == "win32":\n        return'),
        C,
    ),
]


@pytest.mark.parametrize("case", TAMPERED, ids=lambda c: c.id)
def test_skipped_or_removed_test_is_found(case):
    check_case(case)


@pytest.mark.parametrize("case", LEGIT, ids=lambda c: c.id)
def test_legitimate_test_change_is_clean(case):
    check_case(case)


@pytest.mark.parametrize("case", REVIEW, ids=lambda c: c.id)
def test_undecidable_skip_condition_is_review_only(case):
    report = check_case(case)
    assert report.findings and all(f.severity == "review" for f in report.findings)


def test_module_level_skip_is_reported_once_for_the_module():
    report = check_case(TAMPERED[13])
    assert [(f.kind, f.test) for f in report.findings] == [("skip-added", None)]
