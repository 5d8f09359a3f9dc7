"""A command that clears its environment (`env -i`) drops INTERLOCK_* for what it runs: the
run refuses that for interlock's own programs, and a wrapper started below it anyway still
applies the run's rules (the run's config is frozen in the journal, not carried by the
environment)."""

from __future__ import annotations

import os
import shlex
import subprocess

from .conftest import WRAPPER


def test_a_wrapper_under_env_i_keeps_the_blocking_mode_the_run_was_started_with(
    git_repo, wrap, daemons
):
    daemons.start(git_repo)
    (git_repo / "src" / "app.py").write_text("unsaved work\n")
    keep = [f"{k}={os.environ[k]}" for k in ("PATH", "HOME")]
    inner = f"env -i {shlex.join(keep)} {shlex.quote(str(WRAPPER))} -c 'rm -rf src'"
    # emptying the environment of interlock's own wrapper is refused in a run: it unsets
    # every INTERLOCK_* the run was given (rules.selfdisable, as `env -u INTERLOCK_RUN`)
    got = wrap(git_repo, "-c", inner, env={"INTERLOCK_MODE": "blocking"})
    assert got.returncode == 126, got.stderr
    assert b"selfdisable.env-override" in got.stderr
    # started so anyway (by a person, or past the wrapper), the inner wrapper sees no
    # INTERLOCK_* at all, and the file says nothing: the live run's frozen mode refuses
    got = subprocess.run(
        ["env", "-i", *keep, str(WRAPPER), "-c", "rm -rf src"],
        cwd=git_repo,
        capture_output=True,
        timeout=120,
    )
    assert got.returncode == 126, got.stderr
    assert b"[discard] refused: rm -rf src" in got.stderr
    assert (git_repo / "src" / "app.py").read_text() == "unsaved work\n"
