"""`interlock recover` through the warm daemon (interlock.daemon.hotrecover, the door, and
interlock.daemon.recoverop, the daemon's operation): the same bytes as the cold CLI, and the
cold CLI whenever the daemon cannot answer as the client would."""

from __future__ import annotations

import datetime
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from interlock.daemon import client, hotrecover


def _blob(content: bytes) -> str:
    run = subprocess.run(["git", "hash-object", "--stdin"], input=content, capture_output=True)
    return run.stdout.decode().strip()


ODD = "notes dir/a b\nc.txt"
LOST = {"src/app.py": b"print('hello')\nprecious\n", ODD: b"odd name\n"}


def _lose(repo: Path, daemons, git, interlock, poll) -> None:
    """The daemon records edits of two files (one name with a space and a newline), then
    `git checkout -- .` and `rm` take them behind interlock's back."""
    daemons.start(repo)
    (repo / "notes dir").mkdir()
    for path, content in LOST.items():
        (repo / path).write_bytes(content)

    def recorded() -> bool:
        for path, content in LOST.items():
            listed = interlock(repo, "recover", "--list", "--json", "--", path)
            if _blob(content) not in {v["blob"] for v in json.loads(listed.stdout or "[]")}:
                return False
        return True

    poll(recorded, timeout=20, what="the recorder to hold both files")
    git(repo, "checkout", "--", ".")
    (repo / ODD).unlink()
    _settle(repo, poll)


def _settle(repo: Path, poll) -> None:
    """Until the recorder has read every change so far."""
    loc = client.locate(str(repo))

    def idle() -> bool:
        recorder = (client.request(loc, "status") or {}).get("recorder") or {}
        return bool(recorder.get("idle") and recorder.get("baseline_done"))

    poll(idle, timeout=20, what="the recorder to catch up")


@pytest.fixture
def lost_files(daemons, git_repo, git, interlock, poll):
    """(repo, {path: the lost content}) after _lose()."""
    _lose(git_repo, daemons, git, interlock, poll)
    return git_repo, LOST


