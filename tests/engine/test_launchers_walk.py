"""interlock.engine.launchers, walked: what each launcher hands over (the commands, how,
and whether their exit status comes back), for the cases the rules alone cannot tell apart."""

from __future__ import annotations

import base64

import pytest

from interlock.engine.unwrap import Unwrap
from interlock.engine.walk import trace
from interlock.engine.wrappers import unwrap
from interlock.shell.parse import parse


def commands(text: str) -> list[tuple[list[str | None], tuple[str, ...]]]:
    """Each command the line runs: its words and what it was handed over by."""
    return [(inv.literals(), inv.via) for inv in trace(parse(text)).invocations if inv.argv]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("fish --command 'git gc'", [(["git", "gc"], ("fish -c",))]),
        ("fish -C 'git gc'", [(["git", "gc"], ("fish -c",))]),
        (
            "fish --init-command 'git gc' -c 'git fsck'",
            [(["git", "gc"], ("fish -c",)), (["git", "fsck"], ("fish -c",))],
        ),
        ("nu --commands 'git gc'", [(["git", "gc"], ("nu -c",))]),
        ("elvish -c 'git gc'", [(["git", "gc"], ("elvish -c",))]),
        ("tcsh -fc 'git gc'", [(["git", "gc"], ("tcsh -c",))]),
        ("fish --command=git\\ gc", [(["git", "gc"], ("fish -c",))]),
        # no code: the shell runs a file, or nothing
        ("fish --command", [(["fish", "--command"], ())]),
        ("fish -c", [(["fish", "-c"], ())]),
        ("tcsh calc x", [(["tcsh", "calc", "x"], ())]),
        ("tcsh -x", [(["tcsh", "-x"], ())]),
        ("fish --private x", [(["fish", "--private", "x"], ())]),
        ("fish --rc x", [(["fish", "--rc", "x"], ())]),
        ("csh -c x -c", [(["x"], ("csh -c",))]),
    ],
)
def test_what_a_shell_that_is_not_sh_runs(text, expected):
    assert commands(text) == expected


def test_a_shell_that_is_not_sh_reads_stdin_only_without_a_script_operand():
    assert commands("fish <<EOF\ngit gc\nEOF") == [(["git", "gc"], ("fish <<",))]
    assert commands("fish -i <<EOF\ngit gc\nEOF") == [(["git", "gc"], ("fish <<",))]
    assert commands("fish x.fish <<EOF\ngit gc\nEOF") == [(["fish", "x.fish"], ())]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("pwsh /command 'git gc'", [(["git", "gc"], ("pwsh -Command",))]),
        ("pwsh /c 'git gc'", [(["git", "gc"], ("pwsh -Command",))]),
        ("pwsh -com 'git gc'", [(["git", "gc"], ("pwsh -Command",))]),
        ("pwsh -comm 'git gc'", [(["git", "gc"], ("pwsh -Command",))]),
        ("powershell -NoLogo -Command git gc", [(["git", "gc"], ("pwsh -Command",))]),
        # `-Command -`: the script comes from stdin, which is not read here
        ("pwsh -Command - <<EOF\ngit gc\nEOF", [(["pwsh", "-Command", "-"], ())]),
        ("pwsh -Command", [(["pwsh", "-Command"], ())]),
        ("pwsh -c git gc -", [(["git", "gc", "-"], ("pwsh -Command",))]),
        ("pwsh -File x.ps1", [(["pwsh", "-File", "x.ps1"], ())]),
    ],
)
def test_what_powershell_runs(text, expected):
    assert commands(text) == expected


def _encoded(script: str) -> str:
    return base64.b64encode(script.encode("utf-16-le")).decode()


