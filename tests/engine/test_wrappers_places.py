"""interlock.engine.wrappers and runners: where a wrapped command starts when a wrapper's
operand is only known at run time, and where it runs when the wrapper moves it (a login
shell's home, a service's or a namespace's working directory, a new root).

End to end through `evaluate` in a real repository whose src/ holds uncommitted work and
whose build/ is ignored (removing build/ discards nothing); the walk pins the details."""

from __future__ import annotations

import pytest

from interlock.engine.check import evaluate
from interlock.engine.walk import ALT_MASKS, trace
from interlock.shell.parse import parse


@pytest.fixture
def repo(repo_with_work):
    return repo_with_work


def judge(repo, command: str) -> tuple[str, set[str]]:
    """The blocking verdict of command run at the top of repo, and its finding kinds."""
    result = evaluate(command, str(repo), mode="blocking").result
    return result.verdict, {f.kind for f in result.findings}


def commands(text: str) -> list[tuple[list[str | None], str | None]]:
    """Each command the line runs: its words and the directory it runs in."""
    return [(inv.literals(), inv.cwd) for inv in trace(parse(text)).invocations if inv.argv]


# -- a run-time operand in a wrapper's fixed place -----------------------------------------

# `"$T"` is one word: the duration or the lock file, and then the command follows it; or an
# option, and then the operand follows it (and the command after that). Each reading the words
# allow is judged; in a line where only one can run a command, that command is the one judged.
OPERAND_READINGS = [
    ('timeout "$T" pytest', [(["pytest"], "")]),
    ('flock "$LOCK" pytest', [(["pytest"], "")]),
    ('chrt "$P" make', [(["make"], "")]),
    ('taskset "$M" make', [(["make"], "")]),
    # "$T" a flag: 5 is the duration; an option with a value: KILL is it, 5 the duration
    ('timeout "$T" 5 git gc', [(["5", "git", "gc"], ""), (["git", "gc"], "")]),
    ('timeout "$T" KILL 5 git gc', [(["KILL", "5", "git", "gc"], ""), (["git", "gc"], "")]),
    (
        'timeout "$T" -s KILL 5 git gc',
        [(["-s", "KILL", "5", "git", "gc"], ""), (["git", "gc"], "")],
    ),
    # (as `-w`, "$L" would take /tmp/l as its value, and git would be the lock file)
    (
        'flock "$L" /tmp/l git gc',
        [(["/tmp/l", "git", "gc"], ""), (["git", "gc"], ""), (["gc"], "")],
    ),
    ('chrt "$P" 5 git gc', [(["5", "git", "gc"], ""), (["git", "gc"], "")]),
    ('taskset "$M" 0-3 git gc', [(["0-3", "git", "gc"], ""), (["git", "gc"], "")]),
    # a word that cannot be the operand (no duration, no priority) starts no other reading
    ('timeout "$T" echo git gc', [(["echo", "git", "gc"], "")]),
    ('chrt "$P" x git gc', [(["x", "git", "gc"], "")]),
    ('taskset "$M" yes git gc', [(["yes", "git", "gc"], "")]),
    # the word after the operand is a program's option, not a program
    ('flock "$L" pytest -x', [(["pytest", "-x"], "")]),
    # flock FILE -c CODE, the file only known at run time
    ('flock "$L" -c "git gc"', [(["git", "gc"], "")]),
]


@pytest.mark.parametrize(("text", "expected"), OPERAND_READINGS)
def test_each_command_a_quoted_run_time_operand_allows_is_walked(text, expected):
    assert commands(text) == expected


def test_the_other_readings_do_not_decide_the_wrappers_exit_status():
    steps = trace(parse('timeout "$T" 5 git gc')).steps
    (step,) = steps.values()
    assert step.invocation is not None and step.invocation.literals() == ["5", "git", "gc"]
    assert [c.invocation.literals() for c in step.children if c.invocation] == [["git", "gc"]]
    assert [c.masks for c in step.children] == [ALT_MASKS]


def test_the_other_readings_keep_the_wrappers_place_and_environment():
    first, other = trace(parse('cd sub && A=1 timeout "$T" 5 git gc')).invocations[1:]
    assert first.literals() == ["5", "git", "gc"]
    assert other.literals() == ["git", "gc"]
    assert (other.cwd, other.via) == ("sub", ("timeout",))
    assert [a.literal() for a in other.assignments] == ["A=1"]


