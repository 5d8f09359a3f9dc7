"""Which commands would signal interlock's daemon, read as pkill, killall, kill and the pid
finders read their arguments (engine.rules.daemonkill), through the real parser and walker."""

from __future__ import annotations

import pytest

from interlock.engine.check import evaluate
from interlock.engine.invocation import Invocation
from interlock.engine.rules import daemonkill
from interlock.engine.walk import walk
from interlock.shell.parse import parse


def invocations(command: str) -> list[Invocation]:
    return list(walk(parse(command)))


def reaches(command: str) -> bool:
    return any(daemonkill.reaches_daemon(i) for i in invocations(command))


def killed(command: str) -> Invocation:
    (inv,) = [i for i in invocations(command) if i.name == "kill"]
    return inv


PS = "ps aux | "
AWK = " | awk '{print $2}'"


@pytest.mark.parametrize(
    "command",
    [
        # pkill: the name, or with -f the command line, searched as a regular expression
        "pkill python",
        "pkill -9 python3",
        "pkill -f 'daemon run'",
        "pkill -f 'interlock daemon'",
        "pkill --full 'm interlock'",
        "pkill -i PYTHON",
        "pkill --ignore-case PyThOn",
        "pkill -x python3",
        "pkill -x -f '/usr/bin/python3 -m interlock daemon run --cwd /home/user/project'",
        "pkill -v -f pytest",
        "pkill --inverse node",
        "pkill 'pyth(on'",
        "pkill -f '['",
        "pkill $NAME",
        'pkill node "$X"',
        "pkill node python",
        "pkill -u dev",
        "pkill -U 1000",
        "pkill --euid dev",
        "pkill --uid 1000",
        "pkill -g 1234",
        "pkill -G staff",
        "pkill -s 0",
        "pkill --session 42",
        "skill python",
        "slay -f interlock",
        # killall: the name exactly, a path's last part, or -r a regular expression
        "killall python3",
        "killall interlock",
        "killall /usr/bin/python3",
        "killall -r 'py.*'",
        "killall --regexp '^inter'",
        "killall -r pyth",
        "killall -I PYTHON3",
        "killall --ignore-case Interlock",
        "killall -u dev",
        "killall --user dev",
        'killall "$P"',
        'killall node "$P"',
        "killall node python",
        "killall5",
        "killall5 -9",
        # kill: every process, or pids a command finds
        "kill -9 -1",
        "kill -- -1",
        "kill -TERM -- -1",
        "kill -s KILL -1",
        "kill -n 9 -1",
        "kill -9 -- -1",
        "kill -s 9 -- -1",
        "kill $(pgrep python) 1234",
        "kill $(pgrep node)$(pgrep python)",
        "kill $(pgrep python | head -1)",
        "kill $(< .git/interlock/daemon.pid)",
        "kill $(cat .git/interlock/daemon.pid | head -1)",
        "kill $(cat /tmp/interlock.pid)",
        "kill $(cat daemon.pid)",
        "kill $(pidof /opt/bin/python3)",
        "kill $(pidof node python3)",
        f'kill $({PS}grep -v "$P"{AWK})',
        "kill --signal KILL -1",
        "kill 123 -1",
        "kill $(cat .git/interlock/daemon.pid)",
        "kill -9 $(pgrep -f interlock)",
        "kill -s TERM $(pgrep python)",
        "kill -- $(pgrep python)",
        "kill $(pidof python3)",
        "kill $(pidof -s /usr/bin/python3)",
        'kill $(pidof "$P")',
        "kill $(pgrep -f node | grep -v 1 ; pgrep python)",
        "kill $(pgrep node; pgrep python)",
        "kill $(pgrep node || pgrep python)",
        "kill $( (pgrep node; pgrep python) )",
        "kill $({ pgrep python; })",
        "kill $(if true; then pgrep node; fi)",
        "kill $(for n in a b; do pgrep $n; done)",
        f"kill $({PS}grep interlock{AWK})",
        f"kill $({PS}grep 'node\\|python'{AWK})",
        f"kill $({PS}grep 'interlock\\ daemon'{AWK})",
        f"kill $({PS}grep 'interlock\\|zzz'{AWK})",
        f"kill $({PS}grep 'inter\\(lock\\)'{AWK})",
        f"kill $({PS}grep 'node\\|'{AWK})",
        f"kill $({PS}grep 'daemon.run'{AWK})",
        f"kill $({PS}grep 'interlock\\'{AWK})",
        f"kill $({PS}egrep 'node|python'{AWK})",
        f"kill $({PS}grep -E 'node|python'{AWK})",
        f"kill $({PS}grep -P 'inter(lock)'{AWK})",
        f"kill $({PS}grep --extended-regexp 'inter(lock)'{AWK})",
        f"kill $({PS}rg 'node|python'{AWK})",
        f"kill $({PS}fgrep 'interlock daemon'{AWK})",
        f"kill $({PS}grep -F 'python -m'{AWK})",
        f"kill $({PS}grep -iF 'PYTHON -M'{AWK})",
        f"kill $({PS}grep -i PYTHON{AWK})",
        f"kill $({PS}grep --ignore-case PYTHON{AWK})",
        f"kill $({PS}rg -S PYTHON{AWK})",
        f"kill $({PS}grep -v node{AWK})",
        f"kill $({PS}grep --invert-match node{AWK})",
        f"kill $({PS}grep -v grep | grep python{AWK})",
        f"kill $({PS}grep -m 1 python{AWK})",
        f"kill $({PS}grep -A 1 python{AWK})",
        f"kill $({PS}grep --color=never interlock{AWK})",
        f"kill $({PS}grep -e node -e python{AWK})",
        f"kill $({PS}grep --regexp=python{AWK})",
        f"kill $({PS}grep -f patterns.txt{AWK})",
        f"kill $({PS}grep --file=patterns.txt{AWK})",
        f'kill $({PS}grep "$P"{AWK})',
        f'kill $({PS}grep -e "$P"{AWK})',
        f"kill $({PS}rg -E utf8 python{AWK})",
    ],
)
def test_what_signals_the_daemon_is_found(command: str) -> None:
    assert reaches(command), command


