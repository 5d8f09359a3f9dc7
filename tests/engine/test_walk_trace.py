"""interlock.engine.walk: what trace() records besides the commands (steps, masks, what surely
succeeded, the directories a command may run in) and the script files it walks into."""

from __future__ import annotations

from pathlib import Path

import pytest

from interlock.engine.invocation import Invocation
from interlock.engine.scriptfiles import ScriptFiles
from interlock.engine.walk import ALT_MASKS, INLINE_MASKS, trace, walk
from interlock.engine.walksteps import Step, Trace
from interlock.shell.model import CommandList, ParseResult, Pipeline
from interlock.shell.parse import parse


def traced(text: str, files: Path | None = None, depth_cap: int | None = None) -> Trace:
    reader = ScriptFiles(str(files), None, None) if files is not None else None
    if depth_cap is None:
        return trace(parse(text), files=reader)
    return trace(parse(text), depth_cap, reader)


def argvs(text: str, files: Path | None = None) -> list[list[str | None]]:
    return [inv.literals() for inv in traced(text, files).invocations]


def find(invocations: list[Invocation], *argv: str) -> Invocation:
    found = [inv for inv in invocations if inv.literals() == list(argv)]
    assert len(found) == 1, [inv.literals() for inv in invocations]
    return found[0]


def write(folder: Path, name: str, text: str) -> None:
    (folder / name).write_text(text)


# -- depth ---------------------------------------------------------------------------------
@pytest.mark.parametrize("levels", [7, 8, 9])
def test_the_default_depth_cap_walks_eight_nested_trampolines(levels):
    line = "eval " * levels + "git gc"
    walked = ["git", "gc"] in argvs(line)
    assert walked == (levels <= 8)
    assert (["git", "gc"] in [inv.literals() for inv in walk(parse(line))]) == (levels <= 8)


def test_the_depth_cap_counts_the_first_trampoline_as_one():
    assert ["git", "gc"] in [
        i.literals() for i in traced("bash -c 'git gc'", depth_cap=1).invocations
    ]
    nested = traced("bash -c \"bash -c 'git gc'\"", depth_cap=1).invocations
    assert ["git", "gc"] not in [inv.literals() for inv in nested]
    assert any(inv.degraded for inv in nested)


# -- what a plain command carries ----------------------------------------------------------
def test_a_plain_command_has_no_run_time_arguments_pipeline_or_degradation():
    inv = find(traced("git gc > log").invocations, "git", "gc")
    assert (inv.extra_args, inv.arg_file, inv.pipe, inv.degraded) == (False, False, 0, False)
    assert inv.own_redirects == 1
    assert inv.arg_roots is None and inv.arg_search is None


# -- stdin ---------------------------------------------------------------------------------
def test_a_shell_reading_code_on_its_stdin_runs_it_from_descriptor_zero_only():
    assert ["git", "gc"] in argvs("bash 0<<< 'git gc'")
    assert ["git", "gc"] in argvs("bash <<< 'git gc'")
    assert ["git", "gc"] in argvs("bash 0<<EOF\ngit gc\nEOF")
    assert ["git", "gc"] not in argvs("bash 3<<< 'git gc'")
    assert ["git", "gc"] not in argvs("bash 3<<EOF\ngit gc\nEOF")


def test_a_file_on_stdin_is_not_read_as_the_code_itself():
    assert argvs("bash < x.sh") == [["bash"]]


def test_a_shell_reads_the_file_its_stdin_or_a_descriptor_opens(tmp_path):
    write(tmp_path, "x.sh", "git reset --hard\n")
    assert ["git", "reset", "--hard"] in argvs("bash < x.sh", tmp_path)
    assert ["git", "reset", "--hard"] in argvs("bash 0< x.sh", tmp_path)
    assert ["git", "reset", "--hard"] in argvs("bash /dev/fd/3 3< x.sh", tmp_path)
    assert ["git", "reset", "--hard"] not in argvs("bash /dev/fd/3 4< x.sh", tmp_path)


def test_a_later_redirection_of_the_descriptor_replaces_the_file(tmp_path):
    write(tmp_path, "x.sh", "git reset --hard\n")
    assert ["git", "reset", "--hard"] not in argvs("bash /dev/fd/3 3< x.sh 3<<< 'ls'", tmp_path)
    replaced = "bash /dev/fd/3 3< x.sh 3<<EOF\nls\nEOF"
    assert ["git", "reset", "--hard"] not in argvs(replaced, tmp_path)


# -- script files --------------------------------------------------------------------------
def test_script_files_nest_four_deep(tmp_path):
    for k in range(1, 7):
        write(tmp_path, f"f{k}.sh", f"echo {k}\n./f{k + 1}.sh\n")
    echoed = [argv[1] for argv in argvs("./f1.sh", tmp_path) if argv[:1] == ["echo"]]
    assert echoed == ["1", "2", "3", "4"]


# -- where each command runs and what surely succeeded before it -------------------------------
def rows(text: str) -> list[tuple[str, str | None, tuple[str | None, ...], tuple[str, ...]]]:
    def shown(inv: Invocation) -> str:
        return " ".join("?" if w is None else w for w in inv.literals())

    return [
        (shown(inv), inv.cwd, inv.alt_cwds, tuple(shown(s) for s in inv.succeeded))
        for inv in traced(text).invocations
    ]


