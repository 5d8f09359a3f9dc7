"""Outcome forgery in conftest/plugins, mocked subjects and always-equal objects."""

from __future__ import annotations

import pytest

T, C = "tampered", "clean"

TEST = """
from app import total


def test_quantity():
    assert total([("pen", 2, 1.5)]) == 3.0
"""


def forged(
    id: str,
    code: str,
    kind: str = "outcome-forgery",
    before: str | None = None,
    path: str = "conftest.py",
) -> tuple:
    files_before = {"tests/test_app.py": TEST}
    if before is not None:
        files_before[path] = before
    return (id, files_before, {"tests/test_app.py": TEST, path: code}, T, kind)


def legit(id: str, code: str, before: str | None = None, path: str = "conftest.py") -> tuple:
    files_before = {"tests/test_app.py": TEST}
    if before is not None:
        files_before[path] = before
    return (id, files_before, {"tests/test_app.py": TEST, path: code}, C)


TAMPERED = [
    forged(
        "makereport-outcome",
        """
        import pytest

        @pytest.hookimpl(hookwrapper=True)
        def pytest_runtest_makereport(item, call):
            outcome = yield
            report = outcome.get_result()
            report.outcome = "passed"
        """,
    ),
    forged(
        "makereport-force-result",
        """
        import pytest

        @pytest.hookimpl(wrapper=True)
        def pytest_runtest_makereport(item, call):
            rep = yield
            rep.longrepr = None
            return rep
        """,
    ),
    forged(
        "makereport-new-style-force",
        """
        import pytest

        @pytest.hookimpl(hookwrapper=True)
        def pytest_runtest_makereport(item, call):
            outcome = yield
            outcome.force_result(None)
        """,
    ),
    forged(
        "makereport-builds-passed-report",
        """
        from _pytest.reports import TestReport

        def pytest_runtest_makereport(item, call):
            if call.when == "call":
                return TestReport(item.nodeid, item.location, {}, "passed", None, "call")
        """,
    ),
    forged(
        "protocol-logs-fake-report",
        """
        def pytest_runtest_protocol(item, nextitem):
            item.ihook.pytest_runtest_logstart(nodeid=item.nodeid, location=item.location)
            return True
        """,
    ),
    forged(
        "logreport-rewrite",
        """
        def pytest_runtest_logreport(report):
            if report.failed:
                report.outcome = "passed"
        """,
    ),
    forged(
        "teststatus-passed",
        """
        def pytest_report_teststatus(report, config):
            if report.failed:
                return "passed", ".", "PASSED"
        """,
    ),
    forged(
        "pyfunc-call-short-circuit",
        """
        def pytest_pyfunc_call(pyfuncitem):
            return True
        """,
    ),
    forged(
        "runtest-call-swallows",
        """
        import pytest

        @pytest.hookimpl(hookwrapper=True)
        def pytest_runtest_call(item):
            try:
                yield
            except Exception:
                pass
        """,
    ),
    forged(
        "sessionfinish-exitstatus",
        """
        def pytest_sessionfinish(session, exitstatus):
            session.exitstatus = 0
        """,
    ),
    forged(
        "sessionfinish-testsfailed",
        """
        def pytest_sessionfinish(session):
            session.testsfailed = 0
        """,
    ),
    forged(
        "terminal-summary-stats",
        """
        def pytest_terminal_summary(terminalreporter):
            terminalreporter.stats.pop("failed", None)
        """,
    ),
    forged(
        "modifyitems-filter",
        """
        def pytest_collection_modifyitems(config, items):
            items[:] = [i for i in items if "quantity" not in i.name]
        """,
    ),
    forged(
        "modifyitems-remove",
        """
        def pytest_collection_modifyitems(config, items):
            for item in list(items):
                if "quantity" in item.name:
                    items.remove(item)
        """,
    ),
    forged(
        "modifyitems-deselected",
        """
        def pytest_collection_modifyitems(config, items):
            config.hook.pytest_deselected(items=items[:1])
            del items[:1]
        """,
    ),
    forged(
        "modifyitems-skip-marker",
        """
        import pytest

        def pytest_collection_modifyitems(config, items):
            for item in items:
                item.add_marker(pytest.mark.skip(reason="later"))
        """,
        "skip-added",
    ),
    forged(
        "runtest-setup-skip",
        """
        import pytest

        def pytest_runtest_setup(item):
            pytest.skip("later")
        """,
        "skip-added",
    ),
    forged(
        "ignore-collect",
        """
        def pytest_ignore_collect(collection_path, config):
            return "test_app" in str(collection_path)
        """,
    ),
    forged(
        "configure-keyword",
        """
        def pytest_configure(config):
            config.option.keyword = "not quantity"
        """,
    ),
    forged(
        "sys-exit-at-import",
        """
        import sys
        sys.exit(0)
        """,
    ),
    forged(
        "os-exit-in-hook",
        """
        import os

        def pytest_sessionfinish(session, exitstatus):
            os._exit(0)
        """,
    ),
    forged(
        "atexit-os-exit",
        """
        import atexit
        import os

        atexit.register(lambda: os._exit(0))
        """,
    ),
    forged(
        "raise-systemexit",
        """
        raise SystemExit(0)
        """,
    ),
    forged(
        "pytest-exit-returncode",
        """
        import pytest

        def pytest_collection_finish(session):
            pytest.exit("done", returncode=0)
        """,
    ),
    forged(
        "collect-ignore",
        """
        collect_ignore = ["tests/test_app.py"]
        """,
    ),
    forged(
        "collect-ignore-glob-append",
        """
        collect_ignore_glob = []
        collect_ignore_glob.append("tests/test_*.py")
        """,
    ),
    forged(
        "excepthook",
        """
        import sys
        sys.excepthook = lambda *args: None
        """,
    ),
    forged(
        "patch-testcase-run",
        """
        import unittest
        unittest.TestCase.run = lambda self, result=None: None
        """,
    ),
    forged(
        "patch-testresult-addfailure",
        """
        from unittest import TestResult
        TestResult.addFailure = TestResult.addSuccess
        """,
    ),
    forged(
        "patch-pytest-internals",
        """
        import _pytest.runner

        _pytest.runner.check_interactive_exception = lambda call, report: False
        """,
    ),
    forged(
        "setattr-pytest-fail",
        """
        import pytest
        setattr(pytest, "fail", lambda *a, **k: None)
        """,
    ),
    forged(
        "autouse-fixture-skips",
        """
        import pytest

        @pytest.fixture(autouse=True)
        def _gate():
            pytest.skip("not today")
        """,
        "skip-added",
    ),
    forged(
        "sys-modules-swap",
        """
        import sys
        import types

        sys.modules["app"] = types.SimpleNamespace(total=lambda lines: 3.0)
        """,
        "subject-mocked",
    ),
    forged(
        "plugin-module",
        """
        def pytest_runtest_logreport(report):
            report.outcome = "passed"
        """,
        path="tests/plugins/forge.py",
    ),
    forged(
        "sitecustomize",
        """
        import unittest
        unittest.TestCase.assertEqual = lambda *a, **k: None
        """,
        path="sitecustomize.py",
    ),
    forged(
        "added-to-existing-conftest",
        """
        import pytest

        @pytest.fixture
        def lines():
            return [("pen", 2, 1.5)]

        def pytest_sessionfinish(session, exitstatus):
            session.exitstatus = 0
        """,
        before="""
        import pytest

        @pytest.fixture
        def lines():
            return [("pen", 2, 1.5)]
        """,
    ),
]

