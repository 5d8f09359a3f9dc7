"""interlock.engine.unwrap: the option reader, the shell-flag reader and the helpers every
wrapper and spawner builds its Unwrap with (wrappers.py, spawners.py)."""

from __future__ import annotations

import dataclasses

import pytest

from interlock.engine.unwrap import (
    KEEP,
    STDIN_SHELLS,
    Options,
    OptSpec,
    Script,
    Unwrap,
    _shifted,
    assignments_at,
    command_name,
    could_be_option,
    exec_after,
    exec_at,
    is_one_word,
    join_script,
    lit,
    parse_options,
    program_name,
    script_from,
    shell_script,
    strip_version,
    template,
)
from interlock.shell.model import SimpleCommand, Word
from interlock.shell.parse import parse


def ws(text: str) -> tuple[Word, ...]:
    root = parse(text).root
    assert isinstance(root, SimpleCommand), text
    return root.words


def texts(words: tuple[Word, ...]) -> list[str]:
    return [w.text for w in words]


# -- OptSpec and Options -------------------------------------------------------------------
def test_a_unique_abbreviation_of_a_long_option_resolves_only_when_the_set_is_known():
    known = OptSpec("s", long=("timeout", "signal"), flags=("verbose", "version"))
    assert known.resolve("time") == "timeout"  # a value option
    assert known.resolve("verb") == "verbose"  # a flag
    assert known.resolve("ver") == "ver"  # ambiguous: verbose, version
    assert known.resolve("timeout") == "timeout"
    assert known.resolve("nothing") == "nothing"
    assert OptSpec("s", long=("timeout",)).resolve("time") == "time"  # the set is not known
    assert OptSpec("s", long=("timeout",)).flags is None
    assert known.flags == frozenset(("verbose", "version"))


def test_options_read_the_last_value_word_or_directory_of_the_names_asked():
    u1, u2, d = Word("a", "a"), Word("$U", None), Word("$D", None)
    opts = Options(
        (("-u", "a"), ("-E", None), ("-u", None), ("-C", None)),
        (("-u", u1), ("-u", u2), ("-C", d)),
    )
    assert opts.has("-E") and opts.has("-x", "-u") and not opts.has("-x")
    assert Options((("-u", "a"), ("-E", None))).value("-u") == "a"
    assert Options((("-u", "a"), ("-u", "b"), ("-E", None))).value("-u", "--user") == "b"
    assert opts.value("-z") is None
    assert opts.word("-u") is u2 and opts.word("-C") is d and opts.word("-z") is None
    assert Options((("-C", "x"), ("-C", "y"), ("-E", None))).directory("-C") == "y"
    assert opts.directory("-C") is None  # known only at run time
    assert opts.directory("-z") == KEEP
    merged = Options((("-a", None),), (("-a", u1),)).merged(Options((("-b", "x"),), (("-b", d),)))
    assert merged == Options((("-a", None), ("-b", "x")), (("-a", u1), ("-b", d)))
    assert lit(u1) == "a" and lit(u2) is None


def test_the_building_blocks_are_immutable_and_plain_by_default():
    script = Script("git gc", "bash -c")
    assert (script.degraded, script.same_shell, script.errexit, script.pipefail) == (False,) * 4
    assert script.args is None
    found = Unwrap("exec", "nohup")
    assert (found.extra_args, found.arg_file, found.clears_env) == (False, False, False)
    assert found.cwd == KEEP and found.masks is None and found.alternatives == ()
    for value in (script, found, Options(())):
        hash(value)
        with pytest.raises(dataclasses.FrozenInstanceError):
            value.via = "x"  # type: ignore[misc,union-attr]


def test_every_shell_reads_a_script_from_its_stdin():
    assert {"bash", "sh", "zsh", "dash", "fish", "tcsh", "nu"} <= STDIN_SHELLS


# -- parse_options -------------------------------------------------------------------------
SPEC = OptSpec("uC", long=("user", "chdir"), attached="i")
ABBREV = OptSpec("u", long=("user",), flags=("preserve-env",))