# (command, cwd, the other directories it may run in, what surely exited 0 before it starts)
FLOW = [
    ("a && b", [("a", "", (), ()), ("b", "", (), ("a",))]),
    ("a || b", [("a", "", (), ()), ("b", "", (), ())]),
    ("a && b || c", [("a", "", (), ()), ("b", "", (), ("a",)), ("c", "", (), ())]),
    (
        "a && b && c || d",
        [("a", "", (), ()), ("b", "", (), ("a",)), ("c", "", (), ("a", "b")), ("d", "", (), ())],
    ),
    ("a || b && c", [("a", "", (), ()), ("b", "", (), ()), ("c", "", (), ())]),
    (
        "set -e; a; b",
        [("set -e", "", (), ()), ("a", "", (), ("set -e",)), ("b", "", (), ("set -e", "a"))],
    ),
    (
        "a; set -e; b || c; d",
        [
            ("a", "", (), ()),
            ("set -e", "", (), ()),
            ("b", "", (), ("set -e",)),
            ("c", "", (), ("set -e",)),
            ("d", "", (), ("set -e",)),
        ],
    ),
    ("a || exit; b", [("a", "", (), ()), ("exit", "", (), ()), ("b", "", (), ("a",))]),
    ("a | b && c", [("a", "", (), ()), ("b", "", (), ()), ("c", "", (), ("b",))]),
    ("! a && c", [("a", "", (), ()), ("c", "", (), ())]),
    ("a && b & c", [("a", "", (), ()), ("b", "", (), ("a",)), ("c", "", (), ())]),
    ("cd x; rm -rf *", [("cd x", "", (), ()), ("rm -rf *", "x", ("",), ())]),
    ("cd x && rm -rf *", [("cd x", "", (), ()), ("rm -rf *", "x", (), ("cd x",))]),
    (
        "cd x || exit; rm -rf *",
        [("cd x", "", (), ()), ("exit", "", (), ()), ("rm -rf *", "x", (), ("cd x",))],
    ),
    (
        "cd x && make; rm y",
        [("cd x", "", (), ()), ("make", "x", (), ("cd x",)), ("rm y", "x", ("",), ())],
    ),
    ("cd x || cd y; ls", [("cd x", "", (), ()), ("cd y", "", (), ()), ("ls", None, (), ())]),
    ("cd x && ls || rm", [("cd x", "", (), ()), ("ls", "x", (), ("cd x",)), ("rm", None, (), ())]),
    (
        "cd x && ls && rm || rm",
        [
            ("cd x", "", (), ()),
            ("ls", "x", (), ("cd x",)),
            ("rm", "x", (), ("cd x", "ls")),
            ("rm", None, (), ()),
        ],
    ),
    ("a && cd x || rm", [("a", "", (), ()), ("cd x", "", (), ("a",)), ("rm", "", (), ())]),
    ("cd x || rm", [("cd x", "", (), ()), ("rm", "", (), ())]),
    ("{ cd x; } || rm", [("cd x", "", (), ()), ("rm", None, (), ())]),
    (
        "set -e; cd x; ls",
        [
            ("set -e", "", (), ()),
            ("cd x", "", (), ("set -e",)),
            ("ls", "x", (), ("set -e", "cd x")),
        ],
    ),
    ("pushd x; popd; ls", [("pushd x", "", (), ()), ("popd", "x", ("",), ()), ("ls", "", (), ())]),
    ("cd x; popd; ls", [("cd x", "", (), ()), ("popd", "x", ("",), ()), ("ls", None, (), ())]),
    (
        "pushd x && popd; z",
        [("pushd x", "", (), ()), ("popd", "x", (), ("pushd x",)), ("z", "", (), ())],
    ),
    ("{ cd x; }; ls", [("cd x", "", (), ()), ("ls", "x", ("",), ())]),
    ("(cd x); ls", [("cd x", "", (), ()), ("ls", "", (), ())]),
    ("cd x | ls; ls", [("cd x", "", (), ()), ("ls", "", (), ()), ("ls", "", (), ())]),
    ("cd x & ls", [("cd x", "", (), ()), ("ls", "", (), ())]),
    ("echo $(cd x); ls", [("cd x", "", (), ()), ("echo ?", "", (), ()), ("ls", "", (), ())]),
    (
        "cd x || exit; cd y; z",
        [
            ("cd x", "", (), ()),
            ("exit", "", (), ()),
            ("cd y", "x", (), ("cd x",)),
            ("z", "x/y", ("x",), ("cd x",)),
        ],
    ),
    (
        "cd x; cd y; z",
        [("cd x", "", (), ()), ("cd y", "x", ("",), ()), ("z", "x/y", ("y", "x", ""), ())],
    ),
    (
        "cd x && exit; z",
        [("cd x", "", (), ()), ("exit", "x", (), ("cd x",)), ("z", "x", ("",), ())],
    ),
    (
        "if a; then cd x; fi; z",
        [("a", "", (), ()), ("cd x", "", (), ("a",)), ("z", None, ("",), ())],
    ),
    (
        "if a; then cd x; else cd x; fi; z",
        [("a", "", (), ()), ("cd x", "", (), ("a",)), ("cd x", "", (), ()), ("z", "x", ("",), ())],
    ),
    (
        "if a; then cd x; elif b; then c; else d; fi; z",
        [
            ("a", "", (), ()),
            ("cd x", "", (), ("a",)),
            ("b", "", (), ()),
            ("c", "", (), ("b",)),
            ("d", "", (), ()),
            ("z", None, ("",), ()),
        ],
    ),
    (
        "if cd x; then b; else c; fi; z",
        [
            ("cd x", "", (), ()),
            ("b", "x", (), ("cd x",)),
            ("c", "", (), ()),
            ("z", None, ("",), ()),
        ],
    ),
    ("case $v in a) cd x;; esac; z", [("cd x", "", (), ()), ("z", None, ("",), ())]),
    (
        "while cd x; do b; done; z",
        [("cd x", "", (), ()), ("b", "x", (), ("cd x",)), ("z", None, ("",), ())],
    ),
    ("until a; do b; done", [("a", "", (), ()), ("b", "", (), ())]),
    (
        "for f in a b; do cd $f; done; z",
        [("cd a", "", (), ()), ("cd b", None, (), ()), ("z", None, ("",), ())],
    ),
    ("{ a && b; } && c", [("a", "", (), ()), ("b", "", (), ("a",)), ("c", "", (), ("a", "b"))]),
    ("(a) && c", [("a", "", (), ()), ("c", "", (), ("a",))]),
    ("if a; then b; fi && c", [("a", "", (), ()), ("b", "", (), ("a",)), ("c", "", (), ())]),
    (
        "a && { cd x; b; } || c",
        [
            ("a", "", (), ()),
            ("cd x", "", (), ("a",)),
            ("b", "x", ("",), ("a",)),
            ("c", None, ("",), ()),
        ],
    ),
    ("f() { cd x; }; z", [("cd x", "", (), ()), ("z", "", (), ())]),
    ("cd x || { cd y; }; z", [("cd x", "", (), ()), ("cd y", "", (), ()), ("z", None, (), ())]),
    ("cd x || echo no; z", [("cd x", "", (), ()), ("echo no", "", (), ()), ("z", None, (), ())]),
    ("a || b || c", [("a", "", (), ()), ("b", "", (), ()), ("c", "", (), ())]),
    (
        "cd x && a || b && c",
        [("cd x", "", (), ()), ("a", "x", (), ("cd x",)), ("b", None, (), ()), ("c", None, (), ())],
    ),
    (
        "set -e; a || exit",
        [("set -e", "", (), ()), ("a", "", (), ("set -e",)), ("exit", "", (), ("set -e",))],
    ),
    ("set -e; (a)", [("set -e", "", (), ()), ("a", "", (), ("set -e",))]),
    ("cd $D; z", [("cd ?", "", (), ()), ("z", None, ("",), ())]),
    ("cd -; z", [("cd -", "", (), ()), ("z", None, ("",), ())]),
    (
        "cd x; cd x && z",
        [("cd x", "", (), ()), ("cd x", "x", ("",), ()), ("z", "x/x", ("x",), ("cd x",))],
    ),
    ("bash -c 'cd x'; z", [("cd x", "", (), ()), ("z", "", (), ())]),
    ("bash -c 'cd x; y'", [("cd x", "", (), ()), ("y", "x", ("",), ())]),
    ("eval 'cd x'; z", [("cd x", "", (), ()), ("z", "x", ("",), ())]),
    ("source /dev/null; z", [("source /dev/null", "", (), ()), ("z", "", (), ())]),
]


