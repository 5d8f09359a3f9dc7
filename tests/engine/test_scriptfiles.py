"""A script file the line runs is judged by its text (engine.scriptfiles, engine.walk): an
agent that writes its discard into `x.sh` and runs `./x.sh` meets the same verdict as if it
had typed the discard. Real repositories, real files, `interlock check` in blocking mode."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from interlock.engine.check import evaluate
from interlock.engine.scriptfiles import MAX_BYTES

DISCARD = "git checkout -- .\n"


@pytest.fixture
def dirty(git_repo: Path) -> Path:
    """A repository with uncommitted work (README.md edited) and x.sh holding a discard."""
    (git_repo / "README.md").write_text("work in progress\n")
    script = git_repo / "x.sh"
    script.write_text(DISCARD)
    script.chmod(0o755)
    (git_repo / "list").write_text("one\n")
    return git_repo


def judged(repo: Path, command: str) -> dict:
    return evaluate(command, str(repo), mode="blocking").result.to_json()


RUNS_OF_X = [
    "./x.sh",
    "bash x.sh",
    "sh ./x.sh",
    "source x.sh",
    ". x.sh",
    "script -qc ./x.sh /dev/null",
    "setsid -f ./x.sh",
    "nohup ./x.sh &",
    "timeout 5 ./x.sh",
    "xargs -a list ./x.sh",
    "bash -e x.sh",
    "env -i PATH=/usr/bin ./x.sh",
    "find . -maxdepth 1 -name list -exec ./x.sh {} ;",
    "sudo -n ./x.sh",
    "bash < x.sh",
    "sh -s < x.sh",
    "bash /dev/stdin < x.sh",
    "bash /dev/fd/3 3< x.sh",
    "source /dev/stdin < x.sh",
]


@pytest.mark.parametrize("command", RUNS_OF_X)
def test_a_discard_written_into_a_script_is_refused_however_the_script_is_run(dirty, command):
    got = judged(dirty, command)
    assert got["verdict"] == "block", got
    [finding] = [f for f in got["findings"] if f["rule"] == "git.checkout-discard"]
    assert finding["text"].endswith("x.sh line 1: git checkout -- ."), finding
    assert "README.md" in finding["reason"]


def test_the_cli_names_the_file_and_line_the_discard_stands_on(dirty, interlock):
    (dirty / "x.sh").write_text("#!/bin/sh\necho cleaning\n\ngit checkout -- .\n")
    got = interlock(dirty, "check", "--mode", "blocking", "./x.sh")
    assert got.returncode == 126
    assert "[discard] would block: ./x.sh line 4: git checkout -- ." in got.stderr


def test_a_script_holding_nothing_harmful_is_allowed(dirty):
    (dirty / "x.sh").write_text("#!/bin/bash\nset -e\ngit status\nls -la\n")
    assert judged(dirty, "./x.sh")["verdict"] == "allow"


@pytest.mark.parametrize(
    "command",
    [
        "bash -n x.sh",
        "sh -n ./x.sh",
        "bash -o noexec x.sh",
        "bash -n < x.sh",
        "cat x.sh | bash -n",
        "bash -n -c \"$(cat x.sh)\"",
        "find . -name '*.sh' | xargs bash -n",
    ],
)
def test_a_shell_told_to_only_check_the_script_runs_none_of_it(dirty, command):
    """`bash -n` reads the script for syntax errors and executes nothing."""
    assert judged(dirty, command)["findings"] == []


def test_noexec_turned_off_again_runs_the_script(dirty):
    got = judged(dirty, "bash -n +n x.sh")
    assert [f["rule"] for f in got["findings"]] == ["git.checkout-discard"]


def test_a_clean_tree_makes_the_discard_in_the_script_harmless(git_repo):
    (git_repo / "x.sh").write_text(DISCARD)
    assert judged(git_repo, "bash x.sh")["verdict"] == "allow"


@pytest.mark.parametrize(
    "text",
    [
        "interlock approve 3\n",
        "interlock off\n",
        "git config core.hooksPath /dev/null\n",
        "git commit --no-verify -m x\n",
    ],
)
def test_self_disabling_commands_in_a_script_are_refused(dirty, text):
    (dirty / "x.sh").write_text(text)
    got = judged(dirty, "./x.sh")
    assert got["verdict"] == "block", got
    assert any(f["kind"] == "self-disable" for f in got["findings"])


def test_a_masked_validator_in_a_script_is_a_masked_validator(dirty):
    (dirty / "ci.sh").write_text("#!/bin/sh\npytest || true\n")
    got = judged(dirty, "bash ci.sh")
    assert got["verdict"] == "block"
    [finding] = got["findings"]
    assert finding["rule"] == "validator.exit-forged"
    assert finding["text"] == "ci.sh line 2: pytest"
    assert got["validators"] == [
        {"text": "pytest", "tier": "slow", "masked": True, "scripts": [str(dirty / "ci.sh")]}
    ]


def test_an_unmasked_validator_in_a_script_is_a_validator_of_its_tier(dirty):
    (dirty / "ci.sh").write_text("#!/bin/bash\nset -euo pipefail\nruff check .\npytest -q\n")
    (dirty / "ci.sh").chmod(0o755)
    got = judged(dirty, "./ci.sh")
    assert got["verdict"] == "allow" and got["findings"] == []
    tiers = {v["text"]: (v["tier"], v["masked"]) for v in got["validators"]}
    assert tiers == {"ruff check .": ("fast", False), "pytest -q": ("slow", False)}


def test_a_validator_whose_status_the_script_drops_is_masked(dirty):
    (dirty / "ci.sh").write_text("pytest -q\necho finished\n")
    got = judged(dirty, "sh ci.sh")
    assert [v["masked"] for v in got["validators"]] == [True]
    assert got["findings"][0]["text"] == "ci.sh line 1: pytest -q"


def test_a_script_run_as_a_validator_fails_when_it_fails(dirty, git):
    (dirty / "gradlew").write_text(
        '#!/bin/sh\nJAVACMD=java\n[ -n "$JAVA_HOME" ] && JAVACMD="$JAVA_HOME/bin/java"\n'
        'exec "$JAVACMD" "$@"\n'
    )
    (dirty / "gradlew").chmod(0o755)
    got = judged(dirty, "./gradlew test")
    assert got["verdict"] == "allow" and got["parse"] == "degraded"
    assert got["validators"][0]["masked"] is False
    forged = judged(dirty, "./gradlew test || true")
    assert forged["validators"][0]["masked"] is True


def test_sourcing_a_script_carries_its_directory_and_variables_over(dirty):
    (dirty / "build").mkdir()
    (dirty / ".gitignore").write_text("build/\n")
    (dirty / "vars.sh").write_text("TARGET=build\n")
    assert judged(dirty, "source vars.sh && rm -rf $TARGET")["verdict"] == "allow"
    # a child shell's variables die with it: the target is unknown, so refused
    assert judged(dirty, "bash vars.sh && rm -rf $TARGET")["verdict"] == "block"
    (dirty / "go.sh").write_text("cd src || exit 1\n")
    (dirty / "src" / "app.py").write_text("# edited\n")
    got = judged(dirty, ". ./go.sh && git checkout -- .")
    [finding] = got["findings"]
    assert "src/app.py" in finding["reason"] and "README.md" not in finding["reason"]


def test_a_python_script_is_read_like_python_code_given_with_c(dirty):
    (dirty / "src" / "notes.txt").write_text("not committed\n")
    (dirty / "clean.py").write_text("import shutil\n\nshutil.rmtree('src')\n")
    got = judged(dirty, "python3 clean.py")
    assert got["verdict"] == "block"
    assert got["findings"][0]["text"] == "clean.py: rm -rf src"
    (dirty / "run.py").write_text(
        "#!/usr/bin/env python3\nimport os\nos.system('git reset --hard')\n"
    )
    (dirty / "run.py").chmod(0o755)
    for command in ("./run.py", "python3 - < run.py", "python3 < run.py"):
        got = judged(dirty, command)
        assert [f["rule"] for f in got["findings"]] == ["git.reset-hard"], command


def test_scripts_running_scripts_are_followed_and_a_script_running_itself_ends(dirty):
    (dirty / "a.sh").write_text("echo start\nbash b.sh\n")
    (dirty / "b.sh").write_text("./x.sh\n")
    got = judged(dirty, "bash a.sh")
    [finding] = got["findings"]
    assert finding["text"] == "a.sh line 2, b.sh line 1, ./x.sh line 1: git checkout -- ."
    (dirty / "loop.sh").write_text("echo again\nbash loop.sh\n")
    assert judged(dirty, "bash loop.sh")["verdict"] == "allow"


def test_a_script_on_path_is_read_only_when_its_directory_is_in_the_worktree(
    dirty, monkeypatch, tmp_path
):
    (dirty / "bin").mkdir()
    tool = dirty / "bin" / "tidy"
    tool.write_text(DISCARD)
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", f"{dirty / 'bin'}{os.pathsep}{os.environ['PATH']}")
    assert judged(dirty, "tidy")["verdict"] == "block"
    elsewhere = tmp_path / "outside"
    elsewhere.mkdir()
    (elsewhere / "tidy2").write_text(DISCARD)
    (elsewhere / "tidy2").chmod(0o755)
    monkeypatch.setenv("PATH", f"{elsewhere}{os.pathsep}{os.environ['PATH']}")
    assert judged(dirty, "tidy2")["verdict"] == "allow"


def _unreadable_scripts(repo: Path) -> list[str]:
    (repo / "big.sh").write_text("#" * MAX_BYTES + "\n" + DISCARD)
    (repo / "bin.sh").write_bytes(b"\0\x01" + DISCARD.encode())
    (repo / "node.js").write_text("#!/usr/bin/env node\n" + DISCARD)
    (repo / "node.js").chmod(0o755)
    os.mkfifo(repo / "fifo.sh")
    (repo / "dir.sh").mkdir()
    return ["bash big.sh", "bash bin.sh", "./node.js", "bash fifo.sh", "bash dir.sh", "./no.sh"]


def test_a_file_that_cannot_be_read_as_a_script_stays_an_unknown_program(dirty):
    for command in _unreadable_scripts(dirty):
        got = judged(dirty, command)
        assert got["verdict"] == "allow", (command, got)


def test_a_script_judged_by_text_alone_reads_no_file(dirty):
    got = evaluate("./x.sh", str(dirty), mode="blocking", assume_dirty=True).result
    assert got.verdict == "allow"


def test_a_script_the_line_rewrites_before_running_it_is_judged_by_what_it_writes(dirty, git):
    git(dirty, "add", "x.sh")
    git(dirty, "commit", "-q", "-m", "x.sh, committed with a discard in it")
    assert judged(dirty, "echo ls > x.sh && bash x.sh")["verdict"] == "allow"
    (dirty / "x.sh").write_text("ls\n")
    git(dirty, "commit", "-q", "-m", "x.sh, harmless", "x.sh")
    got = judged(dirty, "echo 'git checkout -- .' > x.sh && bash x.sh")
    [finding] = got["findings"]
    assert finding["rule"] == "git.checkout-discard" and "written earlier" in finding["reason"]


def test_the_kernels_resolution_of_a_path_entry_is_realpaths(tmp_path):
    # ScriptFiles.path_dirs resolves every PATH entry on every check: real_path asks the
    # kernel for a directory's path and must answer exactly what os.path.realpath does
    from interlock.engine.scriptfiles import real_path

    base = tmp_path.resolve()
    (base / "tree" / "bin").mkdir(parents=True)
    (base / "tree" / "file").write_text("x")
    (base / "to-bin").symlink_to(base / "tree" / "bin")
    (base / "rel").symlink_to("tree/bin/..")
    (base / "dangling").symlink_to(base / "missing")
    (base / "loop").symlink_to(base / "loop")
    (base / "to-file").symlink_to(base / "tree" / "file")
    (base / "tree" / "bin" / "up").symlink_to("../..")
    names = ["tree/bin", "to-bin", "rel", "dangling", "loop", "to-file", "tree/bin/up/to-bin",
             "to-bin/../file", "missing/x", "tree//bin/", "tree/./bin/..", "x (deleted)"]
    for name in names:
        path = os.path.join(str(base), name)
        assert real_path(path) == os.path.realpath(path), name
    assert real_path(str(base / "to-bin")) == str(base / "tree" / "bin")