GIT_GC = _encoded("git gc")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"pwsh -e {GIT_GC}", [(["git", "gc"], ("pwsh -Command",))]),
        (f"pwsh -enc {GIT_GC}", [(["git", "gc"], ("pwsh -Command",))]),
        (f"pwsh -EncodedCommand {GIT_GC}", [(["git", "gc"], ("pwsh -Command",))]),
        # not base64 (a stray character), or not UTF-16 (an odd number of bytes): unknown code
        (f"pwsh -ec {GIT_GC[:4]}!{GIT_GC[4:]}", [([None], ("pwsh -Command",))]),
        ("pwsh -ec YWJj", [([None], ("pwsh -Command",))]),
        ('pwsh -ec "$X"', [([None], ("pwsh -Command",))]),
        ("pwsh -ec", [(["pwsh", "-ec"], ())]),
        # after -File, the words are the script's arguments
        ("pwsh -f x.ps1 -c 'git gc'", [(["pwsh", "-f", "x.ps1", "-c", "git gc"], ())]),
        ("pwsh -File x.ps1 -ec x", [(["pwsh", "-File", "x.ps1", "-ec", "x"], ())]),
        ("pwsh -NoProfile", [(["pwsh", "-NoProfile"], ())]),
    ],
)
def test_what_powershell_decodes(text, expected):
    assert commands(text) == expected


def test_an_undecodable_powershell_script_is_unknown_code():
    (inv,) = trace(parse("pwsh -ec YWJj")).invocations
    assert inv.degraded
    unknown = [("$TYPED_KEYS", "pwsh -Command", True)]
    assert handed("pwsh -ec YWJj") == ("script", "pwsh -Command", unknown, False)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("cmd /k git gc", [(["git", "gc"], ("cmd /c",))]),
        ("cmd /r git gc", [(["git", "gc"], ("cmd /c",))]),
        ("cmd /C git gc", [(["git", "gc"], ("cmd /c",))]),
        ("cmd /q /c git gc", [(["git", "gc"], ("cmd /c",))]),
        ("cmd /c rm 'a b'", [(["rm", "a b"], ("cmd /c",))]),
        ('cmd /c git "$X"', [(["git", None], ("cmd /c",))]),
        ("cmd /c", [(["cmd", "/c"], ())]),
        ("cmd /c ver", [(["ver"], ("cmd /c",))]),
        ("cmd", [(["cmd"], ())]),
        ("cmd /q", [(["cmd", "/q"], ())]),
    ],
)
def test_what_cmd_runs(text, expected):
    assert commands(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("busybox ls", [(["ls"], ("busybox",))]),
        ("toybox ls -l", [(["ls", "-l"], ("toybox",))]),
        ("/bin/busybox rm x", [(["rm", "x"], ("busybox",))]),
        ("busybox", [(["busybox"], ())]),
        ("busybox --help", [(["busybox", "--help"], ())]),
        ("busybox --list rm", [(["busybox", "--list", "rm"], ())]),
    ],
)
def test_what_busybox_runs(text, expected):
    assert commands(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("wsl git gc", [(["git", "gc"], ("wsl",))]),
        ("wsl -e git gc", [(["git", "gc"], ("wsl",))]),
        ("wsl --exec git gc", [(["git", "gc"], ("wsl",))]),
        # -e hands its command over whatever else is given: judged, never skipped
        ("wsl --status -e git gc", [(["git", "gc"], ("wsl",))]),
        ("wsl --cd /tmp git gc", [(["git", "gc"], ("wsl",))]),
        ("wsl -d Ubuntu -u root git gc", [(["git", "gc"], ("wsl",))]),
        ("wsl --distribution Ubuntu --shell-type login git gc", [(["git", "gc"], ("wsl",))]),
        # management options: what follows is their operand, not a command
        ("wsl -s Ubuntu", [(["wsl", "-s", "Ubuntu"], ())]),
        ("wsl --install Ubuntu", [(["wsl", "--install", "Ubuntu"], ())]),
        ("wsl --update now", [(["wsl", "--update", "now"], ())]),
        ("wsl -l all", [(["wsl", "-l", "all"], ())]),
        ("wsl --list all", [(["wsl", "--list", "all"], ())]),
        ("wsl --status x", [(["wsl", "--status", "x"], ())]),
        ("wsl --shutdown x", [(["wsl", "--shutdown", "x"], ())]),
        ("wsl -d", [(["wsl", "-d"], ())]),
        ("wsl", [(["wsl"], ())]),
    ],
)
def test_what_wsl_runs(text, expected):
    assert commands(text) == expected