@pytest.mark.parametrize(("text", "expected"), FLOW)
def test_each_command_knows_where_it_runs_and_what_succeeded_before_it(text, expected):
    assert rows(text) == expected


# -- pipelines -----------------------------------------------------------------------------
def test_the_commands_of_a_pipeline_share_its_id_and_a_lone_command_has_none():
    invs = traced("a | b; c | d; ! e").invocations
    a, b, c, d, e = invs
    assert a.pipe == b.pipe != 0 and c.pipe == d.pipe != 0 and a.pipe != c.pipe
    assert e.pipe == 0


def test_a_pipeline_succeeds_as_its_last_command_and_a_negated_one_says_nothing():
    a, b, c = traced("a | b && c").invocations
    assert c.succeeded == (b,)
    assert traced("! a && c").invocations[1].succeeded == ()
    assert traced("! a | b && c").invocations[2].succeeded == ()


# -- script files, walked into -------------------------------------------------------------
@pytest.fixture
def scripts(tmp_path: Path) -> Path:
    write(tmp_path, "a.sh", "echo one\ncd sub\nrm -rf *\n")
    write(tmp_path, "b.sh", "echo b1\n./a.sh\n")
    write(tmp_path, "c.sh", 'bash -c "git gc"\n')
    write(tmp_path, "e.sh", "set -e\ncd x\necho y\n")
    write(tmp_path, "vars.sh", "X=sub\n")
    write(tmp_path, "p.py", '#!/usr/bin/env python3\nimport os\nos.system("git reset --hard")\n')
    write(tmp_path, "self.sh", "echo again\n./self.sh\n")
    return tmp_path


def described(text: str, folder: Path) -> list[tuple[str, str | None, tuple, tuple, str | None]]:
    found = traced(text, folder)
    out = []
    for inv in found.invocations:
        origin = found.origins.get(id(inv))
        where = None
        if origin is not None:
            where = origin.text + " @ " + " ".join(Path(f).name for f in origin.files)
        runs = found.runs.get(id(inv))
        shown = " ".join("?" if w is None else w for w in inv.literals())
        out.append((shown, inv.cwd, inv.alt_cwds, inv.via, where, runs and Path(runs).name))
    return out


def test_a_script_files_commands_run_in_a_child_shell_and_say_where_they_stand(scripts):
    assert described("./a.sh; z", scripts) == [
        ("./a.sh", "", (), (), None, "a.sh"),
        ("echo one", "", (), ("./a.sh",), "./a.sh line 1 @ a.sh", None),
        ("cd sub", "", (), ("./a.sh",), "./a.sh line 2 @ a.sh", None),
        ("rm -rf *", "sub", ("",), ("./a.sh",), "./a.sh line 3 @ a.sh", None),
        ("z", "", (), (), None, None),
    ]
    assert described("bash a.sh", scripts)[3] == (
        "rm -rf *",
        "sub",
        ("",),
        ("bash a.sh",),
        "a.sh line 3 @ a.sh",
        None,
    )


def test_a_script_run_by_a_script_says_both_places(scripts):
    assert described("./b.sh", scripts)[2:] == [
        ("./a.sh", "", (), ("./b.sh",), "./b.sh line 2 @ b.sh", "a.sh"),
        (
            "echo one",
            "",
            (),
            ("./b.sh", "./a.sh"),
            "./b.sh line 2, ./a.sh line 1 @ b.sh a.sh",
            None,
        ),
        ("cd sub", "", (), ("./b.sh", "./a.sh"), "./b.sh line 2, ./a.sh line 2 @ b.sh a.sh", None),
        (
            "rm -rf *",
            "sub",
            ("",),
            ("./b.sh", "./a.sh"),
            "./b.sh line 2, ./a.sh line 3 @ b.sh a.sh",
            None,
        ),
    ]