REFUSED = [
    'timeout "$T" 5 rm -rf src',
    'timeout "$T" KILL 5 rm -rf src',
    'timeout "$T" -k 9 5 rm -rf src',
    'timeout "$T" 2.5m rm -rf src',
    'flock "$L" /tmp/l rm -rf src',
    'flock "$L" -w 3 /tmp/l rm -rf src',
    'flock "$L" -c "rm -rf src"',
    'chrt "$P" 5 rm -rf src',
    'taskset "$M" 0x3 rm -rf src',
    'timeout "$T" 5 sudo rm -rf src',
]


@pytest.mark.parametrize("command", REFUSED)
def test_a_discard_in_any_reading_of_a_run_time_operand_is_refused(repo, command):
    verdict, kinds = judge(repo, command)
    assert verdict == "block"
    assert "discard" in kinds


ALLOWED = [
    'timeout "$T" pytest',
    'flock "$LOCK" pytest',
    'timeout "$T" 5 rm -rf build',
    'chrt "$P" rm -rf build',
    'taskset "$M" rm -rf build',
    'flock "$L" rm -rf build',
    'timeout "$T" echo rm -rf src',
]


@pytest.mark.parametrize("command", ALLOWED)
def test_a_run_time_operand_in_a_wrappers_fixed_place_is_no_unknown_command(repo, command):
    verdict, kinds = judge(repo, command)
    assert (verdict, kinds) == ("allow", set())


def test_a_validator_that_runs_only_in_another_reading_is_never_credited(repo):
    result = evaluate('timeout "$T" 5 pytest', str(repo), mode="blocking").result
    assert result.verdict == "warn"
    assert {f.kind for f in result.findings} == {"masked-validator"}
    assert ALT_MASKS in " ".join(f.reason for f in result.findings)


# -- shells of another user: sudo -s/-i, su, runuser ----------------------------------------

# `sudo -i`, `su -`/`-l`, `runuser -l` start the user's login shell in that user's home
# directory: a relative path there is not this tree's, and nobody here can name that directory
# (unknown, as after `cd "$D"`); an absolute path is still judged. `sudo -s` and `su -c` without
# a login shell run where they are started.
USER_SHELLS = [
    ("sudo -i rm -rf build", [(["rm", "-rf", "build"], None)]),
    ("sudo --login rm -rf build", [(["rm", "-rf", "build"], None)]),
    ("sudo -u app -i git gc", [(["git", "gc"], None)]),
    ("sudo -s rm -rf build", [(["rm", "-rf", "build"], "")]),
    ("sudo -D web -s git gc", [(["git", "gc"], "web")]),
    ("sudo -D web -i git gc", [(["git", "gc"], None)]),
    ("su -c 'git gc'", [(["git", "gc"], "")]),
    ("su -l -c 'git gc'", [(["git", "gc"], None)]),
    ("su --login app -c 'git gc'", [(["git", "gc"], None)]),
    ("su - app -c 'git gc'", [(["git", "gc"], None)]),
    ("su -c 'git gc' - app", [(["git", "gc"], None)]),
    ("runuser -l app -c 'git gc'", [(["git", "gc"], None)]),
    ("runuser app -c 'git gc'", [(["git", "gc"], "")]),
    # the shell sudo -s/-i starts reads the words again, each character escaped but `$`
    ("sudo -s echo 'a b;c' '~' '{a,b}' x=1", [(["echo", "a b;c", "~", "{a,b}", "x=1"], "")]),
    ("sudo -s rm -rf '$D'", [(["rm", "-rf", None], "")]),
    ('sudo -s rm -rf "$D"', [(["rm", "-rf", None], "")]),
    ("sudo -s FOO=1 git gc", [(["git", "gc"], "")]),
    # with no command, the shell reads its commands from stdin
    ("sudo -s <<EOF\ngit gc\nEOF", [(["git", "gc"], "")]),
    ("sudo -i <<EOF\ngit gc\nEOF", [(["git", "gc"], None)]),
    ("su <<EOF\ngit gc\nEOF", [(["git", "gc"], "")]),
    ("su - app <<EOF\ngit gc\nEOF", [(["git", "gc"], None)]),
    ("runuser -u app bash <<EOF\ngit gc\nEOF", [(["git", "gc"], "")]),
    # the words after the user go to the shell (after `--`, su reads no more options)
    ("su -- root -c 'git gc'", [(["git", "gc"], "")]),
    ("su root -- -c 'git gc'", [(["git", "gc"], "")]),
    ("su - root -- -c 'git gc'", [(["git", "gc"], None)]),
    ("su root -- -s <<EOF\ngit gc\nEOF", [(["git", "gc"], "")]),
    ("su root x.sh", [(["su", "root", "x.sh"], "")]),
    # runuser -u USER runs its command directly, its options permuted (up to `--`)
    ("runuser -u app git gc", [(["git", "gc"], "")]),
    ("runuser -u app -- git gc -q", [(["git", "gc", "-q"], "")]),
    ("runuser -u app -m -- git gc", [(["git", "gc"], "")]),
    # nothing to run
    ("sudo -i", [(["sudo", "-i"], "")]),
    ("su - app", [(["su", "-", "app"], "")]),
    ("runuser -u app", [(["runuser", "-u", "app"], "")]),
    ("su app script.sh <<EOF\ngit gc\nEOF", [(["su", "app", "script.sh"], "")]),
]


