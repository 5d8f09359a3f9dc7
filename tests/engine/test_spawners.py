"""interlock.engine.spawners: the commands xargs, find -exec, parallel and git's own runners
(rebase -x, submodule foreach, bisect run) start, and where their arguments come from.

End to end through `evaluate` in a real repository whose src/ holds uncommitted work and
whose build/ is ignored; the walk pins the details."""

from __future__ import annotations

import pytest

from interlock.engine.check import evaluate
from interlock.engine.invocation import Invocation
from interlock.engine.spawners import RUNTIME_ARG, with_placeholders
from interlock.engine.walk import walk
from interlock.shell.model import Word
from interlock.shell.parse import parse


@pytest.fixture
def repo(repo_with_work):
    return repo_with_work


def judge(repo, command: str) -> tuple[str, set[str]]:
    result = evaluate(command, str(repo), mode="blocking").result
    return result.verdict, {f.kind for f in result.findings}


def invocations(text: str) -> list[Invocation]:
    return walk(parse(text))


def argvs(text: str) -> list[list[str | None]]:
    return [inv.literals() for inv in invocations(text)]


# -- the walk ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "argv"),
    [
        ("xargs -iF rm -r F", ["rm", "-r", None]),
        ("xargs -i rm -r {}", ["rm", "-r", None]),
        ("xargs -i rm -r F", ["rm", "-r", "F"]),
        ("xargs -IF rm -r F", ["rm", "-r", None]),
        ("xargs -I F rm -r F", ["rm", "-r", None]),
        ("xargs --replace=F rm -r F", ["rm", "-r", None]),
        ("xargs --replace rm -r {}", ["rm", "-r", None]),
        ("xargs --repl=F rm -r F", ["rm", "-r", None]),
        ("xargs -0iF rm -r F", ["rm", "-r", None]),
        ("xargs -l rm", ["rm"]),
        ("xargs -l5 rm", ["rm"]),
        ("xargs -e rm", ["rm"]),
        ("xargs -eEOF rm", ["rm"]),
        ("xargs -E EOF rm", ["rm"]),
        ("xargs --eof=x rm", ["rm"]),
        ("xargs --max-lines=2 rm", ["rm"]),
        ("xargs --arg-file list rm", ["rm"]),
        ("xargs --arg list rm", ["rm"]),
        ("xargs -P4 -n1 rm", ["rm"]),
    ],
)
def test_xargs_reads_its_options_as_gnu_xargs_does(text, argv):
    (inv,) = invocations(text)
    assert inv.literals() == argv
    assert inv.extra_args
    assert inv.via == ("xargs",)


@pytest.mark.parametrize("text", ["xargs", "xargs -0", "xargs -n", "xargs -iF"])
def test_xargs_with_nothing_to_run_is_itself_the_command(text):
    (inv,) = invocations(text)
    assert inv.name == "xargs"
    assert inv.via == ()


def test_placeholders_become_run_time_arguments_but_not_a_nested_xargs_replace_string():
    words = (Word("{}", "{}"), Word("a{}b", "a{}b"), Word("$X", None), Word("-I{}", "-I{}"))
    out = with_placeholders(words, ("{}",))
    assert [w.literal() for w in out] == [None, None, None, None]
    assert [w.text for w in out] == [RUNTIME_ARG, f"a{RUNTIME_ARG}b", "$X", "-I{}"]
    assert out[2] is words[2]
    assert with_placeholders(words, ()) == words


@pytest.mark.parametrize(
    ("text", "argv"),
    [
        ("find . -exec perl -e {} \\;", ["perl", "-e", None]),
        ("find . -exec ruby -e {} \\;", ["ruby", "-e", None]),
        ("find . -exec node -e {} \\;", ["node", "-e", None]),
        ("find . -exec php -r {} \\;", ["php", "-r", None]),
        ("find . -exec python3 -c {} \\;", ["python3", "-c", None]),
        ("find . -exec cat {} \\;", ["cat", "{}"]),
        ("find . -exec pythonic {} \\;", ["pythonic", None]),
    ],
)
def test_find_hands_file_names_to_interpreters_as_unknown_code(text, argv):
    spawned = [inv for inv in invocations(text) if inv.via and inv.via[0] == "find -exec"]
    assert spawned[0].literals() == argv


def test_find_exec_eval_runs_file_names_as_commands():
    found = invocations("find . -exec eval {} \\;")
    assert found[-1].argv[0].literal() is None