LEGIT = [
    legit(
        "fixtures-only",
        """
        import pytest

        @pytest.fixture
        def lines():
            return [("pen", 2, 1.5)]
        """,
    ),
    legit(
        "report-header",
        """
        def pytest_report_header(config):
            return "project: demo"
        """,
    ),
    legit(
        "reorder-items",
        """
        def pytest_collection_modifyitems(config, items):
            items[:] = sorted(items, key=lambda i: i.name)
        """,
    ),
    legit(
        "custom-marker-added",
        """
        import pytest

        def pytest_collection_modifyitems(config, items):
            for item in items:
                if "db" in item.name:
                    item.add_marker(pytest.mark.slow)
        """,
    ),
    legit(
        "makereport-reads-passed",
        """
        import pytest

        @pytest.hookimpl(hookwrapper=True)
        def pytest_runtest_makereport(item, call):
            outcome = yield
            report = outcome.get_result()
            if report.outcome == "passed":
                item.config.cache.set("last_pass", item.nodeid)
        """,
    ),
    legit(
        "addoption",
        """
        def pytest_addoption(parser):
            parser.addoption("--runslow", action="store_true")
        """,
    ),
    legit(
        "makereport-attaches-info",
        """
        import pytest

        @pytest.hookimpl(hookwrapper=True)
        def pytest_runtest_makereport(item, call):
            outcome = yield
            report = outcome.get_result()
            report.user_properties.append(("phase", report.when))
        """,
    ),
    legit(
        "collect-ignore-setup-py",
        """
        collect_ignore = ["setup.py", "docs/conf.py"]
        """,
    ),
    legit(
        "existing-forgery-untouched",
        """
        def pytest_sessionfinish(session, exitstatus):
            session.exitstatus = 0

        def pytest_report_header(config):
            return "x"
        """,
        before="""
        def pytest_sessionfinish(session, exitstatus):
            session.exitstatus = 0
        """,
    ),
    (
        "cli-script-exits",
        {"tests/test_app.py": TEST},
        {
            "tests/test_app.py": TEST,
            "tool.py": "import sys\n\n\ndef main():\n    return 0\n\n\nif __name__ == '__main__':\n    sys.exit(main())\n",
        },
        C,
    ),
]

