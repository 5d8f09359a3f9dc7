"""The wrapper behaves exactly like bash for what it allows: the same bytes on stdout and
stderr, the same exit status or death by the same signal, stdin passed through, bash's
invocation forms; and it refuses what it must, with 126."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

WRAPPER = Path(__file__).resolve().parents[2] / "shell" / "interlock-sh"

# (arguments after `bash`, stdin)
TABLE: list[tuple[list[str], bytes | None]] = [
    (["-c", "echo hello"], None),
    (["-c", "printf 'a\\000b\\n'"], None),
    (["-c", "echo out; echo err >&2; exit 3"], None),
    (["-c", "exit 3"], None),
    (["-c", "exit 300"], None),
    (["-c", "false"], None),
    (["-c", "seq 1 5 | sort -r | head -2"], None),
    (["-c", "yes | head -n 3"], None),
    (["-c", "seq 1 100000"], None),
    (["-c", "cat"], b"line one\nline two\n"),
    (["-c", "read x; echo got:$x"], b"typed\n"),
    (["-c", "cat <<'EOF'\nfirst $HOME\n  second\nEOF\necho after"], None),
    (["-c", "cat <<EOF\nexpanded $((1+2))\nEOF"], None),
    (["-c", "set -e; false; echo unreachable"], None),
    (["-e", "-c", "false; echo no"], None),
    (["-o", "pipefail", "-c", "false | true"], None),
    (["-c", "false | true"], None),
    (["-ec", "echo grouped; false; echo no"], None),
    (["-c", 'echo "$0|$1|$2|$#"', "name", "a b", "c"], None),
    (["-c", "echo $0"], None),
    (["-x", "-c", "echo traced"], None),
    (["-c", "-l", "echo login-after-c"], None),
    (["-c", "kill -TERM $$"], None),
    (["-c", "sh -c 'kill -INT $$'; echo survived $?"], None),
    ([], b"echo from stdin\nexit 4\n"),
    (["-s", "first"], b'echo "arg:$1"\n'),
    ([], b"read line\necho got:$line\nthis line is data\necho end\n"),
    (["--norc", "--noprofile", "-c", "echo long options"], None),
    (["-c", "echo missing; nosuchcommand_xyz"], None),
]


def _bash(cwd, args, stdin, env):
    return subprocess.run(["bash", *args], cwd=cwd, input=stdin, capture_output=True, env=env)


# The inline path differs from the warm one only in where the verdict comes from: a few
# cases of each kind are enough there (each inline judgement loads the whole engine).
INLINE = [TABLE[i] for i in (2, 5, 6, 9, 13, 15, 18, 22, 24, 26)]


def _compare(repo, wrap, env_extra, table):
    env = {**os.environ, **env_extra}
    mismatches = []
    for args, stdin in table:
        want = _bash(repo, args, stdin, env)
        got = wrap(repo, *args, input=stdin, env=env_extra)
        if (got.returncode, got.stdout, got.stderr) != (want.returncode, want.stdout, want.stderr):
            mismatches.append(
                (
                    args,
                    (want.returncode, want.stdout[:200], want.stderr[:300]),
                    (got.returncode, got.stdout[:200], got.stderr[:300]),
                )
            )
    return mismatches


def test_allowed_commands_are_byte_identical_to_bash_with_the_daemon_warm(
    git_repo, wrap, daemons, journal_view
):
    daemons.start(git_repo)
    assert _compare(git_repo, wrap, {}, TABLE) == []
    _, attempts = journal_view(git_repo)
    assert len(attempts) == len(TABLE)
    assert all(a.data["warm"] for a in attempts)  # every verdict came from the daemon


def test_allowed_commands_are_byte_identical_to_bash_when_judged_inline(git_repo, wrap):
    assert _compare(git_repo, wrap, {"INTERLOCK_NO_DAEMON": "1"}, INLINE) == []


def test_a_script_file_runs_with_its_arguments_like_bash(git_repo, wrap):
    script = git_repo / "script.sh"
    script.write_text('echo "script $1 $2"\necho to-err >&2\nexit 7\n')
    want = subprocess.run(["bash", str(script), "x", "y z"], capture_output=True, cwd=git_repo)
    got = wrap(git_repo, str(script), "x", "y z")
    assert (got.returncode, got.stdout, got.stderr) == (7, b"script x y z\n", b"to-err\n")
    assert (got.returncode, got.stdout, got.stderr) == (
        want.returncode,
        want.stdout,
        want.stderr,
    )


def test_a_refused_command_exits_126_with_the_reason_on_stderr_and_does_not_run(
    git_repo, wrap, set_mode, git
):
    set_mode(git_repo, "blocking", git)
    (git_repo / "src" / "app.py").write_text("print('changed before the run')\n")
    got = wrap(git_repo, "-c", "git checkout -- . && echo ran")
    assert got.returncode == 126
    assert got.stdout == b""
    assert got.stderr.startswith(b"interlock: [discard] refused: git checkout -- .")
    assert b"predates this run" in got.stderr
    assert (git_repo / "src" / "app.py").read_text() == "print('changed before the run')\n"


def test_a_script_on_stdin_is_judged_like_a_command_line(git_repo, wrap, set_mode, git):
    set_mode(git_repo, "blocking", git)
    (git_repo / "README.md").write_text("unsaved\n")
    got = wrap(git_repo, input=b"echo first\ngit reset --hard\n")
    assert got.returncode == 126 and got.stdout == b""
    assert b"[discard]" in got.stderr
    assert (git_repo / "README.md").read_text() == "unsaved\n"


def test_an_unknown_option_is_refused_rather_than_guessed(git_repo, wrap):
    got = wrap(git_repo, "--frobnicate", "-c", "echo hi")
    assert got.returncode == 126
    assert got.stderr.startswith(b"interlock: [unparsed] refused:")
    assert got.stdout == b""


def test_invocations_that_run_no_code_go_straight_to_bash(git_repo, wrap):
    version = wrap(git_repo, "--version")
    assert version.returncode == 0 and version.stdout.startswith(b"GNU bash")
    syntax = wrap(git_repo, "-n", "-c", "git reset --hard")
    assert syntax.returncode == 0 and syntax.stderr == b""


def test_outside_a_repository_only_the_global_rules_apply(tmp_path, wrap):
    outside = tmp_path / "plain"
    outside.mkdir()
    got = wrap(outside, "-c", "echo plain; exit 2")
    assert (got.returncode, got.stdout, got.stderr) == (2, b"plain\n", b"")
    masked = wrap(outside, "-c", "pytest || true", env={"INTERLOCK_MODE": "blocking"})
    assert masked.returncode == 126 and b"[masked-validator]" in masked.stderr
    assert not (outside / ".git").exists()


def _default_signals() -> None:
    """A signal ignored on entry stays ignored in bash and everything below it (a test run
    under `nohup`, or started with `&` by a non-interactive shell, ignores SIGHUP or SIGINT):
    the wrapper starts as it would under a person's terminal."""
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_a_signal_sent_to_the_wrapper_reaches_the_command_and_the_wrapper_dies_of_it(
    git_repo, sig, pid_alive
):
    env = {**os.environ, "INTERLOCK_NO_DAEMON": "1"}
    pidfile = git_repo / "sleeper.pid"
    command = f"sh -c 'echo $$ > {pidfile}; exec sleep 30'; echo not reached"
    proc = subprocess.Popen(
        [str(WRAPPER), "-c", command],
        cwd=git_repo,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=_default_signals,
    )
    deadline = time.monotonic() + 60
    while not (pidfile.exists() and pidfile.read_text().strip()) and time.monotonic() < deadline:
        time.sleep(0.02)
    sleeper = int(pidfile.read_text())
    proc.send_signal(sig)
    deadline = time.monotonic() + 10
    while pid_alive(sleeper) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not pid_alive(sleeper)  # the whole command got it, not only bash: not waited out
    out, _ = proc.communicate(timeout=90)  # the outcome is journaled inline first (slow under load)
    assert proc.returncode == -sig and out == b""