@pytest.mark.parametrize("text", ["find", "find -H", "find -L -P", "find -D", "find src build"])
def test_find_with_no_start_path_searches_here(text):
    assert [inv.name for inv in invocations(text)] == ["find"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("find . -exec sh -c 'rm {}' \\;", [["find", ".", "-exec", "sh", "-c", "rm {}", ";"]]),
        ("find . -exec bash -c {} \\;", [["find", ".", "-exec", "bash", "-c", "{}", ";"]]),
        ("find . -exec python3 -c {} \\;", [["find", ".", "-exec", "python3", "-c", "{}", ";"]]),
        ("find . -exec perl -e {} \\;", [["find", ".", "-exec", "perl", "-e", "{}", ";"]]),
    ],
)
def test_find_runs_file_names_as_code_in_interpreters(text, expected):
    found = invocations(text)
    assert [inv.literals() for inv in found[:1]] == expected
    assert any(inv.degraded or None in inv.literals() for inv in found[1:])


def test_find_placeholders_stay_paths_outside_code():
    found = invocations("find src -exec rm {} +")
    assert found[-1].literals() == ["rm", "{}"]
    assert found[-1].arg_roots == ("src",)
    search = found[-1].arg_search
    assert search is not None and search.starts == ("src",)


@pytest.mark.parametrize(
    ("text", "roots"),
    [
        ("find -H src -exec rm {} +", ("src",)),
        ("find -P src -exec rm {} +", ("src",)),
        ("find -L src -exec rm {} +", ("src",)),
        ("find -D tree src -exec rm {} +", ("src",)),
        ("find -O3 src -exec rm {} +", ("src",)),
        ("find -exec rm {} +", (".",)),
        ("find src 'a b' -exec rm {} +", ("src", "a b")),
        ("find src* -exec rm {} +", None),
        ("find ( -name x ) -exec rm {} +", (".",)),
        ("find ! -name x -exec rm {} +", (".",)),
    ],
)
def test_find_start_paths_reach_the_spawned_command(text, roots):
    assert invocations(text)[-1].arg_roots == roots


def test_find_exec_ends_at_its_terminator_and_plus_only_after_the_placeholder():
    found = invocations("find . -exec echo + \\; -exec rm {} + -print")
    assert [inv.literals() for inv in found[1:]] == [["echo", "+"], ["rm", "{}"]]
    assert found[1].via == ("find -exec",)
    found = invocations("find . -ok rm {} \\;")
    assert found[-1].via == ("find -ok",)
    assert argvs("find . -exec \\;") == [["find", ".", "-exec", ";"]]


def test_find_without_exec_spawns_nothing():
    assert argvs("find . -name x -delete") == [["find", ".", "-name", "x", "-delete"]]


def test_find_semicolon_masks_the_status_and_plus_does_not():
    from interlock.engine.spawners import SPAWNERS

    words = parse("find . -exec rm {} \\; -exec rm {} +").root.words  # type: ignore[union-attr]
    spawn = SPAWNERS["find"](words, None)
    assert spawn is not None and spawn.kind == "spawn"
    assert [c.masks is not None for c in spawn.children] == [True, False]
    assert [c.via for c in spawn.children] == ["find -exec", "find -exec"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("parallel rm {} ::: a b", [["rm", None]]),
        ("parallel -j 4 rm {.} ::: a", [["rm", None]]),
        ("parallel --jobs 4 rm ::: a", [["rm"]]),
        ("parallel -P 4 rm x ::: a", [["rm", "x"]]),
        ("parallel -kP4 rm ::: a", [["rm"]]),
        ("parallel --nice 10 --header : rm ::: a", [["rm"]]),
        ("parallel --max-pr 4 rm ::: a", [["rm"]]),
        ("parallel --ctag rm ::: a", [["rm"]]),
        ("parallel --shebang-wrap rm ::: a", [["rm"]]),
        ("parallel ::: 'git gc' 'git fsck'", [["git", "gc"], ["git", "fsck"]]),
        ("parallel :::: cmds.txt", [[None]]),
        ("parallel ::: 'git gc' :::: more.txt", [["git", "gc"], [None]]),
        ("parallel --wd sub rm x ::: a", [["rm", "x"]]),
    ],
)
def test_parallel_runs_its_command_or_its_arguments(text, expected):
    assert argvs(text) == expected


@pytest.mark.parametrize(
    ("text", "cwd"),
    [
        ("parallel --wd sub rm x ::: a", "sub"),
        ("parallel --workdir sub rm x ::: a", "sub"),
        ('parallel --wd "$D" rm x ::: a', None),
        ("parallel rm x ::: a", ""),
        ("parallel --wd sub ::: 'rm x'", "sub"),
    ],
)
def test_parallel_runs_its_jobs_in_its_working_directory(text, cwd):
    assert invocations(text)[-1].cwd == cwd