def unwrapped(text: str, stdin: str | None = None) -> Unwrap | None:
    """What the one simple command of text hands over to (wrappers.unwrap)."""
    node = parse(text).root
    return unwrap(node.words, stdin)  # type: ignore[union-attr]


def handed(text: str, stdin: str | None = None) -> tuple[object, ...] | None:
    """(kind, via, the words or scripts handed over, whether the exit status is hidden)."""
    found = unwrapped(text, stdin)
    if found is None:
        return None
    if found.kind == "exec":
        return ("exec", found.via, [w.literal() for w in found.rest], found.masks is not None)
    scripts = [(s.text, s.via, s.degraded) for s in found.scripts]
    return (found.kind, found.via, scripts, found.masks is not None)


def _script_c(text: str, hidden: bool, degraded: bool = False) -> tuple[object, ...]:
    return ("script", "script -c", [(text, "script -c", degraded)], hidden)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # util-linux: the status is hidden unless -e/--return
        ("script -qc 'git gc' /dev/null", _script_c("git gc", hidden=True)),
        ("script -c 'git gc' /dev/null", _script_c("git gc", hidden=True)),
        ("script -c 'git gc'", _script_c("git gc", hidden=True)),
        ("script -qec 'git gc' /dev/null", _script_c("git gc", hidden=False)),
        ("script -ec 'git gc' /dev/null", _script_c("git gc", hidden=False)),
        ("script -e -c 'git gc' /dev/null", _script_c("git gc", hidden=False)),
        ("script -qe -c 'git gc' /dev/null", _script_c("git gc", hidden=False)),
        ("script --return -c 'git gc' /dev/null", _script_c("git gc", hidden=False)),
        ("script -c 'git gc' --return /dev/null", _script_c("git gc", hidden=False)),
        ("script --return --command 'git gc'", _script_c("git gc", hidden=False)),
        ("script --command 'git gc' out.log", _script_c("git gc", hidden=True)),
        ("script --command='git gc' -e", _script_c("git gc", hidden=False)),
        ("script --command='git gc' out.log", _script_c("git gc", hidden=True)),
        ("script --command='git -c a=b gc'", _script_c("git -c a=b gc", hidden=True)),
        ("script -T t -c 'git gc'", _script_c("git gc", hidden=True)),
        ("script -E never -c 'git gc'", _script_c("git gc", hidden=True)),
        ("script -O out -c 'git gc'", _script_c("git gc", hidden=True)),
        ('script -c "$C" /dev/null', _script_c("$C", hidden=True, degraded=True)),
        # as getopt reads them: values attached, clusters, abbreviations, -t's optional value
        ("script -cgit\\ gc", _script_c("git gc", hidden=True)),
        ("script -qc'git gc' /dev/null", _script_c("git gc", hidden=True)),
        ("script -qecgit\\ gc", _script_c("git gc", hidden=False)),
        ("script -Ee -c 'git gc'", _script_c("git gc", hidden=True)),
        ("script --re -c 'git gc'", _script_c("git gc", hidden=False)),
        ("script --comm='git gc'", _script_c("git gc", hidden=True)),
        ("script --log-out x /dev/null -c 'git gc'", _script_c("git gc", hidden=True)),
        ("script --log-out=x -c 'git gc' /dev/null", _script_c("git gc", hidden=True)),
        ("script --timing -c 'git gc'", _script_c("git gc", hidden=True)),
        ("script -t -c 'git gc'", _script_c("git gc", hidden=True)),
        ("script -t0 -c 'git gc'", _script_c("git gc", hidden=True)),
        # BSD's -t TIME, known at run time
        ('script -t "$T" log git gc', ("exec", "script", ["git", "gc"], False)),
        ("script -c 'git fsck' -c 'git gc'", _script_c("git gc", hidden=True)),
        ("script -T -c 'git gc'", None),  # -T's value is -c; 'git gc' names the log
        # BSD and macOS: `script [options] FILE COMMAND...`, the status passed on
        ("script -q /dev/null git gc", ("exec", "script", ["git", "gc"], False)),
        ("script /dev/null git gc", ("exec", "script", ["git", "gc"], False)),
        ("script -a log git gc", ("exec", "script", ["git", "gc"], False)),
        ("script -k -q -r log git gc", ("exec", "script", ["git", "gc"], False)),
        # the command's own options are not script's
        (
            "script /dev/null git -c gc.auto=0 -e gc",
            ("exec", "script", ["git", "-c", "gc.auto=0", "-e", "gc"], False),
        ),
        *[
            (f"script {option} value /dev/null git gc", ("exec", "script", ["git", "gc"], False))
            for option in ("-t", "-T", "-I", "-O", "-B", "-E", "-m", "-o", "-F")
        ],
        ("script - git gc", ("exec", "script", ["git", "gc"], False)),
        ('script "$F" git gc', ("exec", "script", ["git", "gc"], False)),
        ('script out.log "$C"', ("exec", "script", [None], False)),
        # no command: script runs a shell
        ("script /dev/null", None),
        ("script -q out.log", None),
        ("script", None),
        ("script -c", None),
        ("script -qc", None),
        ("script -qe", None),
        ("script -e", None),
    ],
)
def test_what_script_runs_and_whether_its_status_comes_back(text, expected):
    assert handed(text) == expected