def test_code_a_script_hands_to_a_trampoline_stands_where_the_trampoline_does(scripts):
    assert described("./c.sh", scripts)[1] == (
        "git gc",
        "",
        (),
        ("./c.sh", "bash -c"),
        "./c.sh line 1 @ c.sh",
        None,
    )


def test_a_script_that_runs_itself_is_read_once(scripts):
    assert [row[0] for row in described("./self.sh", scripts)] == [
        "./self.sh",
        "echo again",
        "./self.sh",
    ]


def test_a_sourced_file_runs_in_this_shell_its_variables_and_directory_carry_over(scripts):
    assert described("source vars.sh; echo $X", scripts)[-1][0] == "echo sub"
    assert described("builtin source vars.sh; echo $X", scripts)[-1][0] == "echo sub"
    assert described("bash vars.sh; echo $X", scripts)[-1][0] == "echo ?"
    assert described("sudo bash vars.sh; echo $X", scripts)[-1][0] == "echo ?"
    rows_ = described("source e.sh; z", scripts)
    assert rows_[-1][:3] == ("z", "x", ())
    assert described("bash e.sh; z", scripts)[-1][:3] == ("z", "", ())
    z = traced("source e.sh; z", scripts).invocations[-1]
    assert [" ".join(map(str, inv.literals())) for inv in z.succeeded] == ["source e.sh", "echo y"]


def test_a_sourced_file_in_another_directory_is_a_child_of_its_own(scripts):
    # `(cd sub; source ../vars.sh)`-like: a wrapper moving the directory starts a new scope
    assert described("env -C sub bash ../vars.sh; echo $X", scripts)[-1][0] == "echo ?"


def test_a_python_script_is_read_as_inline_python_code(scripts):
    found = traced("python3 p.py", scripts)
    inner = find(found.invocations, "git", "reset", "--hard")
    assert inner.degraded and inner.via == ("python3 p.py",)
    assert found.origins[id(inner)].text == "p.py"
    outer = find(found.invocations, "python3", "p.py")
    (step,) = [s for s in found.steps.values() if s.invocation is outer]
    assert [child.masks for child in step.children] == [INLINE_MASKS]


def test_a_script_the_line_wrote_itself_is_not_read_from_disk(scripts):
    line = "cat > a.sh <<EOF\nls\nEOF\nbash a.sh"
    assert [row[0] for row in described(line, scripts)] == ["cat", "bash a.sh"]


def test_no_reader_no_file(scripts):
    assert [inv.literals() for inv in traced("./a.sh").invocations] == [["./a.sh"]]
    assert traced("./a.sh").runs == {} and traced("./a.sh").origins == {}


MORE_FLOW = [
    (
        "set -e; bash -c 'a; b'",
        [("set -e", "", (), ()), ("a", "", (), ("set -e",)), ("b", "", (), ("set -e",))],
    ),
    ("bash -e -c 'a; b'", [("a", "", (), ()), ("b", "", (), ("a",))]),
    (
        "bash -c 'set -e; a; b'",
        [("set -e", "", (), ()), ("a", "", (), ("set -e",)), ("b", "", (), ("set -e", "a"))],
    ),
    (
        'Y=a; eval "rm $Y"; echo $Y',
        [("", "", (), ()), ("rm a", "", (), ()), ("echo a", "", (), ())],
    ),
    ('Y=a; bash -c "rm \\$Y"', [("", "", (), ()), ("rm ?", "", (), ())]),
    ('export Y=a; bash -c "rm \\$Y"', [("export Y=a", "", (), ()), ("rm a", "", (), ())]),
    ("Y=a bash -c 'rm $Y'", [("rm a", "", (), ())]),
    ("env -i bash -c 'rm $HOME'", [("rm ?", "", (), ())]),
    ("find . -execdir rm {} +", [("find . -execdir rm {} +", "", (), ()), ("rm {}", None, (), ())]),
    (
        "cd x && find . -exec rm {} +",
        [
            ("cd x", "", (), ()),
            ("find . -exec rm {} +", "x", (), ("cd x",)),
            ("rm {}", "x", (), ("cd x",)),
        ],
    ),
    (
        "git -C $D rebase -x make main",
        [("git -C ? rebase -x make main", "", (), ()), ("make", None, (), ())],
    ),
    ("bash -c ')'", [("?", "", (), ())]),
    ("eval 'cd x'; z", [("cd x", "", (), ()), ("z", "x", ("",), ())]),
    ("bash -c 'cd x'; z", [("cd x", "", (), ()), ("z", "", (), ())]),
    ("(eval 'cd x'); z", [("cd x", "", (), ()), ("z", "", (), ())]),
    ("sudo bash -c 'cd x'; z", [("cd x", "", (), ()), ("z", "", (), ())]),
    ("env -C sub ls; z", [("ls", "sub", (), ()), ("z", "", (), ())]),
    ("env -C sub bash -c 'ls'", [("ls", "sub", (), ())]),
    ("cd x; env -C sub ls", [("cd x", "", (), ()), ("ls", "x/sub", ("sub",), ())]),
    ("env -C $D ls; z", [("ls", None, (), ()), ("z", "", (), ())]),
    ("command cd x; z", [("cd x", "", (), ()), ("z", "x", ("",), ())]),
    ("sudo cd x; z", [("cd x", "", (), ()), ("z", "", (), ())]),
    ("bash -c '' && z", [("z", "", (), ())]),
]


@pytest.mark.parametrize(("text", "expected"), MORE_FLOW)
def test_trampolines_and_wrappers_keep_or_drop_the_shells_state(text, expected):
    assert rows(text) == expected


def test_a_script_run_as_a_whole_succeeds_as_its_last_command():
    found = traced("bash -c 'a; b' && c").invocations
    assert [" ".join(map(str, inv.literals())) for inv in found[2].succeeded] == ["b"]
    found = traced("bash -c 'a; b; c' x && d").invocations
    assert [" ".join(map(str, inv.literals())) for inv in found[3].succeeded] == ["c"]