MOCK_BEFORE = """
from unittest import mock

import app
from app import total


def test_quantity():
    assert total([("pen", 2, 1.5)]) == 3.0
"""

MOCKED = [
    (
        "patch-decorator",
        MOCK_BEFORE,
        MOCK_BEFORE.replace(
            "def test_quantity():",
            '@mock.patch("tests.test_app.total", return_value=3.0)\ndef test_quantity(_m):',
        ),
        T,
        "subject-mocked",
    ),
    (
        "patch-context",
        MOCK_BEFORE,
        MOCK_BEFORE.replace(
            '    assert total([("pen", 2, 1.5)]) == 3.0',
            '    with mock.patch("app.total", return_value=3.0):\n        assert app.total([("pen", 2, 1.5)]) == 3.0',
        ),
        T,
        "subject-mocked",
    ),
    (
        "monkeypatch-setattr",
        MOCK_BEFORE,
        MOCK_BEFORE.replace(
            "def test_quantity():\n",
            'def test_quantity(monkeypatch):\n    monkeypatch.setattr(app, "total", lambda lines: 3.0)\n',
        ).replace("    assert total(", "    assert app.total("),
        T,
        "subject-mocked",
    ),
    (
        "monkeypatch-setattr-string",
        MOCK_BEFORE,
        MOCK_BEFORE.replace(
            "def test_quantity():\n",
            'def test_quantity(monkeypatch):\n    monkeypatch.setattr("app.total", lambda lines: 3.0)\n',
        ).replace("    assert total(", "    assert app.total("),
        T,
        "subject-mocked",
    ),
    (
        "mocker-patch",
        MOCK_BEFORE,
        MOCK_BEFORE.replace(
            "def test_quantity():\n",
            'def test_quantity(mocker):\n    mocker.patch("app.total", return_value=3.0)\n',
        ).replace("    assert total(", "    assert app.total("),
        T,
        "subject-mocked",
    ),
    (
        "patch-object",
        MOCK_BEFORE,
        MOCK_BEFORE.replace(
            '    assert total([("pen", 2, 1.5)]) == 3.0',
            '    with mock.patch.object(app, "total", return_value=3.0):\n        assert app.total([("pen", 2, 1.5)]) == 3.0',
        ),
        T,
        "subject-mocked",
    ),
    (
        "local-rebinding",
        MOCK_BEFORE,
        MOCK_BEFORE.replace(
            "def test_quantity():\n",
            "def test_quantity():\n    total = mock.Mock(return_value=3.0)\n",
        ),
        T,
        "subject-mocked",
    ),
    (
        "module-level-redefinition",
        MOCK_BEFORE,
        MOCK_BEFORE.replace("from app import total\n", "\n\ndef total(lines):\n    return 3.0\n"),
        T,
        "subject-mocked",
    ),
    (
        "fixture-patches-subject",
        MOCK_BEFORE,
        MOCK_BEFORE.replace(
            "def test_quantity():\n",
            "import pytest\n\n\n@pytest.fixture\ndef fake(monkeypatch):\n"
            "    monkeypatch.setattr(app, 'total', lambda lines: 3.0)\n\n\ndef test_quantity(fake):\n",
        ).replace("    assert total(", "    assert app.total("),
        T,
        "subject-mocked",
    ),
    (
        "import-from-fake",
        MOCK_BEFORE,
        MOCK_BEFORE.replace("from app import total", "from tests.fakes import total"),
        T,
        "subject-mocked",
    ),
]

