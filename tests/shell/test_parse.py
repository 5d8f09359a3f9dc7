"""interlock.shell.model.parse: words, structure, bashlex gaps, the fallback, odd input."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interlock.shell.model import CommandList, Compound, Node, Pipeline, SimpleCommand, Word
from interlock.shell.parse import MAX_DEPTH, parse


def first_command(text: str) -> SimpleCommand:
    """The parsed line when it is one simple command, else its first simple command."""
    root = parse(text).root
    if isinstance(root, SimpleCommand):
        return root
    found = simple_commands(root)
    assert found, f"no simple command in {text!r}"
    return found[0]


def simple_commands(node: Node | None) -> list[SimpleCommand]:
    out: list[SimpleCommand] = []
    if node is None:
        return out
    if isinstance(node, SimpleCommand):
        for word in node.assignments + node.words:
            for sub in word.substitutions:
                out.extend(simple_commands(sub))
        for redirect in node.redirects:
            for sub in redirect.substitutions + (
                redirect.target.substitutions if redirect.target else ()
            ):
                out.extend(simple_commands(sub))
        out.append(node)
    elif isinstance(node, Pipeline):
        for command in node.commands:
            out.extend(simple_commands(command))
    elif isinstance(node, CommandList):
        for item in node.items:
            out.extend(simple_commands(item))
    else:
        for word in node.words:
            for sub in word.substitutions:
                out.extend(simple_commands(sub))
        for part in node.parts:
            out.extend(simple_commands(part))
    return out


def argvs(text: str) -> list[list[str | None]]:
    return [[w.literal() for w in c.words] for c in simple_commands(parse(text).root)]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("plain", "plain"),
        ("'a b'", "a b"),
        ('"x"y', "xy"),
        ("\\g", "g"),
        ("a\\ b", "a b"),
        ("'$X'", "$X"),
        ('"\\$x"', "$x"),
        ('"a\\"b"', 'a"b'),
        ('"a\\qb"', "a\\qb"),
        ("$'a\\nb'", "a\nb"),
        ("$'\\x41\\101\\u00e9'", "AAé"),
        ("$'it\\'s'", "it's"),
        ('$"loc"', "loc"),
        ("$", "$"),
        ("a$", "a$"),
        ("HEAD~1", "HEAD~1"),
        ("stash@{0}", "stash@{0}"),
        ("{}", "{}"),
        ("--opt=value", "--opt=value"),
        ("x=~", None),
        ("$X", None),
        ("${X}", None),
        ('"$X"', None),
        ("pre$X", None),
        ("$(ls)", None),
        ("`ls`", None),
        ("$((1+2))", None),
        ("$[1+2]", None),
        ("<(ls)", None),
        ("~/x", None),
        ("~", None),
        ("{a,b}", None),
        ("{1..3}", None),
        ("$1", None),
        ("$@", None),
    ],
)
def test_word_value_is_the_literal_after_quote_removal_or_none_when_it_expands(text, value):
    word = first_command(f"cmd {text}").words[1]
    assert word.text == text
    assert word.literal() == value


@pytest.mark.parametrize(
    ("text", "glob"),
    [
        ("*.py", True),
        ("a?b", True),
        ("[ab]", True),
        ("'*.py'", False),
        ('"x*"', False),
        ("\\*", False),
        ("plain", False),
        ("!(x)", True),
    ],
)
def test_has_glob_is_set_for_unquoted_glob_characters(text, glob):
    assert first_command(f"ls {text}").words[1].has_glob is glob


def test_list_keeps_operators_in_order_and_flat():
    root = parse("a && b || c; d & e").root
    assert isinstance(root, CommandList)
    assert [w.literal() for item in root.items for w in item.words] == list("abcde")
    assert root.ops == ("&&", "||", ";", "&", "")


def test_newlines_separate_commands_like_semicolons():
    root = parse("a\nb\n\nc").root
    assert isinstance(root, CommandList)
    assert root.ops == (";", ";", "")


def test_pipeline_records_negation_and_stderr_pipes():
    root = parse("! a | b |& c").root
    assert isinstance(root, Pipeline)
    assert root.negated
    assert root.stderr_pipes == (False, True)
    assert len(root.commands) == 3


def test_assignments_before_the_name_are_separate_from_words():
    cmd = first_command("FOO=1 BAR='x y' git push")
    assert [a.literal() for a in cmd.assignments] == ["FOO=1", "BAR=x y"]
    assert [w.literal() for w in cmd.words] == ["git", "push"]


def test_assignment_from_a_command_substitution_holds_the_parsed_command():
    cmd = parse("x=$(git rev-parse HEAD)").root
    assert isinstance(cmd, SimpleCommand)
    assert cmd.words == ()
    (sub,) = cmd.assignments[0].substitutions
    assert isinstance(sub, SimpleCommand)
    assert [w.literal() for w in sub.words] == ["git", "rev-parse", "HEAD"]


@pytest.mark.parametrize(
    ("text", "op", "fd", "target"),
    [
        ("cmd > out", ">", None, "out"),
        ("cmd >> out", ">>", None, "out"),
        ("cmd 2>&1", ">&", 2, "1"),
        ("cmd < in", "<", None, "in"),
        ("cmd 2> err", ">", 2, "err"),
        ("cmd &> all", "&>", None, "all"),
        ("cmd <<< 'hi there'", "<<<", None, "hi there"),
    ],
)
def test_redirects_keep_operator_fd_and_target(text, op, fd, target):
    redirect = first_command(text).redirects[0]
    assert (redirect.op, redirect.fd, redirect.target and redirect.target.literal()) == (
        op,
        fd,
        target,
    )


@pytest.mark.parametrize(
    ("text", "quoted", "body"),
    [
        ("cat <<'EOF'\nrm $(x)\nEOF", True, "rm $(x)\n"),
        ('cat <<"EOF"\nhello\nEOF', True, "hello\n"),
        ("cat <<E\\OF\nhello\nEOF", True, "hello\n"),
        ("cat <<-'EOF'\n\thello\n\tEOF", True, "\thello\n"),
        ("cat <<EOF\nhello\nEOF", False, "hello\n"),
        ("cat << EOF\nhello\nEOF", False, "hello\n"),
    ],
)
def test_heredoc_bodies_are_kept_whatever_the_delimiter_quoting(text, quoted, body):
    result = parse(text)
    assert result.status == "ok"
    redirect = first_command(text).redirects[0]
    assert redirect.heredoc == body
    assert redirect.heredoc_quoted is quoted
    assert redirect.target is not None and redirect.target.literal() == "EOF"


def test_commands_after_a_quoted_heredoc_are_still_seen():
    text = "cat <<'EOF' > f && git push -f\nbody $(not run)\nEOF\nrm -rf build"
    assert argvs(text) == [["cat"], ["git", "push", "-f"], ["rm", "-rf", "build"]]


def test_unquoted_heredoc_body_substitutions_are_parsed():
    text = "cat <<EOF\nnow $(rm -rf x) and `id`\nEOF"
    redirect = first_command(text).redirects[0]
    subs = [[w.literal() for w in s.words] for s in redirect.substitutions]
    assert subs == [["rm", "-rf", "x"], ["id"]]


def test_quoted_heredoc_body_substitutions_do_not_run():
    assert parse("cat <<'EOF'\n$(rm -rf x)\nEOF").root is not None
    assert argvs("cat <<'EOF'\n$(rm -rf x)\nEOF") == [["cat"]]


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("[[ -f x && -n $y ]]", "cond"),
        ("(( i++ ))", "arith"),
        ("case $x in a|b) rm x;; *) ls;; esac", "case"),
        ("if a; then b; fi", "if"),
        ("while a; do b; done", "while"),
        ("until a; do b; done", "until"),
        ("for x in 1 2; do echo $x; done", "for"),
        ("for ((i=0; i<3; i++)); do echo; done", "for"),
        ("select x in a b; do echo; done", "select"),
        ("( a; b )", "subshell"),
        ("{ a; b; }", "group"),
        ("f() { a; }", "function"),
        ("function f { a; }", "function"),
        ("function f() ( a )", "function"),
    ],
)
def test_compound_commands_have_their_kind(text, kind):
    root = parse(text).root
    assert isinstance(root, Compound)
    assert root.kind == kind


def test_if_parts_are_conditions_and_bodies_in_order():
    root = parse("if a; then b; elif c; then d; else e; fi").root
    assert isinstance(root, Compound)
    assert [p.words[0].literal() for p in root.parts] == list("abcde")
    assert root.has_else


def test_case_items_and_words_are_kept():
    root = parse("case $x in a|b) rm x;; *) ls;; esac").root
    assert isinstance(root, Compound)
    assert [[w.literal() for w in p.words] for p in root.parts] == [["rm", "x"], ["ls"]]
    assert [w.literal() for w in root.words] == [None, "a", "b", "*"]


def test_cond_words_keep_their_substitutions():
    root = parse("[[ -z $(git status --porcelain) ]] && echo clean").root
    assert isinstance(root, CommandList)
    assert argvs("[[ -z $(git status --porcelain) ]] && echo clean") == [
        ["git", "status", "--porcelain"],
        ["echo", "clean"],
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("time git status", [["git", "status"]]),
        ("time -p git status | wc", [["git", "status"], ["wc"]]),
        ("arr=(1 $(id) 3) git log", [["id"], ["git", "log"]]),
        ("echo ${a[@]} ${#a[@]}", [["echo", None, None]]),
        ("nl -ba file \\", [["nl", "-ba", "file", "\\"]]),
        ("echo a \\\nb", [["echo", "a", "b"]]),
        ("coproc cat file", [["cat", "file"]]),
        ("echo $(( $(id -u) + 1 ))", [["id", "-u"], ["echo", None]]),
        ("echo ${X:-$(rm -rf a)}", [["rm", "-rf", "a"], ["echo", None]]),
        ("echo a # rm -rf /", [["echo", "a"]]),
        ("wc --files0-from=<(git ls-files -z)", [["git", "ls-files", "-z"], ["wc", None]]),
    ],
)
def test_constructs_bashlex_misses_still_yield_every_command(text, expected):
    result = parse(text)
    assert result.status in ("ok", "degraded")
    assert argvs(text) == expected


def test_substitutions_inside_single_quotes_are_not_commands():
    assert argvs("echo '$(rm -rf x)' \"$(id)\"") == [["id"], ["echo", "$(rm -rf x)", None]]


def test_crlf_line_endings_do_not_stick_to_words():
    assert argvs("git status\r\ngit log\r\n") == [["git", "status"], ["git", "log"]]


@pytest.mark.parametrize(
    "text",
    [
        "echo $(cd $(dirname x) && pwd)/$(basename y)",
        "sort <(cd a && find .) <(cd b && find .)",
        "ls !(*.py)",
    ],
)
def test_valid_lines_bashlex_rejects_are_read_exactly(text):
    assert parse(text).status == "ok"
    assert all(c.words for c in simple_commands(parse(text).root))


@pytest.mark.parametrize(
    "text",
    [
        "find . ( -name a -o -name b ) -exec rm {} \\;",
        "du -s <file>",
        "for i in `find .`; do bzip2 $i&; done",
        "echo a )",
    ],
)
def test_invalid_syntax_falls_back_to_a_degraded_reading(text):
    result = parse(text)
    assert result.status == "degraded"
    assert result.error
    assert result.root is not None


def test_fallback_keeps_parentheses_inside_a_simple_command_as_words():
    assert argvs("find . ( -name a ) -delete") == [["find", ".", "(", "-name", "a", ")", "-delete"]]


def test_unclosed_quote_is_unparsed_and_incomplete_with_column_and_a_conservative_reading():
    result = parse('git add . && git commit -m "fix')
    assert result.incomplete
    assert result.status == "unparsed"
    assert result.column == 27
    assert "unclosed" in (result.error or "")
    assert argvs('git add . && git commit -m "fix') == [
        ["git", "add", "."],
        ["git", "commit", "-m", "fix"],
    ]


@pytest.mark.parametrize(
    ("text", "missing"),
    [
        ("if a; then b", "`fi`"),
        ("for i in 1; do x", "`done`"),
        ("case x in a) b;;", "`esac`"),
        ("(a", "`)`"),
        ("{ a;", "`}`"),
        ("a &&", "a command after `&&`"),
        ("a |", "a command after `|`"),
        ("echo $(if a; then b)", "`fi`"),
        ("echo `", "unclosed"),
        ("echo ${x", "unclosed"),
        ("echo $(ls", "unclosed"),
    ],
)
def test_text_bash_would_wait_for_more_of_is_unparsed_and_incomplete(text, missing):
    result = parse(text)
    assert (result.status, result.incomplete) == ("unparsed", True)
    assert missing in (result.error or "")
    assert result.root is not None


def test_incomplete_line_keeps_the_complete_commands_before_it():
    assert argvs("git reset --hard\necho 'oops") == [["git", "reset", "--hard"], ["echo", "oops"]]


@pytest.mark.parametrize(
    "text", ["echo '${'", "a${b", "'${;x))$'\\c |", "(x `${'f]\r}` )", "{ `${'a b}`; }"]
)
def test_text_that_would_hang_bashlex_is_read_quickly(text):
    started = time.monotonic()
    result = parse(text)
    assert time.monotonic() - started < 1.0
    assert result.root is not None


def test_deep_nesting_beyond_the_cap_is_unparsed_not_a_crash():
    text = "$(" * (MAX_DEPTH + 5) + "rm -rf /" + ")" * (MAX_DEPTH + 5)
    result = parse(text)
    assert result.status == "unparsed"
    assert result.root is None
    assert result.error


def test_moderate_nesting_is_read_to_the_bottom():
    text = "echo " + "$(echo " * 10 + "$(rm -rf x)" + ")" * 10
    assert argvs(text)[0] == ["rm", "-rf", "x"]


@pytest.mark.parametrize(
    "text",
    ["", "   ", "# only a comment", "\n\n"],
)
def test_empty_text_is_ok_with_no_root(text):
    result = parse(text)
    assert (result.status, result.root) == ("ok", None)


@pytest.mark.parametrize(
    "text",
    [
        "a\x00b",
        "\x00" * 100,
        "échô 'ünïcødé' ✓ 🎉",
        "git status; " * 5000,
        "x" * 100_000,
        '"' + "a" * 100_000,
        "(" * 300 + "a" + ")" * 300,
        "`" * 51,
        "cat <<EOF\n" + "line $(id)\n" * 2000 + "EOF",
    ],
)
def test_odd_and_huge_input_never_raises(text):
    result = parse(text)
    assert result.status in ("ok", "degraded", "unparsed")


def test_words_of_the_same_line_are_equal_across_parses():
    assert parse("git push -f origin main") == parse("git push -f origin main")
    assert isinstance(first_command("git push").words[0], Word)


SHELLISH = st.lists(
    st.sampled_from(
        list("ab $()`'\"\\;&|<>{}[]!#~*?=\n\t-0é\r\x00")
        + [
            "if ",
            "then ",
            "fi",
            "do ",
            "done",
            "case ",
            " in ",
            "esac",
            "<<",
            "<<-",
            "EOF",
            "$((",
            "))",
            "[[",
            "]]",
            "time ",
            "${",
        ]
    ),
    max_size=40,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(SHELLISH)
def test_parse_never_raises_on_shellish_text(text):
    result = parse(text)
    assert result.source == text
    assert (result.root is None) or result.status in ("ok", "degraded") or result.incomplete


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=200))
def test_parse_never_raises_on_arbitrary_text(text):
    parse(text)


CONSISTENCY = [
    "git status",
    "FOO=1 git push -f origin main 2>&1 | tee log",
    "a && b || c; d & e",
    'echo "$(git rev-parse HEAD)" `date` <(ls) > out',
    "cat <<'EOF' | sh\nrm -rf x\nEOF\necho done",
    "cat <<EOF > f\n$(id)\nEOF",
    "x=$(cmd) y='a b' z=\"$w\"",
    "echo $'a\\tb' ~/x {a,b} *.py \\g",
    "git log --format='%H %s' -n 5 >> log.txt",
    "cd sub\ngit status\n",
]


@pytest.mark.parametrize("text", CONSISTENCY)
def test_fast_path_and_bashlex_read_plain_lines_the_same(text, monkeypatch):
    import interlock.shell.fallback

    fast = parse(text)
    monkeypatch.setattr(interlock.shell.fallback, "is_plain", lambda tokens: False)
    slow = parse(text)
    assert (fast.status, slow.status) == ("ok", "ok")
    assert simple_commands(fast.root) == simple_commands(slow.root)


@pytest.mark.slow
@settings(max_examples=5000, deadline=None)
@given(SHELLISH)
def test_parse_never_raises_on_shellish_text_long_run(text):
    parse(text)


def test_a_non_ascii_digit_before_a_redirection_is_part_of_a_word():
    # found by hypothesis: `¹`.isdigit() is True, but a redirection's fd is ASCII digits
    result = parse("¹<")
    assert result.root is not None
