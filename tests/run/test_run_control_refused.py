"""Through the wrapper: an agent ending, restarting or settling its own run is refused as
self-disable before interlock's person-only commands even run; stopping itself is not."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize(
    "line",
    [
        "interlock run end",
        "python3 -m interlock run start --id fresh",
        "env -u INTERLOCK_RUN interlock run end",
        "interlock resume",
    ],
)
def test_an_agent_turning_its_run_down_is_refused(project, wrap, set_mode, git, line):
    set_mode(project, "blocking", git)
    assert wrap(project, "-c", "true").returncode == 0
    got = wrap(project, "-c", line)
    assert got.returncode == 126, got.stderr
    assert "[self-disable]" in got.stderr.decode()