def test_a_degraded_script_resolves_no_variable_and_eval_forgets_the_shells():
    assert rows('Y=a; bash -c "rm $Y $(f)"; echo $Y')[-1][0] == "echo a"
    assert rows('Y=a; eval "rm $Y $(f)"; echo $Y')[-1][0] == "echo ?"
    assert rows('Y=a; eval "rm \\$Y $(f)"')[-1][0] == "rm ? ?"


def test_an_unknown_command_stands_for_a_script_past_the_depth_cap():
    found = traced("cd x && eval eval 'git gc'", depth_cap=1).invocations
    unknown = found[-1]
    assert unknown.literals() == [None] and unknown.degraded
    assert unknown.argv[0].text == "git gc"
    assert unknown.cwd == "x" and unknown.via == ("eval", "eval")


# variables through branches, loops and subshells; functions called in this shell
STATE_FLOW = [
    ("F=1; (( F++ )); echo $F", [("", "", (), ()), ("echo ?", "", (), ())]),
    ("F=1; (( G++ )); echo $F", [("", "", (), ()), ("echo 1", "", (), ())]),
    (
        "if a; then X=1; else X=2; fi; echo $X",
        [("a", "", (), ()), ("", "", (), ("a",)), ("", "", (), ()), ("echo ?", "", (), ())],
    ),
    (
        "if a; then X=1; else X=1; fi; echo $X",
        [("a", "", (), ()), ("", "", (), ("a",)), ("", "", (), ()), ("echo 1", "", (), ())],
    ),
    (
        "if a; then X=1; fi; echo $X",
        [("a", "", (), ()), ("", "", (), ("a",)), ("echo ?", "", (), ())],
    ),
    (
        "X=0; case $v in a) X=1;; esac; echo $X",
        [("", "", (), ()), ("", "", (), ()), ("echo ?", "", (), ())],
    ),
    (
        "X=0; while a; do X=1; done; echo $X",
        [("", "", (), ()), ("a", "", (), ()), ("", "", (), ("a",)), ("echo ?", "", (), ())],
    ),
    ("for f in a b; do :; done; rm $f", [(":", "", (), ()), ("rm ?", "", (), ())]),
    ('for f in a "$B"; do rm $f; done', [("rm ?", "", (), ())]),
    ("X=1 && Y=2; echo $X $Y", [("", "", (), ()), ("", "", (), ("",)), ("echo 1 ?", "", (), ())]),
    ("a && X=1; echo $X", [("a", "", (), ()), ("", "", (), ("a",)), ("echo ?", "", (), ())]),
    (
        "X=1; a || X=2; echo $X",
        [("", "", (), ()), ("a", "", (), ()), ("", "", (), ()), ("echo ?", "", (), ())],
    ),
    (
        "cd x; cd $D; z",
        [("cd x", "", (), ()), ("cd ?", "x", ("",), ()), ("z", None, ("x", ""), ())],
    ),
    (
        "cd $D; cd x; z",
        [("cd ?", "", (), ()), ("cd x", None, ("",), ()), ("z", None, ("x", None, ""), ())],
    ),
    (
        "cd x; (cd y; z)",
        [("cd x", "", (), ()), ("cd y", "x", ("",), ()), ("z", "x/y", ("y", "x", ""), ())],
    ),
    (
        "X=1; for f in a b; do rm $f $X; done",
        [("", "", (), ()), ("rm a 1", "", (), ()), ("rm b 1", "", (), ())],
    ),
    ("f() { cd x; }; z", [("cd x", "", (), ()), ("z", "", (), ())]),
    ("X=1; f() { X=2; }; echo $X", [("", "", (), ()), ("", "", (), ()), ("echo 1", "", (), ())]),
    ("X=1; (X=2); echo $X", [("", "", (), ()), ("", "", (), ()), ("echo 1", "", (), ())]),
    ("X=1; { X=2; }; echo $X", [("", "", (), ()), ("", "", (), ()), ("echo 2", "", (), ())]),
    ("X=1; echo $(X=2) $X", [("", "", (), ()), ("", "", (), ()), ("echo ? 1", "", (), ())]),
    ('X=1; bash -c "X=2"; echo $X', [("", "", (), ()), ("", "", (), ()), ("echo 1", "", (), ())]),
    ('X=1; eval "X=2"; echo $X', [("", "", (), ()), ("", "", (), ()), ("echo 2", "", (), ())]),
    (
        "f() { cd src; }; f; rm a",
        [("cd src", "", (), ()), ("f", "", (), ()), ("rm a", None, ("",), ())],
    ),
    ("f() { echo; }; f; rm a", [("echo", "", (), ()), ("f", "", (), ()), ("rm a", "", (), ())]),
    (
        "f() { cd src; }; f() { echo; }; f; rm a",
        [("cd src", "", (), ()), ("echo", "", (), ()), ("f", "", (), ()), ("rm a", "", (), ())],
    ),
    (
        "f() { pushd x; }; f; rm a",
        [("pushd x", "", (), ()), ("f", "", (), ()), ("rm a", None, ("",), ())],
    ),
    ("f() ( cd x; ); f; rm a", [("cd x", "", (), ()), ("f", "", (), ()), ("rm a", "", (), ())]),
    ("f() { cd src; }; g; rm a", [("cd src", "", (), ()), ("g", "", (), ()), ("rm a", "", (), ())]),
    ("f() { cd x; }; (f); rm a", [("cd x", "", (), ()), ("f", "", (), ()), ("rm a", "", (), ())]),
    ("F() { cd x; }; f; rm a", [("cd x", "", (), ()), ("f", "", (), ()), ("rm a", "", (), ())]),
]


@pytest.mark.parametrize(("text", "expected"), STATE_FLOW)
def test_branches_loops_and_functions_carry_the_shells_state(text, expected):
    assert rows(text) == expected


