"""Shared fixtures: real git repositories in temp dirs, captured output, an isolated home;
real daemons started and killed; the shared example corpus.

Helpers that tests call are fixtures returning the function (`git`, `shell`, `poll`,
`interlock`, `pid_alive`); they are session-scoped, so property tests may use them too.
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from interlock import output
from interlock.daemon import client
from interlock.git import RepoLocation, discover

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test Author",
    "GIT_AUTHOR_EMAIL": "author@example.com",
    "GIT_COMMITTER_NAME": "Test Committer",
    "GIT_COMMITTER_EMAIL": "committer@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}


@pytest.fixture(autouse=True)
def isolated_env(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    """Point INTERLOCK_HOME and HOME at temp dirs; fail loudly if the real home is touched."""
    real_home = Path.home()
    home = tmp_path_factory.mktemp("home")
    (home / ".gitconfig").write_text(
        "[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n"
    )
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("INTERLOCK_HOME", str(home / "interlock-home"))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / "state"))
    monkeypatch.setenv("INTERLOCK_NO_DAEMON", "1")
    for key in [
        k
        for k in os.environ
        if k.startswith("INTERLOCK_") and k not in ("INTERLOCK_HOME", "INTERLOCK_NO_DAEMON")
    ]:
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


def _git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run real git in cwd; text output."""
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=check)


@pytest.fixture(scope="session")
def git() -> Callable[..., subprocess.CompletedProcess[str]]:
    """`git(cwd, *args, check=True)`: run real git in cwd; text output."""
    return _git


@pytest.fixture
def git_repo(tmp_path: Path) -> Path:
    """A real repository with one commit: README.md and src/app.py."""
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    (repo / "README.md").write_text("# demo\n")
    (repo / "src").mkdir()
    (repo / "src" / "app.py").write_text("print('hello')\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "initial")
    return repo


@pytest.fixture
def cap_out() -> Iterator[tuple[io.StringIO, io.StringIO]]:
    """Capture what interlock writes: (stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    output.set_streams(out, err)
    yield out, err
    output.set_streams(None, None)


# --- processes: the real CLI, shell scripts, deadlines ---


def _interlock(
    cwd: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "interlock", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=timeout,
    )


@pytest.fixture(scope="session")
def interlock() -> Callable[..., subprocess.CompletedProcess[str]]:
    """`interlock(cwd, *args, env=None, timeout=60)`: run `python -m interlock ARGS` in cwd
    (the environment at the call, plus env); text output."""
    return _interlock


def _shell(cwd: Path, script: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", script], cwd=cwd, capture_output=True, text=True, check=True
    )


@pytest.fixture(scope="session")
def shell() -> Callable[[Path, str], subprocess.CompletedProcess[str]]:
    """`shell(cwd, script)`: run a bash script in cwd, like a person or an agent typing
    commands; fails the test if the script fails."""
    return _shell


def _poll(predicate: Callable[[], Any], timeout: float = 10.0, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.02)


@pytest.fixture(scope="session")
def poll() -> Callable[..., Any]:
    """`poll(predicate, timeout=10.0, what="condition")`: call predicate until it returns
    something truthy and return that; fail after timeout seconds, naming `what`."""
    return _poll


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.fixture(scope="session")
def pid_alive() -> Callable[[int], bool]:
    """`pid_alive(pid)`: the process exists and is not a zombie."""
    return _pid_alive


def _stop_process(pid: int) -> None:
    """SIGSTOP `pid` and wait until every one of its threads has stopped: the kernel stops a
    process's threads one by one as each is next scheduled, and on a loaded machine one of
    them may still serve a connection for a while after kill() returned."""
    os.kill(pid, signal.SIGSTOP)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        states = []
        for task in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError):
                with open(f"/proc/{pid}/task/{task}/stat") as handle:
                    states.append(handle.read().rsplit(")", 1)[1].split()[0])
        if all(state in "Tt" for state in states):
            return
        time.sleep(0.005)
    raise AssertionError(f"process {pid} did not stop within 10 s")


@pytest.fixture(scope="session")
def stop_process() -> Callable[[int], None]:
    """`stop_process(pid)`: SIGSTOP it and return once all its threads have stopped."""
    return _stop_process


# --- real daemons (tests of the daemon, and commands driven end to end through it) ---


def _is_ready(loc: RepoLocation) -> bool:
    status = client.request(loc, "status") or {}
    return status.get("watcher") == "watching" and bool(status["recorder"]["baseline_done"])


class Daemons:
    """Starts daemons for test repositories and remembers them, so they can all be killed."""

    def __init__(self) -> None:
        self.locations: list[RepoLocation] = []
        self.pids: set[int] = set()

    def track(self, repo: Path) -> RepoLocation:
        loc = discover(repo)
        assert loc is not None, repo
        if loc not in self.locations:
            self.locations.append(loc)
        return loc

    def start(self, repo: Path) -> int:
        """Spawn the daemon as a front door would and wait until it answers; its pid."""
        loc = self.track(repo)
        client.spawn_daemon(loc)
        reply = _poll(lambda: client.request(loc, "ping"), timeout=30, what="the daemon to answer")
        self.pids.add(int(reply["pid"]))
        _poll(lambda: _is_ready(loc), timeout=30, what="the watcher and the recorder's baseline")
        return int(reply["pid"])

    def pid_of(self, repo: Path) -> int | None:
        pid = client.read_pid(self.track(repo))
        if pid is not None:
            self.pids.add(pid)
        return pid

    def kill_all(self) -> None:
        for loc in self.locations:
            pid = client.read_pid(loc)
            if pid is not None:
                self.pids.add(pid)
        for pid in self.pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 10
        for pid in self.pids:
            while _pid_alive(pid) and time.monotonic() < deadline:
                time.sleep(0.02)
            if _pid_alive(pid):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)


@pytest.fixture
def daemons(monkeypatch: pytest.MonkeyPatch) -> Iterator[Daemons]:
    """Daemons allowed (INTERLOCK_NO_DAEMON unset); every one started is killed afterwards."""
    monkeypatch.delenv("INTERLOCK_NO_DAEMON", raising=False)
    monkeypatch.setenv("INTERLOCK_DAEMON_IDLE", "300")
    handle = Daemons()
    try:
        yield handle
    finally:
        handle.kill_all()


# --- the shared example corpus (engine and audit tests) ---

_SIBLING_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
_VENDORED_CORPUS = Path(__file__).resolve().parent / "corpus" / "shared"


def _corpus_dir() -> Path:
    """`../shared/corpus` next to the checkout when it is there (the freshest copy), else the
    copy kept in tests/corpus/shared, so that a clean clone (CI) still judges every case."""
    if (_SIBLING_CORPUS / "commands.jsonl").exists():
        return _SIBLING_CORPUS
    return _VENDORED_CORPUS


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    """The shared example corpus: commands.jsonl, nl2bash.txt, tamper/..."""
    return _corpus_dir()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "corpus_cases(argnames, build, **parametrize_kwargs): parametrize argnames with "
        "build(corpus_dir), the cases read from the shared corpus at collection time",
    )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """`@pytest.mark.corpus_cases(argnames, build, ids=...)` is `parametrize` whose values
    come from the shared corpus: `build(corpus_dir)` returns them."""
    for marker in metafunc.definition.iter_markers("corpus_cases"):
        argnames, build = marker.args
        metafunc.parametrize(argnames, build(_corpus_dir()), **marker.kwargs)