@pytest.mark.parametrize(
    ("text", "items", "index"),
    [
        ("x -u root -E git push", [("-u", "root"), ("-E", None)], 4),
        ("x -Eu root git", [("-E", None), ("-u", "root")], 3),
        ("x -uroot git", [("-u", "root")], 2),
        ("x -E -- -u y", [("-E", None)], 3),
        ("x -E", [("-E", None)], 2),
        ("x - y", [], 1),
        ("x $A -E", [], 1),
        ("x git -E", [], 1),
        ("x --user=bob git", [("--user", "bob")], 2),
        ("x --user bob git", [("--user", "bob")], 3),
        ("x --preserve-env git", [("--preserve-env", None)], 2),
        ("x --us bob git", [("--us", None)], 2),  # the set is not known: a flag
        ("x -i{} git", [("-i", "{}")], 2),
        ("x -iE git", [("-i", "E")], 2),
        ("x -i git", [("-i", None)], 2),  # alone, an attached-only letter is a flag
        ("x -Ei git", [("-E", None), ("-i", None)], 2),
        ("x -u $U git", [("-u", None)], 3),
        ("x --user bob", [("--user", "bob")], 3),  # the value is the last word
        ("x -u root", [("-u", "root")], 3),
    ],
)
def test_options_are_read_as_getopt_reads_them(text, items, index):
    parsed = parse_options(ws(text), 1, SPEC)
    assert parsed is not None
    assert list(parsed[0].items) == items
    assert parsed[1] == index


def test_an_option_value_keeps_its_word_literal_or_not():
    words = ws("x -u $U -C dir --chdir=sub -E git")
    parsed = parse_options(words, 1, SPEC)
    assert parsed is not None
    opts, index = parsed
    assert index == 7
    assert [(name, w.text) for name, w in opts.words] == [
        ("-u", "$U"),
        ("-C", "dir"),
        ("--chdir", "sub"),
    ]
    assert opts.words[0][1] is words[2] and opts.words[1][1] is words[4]
    assert opts.directory("-C", "--chdir") == "sub"


def test_a_long_option_abbreviation_is_read_as_its_option_when_the_set_is_known():
    parsed = parse_options(ws("x --us bob --pres git"), 1, ABBREV)
    assert parsed is not None
    assert list(parsed[0].items) == [("--user", "bob"), ("--preserve-env", None)]
    assert parsed[1] == 4


@pytest.mark.parametrize("text", ["x -u", "x --user", "x -E -u", "x -Eu"])
def test_an_option_without_its_value_is_a_malformed_line(text):
    assert parse_options(ws(text), 1, SPEC) is None


# -- names ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("value", "name"),
    [
        ("/usr/bin/git", "git"),
        ("git", "git"),
        ("GIT", "git"),
        ("Git.EXE", "git"),
        ("C:\\Program Files\\Git\\bin\\git.exe", "git"),
        ("a\\b", "b"),
        ("/usr/bin/python3", "python3"),
        ("rm.cmd", "rm"),
        ("a.exe", "a"),
        (".exe", ".exe"),
        ("/opt/x/.bat", ".bat"),
    ],
)
def test_a_program_name_is_compared_folded(value, name):
    assert program_name(value) == name


def test_a_command_word_names_a_program_only_when_literal():
    assert command_name(Word("/bin/RM", "/bin/RM")) == "rm"
    assert command_name(Word("$X", None)) is None


@pytest.mark.parametrize(
    ("package", "name"),
    [
        ("eslint@8", "eslint"),
        ("@scope/pkg@1.2", "@scope/pkg"),
        ("@scope/pkg", "@scope/pkg"),
        ("a@1", "a"),
        ("eslint", "eslint"),
    ],
)
def test_a_package_version_is_stripped(package, name):
    assert strip_version(package) == name


