"""The known places named by marker (engine.places): a word's place as the walker's cwd."""

from __future__ import annotations

import pytest

from interlock.engine.places import START_CWD, TOP_CWD, cwd_of, under


@pytest.mark.parametrize(
    ("place", "cwd"),
    [
        (START_CWD, ""),
        (f"{START_CWD}/src", "src"),
        (f"{START_CWD}/src/..", ""),
        (f"{START_CWD}/src/../..", ".."),
        (f"{START_CWD}/a/./b/", "a/b"),
        (TOP_CWD, TOP_CWD),
        (f"{TOP_CWD}/src", f"{TOP_CWD}/src"),
        (f"{TOP_CWD}/src/..", TOP_CWD),
        (f"{TOP_CWD}/..", f"{TOP_CWD}/.."),
        ("/opt/x/../y", "/opt/y"),
        (f"{START_CWD}x", f"{START_CWD}x"),  # another name: a path as written
        (f"{TOP_CWD}x/..", "/"),
    ],
)
def test_a_place_is_the_walkers_cwd(place, cwd):
    assert cwd_of(place) == cwd


def test_under_a_marker_is_its_rest():
    assert under(TOP_CWD, TOP_CWD) == ""
    assert under(TOP_CWD, f"{TOP_CWD}/a/b") == "a/b"
    assert under(TOP_CWD, f"{TOP_CWD}a") is None
    assert under(TOP_CWD, "/x") is None
