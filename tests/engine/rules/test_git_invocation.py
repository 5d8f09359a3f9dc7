"""Reading a git invocation (engine.rules.git.invocation): global options, the subcommand,
where it acts, the configuration the line gives, and the aliases the line defines."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from interlock.engine.invocation import Invocation
from interlock.engine.places import TOP_CWD
from interlock.engine.rules.git.invocation import GitCall, alias_value, parse_git
from interlock.engine.walk import walk
from interlock.shell.parse import parse


@pytest.fixture(scope="session")
def call(inv: Callable[..., Invocation]) -> Callable[..., GitCall]:
    def read(cmd: str, **kw: object) -> GitCall:
        assume = bool(kw.pop("assume_git", False))
        found = parse_git(inv(cmd, **kw), assume_git=assume)
        assert found is not None, cmd
        return found

    return read


def texts(found: GitCall) -> list[str]:
    return [w.text for w in found.args]


def test_the_subcommand_and_its_args(call) -> None:
    found = call("git reset --hard HEAD~1")
    assert (found.sub, texts(found)) == ("reset", ["--hard", "HEAD~1"])
    assert not found.elsewhere and not found.informational and found.config == ()
    assert found.cwd == "" and found.aliases == () and found.exec_paths == ()


def test_the_dashed_form_reads_as_the_subcommand(call, inv) -> None:
    found = call("git-reset --hard")
    assert (found.sub, texts(found)) == ("reset", ["--hard"])
    assert call("git-r x").sub == "r"
    assert parse_git(inv("git- reset")) is None  # `git-` alone names no subcommand
    assert parse_git(inv("gitk --all")) is None
    assert parse_git(inv("mkdir -p x")) is None  # a longer name, not `git-...`


def test_other_programs_are_not_git_unless_the_name_is_unknown(inv) -> None:
    assert parse_git(inv("ls -la")) is None
    assert parse_git(inv("ls -la"), assume_git=True) is None
    assert parse_git(inv("$GIT reset --hard")) is None
    found = parse_git(inv("$GIT reset --hard"), assume_git=True)
    assert found is not None and found.sub == "reset"


def test_no_subcommand(call) -> None:
    found = call("git")
    assert found.sub is None and found.args == ()
    assert call("git -C sub").sub is None


def test_global_options_stop_at_the_subcommand(call) -> None:
    found = call("git commit -C HEAD -c x=y")
    assert found.sub == "commit" and found.cwd == "" and found.config == ()
    assert texts(found) == ["-C", "HEAD", "-c", "x=y"]


def test_a_double_dash_before_the_subcommand(call) -> None:
    found = call("git -- reset --hard")
    assert (found.sub, texts(found)) == ("reset", ["--hard"])


@pytest.mark.parametrize(
    ("cmd", "sub", "args"),
    [
        ("git $OPTS reset --hard", "reset", ["--hard"]),
        ("git $A $B status", None, ["$B", "status"]),
        ("git show reset", "show", ["reset"]),
        ("git stash list", "stash", ["list"]),
        ("git $X", None, []),
        ("git $X status", "status", []),
        ("git $X frobnicate", None, ["frobnicate"]),
    ],
)
def test_an_unknown_word_before_a_known_subcommand_is_read_as_an_option(
    call, cmd: str, sub: str | None, args: list[str]
) -> None:
    found = call(cmd)
    assert found.sub == sub and texts(found) == args


def test_dash_c_changes_where_git_acts(call) -> None:
    assert call("git -C sub status").cwd == "sub"
    assert call("git -C a -C b status").cwd == "a/b"
    assert call("git -C sub status", cwd="top").cwd == "top/sub"
    assert call("git -C '' status", cwd="top").cwd == "top"  # an empty -C changes nothing
    assert not call("git -C sub status").elsewhere


@pytest.mark.parametrize("cmd", ['git -C "$d" status', 'git -C"$d" status', "git -C $d -C x log"])
def test_dash_c_named_at_run_time_may_be_any_repository(call, cmd: str) -> None:
    found = call(cmd)
    assert found.cwd is None and found.elsewhere


@pytest.mark.parametrize(
    "cmd",
    [
        "git --git-dir=x status",
        "git --work-tree x status",
        'git --work-tree="$W" status',
        "GIT_DIR=x git status",
        'GIT_WORK_TREE="$W" git status',
        "GIT_DIR=x FOO=1 git status",
        "FOO=1 GIT_INDEX_FILE=i git status",
        "git -c core.worktree=/x status",
        "git -c color.ui=never -c core.worktree=/x status",
        'git -c "$KV" status',
    ],
)
def test_options_and_variables_that_point_git_elsewhere(call, cmd: str) -> None:
    assert call(cmd).elsewhere


@pytest.mark.parametrize(
    "cmd",
    [
        "FOO=1 git status",
        "GIT_TRACE=1 git status",
        "FOO=GIT_DIR git status",
        "git -c color.ui=never status",
        "git --bare status",
    ],
)
def test_options_that_keep_git_here(call, cmd: str) -> None:
    assert not call(cmd).elsewhere


def test_configuration_the_line_gives(call) -> None:
    found = call("git -c Core.Pager=less -c color.ui --config-env=Alias.X=VAR log")
    assert found.config == (("core.pager", "less"), ("color.ui", "true"), ("alias.x", None))
    assert call("git --config-env=a.b=c=VAR log").config == (("a.b=c", None),)
    assert call('git -c core.pager="$P" log').config == (("core.pager", None),)
    assert call('git -c"core.pager=$P" log').config == (("core.pager", None),)
    assert call('git --config-env="a.b=$V" log').config == (("", None),)
    assert call("GIT_CONFIG_PARAMETERS=\"'core.pager=cat'\" git log").config == (
        ("core.pager", "cat"),
    )


def test_exec_path_with_a_directory(call) -> None:
    assert call("git --exec-path=/opt/x fetch").exec_paths == ("/opt/x",)
    assert call('git --exec-path="$X" fetch').exec_paths == (None,)
    assert call("git --exec-path").exec_paths == ()
    assert call("git --exec-path=/opt/x -c alias.f=fetch f").exec_paths == ("/opt/x",)


@pytest.mark.parametrize(
    "cmd",
    [
        "git --help",
        "git -h reset --hard",
        "git --version",
        "git -v",
        "git --html-path",
        "git --man-path reset --hard",
        "git --info-path",
    ],
)
def test_informational_options_run_nothing(call, cmd: str) -> None:
    assert call(cmd).informational


@pytest.mark.parametrize(
    "cmd",
    ["git reset --hard", "git -C x reset --hard", "git --exec-path=/x status", "git --exec-path"],
)
def test_other_options_are_not_informational(call, cmd: str) -> None:
    assert not call(cmd).informational


def test_an_alias_the_line_defines_is_expanded(call) -> None:
    found = call("git -c alias.wipe='reset --hard' wipe HEAD~1")
    assert (found.sub, texts(found)) == ("reset", ["--hard", "HEAD~1"])
    assert found.aliases == (("wipe", "reset --hard"),)


def test_alias_chains_expand_and_the_last_definition_wins(call) -> None:
    found = call("git -c alias.a=b -c alias.b='clean -fd' a")
    assert (found.sub, texts(found)) == ("clean", ["-fd"])
    assert found.aliases == (("a", "b"), ("b", "clean -fd"))
    assert call("git -c alias.x=status -c alias.x=log x").sub == "log"


def test_aliases_that_cannot_expand_stay(call) -> None:
    assert call("git -c alias.x='!rm -rf src' x").sub == "x"  # shell code: engine.hidden
    assert call("git -c alias.x= x").sub == "x"
    assert call('git -c alias.x="reset \'a" x').sub == "x"  # unbalanced quote
    assert call("git -c alias.x=x x").sub == "x"  # a loop ends
    assert call("git -c alias.y=status x").sub == "x"


def test_an_alias_never_renames_git_s_own_commands(call) -> None:
    assert call("git -c alias.status='reset --hard' status").sub == "status"
    assert call("git -c alias.cat-file='reset --hard' cat-file").sub == "cat-file"


def test_alias_value_is_case_insensitive_and_the_last_wins() -> None:
    config = (("alias.x", "a"), ("alias.y", "b"), ("alias.x", "c"))
    assert alias_value(config, "X") == "c"
    assert alias_value(config, "y") == "b"
    assert alias_value(config, "z") is None


def walked_call(command: str) -> GitCall:
    """The git call of a line as the walker reads it (the places of its words are set)."""
    found = [parse_git(i) for i in walk(parse(command))]
    calls = [c for c in found if c is not None and c.sub is not None]
    assert calls, command
    return calls[-1]


@pytest.mark.parametrize(
    ("command", "cwd"),
    [
        ('git -C "$(git rev-parse --show-toplevel)" status', TOP_CWD),
        ('git -C "$(git rev-parse --show-toplevel)/src" status', f"{TOP_CWD}/src"),
        ('git -C "$(pwd)" status', ""),
        ('git -C "$PWD/src" status', "src"),
        ('cd src && git -C "$PWD" status', "src"),
        ('cd src && git -C "$(pwd)/.." status', ""),
        ('cd src && git -C "$(pwd)" -C x status', "src/x"),
        ('git -C sub -C "$(pwd)" status', ""),  # the shell's place, not sub's
        ('env -C sub git -C "$(pwd)" status', ""),  # read before env moves
        ('env -C "$X" git -C "$(pwd)/src" status', "src"),
        ('cd /opt && git -C "$PWD" status', "/opt"),
        ('git -Csub -C "$PWD" status', ""),  # an attached value has no word of its own
        ('git -C "$PWD" -Csub status', "sub"),
    ],
)
def test_dash_c_naming_the_shells_own_place_is_that_place(command: str, cwd: str) -> None:
    found = walked_call(command)
    assert found.cwd == cwd and not found.elsewhere


@pytest.mark.parametrize(
    "command",
    [
        'cd src; git -C "$PWD" status',  # src, or here if the cd failed
        'git -C "$(git -C "$X" rev-parse --show-toplevel)" status',
        'cd "$X" && git -C "$(pwd)" status',
        'cd src && git -C "$(git rev-parse --show-toplevel)" status',  # src may be a repository
    ],
)
def test_dash_c_naming_an_uncertain_place_may_be_any_repository(command: str) -> None:
    found = walked_call(command)
    assert found.cwd is None and found.elsewhere