@pytest.mark.parametrize(("text", "expected"), USER_SHELLS)
def test_what_another_users_shell_runs_and_where(text, expected):
    assert commands(text) == expected


def test_sudo_s_hands_its_environment_and_background_to_the_shells_commands():
    (inv,) = trace(parse("sudo -b -s FOO=1 git gc")).invocations
    assert [a.literal() for a in inv.assignments] == ["FOO=1"]
    masks = [step.masks for step in trace(parse("sudo -b -s git gc")).steps.values()]
    assert [m for m in masks if m is not None and "background" in m]


USER_SHELL_REFUSED = [
    # a relative path in a home directory nobody here can name: unknown targets
    "sudo -i rm -rf build",
    "sudo -i <<EOF\nrm -rf build\nEOF",
    "su -l -c 'rm -rf build'",
    "su - app -c 'rm -rf build'",
    "runuser -l app -c 'rm -rf build'",
    "su - app <<EOF\nrm -rf build\nEOF",
    # where they are started
    "sudo -s rm -rf src",
    "sudo -s <<EOF\nrm -rf src\nEOF",
    "su <<EOF\nrm -rf src\nEOF",
    "runuser -u app -- rm -rf src",
    "runuser -u app rm src/app.py",
    # a `$` sudo -s leaves unescaped expands in the shell
    "sudo -s rm -rf '$D'",
    "su -- root -c 'rm -rf src'",
]


@pytest.mark.parametrize("command", USER_SHELL_REFUSED)
def test_a_discard_through_another_users_shell_is_refused(repo, command):
    verdict, kinds = judge(repo, command)
    assert verdict == "block"
    assert "discard" in kinds


def test_an_absolute_path_in_a_login_shell_is_judged_as_written(repo):
    verdict, kinds = judge(repo, f"sudo -i rm -rf {repo}/src")
    assert (verdict, "discard" in kinds) == ("block", True)


USER_SHELL_ALLOWED = [
    "sudo -s rm -rf build",
    "su -c 'rm -rf build'",
    "sudo -s <<EOF\nrm -rf build\nEOF",
    "runuser -u app -- rm -rf build",
    "sudo -i ls",
]


@pytest.mark.parametrize("command", USER_SHELL_ALLOWED)
def test_another_users_shell_running_nothing_harmful_is_allowed(repo, command):
    assert judge(repo, command) == ("allow", set())


# -- runners that move the command: a new root, a namespace's or a service's directory -----

