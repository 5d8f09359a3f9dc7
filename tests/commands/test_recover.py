"""End to end: a real daemon records what plain shell commands do; git discards it behind
interlock's back; `interlock recover` brings it back."""

from __future__ import annotations

import datetime
import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from interlock.commands.recover import parse_time
from interlock.errors import InterlockError


def blob_of(content: bytes) -> str:
    return (
        subprocess.run(
            ["git", "hash-object", "--stdin"], input=content, capture_output=True, check=True
        )
        .stdout.decode()
        .strip()
    )


@pytest.fixture(scope="session")
def versions(
    interlock: Callable[..., subprocess.CompletedProcess[str]],
) -> Callable[[Path, str], list[dict]]:
    """`versions(repo, path)`: what `interlock recover PATH --list --json` lists."""

    def versions(repo: Path, path: str) -> list[dict]:
        result = interlock(repo, "recover", path, "--list", "--json")
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout)

    return versions


@pytest.fixture(scope="session")
def wait_recorded(
    versions: Callable[[Path, str], list[dict]], poll: Callable[..., object]
) -> Callable[[Path, str, bytes], None]:
    """`wait_recorded(repo, path, content)`: until the recorder holds that content of path."""

    def wait_recorded(repo: Path, path: str, content: bytes) -> None:
        blob = blob_of(content)
        poll(
            lambda: any(
                v["blob"] == blob and v["source"] == "recorder" for v in versions(repo, path)
            ),
            what=f"the recorder to hold {path}",
        )

    return wait_recorded


def test_recover_brings_back_a_tracked_file_after_git_checkout(
    daemons, git_repo, git, shell, interlock, wait_recorded
):
    daemons.start(git_repo)
    shell(git_repo, "printf 'precious edit\\n' >> src/app.py")
    precious = b"print('hello')\nprecious edit\n"
    wait_recorded(git_repo, "src/app.py", precious)
    git(git_repo, "checkout", "--", ".")
    assert (git_repo / "src/app.py").read_bytes() == b"print('hello')\n"

    result = interlock(git_repo, "recover", "src/app.py")
    assert result.returncode == 0, result.stderr
    assert (git_repo / "src/app.py").read_bytes() == precious
    assert "recovered src/app.py (overwritten) from recorder" in result.stdout
    assert "saved:" in result.stdout and "interlock undo" in result.stdout