# -- shell_script --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("bash -c 'git gc'", (2, False, False, "c")),
        ("bash x.sh", (1, False, False, "file")),
        ("bash", (1, False, False, "stdin")),
        ("bash -s a", (2, False, False, "stdin")),
        ("bash -e -o pipefail x.sh", (4, True, True, "file")),
        ("bash -eo pipefail -c cmd", (4, True, True, "c")),
        ("bash -o errexit x.sh", (3, True, False, "file")),
        ("bash -O pipefail x.sh", (3, False, True, "file")),
        ("bash -e +e x.sh", (3, False, False, "file")),
        ("bash +o pipefail -e x.sh", (4, True, False, "file")),
        ("bash -ce 'git gc'", (2, True, False, "c")),
        ("bash --norc x.sh", (2, False, False, "file")),
        ("bash --rcfile f x.sh", (3, False, False, "file")),
        ("bash --init-file f x.sh", (3, False, False, "file")),
        ("bash -- -e", (2, False, False, "file")),
        ("bash - -e", (2, False, False, "file")),
        ("bash -", (2, False, False, "stdin")),
        ("bash $X -e", (1, False, False, "file")),
        ("bash + x", (1, False, False, "file")),
        ("bash -o", (3, False, False, "stdin")),
        # -n (noexec): the shell reads its code and runs none of it
        ("bash -n x.sh", None),
        ("bash -en -c 'git gc'", None),
        ("bash -o noexec x.sh", None),
        ("bash -n +n x.sh", (3, False, False, "file")),
        ("bash +o noexec -c cmd", (4, False, False, "c")),
    ],
)
def test_shell_flags_and_where_the_code_comes_from_are_read(text, expected):
    assert shell_script(ws(text)) == expected


# -- exec_at, exec_after -------------------------------------------------------------------
TIMEOUT = OptSpec("ks", long=("kill-after", "signal"))


def test_a_wrapper_hands_over_to_the_words_that_follow_or_runs_alone():
    words = ws("nohup git gc")
    found = exec_at("nohup", words, 1, extra_args=True)
    assert found is not None
    assert (found.kind, found.via, texts(found.rest), found.extra_args) == (
        "exec",
        "nohup",
        ["git", "gc"],
        True,
    )
    assert exec_at("nohup", words, 3) is None
    assert exec_at("nohup", words, 2) is not None


def rest_and_alternatives(text: str, i: int = 1, **kw: object) -> tuple[list[str], list[list[str]]]:
    found = exec_after("timeout", ws(text), i, TIMEOUT, **kw)  # type: ignore[arg-type]
    assert found is not None, text
    return texts(found.rest), [texts(other) for other in found.alternatives]


def test_a_literal_operand_is_the_operand():
    assert rest_and_alternatives("timeout 5 git push") == (["git", "push"], [])
    assert rest_and_alternatives("timeout -5 git push") == (["git", "push"], [])


def test_an_unquoted_run_time_operand_may_be_the_command():
    assert rest_and_alternatives("timeout $T git push") == (["$T", "git", "push"], [])
    assert rest_and_alternatives("timeout $(f) git") == (["$(f)", "git"], [])


def test_a_quoted_run_time_operand_may_be_an_option_and_each_reading_is_kept():
    rest, others = rest_and_alternatives('timeout "$T" 5 git push')
    assert rest == ["5", "git", "push"]
    assert others == [["git", "push"], ["push"]]  # a flag; an option taking `5` as its value
    # a word the operand cannot be is not read as the operand
    digits = rest_and_alternatives('timeout "$T" 5 git push', accepts=lambda v: v[0].isdigit())
    assert digits == (["5", "git", "push"], [["git", "push"]])
    # an operand known only at run time is not asked about
    unknown = rest_and_alternatives('timeout "$T" "$N" git', accepts=lambda v: v.isdigit())
    assert unknown == (['"$N"', "git"], [["git"]])


