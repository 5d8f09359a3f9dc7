"""Which changed paths are interlock's own (engine.rules.ownpaths): hooks, config, state and
git config files, read from literal paths component by component and from the text of paths
built at run time; commands that name the daemon's state; in-place edits of [tool.interlock]."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from interlock.engine.invocation import Invocation
from interlock.engine.rules import index as rules
from interlock.engine.rules import ownpaths
from interlock.engine.rules.writes import Touch
from interlock.shell.model import Word


@pytest.fixture(scope="session")
def own(inv: Callable[..., Invocation]) -> Callable[..., set[str]]:
    def own(cmd: str, cwd: str | None = "") -> set[str]:
        return {f.rule for f in rules.check_invocation(inv(cmd, cwd)) if f.kind == "self-disable"}

    return own


def literal(path: str, verb: str = "write", mode: str | None = None) -> Touch:
    return Touch(Word(path, path), verb, mode)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("path", "verb", "mode", "rule"),
    [
        (".git/hooks/pre-commit", "write", None, "selfdisable.hooks-edit"),
        (".git//hooks/pre-commit", "write", None, "selfdisable.hooks-edit"),  # empty parts
        ("./.git/./hooks/pre-commit", "write", None, "selfdisable.hooks-edit"),  # `.` parts
        (".git/hooks", "remove", None, "selfdisable.hooks-edit"),  # the last pair counts
        ("repo.git/hooks/update", "write", None, "selfdisable.hooks-edit"),  # a bare repository
        ("src/hooks/useAuth.ts", "write", None, None),  # a folder named hooks is not git's
        (".git/hooks/pre-commit", "mode", "+x", None),  # making a hook runnable keeps it on
        (".git/hooks/pre-commit", "mode", "755", None),
        (".git/hooks/pre-commit", "mode", "75", "selfdisable.hooks-edit"),  # not a 3-digit mode
        (".git/hooks/pre-commit", "mode", "644", "selfdisable.hooks-edit"),
        ("vendor/lib/.git", "remove", None, "selfdisable.hooks-edit"),
        ("vendor/lib/.git", "write", None, None),
        (".git/interlock/journal.db", "write", None, "selfdisable.state-edit"),
        ("sub/.interlock.toml", "write", None, "selfdisable.config-edit"),
        ("sub/.interlock.toml.bak", "write", None, None),
        ("/home/u/.gitconfig", "write", None, "selfdisable.hooks-path"),
        ("/home/u/.gitconfig", "mode", "600", None),  # re-moding a config changes no setting
        ("/home/u/.config/git/config", "write", None, "selfdisable.hooks-path"),
        ("/etc/git/config", "write", None, None),  # `git/config` outside .config
        (".git/config", "write", None, "selfdisable.hooks-path"),
        (".git/description", "write", None, None),
        ("src/config", "write", None, None),
        ("config", "write", None, None),
        (".", "remove", None, None),  # no parts at all
        ("/", "write", None, None),
    ],
)
def test_a_literal_path_is_read_component_by_component(path, verb, mode, rule):
    assert ownpaths.rule_for(literal(path, verb, mode), None) == rule
    assert ownpaths.rule_for(literal(path, verb, mode), "") == rule


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ('"$(git rev-parse --git-dir)/hooks/pre-commit"', "selfdisable.hooks-edit"),
        ("$(git rev-parse --git-path hooks)/pre-push", "selfdisable.hooks-edit"),
        ('"$D/hooks/x"', None),
        ('"$(git rev-parse --git-dir)/interlock/journal.db"', "selfdisable.state-edit"),
        ('"$GIT_DIR/interlock"', "selfdisable.state-edit"),
        ('"$D/interlock/x"', None),
        ('"$ROOT/.interlock.toml"', "selfdisable.config-edit"),
        ('"$HOME/.gitconfig"', "selfdisable.hooks-path"),
        ('"$XDG_CONFIG_HOME/git/config"', "selfdisable.hooks-path"),
        ('"$D/notes.md"', None),
    ],
)
def test_the_text_of_a_run_time_path(text, rule):
    assert ownpaths.rule_for(Touch(Word(text, None), "write"), "") == rule


def test_a_relative_path_is_resolved_against_the_cwd_first(own):
    assert own("rm hooks/pre-commit", ".git") == {"selfdisable.hooks-edit"}
    assert own("rm hooks/pre-commit", "src") == set()
    assert ownpaths.rule_for(literal("hooks/pre-commit"), ".git") == "selfdisable.hooks-edit"


@pytest.mark.parametrize(
    ("cmd", "rules_found"),
    [
        ('rm "$(git rev-parse --git-dir)/hooks/pre-commit"', {"selfdisable.hooks-edit"}),
        ('rm "$D/hooks/useAuth.ts"', set()),  # no git in it: any folder named hooks
        ('rm "$(git rev-parse --git-dir)/interlock/journal.db"', {"selfdisable.state-edit"}),
        ('rm "$D/interlock/notes.md"', set()),
        ('echo x > "$HOME/.gitconfig"', {"selfdisable.hooks-path"}),
        ('echo x > "$XDG_CONFIG_HOME/git/config"', {"selfdisable.hooks-path"}),
        ('chmod 600 "$HOME/.gitconfig"', set()),
        ('echo x > "$ROOT/.interlock.toml"', {"selfdisable.config-edit"}),
    ],
)
def test_a_path_built_at_run_time_is_read_from_its_text(own, cmd, rules_found):
    assert own(cmd) == rules_found


@pytest.mark.parametrize(
    ("cmd", "mentions"),
    [
        ("socat UNIX-LISTEN:.git/interlock/daemon.sock,fork EXEC:cat", True),
        ("socat EXEC:cat UNIX-LISTEN:.git/interlock/daemon.sock", True),
        ("python3 serve.py /run/user/1000/interlock/daemon.sock", True),
        ("cat .git/interlock/daemon.log", False),  # readers only read
        ("find .git/interlock -name '*.db'", False),
        ("find .git/interlock -name '*.db' -delete", True),
        ("python3 serve.py notes.md", False),
        (".git/interlock/tool --version", False),
    ],
)
def test_commands_that_name_the_daemons_state(inv, cmd, mentions):
    """(A program started from the state folder does not edit it by being started.)"""
    assert ownpaths.mentions_state(inv(cmd)) is mentions


@pytest.mark.parametrize(
    ("cmd", "edits"),
    [
        ("sed -i '/tool.interlock/,$d' pyproject.toml", True),
        ("sed -i '/interlock/d' sub/pyproject.toml", True),
        ("sed -Ei '/interlock/d' pyproject.toml", True),
        ("sed --in-place=.bak '/interlock/d' pyproject.toml", True),
        ("perl -pi -e 's/interlock//' pyproject.toml", True),
        ("gawk -i inplace '!/interlock/' pyproject.toml", True),
        ("gawk --include=inplace '!/interlock/' pyproject.toml", True),
        ('awk -i "$LIB" \'!/interlock/\' pyproject.toml', True),  # a library named at run time
        ("awk -i ./lib.awk '!/interlock/' pyproject.toml", False),
        ("awk '!/interlock/' pyproject.toml", False),  # prints, changes nothing
        ("sed '/interlock/d' pyproject.toml", False),
        ("sed -E '/interlock/d' pyproject.toml", False),
        ("sed --posix '/interlock/d' pyproject.toml", False),
        ("sed -i 's/a/b/' pyproject.toml", False),  # not interlock's table
        ("sed -i 's/interlock/x/' README.md", False),
        ("grep -i interlock pyproject.toml", False),
        ("/opt/interlock/bin/sed -i 's/a/b/' pyproject.toml", False),  # the program's own path
    ],
)
def test_in_place_edits_of_the_interlock_table(inv, cmd, edits):
    assert ownpaths.edits_interlock_table(inv(cmd)) is edits


@pytest.mark.parametrize(
    "cmd",
    [
        "gawk -i inplace 'NR>5' .interlock.toml",
        "gawk -iinplace 1 .git/hooks/pre-commit",
        "gawk --include inplace.awk 1 .interlock.toml",
        "gawk -i inplace -f prog.awk .interlock.toml",
        "gawk -i inplace 1 x=1 .interlock.toml",
    ],
)
def test_gawk_in_place_is_an_edit_of_each_file_it_reads(own, cmd):
    assert own(cmd) & {"selfdisable.config-edit", "selfdisable.hooks-edit"}


def test_awk_without_in_place_writes_nothing(own):
    assert own("awk 1 .interlock.toml") == set()
    assert own("gawk -i inplace 'NR>1' x=.interlock.toml notes.md") == set()  # an assignment
    # options end at the program text: these read the files `-i`, `inplace` and the config
    assert own("gawk 'NR>1' -i inplace .interlock.toml") == set()
    assert own("gawk --source 'NR>1' f.txt -i inplace .git/hooks/pre-commit") == set()
