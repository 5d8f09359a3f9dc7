"""The shell state the walker follows: where a command may run after a `cd` that may fail,
what surely succeeded before it, `set -e`, pipelines and which redirections are its own."""

from __future__ import annotations

import pytest

from interlock.engine.invocation import Invocation
from interlock.engine.shellstate import TEMP_CWD
from interlock.engine.walk import walk
from interlock.shell.parse import parse


def walked(command: str) -> dict[str, Invocation]:
    return {inv.text: inv for inv in walk(parse(command))}


@pytest.mark.parametrize(
    ("command", "cwd", "alts"),
    [
        ("cd build; rm -rf *", "build", ("",)),
        ("cd build\nrm -rf *", "build", ("",)),
        ("cd build && rm -rf *", "build", ()),
        ("cd build || exit 1; rm -rf *", "build", ()),
        ("cd build || { echo no; exit 1; }; rm -rf *", "build", ()),
        ("set -e; cd build; rm -rf *", "build", ()),
        ("set -euo pipefail; cd build; rm -rf *", "build", ()),
        ("set -e; set +e; cd build; rm -rf *", "build", ("",)),
        ("set -o errexit; cd build; rm -rf *", "build", ()),
        ("cd build && make; rm -rf *", "build", ("",)),  # cd fails -> make skipped -> rm here
        ("set -e; cd build && make; rm -rf *", "build", ("",)),  # set -e ignores `cd` in &&
        ("cd a && cd b; rm -rf *", "a/b", ("", "a")),
        ("cd a; cd b; rm -rf *", "a/b", ("b", "a", "")),
        ("(cd sub; rm -rf *)", "sub", ("",)),
        ("pushd sub; rm -rf *; popd", "sub", ("",)),
        ("cd /tmp/work; rm -rf *", "/tmp/work", ("",)),
        ("builtin cd x; rm -rf *", "x", ("",)),
        ("if true; then cd x; fi; rm -rf *", None, ("",)),
    ],
)
def test_a_cd_that_may_fail_leaves_where_it_started_as_an_alternative(command, cwd, alts):
    inv = walked(command)["rm -rf *"]
    assert inv.cwd == cwd
    assert inv.alt_cwds == alts


def test_popd_returns_to_one_place_whether_or_not_pushd_worked():
    inv = walked("pushd sub; make; popd; rm -rf *")["rm -rf *"]
    assert inv.cwd == "" and inv.alt_cwds == ()


def test_alternatives_do_not_leak_out_of_a_subshell_or_into_a_child_shell():
    assert walked("(cd sub; true); rm -rf *")["rm -rf *"].alt_cwds == ()
    inner = walked("cd sub; bash -c 'rm -rf *'")["rm -rf *"]
    assert inner.cwd == "sub" and inner.alt_cwds == ("",)


def test_too_many_alternatives_are_read_as_unknown():
    command = "; ".join(f"cd d{k}" for k in range(8)) + "; rm -rf *"
    alts = walked(command)["rm -rf *"].alt_cwds
    assert None in alts and len(alts) <= 7


def names(invs: tuple[Invocation, ...]) -> list[str]:
    return [i.text for i in invs]


@pytest.mark.parametrize(
    ("command", "before"),
    [
        ("git stash && git checkout -- .", ["git stash"]),
        ("git add -A && git commit -m x && git checkout -- .", ["git add -A", "git commit -m x"]),
        ("git stash; git checkout -- .", []),
        ("git stash || true; git checkout -- .", []),
        ("git stash || git checkout -- .", []),
        ("git stash || exit 1; git checkout -- .", ["git stash"]),
        ("set -e; git stash; git checkout -- .", ["set -e", "git stash"]),
        ("set -e; git stash && true; git checkout -- .", ["set -e"]),
        ("if git stash; then git checkout -- .; fi", ["git stash"]),
        ("while git stash; do git checkout -- .; done", ["git stash"]),
        ("until git stash; do git checkout -- .; done", []),
        ("git stash | cat && git checkout -- .", ["cat"]),  # only the last of a pipeline
        ("! git stash && git checkout -- .", []),
        ("(git stash) && git checkout -- .", ["git stash"]),
        ("{ git stash; } && git checkout -- .", ["git stash"]),
        ("bash -c 'git stash && git checkout -- .'", ["git stash"]),
        ("git stash && bash -c 'git checkout -- .'", ["git stash"]),
        ("git stash & git checkout -- .", []),
    ],
)
def test_what_surely_succeeded_before_a_command(command, before):
    assert names(walked(command)["git checkout -- ."].succeeded) == before