MOVED = [
    # chroot DIR: the command runs at DIR's top, DIR is its `/`
    ("chroot src rm -rf .", [(["rm", "-rf", "."], "src")]),
    ("chroot build rm -rf /", [(["rm", "-rf", "."], "build")]),
    ("chroot build rm -rf /../src", [(["rm", "-rf", "src"], "build")]),
    ("chroot --userspec=app:app build ls /x", [(["ls", "x"], "build")]),
    ("chroot /srv/jail rm -rf src", [(["rm", "-rf", "src"], "/srv/jail")]),
    ('chroot "$R" rm -rf src', [(["rm", "-rf", "src"], None)]),
    ("chroot --skip-chdir / git gc", [(["git", "gc"], "")]),
    # unshare: -w/--wd DIR; -R/--root DIR (then --wd is inside the new root)
    ("unshare --wd=src rm -rf .", [(["rm", "-rf", "."], "src")]),
    ("unshare -w src rm -rf .", [(["rm", "-rf", "."], "src")]),
    ("unshare --wd src -m ls", [(["ls"], "src")]),
    ('unshare --wd "$D" ls', [(["ls"], None)]),
    ("unshare -mfoo -r ls", [(["ls"], "")]),
    ("unshare -R build rm -rf /x", [(["rm", "-rf", "x"], "build")]),
    ("unshare --root=build --wd=/sub ls", [(["ls"], "build/sub")]),
    ("unshare -R build -w sub ls", [(["ls"], None)]),
    # nsenter: --wd=DIR / -wDIR (its value only attached); -w alone is the target's directory
    ("nsenter --wd=src rm -rf .", [(["rm", "-rf", "."], "src")]),
    ("nsenter -t 1 -wsrc rm -rf .", [(["rm", "-rf", "."], "src")]),
    ("nsenter -t 1 -w src rm -rf .", [(["src", "rm", "-rf", "."], None)]),
    ("nsenter -t 1 --wd ls", [(["ls"], None)]),
    ("nsenter -t1 -n ls", [(["ls"], "")]),
    ("nsenter -t 1 -m ls", [(["ls"], None)]),
    ("nsenter -a -t 1 ls", [(["ls"], None)]),
    ("nsenter -t 1 -m -wbuild ls", [(["ls"], "build")]),
    ("nsenter -t 1 -rbuild -wbuild ls", [(["ls"], None)]),
    ("nsenter -W /x -t 1 ls", [(["ls"], None)]),
    # systemd-run: a system service runs in `/`, a user service in the user's home
    ("systemd-run rm -rf src", [(["rm", "-rf", "src"], "/")]),
    ("systemd-run --user rm -rf src", [(["rm", "-rf", "src"], None)]),
    ("systemd-run --working-directory=src rm -rf .", [(["rm", "-rf", "."], "src")]),
    ("systemd-run --working-directory src ls", [(["ls"], "src")]),
    ("systemd-run --user --working-directory=src ls", [(["ls"], "src")]),
    ("systemd-run -p WorkingDirectory=-src ls", [(["ls"], "src")]),
    ("systemd-run --property=WorkingDirectory=src ls", [(["ls"], "src")]),
    ("systemd-run -p WorkingDirectory= ls", [(["ls"], None)]),
    ('systemd-run -p "$P" ls', [(["ls"], None)]),
    ("systemd-run -p Nice=5 ls", [(["ls"], "/")]),
    ("systemd-run -d ls", [(["ls"], "")]),
    ("systemd-run --same-dir ls", [(["ls"], "")]),
    ("systemd-run --scope ls", [(["ls"], "")]),
    ("systemd-run -M box ls", [(["ls"], None)]),
    ("systemd-run --host=h ls", [(["ls"], None)]),
]


@pytest.mark.parametrize(("text", "expected"), MOVED)
def test_where_a_runner_that_moves_its_command_runs_it(text, expected):
    assert commands(text) == expected


@pytest.mark.parametrize(
    ("text", "waits"),
    [
        ("systemd-run make", False),
        ("systemd-run --wait make", True),
        ("systemd-run -P make", True),
        ("systemd-run --pipe make", True),
        ("systemd-run -t make", True),
        ("systemd-run --pty make", True),
        ("systemd-run --scope make", True),
    ],
)
def test_a_service_systemd_run_does_not_wait_for_hides_the_status(text, waits):
    (step,) = trace(parse(text)).steps.values()
    assert (step.masks is None) == waits


MOVED_REFUSED = [
    "chroot src rm -rf .",
    "chroot . rm -rf /src",
    'chroot "$R" rm -rf build',
    "unshare --wd=src rm -rf .",
    "unshare -R . rm -rf /src",
    "nsenter --wd=src rm -rf .",
    "nsenter -t 1 -m rm -rf build",
    "systemd-run --working-directory=src rm -rf .",
    "systemd-run --user rm -rf build",
    "systemd-run -d rm -rf src",
    "systemd-run -d git reset --hard",
]


@pytest.mark.parametrize("command", MOVED_REFUSED)
def test_a_discard_where_a_runner_moves_its_command_is_refused(repo, command):
    verdict, kinds = judge(repo, command)
    assert verdict == "block"
    assert "discard" in kinds