def _expect(*texts: str, hidden: bool = True) -> tuple[object, ...]:
    return ("script", "expect", [(t, "expect", False) for t in texts], hidden)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("expect -c 'spawn git gc'", _expect("git gc")),
        ("expect -d -c 'spawn git gc'", _expect("git gc")),
        ("expect -c 'spawn git gc; exit [lindex [wait] 3]'", _expect("git gc", hidden=False)),
        (
            "expect -c 'spawn git gc\nexpect eof\nexit [ lindex [ wait ] 3 ]'",
            _expect("git gc", hidden=False),
        ),
        ("expect -c 'exec -ignore HUP git gc'", _expect("git gc")),
        ("expect -c 'spawn -open f git gc'", _expect("git gc")),
        ("expect -c 'spawn -leaveopen f git gc'", _expect("git gc")),
        ("expect -c 'spawn -noecho -- git gc'", _expect("git gc")),
        ("expect -c 'spawn -noecho -console git gc'", _expect("git gc")),
        ("expect -c 'system git gc -q'", _expect("git gc -q")),
        ("expect -c 'spawn {git} gc [x]'", _expect("git gc x")),
        ("expect -c 'spawn git \"gc'", _expect("git '\"gc'")),
        (
            "expect -c 'spawn git gc\n\n  # exec git fsck\nexec git prune'",
            _expect("git gc", "git prune"),
        ),
        # what send types into a spawned shell runs there; typed into anything else, not
        (
            'expect -c \'spawn /bin/bash; send "git gc\\r"; send "git fsck\\n"\'',
            _expect("/bin/bash", "git gc\ngit fsck\n"),
        ),
        ("expect -c 'spawn zsh; send \"git gc\\r\"'", _expect("zsh", "git gc\n")),
        (
            "expect -c 'spawn bash -i; send \"git gc\\r\"; expect eof'",
            _expect("bash -i", "git gc\n"),
        ),
        ("expect -c 'spawn ksh93; send \"git gc\\r\"'", _expect("ksh93", "git gc\n")),
        ("expect -c 'spawn -- -x'", _expect("-x")),
        ("expect -c 'spawn sh; send -- \"git gc\\r\"'", _expect("sh", "git gc\n")),
        ("expect -c 'spawn sh; exec bash; send \"git gc\\r\"'", _expect("sh", "bash", "git gc\n")),
        ("expect -c 'spawn python; send \"git gc\\r\"'", _expect("python")),
        ("expect -c 'spawn bash; send'", _expect("bash")),
        ('expect -c "$X"', ("script", "expect", [("$TYPED_KEYS", "expect", True)], False)),
        ("expect -c 'send \"git gc\\r\"'", None),
        ("expect -c 'puts hi'", None),
        ("expect -c 'spawn'", None),
        ("expect -c 'spawn -ignore HUP --'", None),
        ("expect -c 'spawn -noecho'", None),
        ("expect -c 'system'", None),
        ("expect -c", None),
        ("expect -f x.exp", None),
        ("expect", None),
    ],
)
def test_what_expect_runs_and_whether_its_status_comes_back(text, expected):
    assert handed(text) == expected