def test_no_program_is_named_like_an_option_and_a_reading_is_kept_once():
    assert rest_and_alternatives('timeout "$T" 5 -v git') == (["5", "-v", "git"], [])
    assert rest_and_alternatives('timeout "$T" -v -v 5 git') == (
        ["-v", "-v", "5", "git"],
        [["git"]],
    )
    assert rest_and_alternatives('timeout "$T" 5') == (["5"], [])
    assert rest_and_alternatives('timeout "$T" -s') == (["-s"], [])


def test_a_quoted_operand_with_nothing_after_it_runs_nothing():
    assert exec_after("flock", ws('flock -n "$FD"'), 2, TIMEOUT) is None
    assert exec_after("timeout", ws("timeout"), 1, TIMEOUT) is None
    assert exec_after("timeout", ws("timeout 5"), 1, TIMEOUT) is None


def test_the_other_readings_of_a_quoted_operand():
    words = ws('timeout "$T" -s KILL 5 git')
    assert [texts(r) for r in _shifted(words, 1, TIMEOUT, lambda v: True)] == [
        ["git"],  # "$T" a flag, -s KILL, the duration 5
        ["5", "git"],  # "$T" takes -s as its value, KILL the duration
    ]
    assert _shifted(ws('timeout "$T" git'), 1, TIMEOUT, lambda v: True) == ()


# -- words ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "one", "option"),
    [
        ('"$X"', True, True),
        ("$X", False, True),
        ("$(f)", False, True),
        ("`f`", False, True),
        ("${X}", False, True),
        ('"${X}"y', False, True),
        ('"$X""$Y"', False, True),
        ('"$X"$Y', False, True),
        ("a$X", False, False),
        ('"-$X"', True, False),
        ("-x", True, False),
        ("abc", True, False),
        ('$X\\"', False, True),  # ends with a quote, but $X is split
        ('"$X\\""', False, True),  # an escaped quote inside: not read as one word
        ('"`f`"', True, True),
    ],
)
def test_a_run_time_word_may_be_one_word_and_may_be_an_option(text, one, option):
    word = ws("x " + text)[1]
    assert is_one_word(word) is one
    assert could_be_option(word) is option


def test_a_lone_quote_character_is_not_a_quoted_word():
    assert not is_one_word(Word('"', None))


def test_the_template_keeps_expansions_and_drops_quotes():
    assert template(ws('x "-$X"y')[1]) == "-$Xy"
    assert template(ws("x a'b'c")[1]) == "abc"


@pytest.mark.parametrize(
    ("text", "names", "index"),
    [
        ("env A=1 B=$X C+=2 git", ["A=1", "B=$X", "C+=2"], 4),
        ("env A=1", ["A=1"], 2),
        ("env $N=1 git", [], 1),
        ("env A$N=1 git", [], 1),
        ("env 1A=1 git", [], 1),
        ("env git A=1", [], 1),
        ("env =$X git", [], 1),
        ("env A=$X", ["A=$X"], 2),
    ],
)
def test_assignments_before_the_command_are_read(text, names, index):
    found, i = assignments_at(ws(text), 1)
    assert texts(found) == names
    assert i == index


# -- trampolines ---------------------------------------------------------------------------
def test_a_literal_trampoline_word_is_its_script_a_run_time_one_is_degraded():
    found = script_from(Word("git gc", "git gc"), "bash -c", errexit=True)
    assert found == Unwrap(
        "script", "bash -c", scripts=(Script("git gc", "bash -c", errexit=True),)
    )
    unknown = script_from(ws('x "rm $X"')[1], "bash -c", same_shell=True)
    assert unknown.kind == "script"
    assert unknown.scripts == (Script("rm $X", "bash -c", degraded=True, same_shell=True),)


def test_joined_trampoline_words_are_one_script_degraded_when_one_is_not_literal():
    found = join_script(ws("eval git 'reset --hard'")[1:], "eval", same_shell=True)
    assert found.scripts == (Script("git reset --hard", "eval", same_shell=True),)
    mixed = join_script(ws("eval git $X 'a b'")[1:], "eval")
    assert mixed.kind == "script"
    assert mixed.scripts == (Script("git $X a b", "eval", degraded=True),)