def test_assignments_reach_the_command_env_clears_the_outer_ones():
    def assigned(text: str) -> list[str]:
        return [w.text for w in traced(text).invocations[-1].assignments]

    assert assigned("A=1 env -i B=2 cmd") == ["B=2"]
    assert assigned("A=1 env B=2 cmd") == ["A=1", "B=2"]
    assert assigned("A=1 sudo B=2 cmd") == ["A=1", "B=2"]
    assert assigned("A=1 nohup env -i cmd") == []


# -- steps: what each simple command became, for exitflow ------------------------------------
def top_steps(text: str) -> list[Step]:
    return [step for key, step in traced(text).steps.items() if len(key) == 1]


def shown(inv: Invocation | None) -> str | None:
    return None if inv is None else " ".join("?" if w is None else w for w in inv.literals())


def test_each_reading_of_a_wrappers_words_is_a_child_step_whose_status_is_not_followed():
    (step,) = top_steps('timeout "$T" 5 git push > log')
    assert shown(step.invocation) == "5 git push" and step.invocation.own_redirects == 1
    (other,) = step.children
    assert other.masks == ALT_MASKS
    assert shown(other.invocation) == "git push" and other.invocation.own_redirects == 0
    assert other.invocation.via == ("timeout",)
    (step,) = top_steps('timeout "$T" 5 bash -c "git gc"')
    (other,) = step.children
    assert other.masks == ALT_MASKS and other.invocation is None
    assert [shown(inv) for inv in other.scripts[0].success] == ["git gc"]


def test_inline_code_is_a_masked_child_step_and_its_shell_strings_are_scripts():
    (step,) = top_steps(
        "python3 -c 'import subprocess; subprocess.run(\"git gc; ls\", shell=True)' > out"
    )
    assert step.invocation.degraded and step.invocation.own_redirects == 1
    (child,) = step.children
    assert child.masks == INLINE_MASKS and child.invocation is None
    (script,) = child.scripts
    assert [shown(inv) for inv in script.success] == ["ls"]
    inner = [
        inv for inv in traced("python3 -c 'import os; os.system(\"git gc\")' > out").invocations
    ]
    assert [(shown(inv), inv.degraded, inv.own_redirects) for inv in inner][1] == (
        "git gc",
        True,
        0,
    )


def test_a_spawned_command_carries_its_run_time_arguments_and_where_they_come_from():
    (find_step,) = top_steps("find . -exec rm {} \\;")
    (rm,) = find_step.children
    assert rm.masks is not None and "find" in rm.masks
    inv = rm.invocation
    assert (inv.extra_args, inv.arg_roots, inv.arg_file, inv.via) == (
        True,
        (".",),
        False,
        ("find -exec",),
    )
    assert inv.arg_search is not None and inv.arg_search.base == ""
    cd, find_in_x = top_steps("cd x && find a -exec rm {} +")
    (rm,) = find_in_x.children
    assert rm.masks is None and rm.invocation.cwd == "x"
    assert rm.invocation.arg_search is not None and rm.invocation.arg_search.base == "x"
    assert rm.invocation.arg_roots == ("a",)
    (xargs,) = top_steps("xargs -a list rm")
    assert (xargs.invocation.extra_args, xargs.invocation.arg_file) == (True, True)
    assert xargs.invocation.arg_roots is None and xargs.invocation.arg_search is None


def test_a_spawned_script_is_a_child_step_with_its_script():
    (rebase,) = top_steps("git rebase -x 'make; make test' main")
    (child,) = rebase.children
    assert child.invocation is None
    assert [shown(inv) for inv in child.scripts[0].success] == ["make test"]
    (parallel,) = top_steps("parallel rm ::: a b")
    assert parallel.invocation is None and [shown(i) for i in parallel.success] == ["rm"]


def test_a_container_command_is_mapped_to_the_host_only_when_run_directly():
    direct = rows("docker run --rm -v $PWD:/w -w /w img rm -rf /w/x")
    assert direct == [("rm -rf x", ".", (), ())]
    assert rows("cd x; docker run --rm -v $PWD:/w -w /w img rm -rf x")[-1][:3] == (
        "rm -rf x",
        None,
        (),
    )
    for inner in ("bash -c 'rm -rf x'", "python3 -c 'import os'", "timeout 5 rm -rf x"):
        assert rows(f"docker run --rm -v $PWD:/w -w /w img {inner}")[-1][1] is None


SCRIPT = """echo start
if true; then
  rm a
fi
x=$(git rev-parse HEAD) | cat
for f in b; do
  rm $f
done
echo start
(cd sub && rm c)
bash -c "rm d"
case $v in
  *) rm e;;
esac
for g in $(ls x); do :; done
"""


def test_each_command_of_a_script_file_names_its_line_wherever_it_is_nested(tmp_path):
    write(tmp_path, "s.sh", SCRIPT)
    found = traced("./s.sh", tmp_path)
    assert [(shown(inv), found.origins[id(inv)].text) for inv in found.invocations[1:]] == [
        ("echo start", "./s.sh line 1"),
        ("true", "./s.sh line 2"),
        ("rm a", "./s.sh line 3"),
        ("git rev-parse HEAD", "./s.sh line 5"),
        ("", "./s.sh line 5"),
        ("cat", "./s.sh line 5"),
        ("rm b", "./s.sh line 7"),
        ("echo start", "./s.sh line 9"),  # the second one: found after the first
        ("cd sub", "./s.sh line 10"),
        ("rm c", "./s.sh line 10"),
        ("rm d", "./s.sh line 11"),  # inside bash -c: where bash -c stands
        ("rm e", "./s.sh line 13"),
        ("ls x", "./s.sh line 15"),
        (":", "./s.sh line 15"),
    ]
    assert {found.origins[id(inv)].files for inv in found.invocations[1:]} == {
        (str(tmp_path / "s.sh"),)
    }


def test_only_an_input_redirection_feeds_a_file(tmp_path):
    write(tmp_path, "x.sh", "git reset --hard\n")
    write(tmp_path, "out.log", "echo wrong\n")
    walked = argvs("bash < x.sh > out.log", tmp_path)
    assert ["git", "reset", "--hard"] in walked and ["echo", "wrong"] not in walked
    assert ["echo", "wrong"] not in argvs("bash /dev/fd/3 3> out.log", tmp_path)