def test_expect_reads_its_script_from_stdin_only_without_arguments():
    assert handed("expect", "spawn git gc\n") == _expect("git gc")
    assert handed("expect", "puts hi\n") is None
    assert handed("expect -f x.exp", "spawn git gc\n") is None
    assert handed("expect -d", "spawn git gc\n") is None


def _tmux(*scripts: tuple[str, ...] | str, degraded: bool = False) -> tuple[object, ...]:
    """A tmux hand-over: each script its text (via tmux), or (text, via) or (text, via, degraded)."""
    found = [(s, "tmux", degraded) if isinstance(s, str) else (*s, degraded)[:3] for s in scripts]
    return ("script", "tmux", found, True)


def _keys(text: str) -> tuple[str, str]:
    return (text, "tmux send-keys")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # send-keys: what a shell reads from the keys typed
        ("tmux send-keys -t w 'git gc' Enter", _tmux(_keys("git gc\n"))),
        ("tmux send-keys -l 'git gc' Enter", _tmux(_keys("git gcEnter"))),
        ("tmux send -t w git Space gc C-m", _tmux(_keys("git gc\n"))),
        ("tmux send git Tab gc KPEnter C-j", _tmux(_keys("git\tgc\n\n"))),
        (
            "tmux send C-c 'git gc' Escape Up Down Left Right BSpace M-x S-a Enter",
            _tmux(_keys("git gc\n")),
        ),
        ("tmux send -N 2 'git gc' Enter", _tmux(_keys("git gc\n"))),
        ('tmux send "$X" Enter', _tmux(_keys("$TYPED_KEYS"), degraded=True)),
        ("tmux send -X cancel", None),
        ("tmux send -t", None),
        # if-shell: the test is a shell command (not with -F), the branches tmux commands
        ("tmux if-shell true 'run-shell \"git gc\"'", _tmux("true", "git gc")),
        ("tmux if -F '#{x}' 'run \"git gc\"' 'run \"git fsck\"'", _tmux("git gc", "git fsck")),
        ("tmux if -t w 'test -f x' 'run \"git gc\"'", _tmux("test -f x", "git gc")),
        ("tmux if -t w", None),
        ('tmux if true "$X"', _tmux("true", ("$RUNTIME_CODE", "tmux", True))),
        ("tmux if true 'run \"git gc'", _tmux("true", ("$RUNTIME_CODE", "tmux", True))),
        ("tmux if", None),
        # commands that run a shell command
        ("tmux run -b -d 1 git gc", _tmux("git gc")),
        ("tmux run -t w 'git gc'", _tmux("git gc")),
        ("tmux run-shell -C 'git gc'", None),
        ("tmux pipe-pane -o 'cat >> log'", _tmux("cat >> log")),
        ("tmux pipep -t w cat log", _tmux("cat log")),
        ("tmux new -d git gc", _tmux("git gc")),
        ("tmux new -d git 'a b'", _tmux("git 'a b'")),
        ('tmux new -d git "$X"', _tmux("git $X", degraded=True)),
        ("tmux new-session 'git gc'", _tmux("git gc")),
        ("tmux neww -n x 'git gc'", _tmux("git gc")),
        ("tmux new-window -c /tmp 'git gc'", _tmux("git gc")),
        ("tmux splitw -l 5 'git gc'", _tmux("git gc")),
        ("tmux split-window -e A=1 'git gc'", _tmux("git gc")),
        ("tmux respawnp -k 'git gc'", _tmux("git gc")),
        ("tmux respawn-pane -t w 'git gc'", _tmux("git gc")),
        ("tmux respawnw -k 'git gc'", _tmux("git gc")),
        ("tmux respawn-window -t w 'git gc'", _tmux("git gc")),
        ("tmux popup -E 'git gc'", _tmux("git gc")),
        ("tmux display-popup -w 80 'git gc'", _tmux("git gc")),
        ("tmux -L sock new 'git gc'", _tmux("git gc")),
        ("tmux -c 'git gc'", _tmux("git gc")),
        ("tmux -f conf -c 'git gc' new 'git fsck'", _tmux("git gc", "git fsck")),
        # several commands, separated by `;`
        (
            "tmux new -d \\; neww 'git gc' \\; send 'git fsck' Enter",
            _tmux("git gc", _keys("git fsck\n")),
        ),
        ("tmux new -d ';' neww 'git gc'", _tmux("git gc")),
        ("tmux neww 'git gc' \\;", _tmux("git gc")),
        # nothing to run
        ("tmux new-window", None),
        ("tmux new -s", None),
        ("tmux -S", None),
        ("tmux ls", None),
        ("tmux kill-server", None),
        ("tmux", None),
    ],
)
def test_what_tmux_runs(text, expected):
    assert handed(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("screen -dmS w git gc", ("exec", "screen", ["git", "gc"], True)),
        ("screen git gc", ("exec", "screen", ["git", "gc"], True)),
        (
            "screen -X stuff 'git gc^M'",
            ("script", "screen stuff", [("git gc\n", "screen stuff", False)], True),
        ),
        (
            "screen -X stuff 'git gc\\r'",
            ("script", "screen stuff", [("git gc\n", "screen stuff", False)], True),
        ),
        (
            "screen -Xstuff 'git gc^M'",
            ("script", "screen stuff", [("git gc\n", "screen stuff", False)], True),
        ),
        (
            'screen -S w -X stuff "$X"',
            ("script", "screen stuff", [("$TYPED_KEYS", "screen stuff", True)], True),
        ),
        ("screen -X exec git gc", ("exec", "screen", ["git", "gc"], True)),
        ("screen -X screen git gc", ("exec", "screen", ["git", "gc"], True)),
        ("screen -X quit", None),
        ("screen -X stuff", None),
        ("screen -X exec", None),
        ("screen -X", None),
        ("screen -r w", None),
        ("screen -R w", None),
        ("screen -x w", None),
        ("screen -D w", None),
        ("screen -v x", None),
        ("screen -ls", None),
        ("screen -S", None),
        ("screen", None),
    ],
)
def test_what_screen_runs(text, expected):
    assert handed(text) == expected