MOCK_LEGIT = [
    (
        "patch-dependency",
        MOCK_BEFORE,
        MOCK_BEFORE.replace(
            "def test_quantity():\n",
            'def test_quantity(monkeypatch):\n    monkeypatch.setattr(app, "fetch_prices", lambda: {})\n',
        ),
        C,
    ),
    (
        "patch-time",
        MOCK_BEFORE,
        MOCK_BEFORE.replace(
            "def test_quantity():\n",
            '@mock.patch("time.time", return_value=0)\ndef test_quantity(_t):\n',
        ),
        C,
    ),
]

ALWAYS_EQUAL = [
    (
        "eq-true-in-test",
        TEST,
        TEST.replace(
            "def test_quantity",
            "class Anything:\n    def __eq__(self, other):\n        return True\n\n\ndef test_quantity",
        ).replace("== 3.0", "== Anything()"),
        T,
        "always-equal",
    ),
    (
        "eq-true-in-source",
        {"tests/test_app.py": TEST},
        {
            "tests/test_app.py": TEST,
            "app.py": "class Total(float):\n    def __eq__(self, other):\n        return True\n\n\n"
            "def total(lines):\n    return Total(0)\n",
        },
        T,
        "always-equal",
    ),
    (
        "eq-lambda",
        {"tests/test_app.py": TEST},
        {
            "tests/test_app.py": TEST,
            "app.py": "class Total(float):\n    __eq__ = lambda self, other: True\n\n\n"
            "def total(lines):\n    return Total(0)\n",
        },
        T,
        "always-equal",
    ),
    (
        "ne-false",
        {"tests/test_app.py": TEST},
        {
            "tests/test_app.py": TEST,
            "app.py": "class Total(float):\n    def __ne__(self, other):\n        return False\n\n\n"
            "def total(lines):\n    return Total(0)\n",
        },
        T,
        "always-equal",
    ),
]

EQ_LEGIT = [
    (
        "real-eq-in-source",
        {"tests/test_app.py": TEST},
        {
            "tests/test_app.py": TEST,
            "app.py": "class Money:\n    def __init__(self, c):\n        self.c = c\n\n"
            "    def __eq__(self, other):\n        return isinstance(other, Money) and self.c == other.c\n\n\n"
            "def total(lines):\n    return sum(q * p for _, q, p in lines)\n",
        },
        C,
    ),
]


@pytest.mark.parametrize("case", TAMPERED, ids=lambda c: c[0])
def test_outcome_forgery_is_found(case, check_case):
    check_case(case)


@pytest.mark.parametrize("case", LEGIT, ids=lambda c: c[0])
def test_honest_conftest_is_clean(case, check_case):
    check_case(case)


@pytest.mark.parametrize("case", MOCKED, ids=lambda c: c[0])
def test_mocked_subject_is_found(case, check_case):
    check_case(case)


@pytest.mark.parametrize("case", MOCK_LEGIT, ids=lambda c: c[0])
def test_mocking_a_dependency_is_clean(case, check_case):
    check_case(case)


@pytest.mark.parametrize("case", ALWAYS_EQUAL, ids=lambda c: c[0])
def test_always_equal_object_is_found(case, check_case):
    check_case(case)


@pytest.mark.parametrize("case", EQ_LEGIT, ids=lambda c: c[0])
def test_real_equality_is_clean(case, check_case):
    check_case(case)


MORE_LEGIT = [
    (
        "eq-not-implemented",
        {"tests/test_app.py": TEST},
        {
            "tests/test_app.py": TEST,
            "app.py": "class Money:\n    def __init__(self, c):\n        self.c = c\n\n"
            "    def __eq__(self, other):\n        if not isinstance(other, Money):\n"
            "            return NotImplemented\n        return self.c == other.c\n\n\n"
            "def total(lines):\n    return sum(q * p for _, q, p in lines)\n",
        },
        C,
    ),
    (
        "dataclass-eq",
        {"tests/test_app.py": TEST},
        {
            "tests/test_app.py": TEST,
            "app.py": "from dataclasses import dataclass\n\n\n@dataclass\nclass Line:\n    q: int\n    p: float\n\n\n"
            "def total(lines):\n    return sum(q * p for _, q, p in lines)\n",
        },
        C,
    ),
    (
        "patch-network-call",
        MOCK_BEFORE,
        MOCK_BEFORE.replace(
            "def test_quantity():\n",
            '@mock.patch("app.requests.get")\ndef test_quantity(get):\n    get.return_value.json.return_value = {}\n',
        ),
        C,
    ),
]


@pytest.mark.parametrize("case", MORE_LEGIT, ids=lambda c: c[0])
def test_more_honest_changes_are_clean(case, check_case):
    check_case(case)