def test_recover_brings_back_an_untracked_file_after_git_clean(
    daemons, git_repo, git, shell, interlock, wait_recorded
):
    daemons.start(git_repo)
    shell(git_repo, "mkdir -p notes/deep && echo 'an idea' > notes/deep/todo.txt")
    wait_recorded(git_repo, "notes/deep/todo.txt", b"an idea\n")
    git(git_repo, "clean", "-fdq")
    assert not (git_repo / "notes").exists()

    result = interlock(git_repo, "recover", "notes/deep/todo.txt", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["written"] is True and report["recovered"][0]["path"] == "notes/deep/todo.txt"
    assert (git_repo / "notes/deep/todo.txt").read_bytes() == b"an idea\n"


def test_recover_works_with_the_daemon_stopped(daemons, git_repo, shell, interlock, wait_recorded):
    daemons.start(git_repo)
    shell(git_repo, "echo 'draft' > draft.md; chmod +x draft.md")
    wait_recorded(git_repo, "draft.md", b"draft\n")
    assert interlock(git_repo, "daemon", "stop").returncode == 0
    shell(git_repo, "rm draft.md")
    assert interlock(git_repo, "recover", "draft.md").returncode == 0
    assert (git_repo / "draft.md").read_bytes() == b"draft\n"
    assert (git_repo / "draft.md").stat().st_mode & 0o111


def test_recover_at_a_time_picks_the_version_of_that_moment(
    daemons, git_repo, shell, interlock, wait_recorded
):
    daemons.start(git_repo)
    shell(git_repo, "echo one > log.txt")
    wait_recorded(git_repo, "log.txt", b"one\n")
    between = datetime.datetime.now().isoformat()
    shell(git_repo, "echo two > log.txt")
    wait_recorded(git_repo, "log.txt", b"two\n")
    result = interlock(git_repo, "recover", "log.txt", "--at", between)
    assert result.returncode == 0, result.stderr
    assert (git_repo / "log.txt").read_text() == "one\n"
    again = interlock(git_repo, "recover", "log.txt", "--at", between)
    assert "already holds that version" in again.stdout


def test_recover_lists_recorder_and_snapshot_versions_newest_first(
    daemons, git_repo, shell, interlock, versions, wait_recorded
):
    daemons.start(git_repo)
    shell(git_repo, "echo v1 >> README.md")
    wait_recorded(git_repo, "README.md", b"# demo\nv1\n")
    assert interlock(git_repo, "snapshot", "-m", "keep").returncode == 0
    listed = versions(git_repo, "README.md")
    assert {v["source"] for v in listed} == {"recorder", "snapshot"}
    times = [v["time"] for v in listed]
    assert times == sorted(times, reverse=True)
    human = interlock(git_repo, "recover", "README.md", "--list").stdout
    assert "TIME" in human and "recorder (" in human and "snapshot " in human


def test_recover_of_a_path_never_seen_is_a_clear_error(git_repo, interlock):
    result = interlock(git_repo, "recover", "nowhere.txt")
    assert result.returncode == 1
    assert "no recorded version of nowhere.txt" in result.stderr


def test_recover_refuses_a_path_outside_the_worktree(git_repo, tmp_path, interlock):
    outside = tmp_path / "elsewhere.txt"
    outside.write_text("x")
    result = interlock(git_repo, "recover", str(outside))
    assert result.returncode == 1 and "not inside a git worktree" in result.stderr


NOW = datetime.datetime(2025, 3, 4, 15, 0, 0).timestamp()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("-10m", NOW - 600),
        ("-2h", NOW - 7200),
        ("-30s", NOW - 30),
        ("-1d", NOW - 86400),
        ("14:30", datetime.datetime(2025, 3, 4, 14, 30).timestamp()),
        ("16:00", datetime.datetime(2025, 3, 3, 16, 0).timestamp()),
        ("2025-03-01T12:00:00", datetime.datetime(2025, 3, 1, 12, 0).timestamp()),
        (
            "2025-03-01T12:00:00+00:00",
            datetime.datetime(2025, 3, 1, 12, 0, tzinfo=datetime.UTC).timestamp(),
        ),
    ],
)
def test_times_are_read_as_relative_clock_or_iso(text, expected):
    assert parse_time(text, now=NOW) == pytest.approx(expected)


def test_an_unreadable_time_says_which_forms_work():
    with pytest.raises(InterlockError, match="cannot read the time") as caught:
        parse_time("yesterday-ish", now=NOW)
    assert "-10m" in (caught.value.hint or "")


def test_recover_since_brings_back_everything_a_discard_took(
    daemons, git_repo, git, shell, interlock, wait_recorded
):
    daemons.start(git_repo)
    shell(
        git_repo, "echo edit >> README.md; mkdir -p notes; echo idea > notes/a.txt; echo b > b.txt"
    )
    for path, content in (
        ("README.md", b"# demo\nedit\n"),
        ("notes/a.txt", b"idea\n"),
        ("b.txt", b"b\n"),
    ):
        wait_recorded(git_repo, path, content)
    shell(git_repo, "echo kept-edit >> src/app.py")  # an edit that stays: never "lost"
    wait_recorded(git_repo, "src/app.py", b"print('hello')\nkept-edit\n")
    shell(git_repo, "git checkout -- README.md && git clean -fdq")  # behind interlock's back

    listed = interlock(git_repo, "recover", "--since", "10m", "--list")
    assert listed.returncode == 0, listed.stderr
    assert "would recover README.md (overwritten)" in listed.stdout
    assert "would recover notes/a.txt (deleted)" in listed.stdout
    assert "src/app.py" not in listed.stdout
    assert not (git_repo / "b.txt").exists()  # --list writes nothing

    result = interlock(git_repo, "recover", "--since", "-10m")
    assert result.returncode == 0, result.stderr
    assert (git_repo / "README.md").read_text() == "# demo\nedit\n"
    assert (git_repo / "notes/a.txt").read_text() == "idea\n"
    assert (git_repo / "b.txt").read_text() == "b\n"
    assert (git_repo / "src/app.py").read_text() == "print('hello')\nkept-edit\n"
    assert "interlock undo" in result.stdout

    undone = interlock(git_repo, "undo")
    assert undone.returncode == 0, undone.stderr
    assert (git_repo / "README.md").read_text() == "# demo\n"
    assert not (git_repo / "b.txt").exists()