def test_pipeline_commands_share_an_id_that_other_commands_do_not():
    invs = walked("cat f | sort > f; cat g")
    assert invs["cat f"].pipe and invs["cat f"].pipe == invs["sort"].pipe
    assert invs["cat g"].pipe == 0


def test_own_redirections_are_told_from_inherited_ones():
    inv = walked("{ true > a; } > b")["true"]
    assert [r.target.text for r in inv.redirects if r.target] == ["b", "a"]
    assert inv.own_redirects == 1
    assert walked("bash -c 'true' > b")["true"].own_redirects == 0


@pytest.mark.parametrize(
    ("command", "cwd", "alts"),
    [
        # `cd` reads its first operand; options (and `--`) are not directories
        ("cd -P b; rm -rf *", "b", ("",)),
        ("cd -- b; rm -rf *", "b", ("",)),
        ("cd build-; rm -rf *", "build-", ("",)),
        # bash 5 refuses two operands (the cd fails: here); bash 3.2 goes to the first
        ("cd a b; rm -rf *", "a", ("",)),
        ("cd b c*; rm -rf *", "b", ("",)),
        # unknown directories: `-` ($OLDPWD), no operand ($HOME), a glob, a variable
        ("cd -; rm -rf *", None, ("",)),
        ("cd - b; rm -rf *", None, ("",)),
        ("cd; rm -rf *", None, ("",)),
        ("cd b*; rm -rf *", None, ("",)),
        ("cd a; cd $X; rm -rf *", None, ("a", "")),
        ("cd $A; cd b; rm -rf *", None, ("b", None, "")),  # unknown stays among the alternatives
        # an alternative that is where the shell surely is, is not an alternative
        ("cd /x; cd /y; rm -rf *", "/y", ("/x", "")),
        # pushd +N/-N rotate the stack: somewhere unknown; +x and 12 are directory names
        ("pushd +1; rm -rf *", None, ("",)),
        ("pushd +12; rm -rf *", None, ("",)),
        ("pushd -2; rm -rf *", None, ("",)),
        ("pushd +x; rm -rf *", "+x", ("",)),
        ("pushd +; rm -rf *", "+", ("",)),
        ("pushd 12; rm -rf *", "12", ("",)),
        # popd goes back to where pushd started, as uncertain as that was
        ("cd a; pushd b; popd; rm -rf *", "a", ("",)),
        ("cd a && pushd b; pushd c; popd; rm -rf *", "a/b", ("", "a")),
        ("popd; rm -rf *", None, ()),
        ("popd +1; rm -rf *", None, ()),
        # a directory named popd is not popd
        ("cd popd; rm -rf *", "popd", ("",)),
        # what follows `X || ...` runs where a failed X left the shell
        ("cd x || rm -rf *", "", ()),
        ("pushd x || rm -rf *", "", ()),
        ("builtin cd x || rm -rf *", "", ()),
        ("command cd x || rm -rf *", "", ()),
        ("pushd a; popd || rm -rf *", "a", ()),
        ("eval 'cd x' || rm -rf *", None, ()),
        # `return` ends the shell like `exit`
        ("cd x || return; rm -rf *", "x", ()),
        ("cd x || { echo no; return 1; }; rm -rf *", "x", ()),
    ],
)
def test_where_each_directory_change_leaves_the_shell(command, cwd, alts):
    inv = walked(command)["rm -rf *"]
    assert (inv.cwd, inv.alt_cwds) == (cwd, alts)


def test_a_subshell_that_exits_does_not_end_the_shell_after_a_failed_cd():
    inv = walked("cd x || (exit 1); rm -rf *")["rm -rf *"]
    assert inv.cwd is None or "" in inv.alt_cwds  # not surely in x: the cd may have failed