def _door(repo: Path, *args: str, capsys) -> tuple[int | None, str, str]:
    code = hotrecover.door(["--cwd", str(repo), *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_warm_recover_is_answered_by_the_daemon_and_writes_every_file(lost_files, capsys):
    repo, lost = lost_files
    code, out, err = _door(repo, "--", *lost, capsys=capsys)
    assert code == 0, err
    for path, content in lost.items():
        assert (repo / path).read_bytes() == content
    assert "interlock: recovered src/app.py (overwritten) from recorder" in out
    assert "saved:   the files as they were, in snapshot" in out


def _masked(text: str) -> str:
    text = re.sub(r"snapshot [0-9a-f]{12}", "snapshot <id>", text)
    return re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", "<time>", text)


def test_warm_and_cold_recover_print_the_same_bytes(
    daemons, git_repo, tmp_path, git, interlock, poll
):
    twin = tmp_path / "twin"
    git(tmp_path, "clone", "-q", str(git_repo), str(twin))
    for repo in (git_repo, twin):
        _lose(repo, daemons, git, interlock, poll)
    cold_env = {"INTERLOCK_NO_DAEMON": "1"}
    moment = (datetime.datetime.now() - datetime.timedelta(minutes=10)).isoformat()
    for extra in (["--list"], ["--list", "--json"], ["--since", moment, "--list"]):
        warm = interlock(git_repo, "recover", *extra, "--", *LOST)
        cold = interlock(git_repo, "recover", *extra, "--", *LOST, env=cold_env)
        assert warm.returncode == 0, warm.stderr
        assert (warm.returncode, warm.stdout, warm.stderr) == (
            cold.returncode,
            cold.stdout,
            cold.stderr,
        ), extra
    warm = interlock(git_repo, "recover", "--", *LOST)
    cold = interlock(twin, "recover", "--", *LOST, env=cold_env)
    assert warm.returncode == 0, warm.stderr
    assert "interlock: recovered notes dir/a b\nc.txt (deleted) from recorder" in warm.stdout
    assert (warm.returncode, _masked(warm.stdout), warm.stderr) == (
        cold.returncode,
        _masked(cold.stdout),
        cold.stderr,
    )
    for repo in (git_repo, twin):
        for path, content in LOST.items():
            assert (repo / path).read_bytes() == content


def test_warm_recover_refuses_as_the_cli_does_with_the_same_message(daemons, git_repo, capsys):
    daemons.start(git_repo)
    code, out, err = _door(git_repo, "never-seen.txt", capsys=capsys)
    cold = subprocess.run(
        [sys.executable, "-m", "interlock", "recover", "never-seen.txt"],
        cwd=git_repo,
        capture_output=True,
        text=True,
        env={**os.environ, "INTERLOCK_NO_DAEMON": "1"},
    )
    assert (code, out, err) == (1, cold.stdout, cold.stderr)
    assert err.startswith("interlock: error: no recorded version of never-seen.txt")


def test_warm_recover_says_when_the_recorder_was_not_running(daemons, git_repo, capsys):
    daemons.start(git_repo)
    code, out, err = _door(git_repo, "--since", "10m", capsys=capsys)
    assert code == 0
    assert "interlock: warning: the recorder was not running from" in err
    assert "nothing lost in the last 10m" in out


def test_a_client_in_another_time_zone_is_left_to_the_cold_path(
    lost_files, monkeypatch, capsys, interlock
):
    repo, lost = lost_files
    monkeypatch.setenv("TZ", "Pacific/Kiritimati")
    code, out, err = _door(repo, "--", *lost, capsys=capsys)
    assert code is None and out == err == ""
    assert (repo / "src/app.py").read_bytes() == b"print('hello')\n"  # nothing done yet
    result = interlock(repo, "recover", "--", *lost)  # the full CLI: cold, in the client's TZ
    assert result.returncode == 0, result.stderr
    assert (repo / "src/app.py").read_bytes() == lost["src/app.py"]


def test_paths_of_another_worktree_are_left_to_the_cold_path(lost_files, tmp_path, git, capsys):
    repo, _ = lost_files
    other = tmp_path / "other"
    other.mkdir()
    git(other, "init", "-q")
    (other / "x.txt").write_text("x\n")
    code, out, err = _door(repo, str(other / "x.txt"), capsys=capsys)
    assert code is None and out == err == ""


def test_no_daemon_means_the_door_never_asks(lost_files, monkeypatch, capsys):
    repo, lost = lost_files
    monkeypatch.setenv("INTERLOCK_NO_DAEMON", "1")
    assert _door(repo, "--", *lost, capsys=capsys) == (None, "", "")
    assert (repo / "src/app.py").read_bytes() == b"print('hello')\n"


@pytest.mark.parametrize(
    "args, expected",
    [
        (["a.txt", "b c.txt"], {"paths": ["a.txt", "b c.txt"]}),
        (["a.txt", "--at", "-10m", "b"], {"paths": ["a.txt", "b"], "at": "-10m"}),
        (["--at=10m", "--at", "2h", "a"], {"paths": ["a"], "at": "2h"}),
        (["--since", "1h"], {"paths": [], "since": "1h"}),
        (["--list", "--json", "--", "-dash", "--json"], {"paths": ["-dash", "--json"]}),
    ],
)
def test_the_door_reads_arguments_as_click_does(args, expected):
    opts = hotrecover.parse_args(args)
    assert opts is not None
    assert {k: opts[k] for k in expected} == expected


@pytest.mark.parametrize(
    "args",
    [
        ["--ref", "main"],
        ["--help"],
        ["-h"],
        ["--bogus", "a"],
        ["a", "--at", "10m", "--since", "1h"],
        [],
        ["--list"],
        ["a", "--at"],
        [""],
        ["a", "--cwd", "/no/such/folder"],
    ],
)
def test_the_door_leaves_anything_unusual_to_the_full_cli(args):
    assert hotrecover.parse_args(args) is None


def test_the_door_imports_only_what_a_round_trip_needs():
    code = (
        "import sys; before = set(sys.modules); import interlock.daemon.hotrecover; "
        "print(' '.join(sorted(set(sys.modules) - before)))"
    )
    top = str(Path(hotrecover.__file__).resolve().parents[2])
    run = subprocess.run(
        [sys.executable, "-I", "-S", "-c", f"import sys; sys.path.insert(0, {top!r}); {code}"],
        capture_output=True,
        text=True,
        check=True,
    )
    loaded = set(run.stdout.split())
    heavy = {"json", "re", "socket", "selectors", "typing", "pathlib", "pygit2", "click"}
    assert not loaded & heavy, loaded & heavy
    assert {m for m in loaded if m.startswith("interlock")} <= {
        "interlock",
        "interlock.constants",
        "interlock.daemon",
        "interlock.daemon.hotclient",
        "interlock.daemon.hotwhere",
        "interlock.daemon.hotlife",
        "interlock.daemon.hotos",
        "interlock.daemon.hotrecover",
    }


def test_an_answer_that_cannot_be_printed_is_never_followed_by_a_cold_recover(
    lost_files, monkeypatch, capsys
):
    repo, lost = lost_files

    def broken(reply, codes):
        raise BrokenPipeError  # the reader went away: `interlock recover ... | head -1`

    monkeypatch.setattr(hotrecover.hotclient, "printed", broken)
    code, _, _ = _door(repo, "--", *lost, capsys=capsys)
    assert code == 0  # an outcome: __main__ does not run the full CLI after it
    for path, content in lost.items():
        assert (repo / path).read_bytes() == content  # written once, by the daemon