def test_recover_takes_several_files_and_directories_in_one_call(
    daemons, git_repo, git, shell, interlock, wait_recorded
):
    daemons.start(git_repo)
    shell(git_repo, "mkdir -p d/e; echo 1 > d/e/one.txt; echo 2 > d/two.txt; echo 3 > three.txt")
    for path, content in (("d/e/one.txt", b"1\n"), ("d/two.txt", b"2\n"), ("three.txt", b"3\n")):
        wait_recorded(git_repo, path, content)
    shell(git_repo, "rm -rf d three.txt")

    result = interlock(git_repo, "recover", "d", "three.txt", "--json")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert sorted(r["path"] for r in report["recovered"]) == [
        "d/e/one.txt",
        "d/two.txt",
        "three.txt",
    ]
    assert (git_repo / "d/e/one.txt").read_text() == "1\n" and (git_repo / "three.txt").exists()


def test_recover_says_when_the_recorder_was_not_running(git_repo, interlock):
    result = interlock(git_repo, "recover", "--since", "10m")
    assert result.returncode == 0, result.stderr
    assert "interlock: warning: the recorder was not running from" in result.stderr
    assert "nothing lost" in result.stdout


@pytest.mark.parametrize("text", ["10m", "-10m", " 10m", "-10 m"])
def test_at_accepts_a_duration_with_or_without_the_minus(text):
    assert parse_time(text, now=10_000.0) == 10_000.0 - 600


def test_undo_after_a_discard_outside_interlock_points_to_recover_since(
    daemons, git_repo, git, shell, interlock, wait_recorded
):
    daemons.start(git_repo)
    assert interlock(git_repo, "snapshot", "-m", "s1").returncode == 0
    shell(git_repo, "echo other > other.txt")
    assert interlock(git_repo, "restore", "latest").returncode == 0  # an earlier restore
    shell(git_repo, "echo mine >> README.md")
    wait_recorded(git_repo, "README.md", b"# demo\nmine\n")
    git(git_repo, "checkout", "--", "README.md")  # lost behind interlock's back

    refused = interlock(git_repo, "undo")
    assert refused.returncode == 1
    assert "README.md" in refused.stderr and "interlock recover --since" in refused.stderr
    assert (git_repo / "README.md").read_text() == "# demo\n"  # nothing changed


def test_undo_says_what_it_puts_back_before_doing_it(git_repo, shell, interlock):
    assert interlock(git_repo, "snapshot", "-m", "s1").returncode == 0
    shell(git_repo, "echo made-later > later.txt")
    assert interlock(git_repo, "restore", "latest").returncode == 0
    result = interlock(git_repo, "undo")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("interlock: undo puts back ")
    assert "1 to write, 0 to delete" in result.stdout
    assert (git_repo / "later.txt").read_text() == "made-later\n"


def test_undo_of_a_restore_with_the_daemon_running_is_not_mistaken_for_a_loss(
    daemons, git_repo, shell, interlock, wait_recorded
):
    daemons.start(git_repo)
    assert interlock(git_repo, "snapshot", "-m", "s1").returncode == 0
    shell(git_repo, "echo made-later > later.txt")
    wait_recorded(git_repo, "later.txt", b"made-later\n")
    assert interlock(git_repo, "restore", "latest").returncode == 0  # deletes later.txt
    result = interlock(git_repo, "undo")
    assert result.returncode == 0, result.stderr
    assert (git_repo / "later.txt").read_text() == "made-later\n"