@pytest.mark.parametrize("text", ["parallel -j", "parallel :::"])
def test_parallel_with_nothing_to_run_is_itself_the_command(text):
    assert [inv.name for inv in invocations(text)] == ["parallel"]


@pytest.mark.parametrize(
    ("text", "inner", "cwd"),
    [
        ("git rebase -x 'make test' main", ["make", "test"], ""),
        ("git rebase --exec='make test' main", ["make", "test"], ""),
        ("git rebase --exe 'make test' main", ["make", "test"], ""),
        ("git rebase -ixmake main", ["make"], ""),
        ("git rebase -S -x make main", ["make"], ""),
        ("git -C sub rebase -x 'make test' main", ["make", "test"], None),
        ("git -Csub rebase -x 'make test' main", ["make", "test"], None),
        ("git -C '' rebase -x make main", ["make"], ""),
        ("git -c core.worktree=x rebase -x make main", ["make"], None),
        ("git $OPTS rebase -x make main", ["make"], None),
        ("git --no-pager $OPTS submodule foreach git gc", ["git", "gc"], None),
        ("git -c alias.r='rebase -x make' r main", ["make"], ""),
        ("git -c alias.s='submodule foreach' s git gc", ["git", "gc"], ""),
        ("git-rebase -x make main", ["make"], ""),
        ("/usr/lib/git-core/git-bisect run make", ["make"], ""),
        ("git rebase --autosquash -x make main", ["make"], ""),
        ("git rebase -sours -x make main", ["make"], ""),
        ("git --git-dir=x/.git rebase -x make main", ["make"], None),
        ("git --work-tree x rebase -x make main", ["make"], None),
        ("git -c a.b=c rebase -x make main", ["make"], ""),
        ("git --no-pager rebase -x make main", ["make"], ""),
        ("git submodule foreach git clean -fdx", ["git", "clean", "-fdx"], ""),
        ("git submodule -q foreach --recursive -q 'git gc'", ["git", "gc"], ""),
        ("git submodule --quiet foreach --quiet git gc", ["git", "gc"], ""),
        ('git -C "$D" rebase -x make main', ["make"], None),
        ("git -C sub submodule foreach git gc", ["git", "gc"], None),
        ("git bisect run make test", ["make", "test"], ""),
        ("git -C sub bisect run make test", ["make", "test"], None),
    ],
)
def test_git_runs_commands_given_to_rebase_submodule_and_bisect(text, inner, cwd):
    found = invocations(text)
    assert found[0].name.startswith("git")
    assert found[-1].literals() == inner
    assert found[-1].cwd == cwd


@pytest.mark.parametrize(
    "text",
    [
        "git rebase main",
        "git rebase -x",
        "git rebase -s x main",
        "git rebase -- -x make",
        "git rebase --onto -x main",
        "git rebase --empty drop main",
        "git rebase --e make main",
        "git rebase fix main",
        "git rebase next",
        "git rebase -s -x main",
        "git rebase -X -x main",
        "git rebase -Sx make main",
        "git rebase -C1x make main",
        "git submodule foreach",
        "git submodule update",
        "git submodule update --init sub",
        "git submodule",
        "git submodule -q",
        "git bisect run",
        "git bisect good",
        "git status",
        "git",
    ],
)
def test_git_without_a_command_to_run_spawns_nothing(text):
    assert [inv.name for inv in invocations(text)] == ["git"]


def test_git_bisect_run_reads_the_status_and_rebase_exec_is_a_script():
    from interlock.engine.spawners import SPAWNERS

    words = parse("git bisect run make test").root.words  # type: ignore[union-attr]
    spawn = SPAWNERS["git"](words, None)
    assert spawn is not None
    (child,) = spawn.children
    assert child.kind == "exec" and child.masks is not None
    words = parse("git rebase -x make main").root.words  # type: ignore[union-attr]
    spawn = SPAWNERS["git"](words, None)
    assert spawn is not None
    (child,) = spawn.children
    assert child.kind == "script" and child.masks is None
    assert [s.text for s in child.scripts] == ["make"]
    assert not child.scripts[0].degraded


def test_find_exec_without_its_terminator_runs_the_rest_of_the_line():
    # find itself refuses it; read conservatively, the words after -exec are the command
    found = invocations("find . -exec rm -rf x")
    assert [inv.literals() for inv in found[1:]] == [["rm", "-rf", "x"]]
    assert [inv.name for inv in invocations("find $A -exec rm -rf x")] == ["find", "rm"]


