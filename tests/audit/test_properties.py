"""Properties of compare_file_sets: it never raises, identical or reformatted sets are clean,
and deleting any assertion of a generated test module is always found."""

from __future__ import annotations

import ast

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from interlock.audit import compare_file_sets

NAMES = st.sampled_from(["total", "parse", "area", "slug", "fetch"])
LITERALS = st.one_of(
    st.integers(-5, 100),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.text(alphabet="abcxyz -", max_size=6),
    st.booleans(),
)


@st.composite
def assertion(draw: st.DrawFn) -> str:
    func = draw(NAMES)
    arg = draw(LITERALS)
    expected = draw(LITERALS)
    form = draw(st.sampled_from(["eq", "in", "truthy", "unittest", "raises", "approx"]))
    call = f"{func}({arg!r})"
    return {
        "eq": f"assert {call} == {expected!r}",
        "in": f"assert {expected!r} in {call}",
        "truthy": f"assert {call}",
        "unittest": f"unittest.TestCase().assertEqual({call}, {expected!r})",
        "raises": f"with pytest.raises(ValueError):\n        {call}",
        "approx": f"assert {call} == pytest.approx({expected!r})",
    }[form]


@st.composite
def generated_module(draw: st.DrawFn) -> tuple[str, list[list[str]]]:
    tests = draw(st.lists(st.lists(assertion(), min_size=1, max_size=3), min_size=1, max_size=4))
    parts = [
        "import unittest\n\nimport pytest\n\nfrom app import total, parse, area, slug, fetch\n"
    ]
    for i, body in enumerate(tests):
        parts.append(f"\n\ndef test_case_{i}():\n" + "".join(f"    {line}\n" for line in body))
    return "".join(parts), tests


def _files(test_source: str) -> dict[str, bytes]:
    return {"pytest.ini": b"[pytest]\n", "tests/test_gen.py": test_source.encode()}


SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(
    st.text(max_size=300),
    st.text(max_size=300),
    st.sampled_from(
        [
            "tests/test_x.py",
            "conftest.py",
            "pytest.ini",
            "tox.ini",
            "Makefile",
            "package.json",
            "src/a.test.js",
            "x_test.go",
            "src/lib.rs",
            "setup.cfg",
            "pyproject.toml",
            "verify.py",
        ]
    ),
)
def test_audit_never_raises_on_arbitrary_text(before, after, path):
    report = compare_file_sets(
        {path: before.encode()},
        {path: after.encode(), "new_" + path.split("/")[-1]: after.encode()},
    )
    assert report.verdict in ("clean", "tampered")


@SETTINGS
@given(generated_module())
def test_identical_and_reformatted_sets_are_clean(generated):
    source, _ = generated
    reformatted = ast.unparse(ast.parse(source)) + "\n"
    assert compare_file_sets(_files(source), _files(source)).findings == ()
    assert compare_file_sets(_files(source), _files(reformatted)).findings == ()


@SETTINGS
@given(generated_module(), st.data())
def test_removing_any_assertion_is_found(generated, data):
    source, tests = generated
    index = data.draw(st.integers(0, len(tests) - 1))
    line = data.draw(st.integers(0, len(tests[index]) - 1))
    body = list(tests[index])
    removed = body.pop(line)
    if (
        any(removed == other for t in tests for other in t if other is not removed)
        or removed in body
    ):
        return  # the same assertion is still made elsewhere: not a removal
    new_tests = [body if i == index else t for i, t in enumerate(tests)]
    parts = [
        "import unittest\n\nimport pytest\n\nfrom app import total, parse, area, slug, fetch\n"
    ]
    for i, lines in enumerate(new_tests):
        parts.append(
            f"\n\ndef test_case_{i}():\n" + "".join(f"    {x}\n" for x in lines or ["pass"])
        )
    report = compare_file_sets(_files(source), _files("".join(parts)))
    assert report.verdict == "tampered", removed
