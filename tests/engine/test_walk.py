"""interlock.engine.walk: every command that would run, through wrappers, trampolines and cwd changes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interlock.engine.invocation import Invocation
from interlock.engine.walk import is_degraded, join_cwd, walk
from interlock.shell.parse import parse


def invocations(text: str, depth_cap: int = 8) -> list[Invocation]:
    return walk(parse(text), depth_cap)


def argvs(text: str) -> list[list[str | None]]:
    return [inv.literals() for inv in invocations(text)]


def only(text: str) -> Invocation:
    found = [inv for inv in invocations(text) if inv.argv]
    assert len(found) == 1, [inv.literals() for inv in found]
    return found[0]


@pytest.mark.parametrize(
    ("text", "argv", "via"),
    [
        ("sudo git push -f", ["git", "push", "-f"], ("sudo",)),
        ("sudo -u deploy -E -- git push", ["git", "push"], ("sudo",)),
        ("sudo -Eu deploy git push", ["git", "push"], ("sudo",)),
        ("doas rm -rf /", ["rm", "-rf", "/"], ("doas",)),
        ("env -i PATH=/bin git clean -fd", ["git", "clean", "-fd"], ("env",)),
        ("env -u HOME -- git status", ["git", "status"], ("env",)),
        ('env PYTHONPATH=$PWD A="$HOME/x" pytest -q', ["pytest", "-q"], ("env",)),
        ("sudo HOME=$H git clean -fd", ["git", "clean", "-fd"], ("sudo",)),
        ("command git reset --hard", ["git", "reset", "--hard"], ("command",)),
        ("command -p git status", ["git", "status"], ("command",)),
        ("builtin cd x", ["cd", "x"], ("builtin",)),
        ("exec -a name git status", ["git", "status"], ("exec",)),
        ("nohup git gc", ["git", "gc"], ("nohup",)),
        ("nice -n 10 git gc", ["git", "gc"], ("nice",)),
        ("nice -10 git gc", ["git", "gc"], ("nice",)),
        ("ionice -c3 git gc", ["git", "gc"], ("ionice",)),
        ("timeout 5 git push", ["git", "push"], ("timeout",)),
        ("timeout -k 5 -s KILL 1m git push", ["git", "push"], ("timeout",)),
        ("timeout --preserve-status 60 pytest", ["pytest"], ("timeout",)),
        ("/usr/bin/time -v git gc", ["git", "gc"], ("time",)),
        ("time -p git gc", ["git", "gc"], ()),
        ("stdbuf -oL -eL pytest", ["pytest"], ("stdbuf",)),
        ("setsid -f git fetch", ["git", "fetch"], ("setsid",)),
        ("chrt -f 10 git status", ["git", "status"], ("chrt",)),
        ("taskset -c 0,1 git log", ["git", "log"], ("taskset",)),
        ("flock /tmp/lock git gc", ["git", "gc"], ("flock",)),
        ("flock -n /tmp/lock -c 'git gc'", ["git", "gc"], ("flock -c",)),
        ("watch -n 5 git status", ["git", "status"], ("watch",)),
        ("watch -x git status", ["git", "status"], ("watch",)),
        ("caffeinate -i make", ["make"], ("caffeinate",)),
        ("unbuffer pytest", ["pytest"], ("unbuffer",)),
        ("uv run pytest -x", ["pytest", "-x"], ("uv run",)),
        ("uv run --with rich --python 3.12 pytest", ["pytest"], ("uv run",)),
        ("uv run -m pytest", ["python", "-m", "pytest"], ("uv run",)),
        ("uvx ruff check .", ["ruff", "check", "."], ("uvx",)),
        ("poetry run pytest", ["pytest"], ("poetry run",)),
        ("pipenv run pytest", ["pytest"], ("pipenv run",)),
        ("pdm run pytest", ["pytest"], ("pdm run",)),
        ("hatch run pytest", ["pytest"], ("hatch run",)),
        ("conda run -n env pytest", ["pytest"], ("conda run",)),
        ("npx jest", ["jest"], ("npx",)),
        ("npx --yes eslint .", ["eslint", "."], ("npx",)),
        ("npx eslint@8 .", ["eslint", "."], ("npx",)),
        ("npx @biomejs/biome@1.2 check", ["@biomejs/biome", "check"], ("npx",)),
        ("pnpm exec vitest", ["vitest"], ("pnpm exec",)),
        ("pnpm dlx tsc --noEmit", ["tsc", "--noEmit"], ("pnpm dlx",)),
        ("yarn dlx jest", ["jest"], ("yarn dlx",)),
        ("bunx tsc", ["tsc"], ("bunx",)),
        ("npm exec -- eslint .", ["eslint", "."], ("npm exec",)),
        ("dotenv -- git push", ["git", "push"], ("dotenv",)),
        ("dotenv -e .env.test -- pytest", ["pytest"], ("dotenv",)),
        ("/usr/bin/git status", ["/usr/bin/git", "status"], ()),
        ("\\git status", ["git", "status"], ()),
        ("'git' status", ["git", "status"], ()),
        (">log 2>&1 git push", ["git", "push"], ()),
        ("FOO=1 git push", ["git", "push"], ()),
        (
            "sudo -E env X=1 timeout 5 nice git push -f",
            ["git", "push", "-f"],
            ("sudo", "env", "timeout", "nice"),
        ),
    ],
)
def test_prefix_wrappers_are_stripped_to_reach_the_real_command(text, argv, via):
    inv = only(text)
    assert inv.literals() == argv
    assert inv.via == via


@pytest.mark.parametrize(
    "text",
    [
        "sudo",
        "sudo -l",
        "env",
        "command -v git",
        "command -V git",
        "timeout",
        "nohup",
        "ionice -p 1234",
        "taskset -p 1234",
        "chrt -p 1234",
        "xargs",
        "sudo -e /etc/hosts",
    ],
)
def test_a_wrapper_with_nothing_to_run_is_itself_the_command(text):
    inv = only(text)
    assert inv.literals()[0] == text.split()[0]
    assert inv.via == ()


def test_wrapper_assignments_and_env_chdir_reach_the_command():
    inv = only("env -C sub FOO=1 git status")
    assert [a.literal() for a in inv.assignments] == ["FOO=1"]
    assert inv.cwd == "sub"
    assert only("sudo -D /srv git status").cwd == "/srv"
    assert only("conda run --cwd sub pytest").cwd == "sub"


@pytest.mark.parametrize(
    ("text", "argv", "via"),
    [
        ("bash -c 'git reset --hard'", ["git", "reset", "--hard"], ("bash -c",)),
        ("sh -c 'git reset --hard'", ["git", "reset", "--hard"], ("sh -c",)),
        ("zsh -lc 'git reset --hard'", ["git", "reset", "--hard"], ("zsh -c",)),
        ("bash -ec 'git reset --hard'", ["git", "reset", "--hard"], ("bash -c",)),
        ("bash -xc 'git reset --hard'", ["git", "reset", "--hard"], ("bash -c",)),
        ("bash -o pipefail -c 'git reset --hard'", ["git", "reset", "--hard"], ("bash -c",)),
        ("bash --login -c 'git reset --hard'", ["git", "reset", "--hard"], ("bash -c",)),
        ("dash -c 'git reset --hard' arg0 arg1", ["git", "reset", "--hard"], ("dash -c",)),
        ("/bin/bash -c 'git reset --hard'", ["git", "reset", "--hard"], ("bash -c",)),
        ("ksh -c 'git reset --hard'", ["git", "reset", "--hard"], ("ksh -c",)),
        ("bash <<'EOF'\ngit reset --hard\nEOF", ["git", "reset", "--hard"], ("bash <<",)),
        ("bash -s <<EOF\ngit reset --hard\nEOF", ["git", "reset", "--hard"], ("bash <<",)),
        ("sh <<< 'git reset --hard'", ["git", "reset", "--hard"], ("sh <<",)),
        ("eval git reset --hard", ["git", "reset", "--hard"], ("eval",)),
        ("eval 'git reset --hard'", ["git", "reset", "--hard"], ("eval",)),
        ("env -S 'git reset --hard'", ["git", "reset", "--hard"], ("env -S",)),
        ("su -c 'git reset --hard' deploy", ["git", "reset", "--hard"], ("su -c",)),
        ("watch 'git status'", ["git", "status"], ("watch",)),
        ("npx -c 'eslint .'", ["eslint", "."], ("npx -c",)),
        ("sudo bash -c 'git push -f'", ["git", "push", "-f"], ("sudo", "bash -c")),
    ],
)
def test_trampolines_parse_and_walk_the_inner_command_line(text, argv, via):
    inv = only(text)
    assert inv.literals() == argv
    assert inv.via == via
    assert not inv.degraded


def test_inner_command_lines_are_walked_whole():
    assert argvs("bash -c 'cd sub && git checkout -- . ; rm -rf build'") == [
        ["cd", "sub"],
        ["git", "checkout", "--", "."],
        ["rm", "-rf", "build"],
    ]


@pytest.mark.parametrize("text", ['bash -c "$CMD"', 'eval "$CMD"', "sh -c $X", "eval $(ssh-agent)"])
def test_a_non_literal_trampoline_string_is_an_unknown_degraded_command(text):
    found = invocations(text)
    unknown = [inv for inv in found if inv.argv and inv.argv[0].literal() is None]
    assert unknown
    assert all(inv.degraded for inv in unknown)
    assert is_degraded(parse(text), found)


def test_a_partly_literal_trampoline_string_keeps_its_known_commands():
    found = invocations('bash -c "cd $DIR && rm -rf build"')
    assert [inv.literals() for inv in found] == [["cd", None], ["rm", "-rf", "build"]]
    assert found[1].cwd is None
    assert all(inv.degraded for inv in found)


def test_nested_trampolines_beyond_the_depth_cap_become_unknown():
    text = "bash -c " + '\'bash -c "bash -c \\"git push -f\\""\''
    assert only(text).literals() == ["git", "push", "-f"]
    capped = invocations(text, depth_cap=2)
    assert len(capped) == 1
    assert capped[0].argv[0].literal() is None
    assert capped[0].degraded


@pytest.mark.parametrize(
    ("text", "roots"),
    [
        ("find . -name '*.pyc' -exec rm -f {} \\;", (".",)),
        ("find src tests -type f -exec rm {} +", ("src", "tests")),
        ("find -L build -execdir rm {} ';'", ("build",)),
        ("find -name x -ok rm {} \\;", (".",)),
        ("find $D -exec rm {} \\;", None),
    ],
)
def test_find_exec_commands_run_with_extra_args_from_the_start_paths(text, roots):
    found = invocations(text)
    assert found[0].name == "find"
    child = found[1]
    assert child.name == "rm"
    assert "{}" in child.literals()
    assert child.extra_args
    assert child.arg_roots == roots
    assert child.via[0].startswith("find -")


def test_find_execdir_runs_in_an_unknown_directory():
    assert invocations("find . -execdir git add {} \\;")[1].cwd is None


def test_find_with_several_exec_actions_yields_each():
    found = invocations("find . -exec chmod 644 {} \\; -exec rm {} +")
    assert [inv.name for inv in found] == ["find", "chmod", "rm"]


@pytest.mark.parametrize(
    ("text", "argv"),
    [
        ("xargs rm -rf", ["rm", "-rf"]),
        ("xargs -0 rm", ["rm"]),
        ("xargs -I {} rm -rf {}", ["rm", "-rf", None]),
        ("xargs -I{} -P 4 rm {}", ["rm", None]),
        ("xargs -n 1 -r -t git rm", ["git", "rm"]),
        ("xargs -d '\\n' --null rm", ["rm"]),
        ("xargs -i cp {} dir", ["cp", None, "dir"]),
        ("xargs --max-args=2 rm", ["rm"]),
    ],
)
def test_xargs_runs_its_command_with_unknown_extra_args(text, argv):
    inv = only(text)
    assert inv.literals() == argv
    assert inv.extra_args
    assert inv.arg_roots is None
    assert inv.via == ("xargs",)


def test_xargs_behind_a_pipe_and_composed_with_sh_c():
    found = invocations("git ls-files | xargs -0 sh -c 'rm -rf \"$@\"' _")
    assert found[-1].literals() == ["rm", "-rf", None]
    assert found[-1].extra_args


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("parallel rm {} ::: a b", [["rm", None]]),
        ("parallel -j4 'gzip {}' ::: *.log", [["gzip", None]]),
        ("parallel ::: 'git gc' 'git fsck'", [["git", "gc"], ["git", "fsck"]]),
    ],
)
def test_parallel_runs_its_command_or_its_arguments(text, expected):
    assert argvs(text) == expected


def test_parallel_reading_commands_from_stdin_is_unknown():
    found = invocations("cat cmds | parallel")
    assert found[-1].argv[0].literal() is None
    assert found[-1].degraded


@pytest.mark.parametrize(
    ("text", "inner"),
    [
        ("git rebase -i -x 'make test' main", ["make", "test"]),
        ("git rebase --exec 'make test' main", ["make", "test"]),
        ("git rebase --exec='make test' main", ["make", "test"]),
        ("git -C repo rebase -x 'rm -rf x' main", ["rm", "-rf", "x"]),
        ("git submodule foreach git clean -fdx", ["git", "clean", "-fdx"]),
        ("git submodule foreach --recursive 'git reset --hard'", ["git", "reset", "--hard"]),
        ("git bisect run make test", ["make", "test"]),
    ],
)
def test_git_runs_commands_given_to_rebase_submodule_and_bisect(text, inner):
    found = invocations(text)
    assert found[0].name == "git"
    assert found[-1].literals() == inner
    assert found[-1].via[0].startswith("git ")


def test_ssh_remote_commands_are_walked_as_the_script_ssh_hands_over():
    # `ssh localhost CMD` runs here, and a remote discard is still a discard
    assert argvs("ssh host rm -rf /") == [["rm", "-rf", "/"]]
    assert argvs("ssh -p 2222 -i key user@host 'cd app && git status'") == [
        ["cd", "app"],
        ["git", "status"],
    ]


@pytest.mark.parametrize(
    ("text", "cwds"),
    [
        ("cd sub && git status", ["", "sub"]),
        ("cd sub; git status", ["", "sub"]),
        ("cd sub && cd ../x && git status", ["", "sub", "x"]),
        ("cd /srv/app && git status", ["", "/srv/app"]),
        ("cd /srv && cd app && ls", ["", "/srv", "/srv/app"]),
        ("cd .. && ls", ["", ".."]),
        ("cd - && ls", ["", None]),
        ('cd "$D" && ls', ["", None]),
        ("cd && ls", ["", None]),
        ("cd ~/x && ls", ["", None]),
        ("cd -P sub && ls", ["", "sub"]),
        ("(cd sub; ls); ls", ["", "sub", ""]),
        ("cd sub | ls; ls", ["", "", ""]),
        ("cd sub & ls", ["", ""]),
        ("x=$(cd sub; pwd); ls", ["", "sub", "", ""]),
        ("bash -c 'cd sub'; ls", ["", ""]),
        ("eval 'cd sub'; ls", ["", "sub"]),
        ("pushd a; pushd b; popd; ls", ["", "a", "a/b", "a"]),
        ("cd x || exit 1; ls", ["", "", "x"]),
        ("cd x || echo no; ls", ["", "", None]),
        ("if [ -d x ]; then cd x; fi; ls", ["", "", None]),
        ("if cd x; then ls; else pwd; fi", ["", "x", ""]),
        # read once per word: `cd a` where the line started, `cd b` after a pass that may
        # have moved (unknown), and `ls` after the loop
        ("for d in a b; do cd $d; done; ls", ["", None, None]),
        ("builtin cd sub; ls", ["", "sub"]),
        ("sudo cd sub; ls", ["", ""]),
        ("f() { cd x; }; ls", ["", ""]),
    ],
)
def test_cwd_follows_cd_without_leaking_out_of_subshells(text, cwds):
    assert [inv.cwd for inv in invocations(text)] == cwds


def test_join_cwd_keeps_relative_paths_relative_and_absolute_absolute():
    assert join_cwd("", "sub") == "sub"
    assert join_cwd("sub", "..") == ""
    assert join_cwd("sub", "../../x") == "../x"
    assert join_cwd("sub", "/abs/./y") == "/abs/y"
    assert join_cwd(None, "x") is None
    assert join_cwd(None, "/x") == "/x"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a && b || c | d", [["a"], ["b"], ["c"], ["d"]]),
        ("(a; b) & { c; }", [["a"], ["b"], ["c"]]),
        ("if a; then b; elif c; then d; else e; fi", [["a"], ["b"], ["c"], ["d"], ["e"]]),
        ("while a; do b; done", [["a"], ["b"]]),
        ("for x in $(a); do b; done", [["a"], ["b"]]),
        ("case x in y) a;; *) b;; esac", [["a"], ["b"]]),
        ("f() { a; }", [["a"]]),
        ("function f { a; }; f", [["a"], ["f"]]),
        ("echo $(a) `b` <(c) >(d)", [["a"], ["b"], ["c"], ["d"], ["echo", None, None, None, None]]),
        ("x=$(a) y=`b`", [["a"], ["b"], []]),
        ("echo > $(a)", [["a"], ["echo"]]),
        ("cat <<EOF\n$(a)\nEOF", [["a"], ["cat"]]),
        ("[[ $(a) ]] && b", [["a"], ["b"]]),
        ("(( $(a) )) || b", [["a"], ["b"]]),
        ("echo $(( $(a) + 1 ))", [["a"], ["echo", None]]),
        ("time a | b", [["a"], ["b"]]),
        ("! a", [["a"]]),
        ("coproc a", [["a"]]),
    ],
)
def test_every_command_is_found_wherever_it_hides(text, expected):
    assert argvs(text) == expected


def test_unknown_command_words_are_kept_unknown():
    assert argvs("$CMD reset --hard") == [[None, "reset", "--hard"]]
    assert argvs("$(echo git) reset --hard") == [["echo", "git"], [None, "reset", "--hard"]]
    assert only("sudo $CMD x").argv[0].literal() is None


def test_source_is_the_outermost_simple_command():
    result = parse("sudo bash -c 'git push'")
    (inv,) = walk(result)
    assert inv.source is not None and inv.source.text == "sudo bash -c 'git push'"


def test_redirects_of_a_group_or_trampoline_reach_the_commands_inside():
    inv = only("{ echo hook; } > .git/hooks/pre-commit")
    assert [r.target.literal() for r in inv.redirects if r.target] == [".git/hooks/pre-commit"]
    inv = only("bash -c 'echo x' >> .git/hooks/pre-push")
    assert [r.target.literal() for r in inv.redirects if r.target] == [".git/hooks/pre-push"]


def test_a_command_of_only_assignments_or_redirects_is_an_empty_invocation():
    (inv,) = invocations("INTERLOCK_MODE=off")
    assert inv.argv == () and inv.name is None
    assert [a.literal() for a in inv.assignments] == ["INTERLOCK_MODE=off"]
    (inv,) = invocations("> .git/hooks/pre-commit")
    assert inv.argv == ()
    assert inv.redirects[0].target is not None


def test_degraded_parse_marks_every_invocation_degraded():
    result = parse("find . ( -name a ) -exec rm {} \\;")
    found = walk(result)
    assert result.status == "degraded"
    assert found and all(inv.degraded for inv in found)
    assert is_degraded(result, found)


def test_a_clean_parse_is_not_degraded():
    result = parse("git status && sudo timeout 5 bash -c 'git log'")
    assert not is_degraded(result, walk(result))


def test_an_incomplete_line_is_walked_from_its_conservative_reading():
    result = parse("git reset --hard\necho 'oops")
    found = walk(result)
    assert [inv.name for inv in found] == ["git", "echo"]
    assert all(inv.degraded for inv in found)


def test_an_unparsed_line_has_no_invocations_and_is_degraded():
    result = parse("$(" * 40 + "x" + ")" * 40)
    assert walk(result) == []
    assert is_degraded(result, [])


WRAPS = [
    "sudo {}",
    "sudo -E env X=1 {}",
    "timeout 5 {}",
    "nohup {}",
    "bash -c '{}'",
    "sh -lc '{}'",
    "eval '{}'",
    "true && {}",
    "( {} )",
    "{{ {}; }}",
    "echo $( {} )",
    "{} | cat",
    "xargs {}",
    "uv run {}",
    "env -C sub {}",
]
PREFIXES = [w for w in WRAPS if w.endswith(" {}")]
COMMANDS = ["git reset --hard", "rm -rf build", "git push -f origin main", "git clean -fdx"]


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(COMMANDS), st.lists(st.sampled_from(WRAPS), max_size=3))
def test_wrapping_never_hides_the_inner_command(command, wraps):
    text, simple = command, True
    for wrap in wraps:
        if ("'" in wrap and "'" in text) or (wrap in PREFIXES and not simple):
            continue  # keep the line valid bash: a prefix wrapper needs a simple command
        text = wrap.format(text)
        simple = wrap in PREFIXES or wrap.endswith("'")
    assert command.split() in argvs(text)


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=120))
def test_walk_never_raises(text):
    walk(parse(text))