@pytest.mark.parametrize(
    "command",
    [
        "pkill node",
        "pkill PYTHON",
        "pkill -f pytest",
        "pkill -f 'python app.py'",
        "pkill -f 'node.*server'",
        "pkill 'daemon run'",
        "pkill -x pyth",
        "pkill -x -f 'python -m interlock'",
        "pkill -v python",
        "pkill -v -f interlock",
        "pkill -t pts/3",
        "pkill",
        "/opt/interlock/bin/pkill node",
        "killall node",
        "killall pytho",
        "killall 'py.*'",
        "killall -r '^node'",
        "killall PYTHON3",
        "killall --signal KILL",
        "killall /usr/bin/node",
        "killall python3/x",
        "kill %1",
        "kill 1234",
        "kill -1 1234",
        "kill -9 1234",
        "kill -s 1 1234",
        "kill -n -1 1234",
        "kill --signal -1 1234",
        "kill -- 1234",
        "kill -s -1 1234",
        "kill -1 -- 1234",
        "kill $(pgrep 'daemon run')",
        f"kill $({PS}grep -e node{AWK})",
        f"kill $({PS}grep --regexp=node{AWK})",
        f"kill $({PS}grep -enode{AWK})",
        f"kill $({PS}grep node -{AWK})",
        "kill -l",
        "kill -1",
        "kill $PID",
        "kill $(pgrep node)",
        "kill $(pgrep -f 'python app.py')",
        "kill $(pidof node)",
        "kill $(pidof -s node)",
        "kill $(cat server.pid)",
        "kill $(pgrep -f node | head -1)",
        "kill $(pstree -p 42 | sed 's/x//')",
        f"kill $({PS}grep node{AWK})",
        f"kill $({PS}grep 'node|python'{AWK})",
        f"kill $({PS}grep 'inter(lock)'{AWK})",
        f"kill $({PS}grep 'daemon\\.run'{AWK})",
        f"kill $({PS}grep 'zz\\.python'{AWK})",
        f"kill $({PS}grep 'ninterlock'{AWK})",
        f"kill $({PS}grep 'python+'{AWK})",
        f"kill $({PS}fgrep 'py.*'{AWK})",
        f"kill $({PS}grep -F 'py.*'{AWK})",
        f"kill $({PS}grep --fixed-strings 'py.*'{AWK})",
        f"kill $({PS}grep -F 'interlock\\|x'{AWK})",
        f"kill $({PS}grep PYTHON{AWK})",
        f"kill $({PS}grep --color=never node{AWK})",
        f"kill $({PS}grep -v grep | grep node{AWK})",
        f"kill $({PS}grep -v python{AWK})",
        f"kill $({PS}grep -v -e node -e python{AWK})",
        f"kill $({PS}grep -m 1 node{AWK})",
        f"kill $({PS}grep -n node{AWK})",
        f"kill $({PS}grep{AWK})",
        f"kill $({PS}rg -E utf8 node{AWK})",
        f"kill $({PS}rg -r python node{AWK})",
        "kill $(pgrep -f node; pgrep -x pytest)",
        "kill $( (pgrep node; pgrep pytest) )",
        "kill $({ pgrep node; })",
        "pgrep -f interlock",
        "echo kill -9 -1",
        "grep -rn interlock docs/",
    ],
)
def test_what_spares_the_daemon_is_not_found(command: str) -> None:
    assert not reaches(command), command