def _ssh(*texts: str, degraded: bool = False) -> tuple[object, ...]:
    return ("script", "ssh", [(t, "ssh", degraded) for t in texts], False)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # options whose value is a command run on this machine
        ("ssh -o 'ProxyCommand git gc' host", _ssh("git gc")),
        ("ssh -o ' ProxyCommand = git gc' host", _ssh("git gc")),
        ("ssh -o ProxyCommand=git\\ gc host", _ssh("git gc")),
        ("ssh -o 'LocalCommand=git gc' host", _ssh("git gc")),
        ("ssh -o 'KnownHostsCommand git gc' host", _ssh("git gc")),
        ("ssh -o 'User=git' host", None),
        ("ssh -o 'User=git' host 'git gc'", _ssh("git gc")),
        # the remote command: literal code is judged; code known at run time only here
        ("ssh localhost 'git gc'", _ssh("git gc")),
        ("ssh -p 22 host git gc", _ssh("git gc")),
        ('ssh host "$C"', None),
        ('ssh "$H" "$C"', None),
        ('ssh 10.127.0.1 "$C"', None),
        ('ssh localhost "$C"', _ssh("$C", degraded=True)),
        ('ssh me@LOCALHOST "$C"', _ssh("$C", degraded=True)),
        ('ssh localhost:22 "$C"', _ssh("$C", degraded=True)),
        ('ssh 0.0.0.0 "$C"', _ssh("$C", degraded=True)),
        ('ssh ip6-localhost "$C"', _ssh("$C", degraded=True)),
        ('ssh 127.0.0.2 "$C"', _ssh("$C", degraded=True)),
        ('ssh ::1 "$C"', _ssh("$C", degraded=True)),
        ('ssh ssh://localhost "$C"', _ssh("$C", degraded=True)),
        ('ssh ssh://me@localhost:2222 "$C"', _ssh("$C", degraded=True)),
        ('ssh ssh://[::1]:22 "$C"', _ssh("$C", degraded=True)),
        ('ssh ssh://[fe80::1]:22 "$C"', None),
        ('ssh ssh://example.com:22 "$C"', None),
        ("autossh -M 0 localhost 'git gc'", _ssh("git gc")),
        ("autossh -M0 -f host git gc", _ssh("git gc")),
        ('ssh -M localhost "$C"', _ssh("$C", degraded=True)),
        ("ssh host", None),
        ("ssh -p", None),
        ("ssh", None),
    ],
)
def test_what_ssh_runs(text, expected):
    assert handed(text) == expected


