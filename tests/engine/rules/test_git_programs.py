"""git configuration whose code is only known at run time (engine.rules.git.programs): the
`git.config-code` findings of one invocation, read from its words alone."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from interlock.engine.findings import Finding
from interlock.engine.invocation import Invocation
from interlock.engine.rules.git.invocation import parse_git
from interlock.engine.rules.git.programs import check_config_code


@pytest.fixture(scope="session")
def code(inv: Callable[..., Invocation]) -> Callable[..., list[Finding]]:
    def found(cmd: str, **kw: object) -> list[Finding]:
        invocation = inv(cmd, **kw)
        return check_config_code(invocation, parse_git(invocation))

    return found


def reasons(found: list[Finding]) -> list[str]:
    assert all(f.rule == "git.config-code" for f in found)
    return [f.reason for f in found]


@pytest.mark.parametrize(
    ("cmd", "reason"),
    [
        ("git -c include.path=other.cfg log", "`include.path` loads more configuration"),
        ('git -c includeIf.gitdir:x/.path="$F" log', "`includeif.gitdir:x/.path` loads more"),
        ('git -c core.pager="$P" log', "git runs the value of `core.pager`, which is only known"),
        ('git -c alias.x="$A" x', "the alias `x` is only known at run time"),
        ('git -c alias.a=b -c alias.b="$B" a', "the alias `b` is only known at run time"),
        ('git config alias.x "$A"', "the alias `x` is only known at run time"),
        ('git config core.pager "$P"', "git runs the value of `core.pager`"),
        ('git config "$KEY" value', "`git config` writes a key only known at run time"),
        ('git clone -c core.sshCommand="$X" url dir', "git runs the value of `core.sshcommand`"),
        ('git fetch --upload-pack "$X" origin', 'git runs `--upload-pack` "$X"'),
        ('git clone -u "$X" url dir', 'git runs `-u` "$X"'),
        ('git clone -qu "$X" url dir', 'git runs `-u` "$X"'),
        ('git init --template "$T"', 'the hooks of the template directory "$T"'),
        ('git fetch "ext::$CMD" main', 'the `ext::` remote "ext::$CMD" runs a command'),
        ("git fetch 'ext::sh -c '$X", "the `ext::` remote"),
        ('GIT_SSH_COMMAND="$X" git fetch', "`GIT_SSH_COMMAND` names a program only known"),
        ('export GIT_PAGER="$X"', "`GIT_PAGER` names a program only known at run time"),
        ('export FOO=1 EDITOR="$E"', "`EDITOR` names a program only known at run time"),
        ("GIT_CONFIG_GLOBAL=x.cfg git log", "`GIT_CONFIG_GLOBAL` makes git read configuration"),
        ("export GIT_EXEC_PATH=/tmp/x", "`GIT_EXEC_PATH` makes git read configuration"),
        ("git --exec-path=/tmp/x fetch", "`--exec-path` makes git run its programs"),
        # builtins that set a variable to what they read: an inherited variable is exported
        ("read GIT_CONFIG_GLOBAL", "`GIT_CONFIG_GLOBAL` makes git read configuration"),
        ('read -r -p "path: " -t 5 x GIT_PAGER', "`GIT_PAGER` names a program only known"),
        ("read -d , -a parts GIT_SSH_COMMAND", "`GIT_SSH_COMMAND` names a program"),
        ('printf -v GIT_SSH_COMMAND "%s" ssh', "`GIT_SSH_COMMAND` names a program only known"),
        ("printf -vEDITOR %s vi", "`EDITOR` names a program only known at run time"),
        ("mapfile -t -n 1 EDITOR", "`EDITOR` names a program only known at run time"),
        ("readarray -u 3 GIT_EXEC_PATH", "`GIT_EXEC_PATH` makes git read configuration"),
        ("getopts ab GIT_CONFIG", "`GIT_CONFIG` makes git read configuration"),
    ],
)
def test_code_known_only_at_run_time_is_reported(code, cmd: str, reason: str) -> None:
    assert any(reason in r for r in reasons(code(cmd))), reasons(code(cmd))


@pytest.mark.parametrize(
    "cmd",
    [
        "git -c core.pager=less log",
        "git -c alias.x=status x",
        'git -c alias.y="$A" x',
        'git -c xxxxx.log="$V" log',
        'git -c color.ui="$C" log',
        "git config core.pager less",
        "git config --get core.pager",
        'git --version config core.pager "$P"',
        'git -c alias.ager="$A" config core.pager less',  # `ager`: no alias the line runs
        'git log "$KEY" value',
        'git commit -c core.pager="$X"',
        "git fetch --upload-pack cat origin",
        "git fetch --upload-pack=cat origin",
        "git init --template=/usr/share/git-core/templates",
        'git log -u "$X"',
        "git fetch ext::sh origin",
        "GIT_PAGER=cat git log",
        'FOO="$X" git log',
        'echo GIT_PAGER="$X"',
        "export GIT_PAGER",  # an inherited value: exported already, nothing changes
        "export GIT_CONFIG_GLOBAL",
        "read -r line",
        "read -p GIT_PAGER",  # the prompt
        "read",  # REPLY
        'printf -v x "%s" GIT_PAGER',
        "printf GIT_PAGER",
        "mapfile -t lines",
        "mapfile -C GIT_PAGER",  # a callback, then MAPFILE
        "getopts GIT_PAGER opt",
        "GIT_CONFIG_GLOBAL=/dev/null git log",
        "git --exec-path=/usr/lib/git-core fetch",
        "ls -la",
    ],
)
def test_known_or_harmless_configuration_is_not_reported(code, cmd: str) -> None:
    assert code(cmd) == []


def test_a_value_less_export_is_judged_where_the_line_set_the_variable() -> None:
    from interlock.engine.analysis import analyse

    def shown(cmd: str) -> list[str]:
        return [f.text for f in analyse(cmd).findings if f.rule == "git.config-code"]

    assert shown("GIT_CONFIG_GLOBAL=x.cfg; export GIT_CONFIG_GLOBAL") == ["GIT_CONFIG_GLOBAL=x.cfg"]
    assert shown("read GIT_CONFIG_GLOBAL < f; export GIT_CONFIG_GLOBAL; git log") == [
        "read GIT_CONFIG_GLOBAL"
    ]
    assert shown("export GIT_CONFIG_GLOBAL=x.cfg") == ["export GIT_CONFIG_GLOBAL=x.cfg"]
    assert shown("export GIT_CONFIG_GLOBAL; git log") == []
    assert shown("GIT_CONFIG_GLOBAL=/dev/null; export GIT_CONFIG_GLOBAL; git log") == []


def test_each_reason_is_reported_once(code) -> None:
    found = code('git -c core.pager="$A" -c core.pager="$B" log')
    assert reasons(found) == ["git runs the value of `core.pager`, which is only known at run time"]
    both = code('git -c core.pager="$A" -c core.editor="$B" log')
    assert len(both) == 2


def test_findings_act_where_the_command_acts(code) -> None:
    assert [f.cwd for f in code('GIT_PAGER="$X" git log', cwd="sub")] == ["sub"]
    assert [f.cwd for f in code('git -C repo -c core.pager="$X" log', cwd="sub")] == ["sub/repo"]
    assert [f.cwd for f in code('git -C repo fetch --upload-pack "$X"')] == ["repo"]
    assert [f.cwd for f in code("git -C repo --exec-path=/x fetch")] == ["repo"]
    assert [f.cwd for f in code("GIT_CONFIG=x git -C repo log", cwd="sub")] == ["sub"]