MORE_STATE = [
    ("X=1 || echo $X", [("", "", (), ()), ("echo ?", "", (), ())]),
    ("X=0; X=1 || echo $X", [("", "", (), ()), ("", "", (), ()), ("echo ?", "", (), ())]),
    ("X=1 && a; echo $X", [("", "", (), ()), ("a", "", (), ("",)), ("echo 1", "", (), ())]),
    (
        "a && b || exit; c",
        [("a", "", (), ()), ("b", "", (), ("a",)), ("exit", "", (), ()), ("c", "", (), ("a", "b"))],
    ),
    ("for f in $(ls x); do :; done", [("ls x", "", (), ()), (":", "", (), ())]),
    ("{ a; } > $(mktemp)", [("mktemp", "", (), ()), ("a", "", (), ())]),
    (
        "X=1; f() { X=2; }; f; echo $X",
        [("", "", (), ()), ("", "", (), ()), ("f", "", (), ()), ("echo ?", "", (), ())],
    ),
    ("f() { a; } && c", [("a", "", (), ()), ("c", "", (), ())]),
    ("for f in a b; do echo x; done", [("echo x", "", (), ())]),
    ("while a; do b; done", [("a", "", (), ()), ("b", "", (), ("a",))]),
    (
        "cd x; if a; then cd y; fi; z",
        [
            ("cd x", "", (), ()),
            ("a", "x", ("",), ()),
            ("cd y", "x", ("",), ("a",)),
            ("z", None, ("", "y", "x"), ()),
        ],
    ),
    (
        "X=1; echo $((X=3)); echo $X",
        [("", "", (), ()), ("echo ?", "", (), ()), ("echo ?", "", (), ())],
    ),
    ('export Y=a; sudo bash -c "rm \\$Y"', [("export Y=a", "", (), ()), ("rm ?", "", (), ())]),
    (
        "command set -e; a; b",
        [("set -e", "", (), ()), ("a", "", (), ("set -e",)), ("b", "", (), ("set -e", "a"))],
    ),
    ("sudo set -e; a; b", [("set -e", "", (), ()), ("a", "", (), ()), ("b", "", (), ())]),
    ("X=1; read X; echo $X", [("", "", (), ()), ("read X", "", (), ()), ("echo ?", "", (), ())]),
    (
        "X=1; sudo read X; echo $X",
        [("", "", (), ()), ("read X", "", (), ()), ("echo 1", "", (), ())],
    ),
    ("bash -c 'a; )'", [("a", "", (), ())]),
    ('bash -c "rm \\$1" _ a', [("rm a", "", (), ())]),
    ('xargs bash -c "rm \\$1" _', [("rm ?", "", (), ())]),
    ('X=1; bash -c "rm \\$X"', [("", "", (), ()), ("rm ?", "", (), ())]),
    ('export X=1; env -i bash -c "rm \\$X"', [("export X=1", "", (), ()), ("rm ?", "", (), ())]),
    ('export X=1; nohup bash -c "rm \\$X"', [("export X=1", "", (), ()), ("rm ?", "", (), ())]),
]


MORE_STATE += [
    (
        "cd x || a || exit; z",
        [("cd x", "", (), ()), ("a", "", (), ()), ("exit", None, (), ()), ("z", None, (), ())],
    ),
    (
        "cd x && cd y || z",
        [("cd x", "", (), ()), ("cd y", "x", (), ("cd x",)), ("z", None, (), ())],
    ),
    (
        "a || b && c && exit; d",
        [
            ("a", "", (), ()),
            ("b", "", (), ()),
            ("c", "", (), ()),
            ("exit", "", (), ("c",)),
            ("d", "", (), ()),
        ],
    ),
    (
        "cd x && cd x || a; z",
        [
            ("cd x", "", (), ()),
            ("cd x", "x", (), ("cd x",)),
            ("a", None, (), ()),
            ("z", None, (), ()),
        ],
    ),
    (
        "cd x && ls || cd y || rm",
        [
            ("cd x", "", (), ()),
            ("ls", "x", (), ("cd x",)),
            ("cd y", None, (), ()),
            ("rm", None, (), ()),
        ],
    ),
]


@pytest.mark.parametrize(("text", "expected"), MORE_STATE)
def test_the_shells_state_through_chains_wrappers_and_new_shells(text, expected):
    assert rows(text) == expected


def test_a_new_shell_is_degraded_when_its_code_is_and_starts_outside_any_pipeline():
    (inner,) = traced("bash -c 'a; )'").invocations
    assert inner.degraded
    a, b, c = traced("a | bash -c 'b; c'").invocations
    assert a.pipe != 0 and (b.pipe, c.pipe) == (0, 0)
    assert not any(inv.degraded for inv in traced("a | bash -c 'b; c'").invocations)


def test_a_loop_over_words_marks_its_earlier_passes_as_repeats():
    found = traced("for f in a b c; do rm $f; done")
    assert [shown(inv) for inv in found.invocations if id(inv) in found.repeats] == ["rm a", "rm b"]
    assert traced("for f in a b; do rm x; done").repeats == frozenset()


def test_a_script_file_succeeds_as_its_last_command(scripts):
    found = traced("bash e.sh && z", scripts).invocations
    assert [shown(inv) for inv in found[-1].succeeded] == ["bash e.sh", "echo y"]


def test_an_empty_pipeline_runs_nothing_and_promises_nothing():
    empty = ParseResult(
        "", CommandList((Pipeline(()), Pipeline((), negated=True)), ("&&", "")), "ok"
    )
    assert trace(empty).invocations == []