def test_an_action_find_may_read_from_an_expansion_is_unknown_degraded_code():
    found = invocations("find . -name x $A")
    assert [inv.name for inv in found] == ["find", None]
    assert found[-1].degraded
    assert found[-1].via == ("find",)


def test_parallel_passes_its_input_as_run_time_arguments_and_reads_command_files_as_unknown():
    (inv,) = invocations("parallel rm ::: a")
    assert inv.extra_args
    found = invocations("parallel :::: cmds.txt")
    assert found[-1].degraded and found[-1].via == ("parallel",)
    found = invocations("parallel ::: 'git gc' ::::+ more.txt")
    assert [inv.literals() for inv in found] == [["git", "gc"], [None]]
    found = invocations("cat cmds | parallel")
    assert [inv.name for inv in found] == ["cat", None]
    assert found[-1].via == ("parallel",)
    assert found[-1].degraded


def test_git_runs_the_last_word_as_its_command_and_attached_code_is_known():
    assert invocations("git bisect run make")[-1].literals() == ["make"]
    assert invocations("git rebase -x make")[-1].literals() == ["make"]
    from interlock.engine.spawners import SPAWNERS

    words = parse("git rebase --exec=make main").root.words  # type: ignore[union-attr]
    spawn = SPAWNERS["git"](words, None)
    assert spawn is not None
    assert [(s.text, s.degraded) for s in spawn.children[0].scripts] == [("make", False)]


# -- regressions --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        # find reading an action from an expansion
        "find . $A rm -rf src \\;",
        "find . $A rm {} +",
        "find $A rm {} +",
        "find . $A rm x {}",
        "find . $A rm x +",
        "find . -exec \\; $X",
        'find . -fprintf out "%p" $X',
        "find . -newer x $X",
        "find . -name x $X",
        'find "$D" -exec rm {} + $A',
        "find . -name x $A",
        'find src -type f "$@"',
        "find src -newermt 2020-01-01 $ACTION",
        "find src ( $A ) -print",
        # git rebase's --exec in every spelling git reads
        'git rebase -x"$CMD" main',
        'git rebase "$OPTS" main',
        "git rebase $OPTS main",
        'git rebase --exec="$CMD" main',
        # code xargs hands over through a replace string
        "ls | xargs -iCMD sh -c CMD",
        "ls | xargs --replace=CMD sh -c CMD",
        # parallel reading its commands from a file
        "parallel :::: cmds.txt",
    ],
)
def test_code_a_spawner_reads_from_an_expansion_is_unknown(repo, command):
    verdict, kinds = judge(repo, command)
    assert verdict == "block"
    assert "unparsed" in kinds


@pytest.mark.parametrize(
    "command",
    [
        'git rebase --exe "rm -rf src" main',
        'git rebase --ex "rm -rf src" main',
        'git rebase -ix "rm -rf src" main',
        "git rebase -xrm\\ -rf\\ src main",
        'git rebase -s ours -x "rm -rf src" main',
        # git's own spawners behind a word only known at run time, an alias or the dashed form
        "git $OPTS rebase -x 'rm -rf src' main",
        "git --no-pager $OPTS submodule foreach 'rm -rf src'",
        "git $OPTS bisect run rm -rf src",
        "git -c alias.r='rebase -x \"rm -rf src\"' r main",
        "git-rebase -x 'rm -rf src' main",
        "xargs -ed rm -rf src",
        "xargs -eE rm -rf src",
        "xargs -l1 rm -rf src",
        "xargs -iP rm -rf src",
        "xargs --max-a 1 rm -rf src",
        # GNU parallel's options that take a value, abbreviated too
        "parallel -P 4 rm -rf src ::: a",
        "parallel --nice 10 rm -rf src ::: a",
        "parallel --block 10M --pipe rm -rf src",
        "parallel --max-pr 4 rm -rf src ::: a",
    ],
)
def test_a_spawned_discard_is_found_whatever_the_option_spelling(repo, command):
    verdict, kinds = judge(repo, command)
    assert verdict == "block"
    assert "discard" in kinds


@pytest.mark.parametrize(
    "command",
    [
        'find "$D" -name "*.pyc" -print',
        "find build -newer src/app.py -print",
        'find build -name "$P" -print',
        'find build -fprintf out "%p" -print',
        'find "$D" -type f',
        'find . -exec rm "$X" \\;',
        'find . -exec rm {} + -name "$X"',
        "find src + -name x",
        'find . -fprintf out "$FMT"',
        'find . -newermt "$T" -print',
        'find . -size "$S" -print',
        'git rebase --onto "$NEW" main',
        'git rebase -x "true" main',
        'git rebase --strategy ours -X theirs "main"',
        'git rebase -- "$B"',
    ],
)
def test_expansions_where_a_spawner_reads_a_value_are_not_code(repo, command):
    verdict, kinds = judge(repo, command)
    assert "unparsed" not in kinds, verdict


