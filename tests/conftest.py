"""Shared fixtures: real git repositories in temp dirs, captured output, an isolated home."""

from __future__ import annotations

import io
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from interlock import output

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test Author",
    "GIT_AUTHOR_EMAIL": "author@example.com",
    "GIT_COMMITTER_NAME": "Test Committer",
    "GIT_COMMITTER_EMAIL": "committer@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}


@pytest.fixture(autouse=True)
def isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Point INTERLOCK_HOME and HOME at temp dirs; fail loudly if the real home is touched."""
    real_home = Path.home()
    home = tmp_path_factory.mktemp("home")
    (home / ".gitconfig").write_text("[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("INTERLOCK_HOME", str(home / "interlock-home"))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / "state"))
    monkeypatch.setenv("INTERLOCK_NO_DAEMON", "1")
    for key in [k for k in os.environ if k.startswith("INTERLOCK_") and k not in ("INTERLOCK_HOME", "INTERLOCK_NO_DAEMON")]:
        monkeypatch.delenv(key, raising=False)
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    for key in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        monkeypatch.delenv(key, raising=False)
    interlock_real = real_home / ".local" / "state" / "interlock"
    before = interlock_real.exists() and sorted(os.listdir(interlock_real))
    yield home
    after = interlock_real.exists() and sorted(os.listdir(interlock_real))
    assert before == after, f"a test touched the real interlock home {interlock_real}"


def git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run real git in cwd; text output."""
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=check)


@pytest.fixture
def git_repo(tmp_path: Path) -> Path:
    """A real repository with one commit: README.md and src/app.py."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "README.md").write_text("# demo\n")
    (repo / "src").mkdir()
    (repo / "src" / "app.py").write_text("print('hello')\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "initial")
    return repo


@pytest.fixture
def cap_out() -> Iterator[tuple[io.StringIO, io.StringIO]]:
    """Capture what interlock writes: (stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    output.set_streams(out, err)
    yield out, err
    output.set_streams(None, None)