LAST_STATE = [
    ('sudo -D sub eval "cd x"; z', [("cd x", "sub", (), ()), ("z", "", (), ())]),
    ("command builtin cd x; z", [("cd x", "", (), ()), ("z", "x", ("",), ())]),
    (
        "f() { cd src; }; f arg; rm a",
        [("cd src", "", (), ()), ("f arg", "", (), ()), ("rm a", None, ("",), ())],
    ),
    ('X=1 bash -c "rm \\$X $Z"', [("rm ? ?", "", (), ())]),
    (
        'export X=1; git rebase -x "rm \\$X" main',
        [
            ("export X=1", "", (), ()),
            ("git rebase -x rm $X main", "", (), ()),
            ("rm ?", "", (), ()),
        ],
    ),
    ("case $v in a) cd x;; b) rm y;; esac", [("cd x", "", (), ()), ("rm y", "", (), ())]),
    (
        "X=0; case $v in a) X=1;; b) echo $X;; esac",
        [("", "", (), ()), ("", "", (), ()), ("echo 0", "", (), ())],
    ),
    (
        'export X=1; python3 -c "import os; os.system(\\"rm \\$X\\")"',
        [
            ("export X=1", "", (), ()),
            ('python3 -c import os; os.system("rm $X")', "", (), ()),
            ("rm ?", "", (), ()),
        ],
    ),
]


@pytest.mark.parametrize(("text", "expected"), LAST_STATE)
def test_case_items_functions_builtins_and_spawned_shells(text, expected):
    assert rows(text) == expected


def test_the_lines_variables_are_put_into_assignments_and_redirections():
    inv = traced("X=a; Y=$X git status > $X").invocations[-1]
    assert [w.literal() for w in inv.assignments] == ["Y=a"]
    assert [r.target.literal() for r in inv.redirects if r.target is not None] == ["a"]


def test_a_wrapper_inside_a_spawned_command_keeps_the_run_time_arguments_source():
    (find,) = top_steps("find . -exec nohup rm {} +")
    rm = find.children[0].invocation
    assert (rm.extra_args, rm.arg_roots, rm.via) == (True, (".",), ("find -exec", "nohup"))
    assert rm.arg_search is not None
    (xargs,) = top_steps("xargs -a list find . -exec rm {} +")
    assert xargs.invocation.arg_file and xargs.children[0].invocation.arg_file


def test_a_trampoline_wrapper_that_hides_the_status_says_so():
    (watch,) = top_steps('watch "git gc"')
    assert watch.masks is not None and "watch" in watch.masks


def test_a_script_file_sees_only_exported_variables_and_only_when_run_directly(tmp_path):
    write(tmp_path, "y.sh", "rm $Y\n")
    assert ["rm", "a"] in argvs("export Y=a; bash y.sh", tmp_path)
    assert ["rm", None] in argvs("Y=a; bash y.sh", tmp_path)
    assert ["rm", None] in argvs("export Y=a; sudo bash y.sh", tmp_path)


def test_python_code_that_runs_its_own_file_is_read_once(tmp_path):
    write(tmp_path, "p2.py", 'import os\nos.system("python3 p2.py")\n')
    assert argvs("python3 p2.py", tmp_path) == [["python3", "p2.py"], ["python3", "p2.py"]]


def test_a_commands_line_is_where_it_starts(tmp_path):
    write(tmp_path, "s2.sh", "\necho a \\\n  b\nrm x\n")
    found = traced("./s2.sh", tmp_path)
    assert [(shown(i), found.origins[id(i)].text) for i in found.invocations[1:]] == [
        ("echo a b", "./s2.sh line 2"),
        ("rm x", "./s2.sh line 4"),
    ]


def test_after_eval_of_unknown_code_the_shell_forgets_what_it_knew_and_learns_again():
    assert rows('Y=a; eval "rm $(f)"; Z=1; echo $Z $Y')[-1][0] == "echo 1 ?"


def test_a_command_inline_code_runs_by_its_words_is_degraded_and_owns_no_redirection():
    found = traced('python3 -c "import subprocess; subprocess.run([\\"git\\", \\"gc\\"])" > out')
    inner = find(found.invocations, "git", "gc")
    assert (inner.degraded, inner.own_redirects, inner.via) == (True, 0, ("python3 -c",))
    (step,) = top_steps('python3 -c "import subprocess; subprocess.run([\\"git\\", \\"gc\\"])"')
    assert [(shown(c.invocation), c.masks) for c in step.children] == [("git gc", INLINE_MASKS)]


def test_a_file_sourced_through_both_builtin_prefixes_runs_in_this_shell(scripts):
    assert described("command builtin source vars.sh; echo $X", scripts)[-1][0] == "echo sub"


def test_an_assignment_alone_is_a_step_that_succeeds_by_itself():
    (step,) = top_steps("X=1 > f")
    assert shown(step.invocation) == "" and step.success == (step.invocation,)
    assert step.invocation.own_redirects == 1


def test_a_wrapper_that_hides_the_status_of_the_command_it_runs_says_so():
    for line, word in (("watch -x git status", "watch"), ("sudo -b git gc", "sudo -b")):
        (step,) = top_steps(line)
        assert step.masks is not None and word in step.masks
        (step,) = top_steps("nohup " + line)
        assert step.masks is not None and word in step.masks


def test_a_spawned_command_owns_none_of_the_spawners_redirections():
    (find_step,) = top_steps("find . -exec rm {} + > log")
    assert find_step.invocation.own_redirects == 1
    assert find_step.children[0].invocation.own_redirects == 0


def test_an_empty_script_is_read_and_an_unreadable_one_owns_no_redirection():
    (step,) = top_steps("bash -c '' > log")
    assert step.invocation is None and [s.success for s in step.scripts] == [()]
    (unknown,) = traced("bash -c ')' > log").invocations
    assert unknown.literals() == [None] and unknown.own_redirects == 0


def test_a_script_file_is_a_script_of_the_step_that_runs_it(scripts):
    found = traced("bash e.sh", scripts)
    (step,) = [step for key, step in found.steps.items() if len(key) == 1]
    assert [(s.via, s.errexit, [shown(i) for i in s.success]) for s in step.scripts] == [
        ("bash e.sh", False, ["echo y"])
    ]