def test_six_alternatives_are_kept_and_a_seventh_is_read_as_unknown():
    six = walked("cd a; cd /b; cd c; cd /d; rm -rf *")["rm -rf *"].alt_cwds
    assert len(six) == 6 and None not in six
    seven = walked("cd /a; cd b; cd c; rm -rf *")["rm -rf *"].alt_cwds
    assert seven == ("b/c", "/a/c", "c", "/a/b", "b", "/a", None)


@pytest.mark.parametrize(
    ("command", "errexit"),
    [
        ("set -e", True),
        ("set -xe", True),
        ("set -e -o pipefail", True),
        ("set -o errexit -x", True),
        ("set -x", False),
        ("set -o pipefail", False),
        ("set -e; set +o errexit", False),
        ("set -e; set +xe", False),
        ("set -o errexit +o errexit", False),
        ("echo -e x", False),  # only `set` sets options
    ],
)
def test_set_e_in_its_forms(command, errexit):
    inv = walked(f"{command}; cd b; rm -rf *")["rm -rf *"]
    assert inv.alt_cwds == (() if errexit else ("",))


TOP = "/(the top of the worktree)"


@pytest.mark.parametrize(
    ("command", "cwd"),
    [
        ('cd "$(git rev-parse --show-toplevel)" && rm -rf *', TOP),
        ("cd $(git rev-parse --show-toplevel) && rm -rf *", TOP),
        ("cd `git rev-parse --show-toplevel` && rm -rf *", TOP),
        ('cd "$(git rev-parse --show-cdup)" && rm -rf *', TOP),
        # unquoted, an empty way up (at the top already) is a bare `cd`: home
        ("cd $(git rev-parse --show-cdup) && rm -rf *", None),
        ('cd "$(git rev-parse --show-toplevel)" && cd src && rm -rf *', f"{TOP}/src"),
        ('cd "$(git rev-parse --show-toplevel)" && cd .. && rm -rf *', f"{TOP}/.."),
        ('cd "$(git rev-parse --show-toplevel)" && cd a/../.. && rm -rf *', f"{TOP}/.."),
        ('cd "$(git rev-parse --show-toplevel)" && cd /x && rm -rf *', "/x"),
        (
            'cd "$(git rev-parse --show-toplevel)" && cd "$(git rev-parse --show-cdup)" && rm -rf *',
            TOP,
        ),
        ('cd "$(git rev-parse --show-toplevel)" && cd . && rm -rf *', TOP),
        ('cd "$(git rev-parse --show-toplevel)" && cd src && cd x && rm -rf *', f"{TOP}/src/x"),
        # from elsewhere, the top may be another worktree's (a nested repository)
        ('cd sub; cd "$(git rev-parse --show-toplevel)" && rm -rf *', None),
        ('cd sub && cd "$(git rev-parse --show-toplevel)" && rm -rf *', None),
        (
            'cd "$(git rev-parse --show-toplevel)" && cd sub && cd "$(git rev-parse --show-cdup)" && rm -rf *',
            None,
        ),
        # not the top: other options, other commands, more than the substitution
        ('cd "$(git rev-parse --show-prefix)" && rm -rf *', None),
        ('cd "$(git rev-parse --git-dir)" && rm -rf *', None),
        ('cd "$(git -C x rev-parse --show-toplevel)" && rm -rf *', None),
        ('cd "$(git rev-parse --show-toplevel 2>/dev/null)" && rm -rf *', None),
        ('cd "$(X=1 git rev-parse --show-toplevel)" && rm -rf *', None),
        ('cd "x$(git rev-parse --show-toplevel)/x" && rm -rf *', None),
        ('cd "x$(git rev-parse --show-toplevel)" && rm -rf *', None),
        ('cd "$(hg root)" && rm -rf *', None),
    ],
)
def test_a_cd_to_the_top_of_the_worktree_is_a_known_place(command, cwd):
    assert walked(command)["rm -rf *"].cwd == cwd


