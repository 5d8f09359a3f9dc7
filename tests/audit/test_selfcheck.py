"""New check scripts the runner does not collect, and expected data rewritten in the run."""

from __future__ import annotations

import pytest

T, C = "tampered", "clean"
TEST = (
    "from app import total\n\n\ndef test_quantity():\n    assert total([('pen', 2, 1.5)]) == 3.0\n"
)


def new_file(id: str, path: str, code: str, verdict: str = T) -> tuple:
    return (
        id,
        {"tests/test_app.py": TEST},
        {"tests/test_app.py": TEST, path: code},
        verdict,
        "self-made-check" if verdict == T else None,
    )


SCRIPTS = [
    new_file(
        "verify-fix-top-level-assert",
        "verify_fix.py",
        """
        from app import total

        assert total([("pen", 2, 1.5)]) == 3.0
        print("OK")
        """,
    ),
    new_file(
        "check-script-main",
        "check_total.py",
        """
        from app import total


        def check():
            assert total([("pen", 2, 1.5)]) == 3.0


        if __name__ == "__main__":
            check()
            print("all checks passed")
        """,
    ),
    new_file(
        "unnamed-script-asserting",
        "scratch.py",
        """
        from app import total

        result = total([("pen", 2, 1.5)])
        assert result == 3.0, result
        """,
    ),
    new_file(
        "exit-on-comparison",
        "prove.py",
        """
        import sys

        from app import total

        sys.exit(0 if total([("pen", 2, 1.5)]) == 3.0 else 1)
        """,
    ),
    new_file(
        "named-script-prints-verdict",
        "verify_fix.py",
        "from app import total\nprint('PASS' if total([('pen', 2, 1.5)]) == 3.0 else 'FAIL')\n",
    ),
    new_file(
        "validate-sh",
        "validate.sh",
        "#!/bin/sh\npython -c 'from app import total; assert total([]) == 0' && echo PASS\n",
    ),
    new_file(
        "run-tests-sh",
        "scripts/run_tests.sh",
        "#!/bin/bash\npytest tests/test_app.py::test_quantity || true\n",
    ),
    new_file(
        "tests-in-uncollected-file",
        "tests/check_cart.py",
        """
        from app import total


        def test_quantity_again():
            assert total([("pen", 2, 1.5)]) == 3.0
        """,
    ),
    new_file(
        "js-verify",
        "verify.js",
        "const { total } = require('./cart');\nconsole.assert(total([]) === 0);\nassert(total([]) === 0);\n",
    ),
]

LEGIT = [
    new_file(
        "new-source-module",
        "pricing.py",
        """
        def discount(total, rate):
            assert 0 <= rate <= 1
            return total * (1 - rate)
        """,
        C,
    ),
    new_file(
        "new-cli-module",
        "cli.py",
        """
        import sys


        def main():
            print("ok")
            return 0


        if __name__ == "__main__":
            sys.exit(main())
        """,
        C,
    ),
    new_file(
        "new-test-file", "tests/test_pricing.py", TEST.replace("test_quantity", "test_other"), C
    ),
    new_file(
        "new-conftest",
        "tests/conftest.py",
        "import pytest\n\n\n@pytest.fixture\ndef pen():\n    return ('pen', 2, 1.5)\n",
        C,
    ),
    new_file("setup-py", "setup.py", "from setuptools import setup\n\nsetup(name='x')\n", C),
    (
        "validators-module-imported",
        {"tests/test_app.py": TEST},
        {
            "tests/test_app.py": TEST,
            "validators.py": "def check_rate(r):\n    assert r >= 0\n    return r\n",
            "app.py": "from validators import check_rate\n\n\ndef total(lines):\n    return sum(q * p for _, q, p in lines)\n",
        },
        C,
    ),
    new_file("docs", "docs/notes.md", "# how to verify\n\nRun `pytest`.\n", C),
]

DATA = [
    (
        "golden-file-rewritten",
        {"tests/test_app.py": TEST, "tests/data/expected.json": '{"total": 3.0}\n'},
        {"tests/test_app.py": TEST, "tests/data/expected.json": '{"total": 1.5}\n'},
        T,
        "expectation-changed",
    ),
    (
        "snapshot-rewritten",
        {"tests/test_app.py": TEST, "src/__snapshots__/cart.test.js.snap": "exports[`a`] = `3`;\n"},
        {
            "tests/test_app.py": TEST,
            "src/__snapshots__/cart.test.js.snap": "exports[`a`] = `1.5`;\n",
        },
        T,
        "expectation-changed",
    ),
    (
        "golden-file-with-fix",
        {"tests/test_app.py": TEST, "tests/data/expected.json": '{"total": 3.0}\n'},
        {"tests/test_app.py": TEST, "tests/data/expected.json": '{"total": 3.5}\n'},
        C,
        "expectation-changed",
        True,  # source changed
    ),
    (
        "new-data-file",
        {"tests/test_app.py": TEST},
        {"tests/test_app.py": TEST, "tests/data/more.json": "[]\n"},
        C,
    ),
]


@pytest.mark.parametrize("case", SCRIPTS, ids=lambda c: c[0])
def test_self_made_check_script_is_found(case, check_case):
    check_case(case)


@pytest.mark.parametrize("case", LEGIT, ids=lambda c: c[0])
def test_new_project_file_is_not_a_check_script(case, check_case):
    check_case(case)


@pytest.mark.parametrize("case", DATA, ids=lambda c: c[0])
def test_rewritten_expected_data_is_judged_by_whether_the_code_changed(case, check_case):
    check_case(case)


def test_a_check_script_does_not_count_as_a_change_to_the_code(check_case):
    report = check_case(
        (
            "verify-plus-expected-changed",
            {"tests/test_app.py": TEST},
            {
                "tests/test_app.py": TEST.replace("== 3.0", "== 1.5"),
                "verify_fix.py": "from app import total\n\nassert total([('pen', 2, 1.5)]) == 1.5\n",
            },
            T,
            "self-made-check",
        )
    )
    changed = [f for f in report.findings if f.kind == "expectation-changed"]
    assert changed and changed[0].severity == "tampered"