def test_the_command_sees_the_run_and_the_attempt_in_its_environment(git_repo, wrap, journal_view):
    got = wrap(git_repo, "-c", 'echo "$INTERLOCK_WRAPPED $INTERLOCK_RUN $INTERLOCK_ATTEMPT"')
    wrapped, run, attempt = got.stdout.decode().split()
    runs, attempts = journal_view(git_repo)
    assert wrapped == "1" and run == runs[0].id and int(attempt) == attempts[-1].id


CHECK = """#!/bin/sh
for i in 1 2 3; do
  echo "out $i"
  echo "err $i" >&2
done
printf 'no newline at the end'
exit 1
"""


@pytest.mark.parametrize("daemon", [False, True], ids=["inline", "warm"])
def test_a_validators_output_is_copied_byte_for_byte_and_in_order(
    git_repo, wrap, git, daemons, daemon
):
    (git_repo / ".interlock.toml").write_text('validators = ["./check.sh"]\n')
    (git_repo / "check.sh").write_text(CHECK)
    (git_repo / "check.sh").chmod(0o755)
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "check")
    env = {} if daemon else {"INTERLOCK_NO_DAEMON": "1"}
    if daemon:
        daemons.start(git_repo)
    for args in (["-c", "./check.sh"], ["-c", "./check.sh 2>&1"]):
        want = subprocess.run(["bash", *args], cwd=git_repo, capture_output=True)
        got = wrap(git_repo, *args, env=env)
        assert (got.returncode, got.stdout, got.stderr) == (1, want.stdout, want.stderr)
    # stdout and stderr are one file at the caller (2>&1 outside): one pipe, order kept
    merged = subprocess.run(
        [str(WRAPPER), "-c", "./check.sh"],
        cwd=git_repo,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env={**os.environ, **env},
    )
    want = subprocess.run(
        ["bash", "-c", "./check.sh"], cwd=git_repo, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    assert merged.stdout == want.stdout
    assert b"out 1\nerr 1\nout 2\nerr 2\nout 3\nerr 3\nno newline at the end" == merged.stdout


def test_a_reader_that_goes_away_gives_the_validator_sigpipe_as_bash_would(git_repo, wrap, git):
    (git_repo / ".interlock.toml").write_text('validators = ["yes"]\n')
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "yes")
    proc = subprocess.Popen(
        f"{WRAPPER} -c yes | head -n 2",
        shell=True,
        cwd=git_repo,
        stdout=subprocess.PIPE,
        env={**os.environ, "INTERLOCK_NO_DAEMON": "1"},
    )
    out, _ = proc.communicate(timeout=60)
    assert out == b"y\ny\n"


