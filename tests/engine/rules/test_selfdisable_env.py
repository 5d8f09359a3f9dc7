"""Self-disable through the environment: emptying it (`env -i`) and setting a variable whose
name is known only at run time (`export "$N"=1`) reach INTERLOCK_* as `env -u` and
`export INTERLOCK_MODE=off` do (issue: `env -u INTERLOCK_RUN git status` was refused while
`env -i git status` was allowed)."""

from __future__ import annotations

import pytest

from interlock.engine.check import evaluate
from interlock.engine.walk import walk
from interlock.shell.parse import parse


def judged(command: str) -> tuple[str, set[str]]:
    result = evaluate(command, "/", mode="blocking", assume_dirty=True).result
    return result.verdict, {f.rule for f in result.findings}


def override_reasons(command: str) -> list[str]:
    result = evaluate(command, "/", mode="blocking", assume_dirty=True).result
    return [f.reason for f in result.findings if f.rule == "selfdisable.env-override"]


@pytest.mark.parametrize(
    "command",
    [
        "env -u INTERLOCK_RUN git status",
        "env -i git status",
        "env - git status",
        "env --ignore-environment git status",
        'env -i PATH="$PATH" bash -c "git commit -m x"',
        "env -i HOME=/tmp bash -c 'cd sub && git push'",
        "sudo env -i git status",
        "env -C sub -i git status",
        "env -i /usr/bin/git status",
        "env -i git-receive-pack .",
        "env -i interlock check 'git status'",
        "env -i python3 -m interlock status",
        "env -i ~/.local/bin/interlock-sh -c ls",
        "env -i $TOOL status",
        "exec -c git status",
        "setpriv --reset-env git status",
        "sudo -i git status",
        "sudo --login git status",
        "su - -c 'git status'",
        "su -l root -c 'git commit -m x'",
        "runuser -l dev -c 'git commit -m x'",
        "runuser -l -u dev -- git status",
        "su - root <<'EOF'\ngit status\nEOF",
        "su - -c 'ls' \"$U\"",
    ],
)
def test_emptying_the_environment_of_git_or_interlock_is_an_override_like_unsetting_one(
    command: str,
) -> None:
    verdict, found = judged(command)
    assert verdict == "block", command
    assert "selfdisable.env-override" in found, command


@pytest.mark.parametrize(
    "command",
    [
        "env -i sort file",
        "find . -type f | env -i LC_COLLATE=C sort",
        "env -i perl -V",
        "env -i PATH=/usr/bin bash -c 'ls'",
        "env -i HOME=/tmp make test",
        "exec -cl bash",
        "sudo -i ls",
        "su - postgres -c 'createdb app'",
        "setpriv --reset-env printenv",
        "su -c 'ls' \"$U\"",
    ],
)
def test_emptying_the_environment_of_a_plain_program_is_not_an_override(command: str) -> None:
    """A program that reads no INTERLOCK_* variable loses nothing interlock needs; a shell's
    commands are judged each with the emptied environment (git among them is refused)."""
    assert "selfdisable.env-override" not in judged(command)[1], command


def test_the_emptied_environment_reaches_the_commands_of_a_shell_it_starts() -> None:
    by_name = {i.name: i.clears_env for i in walk(parse("env -i bash -c 'ls; git status'"))}
    assert by_name == {"ls": True, "git": True}


@pytest.mark.parametrize(
    "command",
    [
        "env git status",
        "env PATH=/usr/bin git status",
        "env -u HOME git status",
        "git status",
        "exec git status",
        "exec -a name git status",
        "setpriv --reuid 1000 git status",
        "sudo git status",
        "sudo -s git status",
        "su -c 'git status'",
        "su root -c ls",
        "runuser -u dev -- git status",
        "su root <<'EOF'\ngit status\nEOF",
        "exec -c -a",
    ],
)
def test_a_kept_environment_is_not_emptied(command: str) -> None:
    assert all(not i.clears_env for i in walk(parse(command))), command
    assert judged(command) == ("allow", set()), command


def test_the_emptied_environment_finding_says_what_it_unsets_and_what_to_do() -> None:
    result = evaluate("env -i git status", "/", mode="blocking", assume_dirty=True).result
    (finding,) = [f for f in result.findings if f.rule == "selfdisable.env-override"]
    assert "env -i" in finding.reason and "INTERLOCK_*" in finding.reason
    assert "env -u NAME" in finding.instead


