"""bash's invocation forms, read as bash reads them."""

from __future__ import annotations

import pytest

from interlock.config import config_from_json, config_to_json, load_config
from interlock.run.bashargs import quote, read_args


@pytest.mark.parametrize(
    ("argv", "mode", "command", "args"),
    [
        (["-c", "echo hi"], "command", "echo hi", []),
        (["-lc", "echo hi"], "command", "echo hi", []),
        (["-c", "-l", "echo hi"], "command", "echo hi", []),
        (["-c", "echo $1", "name", "a"], "command", "echo $1", ["name", "a"]),
        (["-i", "-c", "ls"], "command", "ls", []),
        (["--login", "--norc", "-c", "ls"], "command", "ls", []),
        (["--rcfile", "x.rc", "-c", "ls"], "command", "ls", []),
        (["-c", "ls", "-e"], "command", "ls", ["-e"]),  # options end at the command string
        (["script.sh", "a", "-c"], "file", None, ["a", "-c"]),
        (["--", "-script.sh"], "file", None, []),
        ([], "stdin", None, []),
        (["-s", "a", "b"], "stdin", None, ["a", "b"]),
        (["-"], "stdin", None, []),
        (["-i"], "interactive", None, []),
        (["--version"], "inert", None, []),
        (["-n", "-c", "rm -rf /"], "inert", None, []),
        (["-c"], "inert", None, []),
        (["--frobnicate", "-c", "ls"], "invalid", None, []),
        (["-Q", "-c", "ls"], "invalid", None, []),
        (["-o"], "invalid", None, []),
    ],
)
def test_bash_arguments_are_read_as_bash_reads_them(argv, mode, command, args):
    call = read_args(argv)
    assert call.mode == mode
    assert call.command == command
    assert call.args == args


def test_an_interactive_shell_is_one_with_stdin_and_stderr_on_a_terminal():
    assert read_args([], stdin_tty=True, stderr_tty=True).mode == "interactive"
    assert read_args([], stdin_tty=True, stderr_tty=False).mode == "stdin"
    assert read_args(["-c", "ls"], stdin_tty=True, stderr_tty=True).mode == "command"


@pytest.mark.parametrize(
    ("argv", "errexit", "pipefail"),
    [
        (["-e", "-c", "x"], True, False),
        (["-ec", "x"], True, False),
        (["-o", "pipefail", "-c", "x"], False, True),
        (["-eo", "pipefail", "-c", "x"], True, True),
        (["-o", "errexit", "+o", "errexit", "-c", "x"], False, False),
        (["-e", "+e", "-c", "x"], False, False),
    ],
)
def test_the_options_that_change_how_a_failure_flows_are_judged_with_the_command(
    argv, errexit, pipefail
):
    call = read_args(argv)
    assert (call.errexit, call.pipefail) == (errexit, pipefail)
    text = call.judged_text("pytest | tail")
    assert text.endswith("pytest | tail")
    assert ("set -e\n" in text) == errexit and ("set -o pipefail\n" in text) == pipefail


def test_codex_snapshot_prologue_is_judged_with_its_arguments_filled_in():
    argv = ["-c", '. "$1" && shift && exec "$@"', "sh", "/tmp/snap.sh", "git", "reset", "--hard"]
    call = read_args(argv)
    assert call.judged_text(call.command) == ". /tmp/snap.sh && exec git reset --hard"


@pytest.mark.parametrize("word", ["plain", "it's", "a b", "$(x)", "", "--x=1"])
def test_quote_gives_the_word_back_through_the_shell(word, shell, tmp_path):
    out = shell(tmp_path, f"printf %s {quote(word)}").stdout
    assert out == word


def test_the_config_a_run_freezes_reads_back_to_the_same_values(tmp_path):
    (tmp_path / ".interlock.toml").write_text(
        'mode = "blocking"\nmax_turns = "unbounded"\nvalidators = ["make test"]\n'
        "progress_stall_threshold = 4\n"
    )
    config = load_config(tmp_path, environ={})
    frozen = config_from_json(config_to_json(config), "run r-1 baseline")
    for key in ("mode", "max_turns", "validators", "progress_stall_threshold", "protected"):
        assert getattr(frozen, key) == getattr(config, key), key
    assert frozen.max_turns is None and frozen.warnings == ()
    assert set(frozen.sources.values()) == {"run r-1 baseline"}