@pytest.mark.parametrize(
    ("text", "stdin", "expected"),
    [
        ("ssh host", "git gc\n", _ssh("git gc\n")),
        ("ssh host bash", "git gc\n", _ssh("git gc\n")),
        ("ssh host sh -s", "git gc\n", _ssh("git gc\n")),
        ("ssh host cat", "git gc\n", _ssh("cat")),
        ("ssh", "git gc\n", None),
        ("at now", "git gc\n", ("script", "at", [("git gc\n", "at", False)], True)),
        ("at -m -q b now", "git gc\n", ("script", "at", [("git gc\n", "at", False)], True)),
        ("batch", "git gc\n", ("script", "at", [("git gc\n", "at", False)], True)),
        ("at now", None, None),
        ("at -f job now", "git gc\n", None),
        ("at -l", "git gc\n", None),
        ("at -r 1", "git gc\n", None),
        ("at -d 1", "git gc\n", None),
        ("at -c 1", "git gc\n", None),
    ],
)
def test_what_a_launcher_fed_a_script_on_stdin_runs(text, stdin, expected):
    assert handed(text, stdin) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "nix-shell --run 'git gc'",
            ("script", "nix-shell --run", [("git gc", "nix-shell --run", False)], False),
        ),
        (
            "nix-shell --command 'git gc'",
            ("script", "nix-shell --run", [("git gc", "nix-shell --run", False)], False),
        ),
        (
            "nix-shell --run='git gc'",
            ("script", "nix-shell --run", [("git gc", "nix-shell --run", False)], False),
        ),
        (
            "nix-shell --command='git gc'",
            ("script", "nix-shell --run", [("git gc", "nix-shell --run", False)], False),
        ),
        (
            'nix-shell --run "$C"',
            ("script", "nix-shell --run", [("$C", "nix-shell --run", True)], False),
        ),
        ("nix-shell --run", None),
        ("nix-shell -p git", None),
        ("nix develop -c git gc", ("exec", "nix develop", ["git", "gc"], False)),
        ("nix develop --command git gc", ("exec", "nix develop", ["git", "gc"], False)),
        ("nix shell nixpkgs#git --command git gc", ("exec", "nix shell", ["git", "gc"], False)),
        ("nix shell nixpkgs#git -- git gc", ("exec", "nix shell", ["git", "gc"], False)),
        ("nix run -c git gc", ("exec", "nix run", ["git", "gc"], False)),
        ("nix develop -- git gc", None),
        ("nix run nixpkgs#hello", None),
        ("nix develop -c", None),
        ("nix shell -c", None),
        ("nix build -c git gc", None),
        ("nix", None),
    ],
)
def test_what_nix_runs(text, expected):
    assert handed(text) == expected