@pytest.mark.parametrize(
    ("command", "cwd"),
    [
        ('cd "$PWD" && rm -rf *', ""),
        ('cd "$(pwd)" && rm -rf *', ""),
        ("cd `pwd` && rm -rf *", ""),
        ("cd $(pwd -P) && rm -rf *", ""),
        ('cd "$(pwd -L)/src" && rm -rf *', "src"),
        ("cd ${PWD}/src && rm -rf *", "src"),
        ('cd "$PWD"/src/ && rm -rf *', "src"),
        ('cd "$PWD"//src && rm -rf *', "src"),
        ('cd "$PWD/src/.." && rm -rf *', ""),
        ('cd src && cd "$PWD" && rm -rf *', "src"),
        ('cd src && cd "$(pwd)/.." && rm -rf *', ""),
        ('cd src && cd "$(pwd)/../.." && rm -rf *', ".."),
        ('cd /opt/x && cd "$(pwd)/y" && rm -rf *', "/opt/x/y"),
        ('cd "$(git rev-parse --show-toplevel)" && cd "$(pwd)/src" && rm -rf *', f"{TOP}/src"),
        ('cd "$(git rev-parse --show-toplevel)" && cd "$PWD" && rm -rf *', TOP),
        ('cd "$(git rev-parse --show-toplevel)/x" && rm -rf *', f"{TOP}/x"),
        ('cd "$(git rev-parse --show-toplevel)/x/" && rm -rf *', f"{TOP}/x"),
        ('cd "$(git rev-parse --show-toplevel)/.." && rm -rf *', f"{TOP}/.."),
        ('cd "$(git rev-parse --show-cdup)src" && rm -rf *', f"{TOP}/src"),
        ("cd $(git rev-parse --show-cdup)src && rm -rf *", f"{TOP}/src"),
        ('pushd "$PWD/src" && rm -rf *', "src"),
        ('cd "$PWD/src" x && rm -rf *', "src"),  # the first operand, as for `cd src x`
        # one of several places, or an unknown one: unknown
        ('cd src; cd "$PWD" && rm -rf *', None),
        ('cd "$X" && cd "$(pwd)" && rm -rf *', None),
        ('cd "$(git rev-parse --show-cdup)/x" && rm -rf *', None),  # `/x` at the top
        # the line assigned PWD, or may have, or defined its own pwd or git
        ('PWD=/x; cd "$PWD" && rm -rf *', None),
        ('eval "$X"; cd "$PWD" && rm -rf *', None),
        ('pwd() { echo /; }; cd "$(pwd)" && rm -rf *', None),
        ('git() { echo /; }; cd "$(git rev-parse --show-toplevel)" && rm -rf *', None),
        # not the place: other commands, more words, a glob or an unknown rest
        ('cd "$(cd x && pwd)" && rm -rf *', None),
        ('cd "$(pwd; true)" && rm -rf *', None),
        ('cd "$(pwd -x)" && rm -rf *', None),
        ('cd "$(pwd 2>/dev/null)" && rm -rf *', None),
        ('cd "$(X=1 pwd)" && rm -rf *', None),
        ('cd "$(echo "$PWD")" && rm -rf *', None),
        ('cd "$(pwd)x" && rm -rf *', None),
        ('cd "$PWDX" && rm -rf *', None),
        ('cd "${PWD:-/}" && rm -rf *', None),
        ('cd "$PWD$X" && rm -rf *', None),
        ('cd "$(pwd)/$X" && rm -rf *', None),
        ('cd "$(pwd)"/* && rm -rf *', None),
        ('cd "$(pwd)$(pwd)" && rm -rf *', None),
        ('cd "$(pwd)"/"$(pwd)" && rm -rf *', None),
    ],
)
def test_a_word_naming_the_shells_own_place_is_that_place(command, cwd):
    """`$PWD`, `$(pwd)` and the top of the worktree, with a literal rest, are known places
    when the shell's directory is (issue: `cd "$PWD" && git checkout -- .` was unknown)."""
    assert walked(command)["rm -rf *"].cwd == cwd


@pytest.mark.parametrize(
    ("command", "cwd"),
    [
        ('env -C "$(pwd)/src" rm -rf *', "src"),
        ('cd src && env -C "$PWD/.." rm -rf *', ""),
        ('env -C "$X" env -C "$(pwd)" rm -rf *', ""),  # read where the shell is
        ('env -C "$X" rm -rf *', None),
        ('env -C "$(pwd)x" rm -rf *', None),
        ('sudo -D "$(git rev-parse --show-toplevel)" rm -rf *', TOP),
        # under another root, the host's place is no place there
        ('unshare -R /r -w "$(pwd)" rm -rf *', None),
        ('unshare -w "$(pwd)/src" rm -rf *', "src"),
        # the last of several: each value has its word, or the last has none (the target's)
        ('env -C "$X" -C "$(pwd)/src" rm -rf *', "src"),
        ('env -C "$(pwd)/src" -C "$X" rm -rf *', None),
        ("nsenter -w rm -rf *", None),  # the target process's directory
    ],
)
def test_a_wrappers_directory_naming_the_shells_own_place_is_that_place(command, cwd):
    assert walked(command)["rm -rf *"].cwd == cwd