@pytest.mark.parametrize(
    ("command", "pids"),
    [
        ("kill 1234", [1234]),
        ("kill -9 1234 5678", [1234, 5678]),
        ("kill -s 15 1234", [1234]),
        ("kill -n 9 1234", [1234]),
        ("kill --signal 9 1234", [1234]),
        ("kill -s KILL 1234", [1234]),
        ("kill -- 1234", [1234]),
        ("kill 9 -s 1234", [9]),
        ("kill %1 $PID", []),
        ("kill -9", []),
    ],
)
def test_literal_pids_are_the_pids_a_kill_signals(command: str, pids: list[int]) -> None:
    assert daemonkill.literal_pids(killed(command)) == pids


def test_literal_pids_of_another_program_are_none() -> None:
    (inv,) = invocations("sleep 1234")
    assert daemonkill.literal_pids(inv) == []


@pytest.mark.parametrize(
    "command",
    [
        "ps aux | grep -m 1 python | awk '{print $2}' | xargs kill",
        "ps aux | grep --color=never python | awk '{print $2}' | xargs kill",
        "ps aux | grep --ignore-case PYTHON | awk '{print $2}' | xargs kill -9",
        "ps aux | grep -f patterns.txt | awk '{print $2}' | xargs kill",
        "kill $(pgrep node; pgrep python)",
    ],
)
def test_the_daemons_pids_by_any_grep_or_list_are_refused(command: str) -> None:
    result = evaluate(command, "/", mode="blocking", assume_dirty=True).result
    assert result.verdict == "block", command
    assert "selfdisable.kill-daemon" in {f.rule for f in result.findings}