def test_a_shell_reads_stdin_only_when_every_word_is_an_option():
    assert handed("fish -i", "git gc") == (
        "script",
        "fish <<",
        [("git gc", "fish <<", False)],
        False,
    )
    assert handed("tcsh", "git gc") == ("script", "tcsh <<", [("git gc", "tcsh <<", False)], False)
    assert handed('fish "$F"', "git gc") is None
    assert handed("fish x.fish", "git gc") is None
    assert handed("fish -i") is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # run-shell and pipe-pane run their words as one shell command (joined, as eval does)
        ("tmux run-shell echo 'a b'", "echo a b"),
        ("tmux run echo 'a b'", "echo a b"),
        ("tmux pipe-pane cat 'a b'", "cat a b"),
        ("tmux pipep cat 'a b'", "cat a b"),
        # the others run a program and its arguments: each word stays one argument
        ("tmux new echo 'a b'", "echo 'a b'"),
        ("tmux neww echo 'a b'", "echo 'a b'"),
    ],
)
def test_how_tmux_hands_over_several_words(text, expected):
    assert handed(text) == _tmux(expected)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "screen -X stuff 'git gc^M' x",
            ("script", "screen stuff", [("git gc\n", "screen stuff", False)], True),
        ),
        ("screen -X quit now", None),
        ('screen -X "$A" git gc', ("script", "screen", [("$RUNTIME_CODE", "screen", True)], True)),
        ('ssh -o "$O" host', None),
        ("ssh -p 22 -o User=x host", None),
        ("ssh host bash", ("script", "ssh", [("bash", "ssh", False)], False)),
    ],
)
def test_what_screen_and_ssh_options_run(text, expected):
    assert handed(text) == expected


def test_nix_shell_run_keeps_the_equals_signs_of_its_code():
    found = handed("nix-shell --run='git -c a=b gc'")
    assert found == (
        "script",
        "nix-shell --run",
        [("git -c a=b gc", "nix-shell --run", False)],
        False,
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("script -ec 'git gc'", _script_c("git gc", hidden=False)),
        ("script -ec", None),
        # the code is never read again as an option
        ("script -ec --command=x", _script_c("--command=x", hidden=False)),
        ("script -c -e", _script_c("-e", hidden=True)),
        ("script -qc -e /dev/null", _script_c("-e", hidden=True)),
    ],
)
def test_script_reads_the_code_after_c_once(text, expected):
    assert handed(text) == expected


def test_tmux_if_shell_reads_its_test_as_shell_code_and_its_branches_as_tmux_commands():
    assert handed("tmux if 'run \"git fsck\"' 'run \"git gc\"'") == _tmux(
        'run "git fsck"', "git gc"
    )
    assert handed("tmux run -C 'git gc'") is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("script --quiet -c 'git gc'", _script_c("git gc", hidden=True)),
        ("script --log-out x log git gc", ("exec", "script", ["git", "gc"], False)),
        # -c without its value at the end: script stops at the error and runs nothing
        ("script -c 'git gc' -c", None),
    ],
)
def test_script_reads_a_long_option_as_one(text, expected):
    assert handed(text) == expected
