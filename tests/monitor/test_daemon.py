"""The monitor through the warm daemon: the same records, verdicts and actions as inline (the
recovery's restore inside the daemon, the world checks with the agent's environment read
from the waiting wrapper)."""

from __future__ import annotations

import json


def test_the_warm_daemon_recovers_a_stuck_search_and_diagnoses_a_missing_module(
    project, wrap, daemons, suite, rewrite, calc_source, interlock
):
    daemons.start(project)
    env = {"INTERLOCK_RUN": "warm"}
    assert wrap(project, "true", env).returncode == 0
    for body in ("x = a;return x + b + 2", "t = 0;return t + a + b", "y = b;return a + y - 1"):
        rewrite(project, body)
        got = wrap(project, suite, env)
    assert "interlock: [stuck] stepping back once" in got.stderr, got.stderr
    assert (project / "calc.py").read_text() == calc_source
    attempts = json.loads(interlock(project, "log", "--json", "--run", "warm").stdout)["attempts"]
    assert [a["warm"] for a in attempts] == [True] * 4  # every command answered by the daemon

    (project / "tests" / "test_client.py").write_text("import httpx_not_installed_here\n")
    env = {"INTERLOCK_RUN": "warm-2"}
    for _ in range(3):
        got = wrap(project, f"{suite} tests/test_client.py", env)
    assert "outside: ok - fails the same way outside interlock (exit 2)" in got.stderr, got.stderr
    assert "[handoff] the run stops here: an environment problem" in got.stderr