@pytest.mark.parametrize(
    "command",
    [
        'P=$(pgrep -f "interlock daemon"); kill -9 $P',
        'P=$(pgrep -f "interlock daemon") && kill -9 "$P"',
        "P=`pgrep python`; Q=$P; kill ${Q}",
        "P=$(cat .git/interlock/daemon.pid); kill -TERM -- $P",
        'P=$(pgrep -f interlock); [ -n "$X" ] && P=1; kill $P',  # may still hold the pids
        'P=$(pgrep -f interlock); eval "$X"; kill $P',
        'export P=$(pgrep -f interlock); bash -c "kill \\$P"',
        "P=$(pgrep -f interlock) bash -c 'kill $P'",
        "P=$(pgrep -f interlock); bash -c 'kill $P'",  # P may be exported from before
        "for p in $(pgrep -f interlock); do kill -9 $p; done",
        'P=$(pgrep -f interlock); for p in $P; do kill "$p"; done',
        "pgrep python | while read p; do kill $p; done",
        "pgrep python | while read; do kill $REPLY; done",
        PS + "grep interlock" + AWK + ' | while read -r pid; do kill "$pid"; done',
        "while read p; do kill $p; done < <(pgrep -f interlock)",
        "read p < <(pgrep -f interlock); kill $p",
        "while read p; do kill $p; done 0< <(pgrep -f interlock)",
        "while read p; do kill $p; done <<EOF\n$(pgrep -f interlock)\nEOF",
        "while read p; do kill $p; done <<-EOF\n\t$(pgrep -f interlock)\n\tEOF",
        'read p <<< "$(pgrep -f interlock)"; kill $p',
        'mapfile -t pids < <(pgrep -f interlock); kill "${pids[@]}"',
        "pgrep -f interlock | xargs kill",
        "pgrep -f interlock | xargs -n1 kill -9",
        'P=$(pgrep -f interlock); echo "$P" | xargs kill',
        "P=$(pgrep -f interlock); printf '%s\\n' $P | xargs -n1 kill -9",
        'P=$(pgrep -f interlock); echo "$P" | while read p; do kill $p; done',
        'P=$(pgrep -f interlock); xargs kill <<< "$P"',
        'xargs kill <<< "$(pgrep -f interlock)"',
        'P=$(pgrep -f interlock); read p <<< "$P"; kill $p',
        "P=$(pgrep -f interlock); xargs kill <<EOF\n$P\nEOF",
        "P=$(pgrep -f interlock); kill $(echo $P)",
        'pids=($(pgrep -f interlock)); kill "${pids[@]}"',
        "declare -a pids=($(pgrep -f interlock)); kill ${pids[0]}",
        "local -i p=$(pgrep -f interlock); kill $p",
    ],
)
def test_the_daemons_pids_carried_by_a_variable_are_refused(command: str) -> None:
    """`P=$(pgrep -f "interlock daemon"); kill -9 $P` was allowed: only a `$(...)` written in
    kill's own words was read."""
    result = evaluate(command, "/", mode="blocking", assume_dirty=True).result
    assert "selfdisable.kill-daemon" in {f.rule for f in result.findings}, command


@pytest.mark.parametrize(
    "command",
    [
        "sleep 5 & P=$!; kill $P",
        "kill $PID",
        "P=$(pgrep node); kill $P",
        "for p in $(pgrep node); do kill $p; done",
        "pgrep node | while read p; do kill $p; done",
        "P=$(pgrep -f interlock); P=$(pgrep node); kill $P",  # reassigned
        "P=$(pgrep -f interlock); P=1234; kill $P",
        "cat pids.txt | while read p; do kill $p; done",
        "P=$(pgrep -f interlock); echo $P",
        "pgrep -f interlock | while read p; do echo $p; done; kill $PID",
        "while read p; do kill $p; done 3< <(pgrep -f interlock)",  # not stdin
        "pgrep python | while read p; do kill $p; done < pids.txt",  # stdin is the file
        'P=$(pgrep node); echo "$P" | xargs kill',
        'echo "$P" | xargs kill',
        "P=$(pgrep -f interlock); echo $P | wc -l; echo 1 | xargs kill",
        "while read p; do kill $p; done < pids.txt 2> >(grep -f interlock)",
    ],
)
def test_a_variable_of_other_pids_is_no_daemon_kill(command: str) -> None:
    result = evaluate(command, "/", mode="blocking", assume_dirty=True).result
    assert "selfdisable.kill-daemon" not in {f.rule for f in result.findings}, command
