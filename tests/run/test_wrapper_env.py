"""A command that clears its environment (`env -i`) drops INTERLOCK_* for what it runs: a
wrapper started below it still applies the run's rules (the run's config is frozen in the
journal, not carried by the environment)."""

from __future__ import annotations

import os
import shlex

from interlock.engine.check import evaluate

from .conftest import WRAPPER


def test_a_wrapper_under_env_i_keeps_the_blocking_mode_the_run_was_started_with(
    git_repo, wrap, daemons
):
    daemons.start(git_repo)
    (git_repo / "src" / "app.py").write_text("unsaved work\n")
    keep = " ".join(f"{k}={shlex.quote(os.environ[k])}" for k in ("PATH", "HOME"))
    inner = f"env -i {keep} {shlex.quote(str(WRAPPER))} -c 'rm -rf src'"
    # the outer judgement leaves the inner code to the inner wrapper
    assert evaluate(inner, str(git_repo), mode="blocking").result.verdict == "allow"
    # INTERLOCK_MODE=blocking reaches only the outer wrapper; the inner one sees no
    # INTERLOCK_* at all, and the file says nothing: the live run's frozen mode refuses
    got = wrap(git_repo, "-c", inner, env={"INTERLOCK_MODE": "blocking"})
    assert got.returncode == 126, got.stderr
    assert b"[discard] refused: rm -rf src" in got.stderr
    assert (git_repo / "src" / "app.py").read_text() == "unsaved work\n"
