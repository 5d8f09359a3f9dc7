"""`protected` globs: is_protected answers with one expression for all the globs exactly what
glob_match says for each of them, the defaults and a project's own alike."""

from __future__ import annotations

import re

import pytest

from interlock.audit.paths import glob_match, is_protected
from interlock.config import resolve

PATHS = [
    "conftest.py",
    "tests/conftest.py",
    "src/app.py",
    "tests/test_app.py",
    "pytest.ini",
    "sub/dir/pyproject.toml",
    ".github/workflows/ci.yml",
    "docs/.github/x.yml",
    "a b/with space.py",
    "new\nline.py",
    "Makefile",
    "deep/nested/Makefile",
    "ci/build.sh",
    "ci/nested/build.sh",
    "x.lock",
    "[odd].py",
]
OWN = (
    "ci/*.sh",
    "/root-only.txt",
    "**/fixtures/**",
    "data/?.csv",
    "[!a]*.lock",
    "  spaced.cfg  ",
    "",
    "odd[.py",
    "dir/",
)


@pytest.mark.parametrize("path", PATHS + ["root-only.txt", "x/fixtures/y/z.json", "data/a.csv"])
@pytest.mark.parametrize("which", ["defaults", "own", "both"])
def test_one_expression_for_all_globs_answers_as_each_glob_does(path, which):
    defaults = resolve([]).protected
    globs = {"defaults": defaults, "own": OWN, "both": (*defaults, *OWN)}[which]
    assert is_protected(path, globs) == any(glob_match(path, g) for g in globs)


def test_a_glob_that_makes_no_expression_is_still_judged_one_by_one():
    globs = ("*.md", "[z-a]")  # a reversed range: no regular expression
    assert is_protected("README.md", globs)  # found before the broken glob, as before
    with pytest.raises(re.error):
        is_protected("src/app.py", globs)
    with pytest.raises(re.error):
        any(glob_match("src/app.py", g) for g in globs)


def test_the_globs_match_some_paths_and_not_others():
    globs = (*resolve([]).protected, *OWN)
    judged = {path: is_protected(path, globs) for path in PATHS}
    assert judged["conftest.py"] and judged["ci/build.sh"] and judged["pytest.ini"]
    assert not judged["src/app.py"] and not judged["ci/nested/build.sh"]


def test_protected_globs_given_as_a_list_are_judged_the_same():
    defaults = resolve([]).protected
    for path in PATHS:
        assert is_protected(path, list(defaults)) == is_protected(path, defaults)