@pytest.mark.parametrize(
    "command",
    [
        'export "$N"=1; make test',
        'export "$N"=1',
        "export $N",
        "export $(cat .env | xargs)",
        'unset "$V"',
        'declare -x "$N"=off',
        'typeset -x "$N"',
        'readonly "$N"=1',
        'local "$N"=1',
        'export -n "$N"',
        "export INTERLO{CK_MODE,}=off",
        "export ${P}_MODE=off",
        "export A=1 `echo B`=2",
        'export -n PATH "$X"=1',
        'unset "$A"[1]',
    ],
)
def test_a_setter_naming_a_variable_known_only_at_run_time_is_an_override(command: str) -> None:
    verdict, found = judged(command)
    assert verdict == "block", command
    assert "selfdisable.env-override" in found, command
    assert any("known only at run time" in r for r in override_reasons(command)), command


@pytest.mark.parametrize(
    "command",
    [
        'export PATH="$PWD/bin:$PATH"',
        'export "PATH=$PWD:$PATH"',
        "export 'X'=$HOME",
        "export _X1=$(date)",
        'local x="$1"',
        "export -p",
        'N=FOO; export "$N"=1',
        'export -"$FLAGS" PATH=/bin',
        "export '$N'=1",
        'export "\\$N"=1',
        "unset array[$RANDOM%4]",
        "unset 'array[1]' x",
        "a[$i]=1",
        'echo "$N"=1',
        'printenv "$N"',
    ],
)
def test_a_setter_with_written_names_is_not_an_override(command: str) -> None:
    assert judged(command) == ("allow", set()), command


def test_the_unknown_name_finding_names_the_setter_and_what_to_do() -> None:
    result = evaluate('declare "$N"=1', "/", mode="blocking", assume_dirty=True).result
    (finding,) = [f for f in result.findings if f.rule == "selfdisable.env-override"]
    assert finding.reason.startswith("`declare` names a variable known only at run time")
    assert "export NAME=" in finding.instead


def test_a_name_the_line_assigned_earlier_is_judged_as_written() -> None:
    assert judged('N=INTERLOCK_MODE; export "$N"=off')[0] == "block"
    reasons = override_reasons('N=INTERLOCK_MODE; export "$N"=off')
    assert reasons and not any("known only at run time" in r for r in reasons)


@pytest.mark.parametrize(
    "command",
    ["HUSKY=0 env -i git commit -m x", "HUSKY_SKIP_HOOKS=1 env - git commit -m x"],
)
def test_an_emptied_environment_drops_a_hook_skip_variable_but_is_an_override(command: str) -> None:
    """The variable set before `env -i` does not reach git (no hook-skip finding); emptying
    the environment unsets INTERLOCK_* for git's hooks (these were allowed before)."""
    assert judged(command) == ("block", {"selfdisable.env-override"}), command


@pytest.mark.parametrize(
    "command",
    [
        "read INTERLOCK_RUN <<< x; git commit -m x",
        'read -r -p "name? " INTERLOCK_MODE',
        "read -a INTERLOCK_X",
        "read -aINTERLOCK_X",
        "read -t 5 x INTERLOCK_MODE",
        "printf -v INTERLOCK_MODE off",
        "printf -vINTERLOCK_MODE off",
        "getopts ab INTERLOCK_MODE",
        "let INTERLOCK_X=1",
        "let INTERLOCK_X+=1",
    ],
)
def test_a_builtin_writing_an_interlock_variable_is_an_override(command: str) -> None:
    """`read`, `printf -v`, `getopts` and `let` write the variable they name: an exported
    INTERLOCK_* changes for what runs next, as `export INTERLOCK_MODE=off` does."""
    assert judged(command) == ("block", {"selfdisable.env-override"}), command
    assert not any("known only at run time" in r for r in override_reasons(command)), command


@pytest.mark.parametrize(
    "command",
    ['read "$N"', "read -a $ARR", 'printf -v "$N" off', 'getopts ab "$N"', 'let "$N"=1'],
)
def test_a_builtin_writing_a_variable_known_only_at_run_time_is_an_override(command: str) -> None:
    assert judged(command) == ("block", {"selfdisable.env-override"}), command
    reasons = override_reasons(command)
    assert any(r.startswith(f"`{command.split()[0]}` names a variable known") for r in reasons)


@pytest.mark.parametrize(
    "command",
    [
        "read -r line",
        "read -t 5 -u 3 x y",
        "read -p INTERLOCK_MODE x",
        "read -d INTERLOCK_ x",
        "read -a",
        "printf -v x %s off",
        "printf '%s' INTERLOCK_MODE",
        "printf -v",
        "getopts ab opt",
        "getopts INTERLOCK_MODE opt",
        "getopts ab opt INTERLOCK_MODE",
        "let 'x = 1'",
        "let i++",
        "echo INTERLOCK_MODE=off",
    ],
)
def test_a_builtin_writing_other_variables_is_allowed(command: str) -> None:
    assert judged(command) == ("allow", set()), command