@pytest.mark.parametrize(
    ("command", "cwd"),
    [
        ('cd "$(mktemp -d)" && rm -rf *', TEMP_CWD),
        ('cd "$(mktemp -d)" x && rm -rf *', TEMP_CWD),  # the first operand, as for `cd a x`
        ('cd "$X" && rm -rf *', None),
    ],
)
def test_a_cd_into_a_temp_dir_named_at_run_time_is_in_a_temp_dir(command, cwd):
    assert walked(command)["rm -rf *"].cwd == cwd


def test_a_cd_into_tmpdir_goes_where_the_checking_environment_says(monkeypatch):
    """`$TMPDIR` is not a temp dir by its name: it is what the environment holds (unset: the
    cd goes to `/work`), as engine.shellvars reads it."""
    monkeypatch.setenv("TMPDIR", "/tmp/scratch")
    assert walked('cd "$TMPDIR/work" && rm -rf *')["rm -rf *"].cwd == "/tmp/scratch/work"
    monkeypatch.delenv("TMPDIR")
    assert walked('cd "$TMPDIR/work" && rm -rf *')["rm -rf *"].cwd == "/work"


def places_of(command: str, text: str) -> list[tuple[str | None, tuple[str | None, ...]]]:
    return [(inv.cwd, inv.alt_cwds) for inv in walk(parse(command)) if inv.text == text]


@pytest.mark.parametrize(
    ("command", "places"),
    [
        # the body runs where the call is: walked there too (and once where it was defined)
        ("f() { rm -f a.py; }; cd src && f", [("", ()), ("src", ())]),
        ("f() { rm -f a.py; }; (cd src; f)", [("", ()), ("src", ("",))]),
        ("f() { rm -f a.py; }; cd src; f", [("", ()), ("src", ("",))]),
        ('f() { rm -f a.py; }; cd "$X" && f', [("", ()), (None, ())]),
        ("f() { rm -f a.py; }; cd src; f; f", [("", ()), ("src", ("",))]),  # once a place
        ("cd src && f() { rm -f a.py; }; cd .. && f", [("src", ()), ("", ("..",))]),
        # called where it was defined: walked once
        ("f() { rm -f a.py; }; f", [("", ())]),
        ("f() { rm -f a.py; }; g() { f; }; cd src && g", [("", ()), ("src", ())]),
        ("f() { f; rm -f a.py; }; cd src && f", [("", ()), ("src", ())]),  # recursion: once
    ],
)
def test_a_function_called_elsewhere_runs_its_body_where_it_is_called(command, places):
    assert places_of(command, "rm -f a.py") == places


def test_a_function_body_walked_at_its_call_inherits_the_calls_redirects():
    """`f > log`: the call's redirect encloses every command of the body (none is its own)."""
    [_, called] = [
        i for i in walk(parse("f() { echo x; }; cd src && f > log")) if i.text == "echo x"
    ]
    assert called.cwd == "src"
    assert [r.target.literal() for r in called.redirects if r.target] == ["log"]
    assert called.own_redirects == 0


def test_a_function_calling_itself_from_ever_new_places_is_walked_once_per_call_chain():
    """`f() { cd sub; f; }`: each recursive call is at a new place; the body is not walked
    again while it is being walked for a call (no endless recursion)."""
    found = places_of("f() { cd sub && f; rm -f a.py; }; cd src && f", "rm -f a.py")
    assert len(found) == 2  # where it was defined, and the call from src
    cwd, alts = found[1]
    assert "src" in (cwd, *alts)


def test_each_new_place_a_function_is_called_from_walks_its_body_there():
    command = "f() { rm -f a.py; }; cd src && f; cd /tmp/x && f"
    assert [cwd for cwd, _ in places_of(command, "rm -f a.py")] == ["", "src", "/tmp/x"]