MOVED_ALLOWED = [
    "chroot build rm -rf /",
    "chroot /tmp rm -rf src",
    "unshare --wd=build rm -rf .",
    "unshare -R build rm -rf /src",
    "nsenter --wd=build rm -rf .",
    "systemd-run git reset --hard",  # in `/`, no repository
    "systemd-run --working-directory=build rm -rf .",
]


@pytest.mark.parametrize("command", MOVED_ALLOWED)
def test_a_runner_that_moves_its_command_out_of_the_work_is_allowed(repo, command):
    assert judge(repo, command) == ("allow", set())


# -- options read as getopt reads them -------------------------------------------------------

OPTION_READINGS = [
    # sudo: -a TYPE and -c CLASS take a value; -h's host value is only attached
    ("sudo -c default git gc", [(["git", "gc"], "")]),
    ("sudo -a bsdauth git gc", [(["git", "gc"], "")]),
    ("sudo -hbox git gc", [(["git", "gc"], "")]),
    ("sudo -h", [(["sudo", "-h"], "")]),
    # doas -s with no command: the shell reads its commands from stdin
    ("doas -s <<EOF\ngit gc\nEOF", [(["git", "gc"], "")]),
    ("doas -u root -s <<EOF\ngit gc\nEOF", [(["git", "gc"], "")]),
    ("doas -s", [(["doas", "-s"], "")]),
    # flock FILE -c with no code: no command line to read (flock refuses it)
    ("flock /tmp/l -c", [(["-c"], "")]),
    ('flock "$L" -c', [(["-c"], "")]),
]


@pytest.mark.parametrize(("text", "expected"), OPTION_READINGS)
def test_a_wrappers_options_are_read_as_its_getopt_reads_them(text, expected):
    assert commands(text) == expected


@pytest.mark.parametrize(
    "command", ["sudo -c default rm -rf src", "doas -s <<EOF\nrm -rf src\nEOF"]
)
def test_a_discard_behind_a_misread_option_is_refused(repo, command):
    verdict, kinds = judge(repo, command)
    assert verdict == "block"
    assert "discard" in kinds


@pytest.mark.parametrize(
    ("text", "via"),
    [
        ("sudo -i git gc", ("sudo -i",)),
        ("sudo --login git gc", ("sudo -i",)),
        ("sudo -s git gc", ("sudo -s",)),
        ("sudo -i -s git gc", ("sudo -i",)),
        ("sudo -s <<EOF\ngit gc\nEOF", ("sudo -s",)),
        ("su -c 'git gc'", ("su -c",)),
        ("runuser -l app -c 'git gc'", ("runuser -c",)),
        ("runuser -u app git gc", ("runuser",)),
        ("su <<EOF\ngit gc\nEOF", ("sh <<",)),
        ("doas -s <<EOF\ngit gc\nEOF", ("doas -s",)),
    ],
)
def test_what_hands_a_command_to_another_users_shell_is_named(text, via):
    (inv,) = trace(parse(text)).invocations
    assert inv.via == via


@pytest.mark.parametrize(
    ("text", "cwd"),
    [('su -c ls "$U"', ""), ('su "$U"', ""), ('su - "$U"', None), ('runuser -c ls "$U"', "")],
)
def test_a_user_that_may_be_an_option_makes_su_run_unknown_code(text, cwd):
    (inv,) = trace(parse(text)).invocations
    assert inv.literals() == [None]
    assert inv.degraded
    assert (inv.cwd, inv.via) == (cwd, (text.split()[0] + " -c",))


def test_runuser_without_u_runs_no_user_as_a_command():
    assert commands("runuser app") == [(["runuser", "app"], "")]
    assert commands("runuser app x.sh") == [(["runuser", "app", "x.sh"], "")]


@pytest.mark.parametrize(
    ("text", "via"),
    [
        # after `--`, an option-like word is the shell's, not su's
        ("su root -- -x -c 'git gc'", ("sh -c",)),
        # `--` as an option's value ends nothing
        ("su -w PATH -s -- root -c 'git gc'", ("su -c",)),
    ],
)
def test_su_reads_its_options_up_to_a_double_dash_that_is_no_value(text, via):
    (inv,) = trace(parse(text)).invocations
    assert (inv.literals(), inv.via) == (["git", "gc"], via)
