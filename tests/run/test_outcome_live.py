"""Outcome parsing against the runners installed here, run for real in a temp dir, so a new
pytest or Python that changes its output fails a test instead of silently reading nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from interlock.run.outcome import parse_outcome

PYTEST_SUITE = """
import pytest

def test_passes():
    assert True

def test_fails():
    assert 1 == 2

@pytest.mark.skip(reason="later")
def test_skipped():
    pass

@pytest.mark.parametrize("x", ["a - b", "c]d"])
def test_param(x):
    assert x
"""

UNITTEST_SUITE = """
import unittest

class TestThings(unittest.TestCase):
    def test_passes(self):
        pass

    def test_fails(self):
        self.assertEqual(1, 2)

    @unittest.skip("later")
    def test_skipped(self):
        pass
"""


def run(cwd: Path, *argv: str) -> tuple[str, int]:
    # no third-party plugins: each would slow the start and add its own lines
    env = {**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1", "PYTEST_ADDOPTS": ""}
    proc = subprocess.run(
        argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120
    )
    return proc.stdout.decode("utf-8", "replace"), proc.returncode


def test_a_real_pytest_run_reads_its_counts_and_failing_test(tmp_path):
    (tmp_path / "test_suite.py").write_text(PYTEST_SUITE)
    pytest = (sys.executable, "-m", "pytest", "-p", "no:cacheprovider")
    for flags in ((), ("-q",), ("-qq",), ("-v",)):
        text, code = run(tmp_path, *pytest, *flags)
        outcome = parse_outcome("pytest", text, code)
        assert code == 1, text
        assert (outcome.ran, outcome.passed, outcome.failed, outcome.skipped) == (4, 3, 1, 1), (
            flags,
            text,
        )
        assert outcome.failing == ("test_suite.py::test_fails",), flags


def test_a_real_pytest_run_that_selects_nothing_is_no_tests(tmp_path):
    (tmp_path / "test_suite.py").write_text(PYTEST_SUITE)
    text, code = run(tmp_path, sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-k", "zz")
    assert code == 5
    assert parse_outcome("pytest", text, code).no_tests


def test_a_real_unittest_run_reads_its_counts_and_failing_test(tmp_path):
    (tmp_path / "test_suite.py").write_text(UNITTEST_SUITE)
    for flags in ((), ("-v",)):
        text, code = run(tmp_path, sys.executable, "-m", "unittest", *flags)
        outcome = parse_outcome("unittest", text, code)
        assert code == 1
        assert (outcome.passed, outcome.failed, outcome.skipped) == (1, 1, 1), text
        assert outcome.failing == ("test_suite.TestThings.test_fails",)
    text, code = run(tmp_path, sys.executable, "-m", "unittest", "-k", "zz")
    assert parse_outcome("unittest", text, code).no_tests