def test_when_interlock_fails_the_command_is_refused_with_one_line_naming_the_report(
    git_repo, wrap, git
):
    (git_repo / ".git" / "interlock").write_text("not a directory")  # no state: no judging
    got = wrap(git_repo, "-c", "touch ran")
    assert got.returncode == 126
    [line] = got.stderr.decode().splitlines()
    assert line.startswith("interlock: bug: the check failed (")
    assert "the command was not run (report: " in line
    assert not (git_repo / "ran").exists()
    # `mode = "off"` lets a command run unjudged only when the config in force says so; with
    # no journal to say which run (and config) is in force, unknown stays guarded
    (git_repo / ".interlock.toml").write_text('mode = "off"\n')
    assert wrap(git_repo, "-c", "touch ran").returncode == 126


def test_mode_off_is_read_from_the_runs_frozen_config_not_the_file(git_repo, wrap, git):
    from interlock.run.link import mode_is_off

    (git_repo / ".interlock.toml").write_text('mode = "off"\n')
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "off")
    assert wrap(git_repo, "-c", "true", env={"INTERLOCK_RUN": "r-off"}).returncode == 0
    (git_repo / ".interlock.toml").write_text('mode = "blocking"\n')
    os.environ["INTERLOCK_RUN"] = "r-off"
    try:
        assert mode_is_off(str(git_repo)) is True
        os.environ["INTERLOCK_RUN"] = "r-none"
        assert mode_is_off(str(git_repo)) is False  # no such run: the file's blocking
    finally:
        del os.environ["INTERLOCK_RUN"]