# -- where the run-time arguments come from -------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        # xargs reading its list from a file, not from the search piped in
        "find build -name '*.o' | xargs -a list rm -rf",
        "find build -name '*.o' | xargs --arg-file=list rm -rf",
        "find build -name '*.o' | xargs --arg-file list rm -rf",
        "find build -name '*.o' | xargs --arg list rm -rf",
        "find build -name '*.o' | xargs -0a list rm -rf",
        "find build -name '*.o' | xargs -alist rm -rf",
        "find build | sudo xargs -a list rm -rf",
        "find build | xargs -a list xargs rm -rf",
        # xargs whose stdin is redirected away from the pipe
        "find build | xargs rm -rf < list",
        "find build | xargs rm -rf 0< list",
        "find build | xargs rm -rf <<< src",
        "find build | xargs rm -rf <> list",
        "find build | { xargs rm -rf; } < list",
        "find build | xargs rm -rf 0<&3",
        "find build | xargs truncate -s0 < list",
        "find build | xargs -a list truncate -s0",
        # find reading its start paths from a file
        "find -files0-from list -name '*.o' -delete",
        "find -files0-from - -delete",
        "find -files0-from list -name '*.o' -print0 | xargs -0 rm",
        "find -files0-from list -exec rm {} +",
        "find -files0-from list -execdir rm {} +",
    ],
)
def test_arguments_read_from_a_file_are_unknown_not_the_pipes(repo, command):
    (repo / "list").write_text("src/app.py\n")
    verdict, kinds = judge(repo, command)
    assert verdict == "block"
    assert "discard" in kinds


@pytest.mark.parametrize(
    "command",
    [
        "find build -name '*.o' | xargs rm -rf",
        "find build -name '*.o' | xargs rm -rf 2> err",
        "find build -name '*.o' | xargs rm -rf 3< list",
        "find build | xargs truncate -s0",
        "find build -name '*.o' -delete",
        "find build -name '*.o' -exec rm {} +",
    ],
)
def test_a_search_of_ignored_files_still_chooses_what_is_removed(repo, command):
    (repo / "list").write_text("src/app.py\n")
    verdict, kinds = judge(repo, command)
    assert verdict == "allow", kinds


def test_xargs_arg_file_reaches_the_spawned_command():
    assert invocations("xargs -a list rm")[-1].arg_file
    assert invocations("xargs --arg-file=list rm")[-1].arg_file
    assert not invocations("xargs -0 rm")[-1].arg_file
    assert invocations("xargs -a list sh -c 'rm \"$@\"' _")[-1].arg_file
    assert invocations("xargs -a list find . -exec rm {} +")[-1].arg_file


@pytest.mark.parametrize(
    "text",
    ["find -files0-from list -exec rm {} +", "find -files0-from - -name x -exec rm {} +"],
)
def test_find_start_paths_read_from_a_file_are_unknown(text):
    inv = invocations(text)[-1]
    assert inv.arg_roots is None
    assert inv.arg_search is None


@pytest.mark.parametrize(
    "command",
    [
        "find -exec rm -rf src \\; -files0-from list",
        "find -files0-from list -exec rm -rf src \\;",
        "find -files0-from list $A",
    ],
)
def test_find_reading_its_start_paths_from_a_file_still_runs_its_actions(repo, command):
    verdict, kinds = judge(repo, command)
    assert verdict == "block"
    assert kinds & {"discard", "unparsed"}


@pytest.mark.parametrize(
    "text",
    ["git submodule foreach", "git submodule -q foreach --recursive", "git bisect run", "git"],
)
def test_git_with_nothing_to_run_has_no_spawn(text):
    from interlock.engine.spawners import SPAWNERS

    words = parse(text).root.words  # type: ignore[union-attr]
    assert SPAWNERS["git"](words, None) is None


@pytest.mark.parametrize(
    ("text", "spawned"),
    [
        ('git rebase -x"$CMD" main', 1),
        ('git rebase "$OPTS" main', 1),
        ('git rebase --onto "$NEW" main', 0),
    ],
)
def test_git_rebase_reads_words_only_known_at_run_time_as_unknown_code(text, spawned):
    found = invocations(text)[1:]
    assert len(found) == spawned
    assert all(inv.degraded and inv.literals() == [None] for inv in found)
