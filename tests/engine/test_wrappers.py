"""interlock.engine.wrappers and pkgrunners: what a command runs behind a prefix wrapper or a
package runner, where it runs, and when where it starts is only known at run time.

End to end through `evaluate` in a real repository whose src/ holds uncommitted work and
whose build/ is ignored (removing build/ discards nothing); the walk pins the details."""

from __future__ import annotations

import pytest

from interlock.engine.check import evaluate
from interlock.engine.invocation import Invocation
from interlock.engine.walk import walk
from interlock.shell.parse import parse


@pytest.fixture
def repo(repo_with_work):
    return repo_with_work


def judge(repo, command: str) -> tuple[str, set[str]]:
    """The blocking verdict of command run at the top of repo, and its finding kinds."""
    result = evaluate(command, str(repo), mode="blocking").result
    return result.verdict, {f.kind for f in result.findings}


def invocations(text: str) -> list[Invocation]:
    return walk(parse(text))


def only(text: str) -> Invocation:
    found = [inv for inv in invocations(text) if inv.argv]
    assert len(found) == 1, [inv.literals() for inv in found]
    return found[0]


def test_the_repository_fixture_separates_unsaved_work_from_ignored_output(repo):
    assert judge(repo, "rm -rf src") == ("block", {"discard"})
    assert judge(repo, "rm -rf build") == ("allow", set())


# -- regressions (most were allowed on main at 22:15) and the neighbours they pin ---------

REFUSED_DISCARDS = [
    # python-dotenv's `run` subcommand, after its own options
    "dotenv -f .env run rm -rf src",
    "dotenv --file .env -q always run --no-override rm -rf src",
    "dotenv run rm -rf -- src",
    # pnpm's shell mode runs the words as a command line
    'pnpm exec -c "rm -rf src"',
    'pnpm exec --shell-mode "rm -rf src"',
    'pnpm dlx -c "rm -rf src"',
    "pnpx -c rm -rf src",
    'yarn exec "rm -rf src"',
    # a directory option moves the command
    "pnpm -C src exec rm -rf .",
    "pnpm --dir src exec rm -rf .",
    "npm --prefix src exec rm -rf .",
    "npm -C src exec -- rm -rf .",
    "yarn --cwd src exec rm -rf .",
    "bun --cwd src x rm -rf .",
    "uv --directory src run rm -rf .",
    "uv run --directory src rm -rf .",
    "uv --directory src tool run rm -rf .",
    "poetry -C src run rm -rf .",
    "conda run --cwd src rm -rf .",
    "sudo --chd src rm -rf .",
    "env -C src rm -rf .",
    "env --chdir src rm -rf .",
    # direnv loads DIR's environment but runs the command where it is
    "direnv exec build rm -rf src",
    # flock's options with values, abbreviated long options, the -c form after the file
    "flock -w 3 /tmp/l rm -rf src",
    "flock --time 3 /tmp/l rm -rf src",
    "flock --conflict-exit-code 1 /tmp/l rm -rf src",
    'flock -E 1 /tmp/l -c "rm -rf src"',
    'flock -n /tmp/l --command "rm -rf src"',
    # watch's `-d` and `--differences` take no separate value; `-s` takes one
    "watch --differences rm -rf src",
    "watch -d rm -rf src",
    "watch -s /tmp/shots rm -rf src",
    # su permutes its options; -c may be clustered or come after the user
    'su -lc "rm -rf src" root',
    'su root -c "rm -rf src"',
    'su --session-command="rm -rf src"',
    'runuser -u app -- sh -c "rm -rf src"',
    # env -S hands its string to a shell
    'env -S "rm -rf src"',
    "env -Srm\\ -rf\\ src",
    # npx's --call
    'npx --call "rm -rf src"',
]


@pytest.mark.parametrize("command", REFUSED_DISCARDS)
def test_what_a_wrapper_runs_is_judged_where_it_runs(repo, command):
    verdict, kinds = judge(repo, command)
    assert verdict == "block"
    assert "discard" in kinds


ALLOWED = [
    # the same wrappers moving the command into ignored output, or running it as written
    "pnpm -C build exec rm -rf .",
    "uv --directory build run rm -rf .",
    "env -C build rm -rf src",
    "yarn --cwd build exec rm -rf .",
    "npm --prefix build exec rm -rf .",
    "bun --cwd build x rm -rf .",
    "timeout 5 rm -rf build",
    "flock 9",
    'flock -n "$FD"',
    "flock -w 3 /tmp/l rm -rf build",
    # unsetting a hook-skipping variable makes the hooks run
    "env -u HUSKY_SKIP_HOOKS git commit -m x",
    "env --unset=HUSKY_SKIP_HOOKS git commit -m x",
    "HUSKY=0 env -u HUSKY git commit -m x",
    "HUSKY= git commit -m x",
    'su root -c "ls"',
    "su $username -c ls",
]


@pytest.mark.parametrize("command", ALLOWED)
def test_wrappers_that_run_nothing_harmful_are_allowed(repo, command):
    assert judge(repo, command) == ("allow", set())


UNKNOWN = [
    # where the command starts depends on a value only known at run time: unquoted, it may
    # be several words, the command among them
    "timeout $T rm -rf build",
    "timeout $(cat t) rm -rf build",
    'chrt $P rm -rf build',
    "flock $ARGS",
    "env $OPTS rm -rf build",
    'nice "$N" rm -rf build',
    'env --chdir="$D" rm -rf build',
    # code only known at run time
    'env -S "$X"',
    'npx -c "$CMD"',
    'npm exec --call "$CMD"',
    'su -c "$C"',
    'su -c ls "$U"',
    'su "$U"',
]


@pytest.mark.parametrize("command", UNKNOWN)
def test_a_wrapper_reading_an_expansion_where_it_may_be_an_option_runs_unknown_code(repo, command):
    verdict, kinds = judge(repo, command)
    assert verdict == "block"
    assert "unparsed" in kinds


NOT_LITERAL_DIRECTORY = [
    'env -C "$D" rm -rf build',
    'sudo -D "$D" rm -rf build',
    'poetry -C "$D" run rm -rf build',
    'conda run -n e --cwd "$D" rm -rf build',
    'pnpm -C "$D" exec rm -rf build',
    'uv --directory "$D" run rm -rf build',
    "pnpm -r exec rm -rf build",
    "pnpm --filter app exec rm -rf build",
    "npm -w app exec -- rm -rf build",
    "npm --workspaces exec -- rm -rf build",
    "bun --filter app x rm -rf build",
    "yarn workspace app exec rm -rf build",
    "yarn workspaces foreach -A exec rm -rf build",
    'git -C "$D" rebase -x "rm -rf build" main',
    "git -C sub rebase -x 'rm -rf build' main",
    'parallel --wd "$D" rm -rf build ::: x',
]


@pytest.mark.parametrize("command", NOT_LITERAL_DIRECTORY)
def test_a_directory_only_known_at_run_time_makes_the_targets_unknown(repo, command):
    # `rm -rf build` is harmless here, but not in a directory nobody can name
    verdict, kinds = judge(repo, command)
    assert verdict == "block"
    assert "discard" in kinds


# -- the walk: the details ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "cwd"),
    [
        ("env -C sub git status", "sub"),
        ("env -C a --chdir b git status", "b"),
        ('env -C "$D" git status', None),
        ("sudo -D /srv git status", "/srv"),
        ('sudo --chdir "$D" git status', None),
        ("sudo git status", ""),
        ("pnpm -C web exec vitest", "web"),
        ("pnpm --dir=web exec vitest", "web"),
        ("pnpm exec vitest", ""),
        ("pnpm -r exec vitest", None),
        ("pnpm -w exec vitest", None),
        ("pnpm -F app exec vitest", None),
        ("pnpm --filter-prod app exec vitest", None),
        ("pnpm --recursive exec vitest", None),
        ("pnpm --workspace-root exec vitest", None),
        ("npm --prefix web exec vitest", "web"),
        ("npm -C web exec vitest", "web"),
        ("npm exec --prefix web vitest", "web"),
        ("npm -w app exec vitest", None),
        ("npm --workspace app exec vitest", None),
        ("npm --workspaces exec vitest", None),
        ("npx --prefix web vitest", "web"),
        ("yarn --cwd web dlx jest", "web"),
        ("yarn workspace app dlx jest", None),
        ("bun --cwd web x tsc", "web"),
        ("bun -F app x tsc", None),
        ("bun --filter app x tsc", None),
        ("uv --directory web run pytest", "web"),
        ("uv run --directory web pytest", "web"),
        ("uv run -m pytest", ""),
        ("uv --directory web run -m pytest", "web"),
        ('uv run --directory "$D" pytest', None),
        ("uvx --directory web ruff check", "web"),
        ("uv --directory web tool run ruff", "web"),
        ("poetry -C web run pytest", "web"),
        ("poetry --directory web run pytest", "web"),
        ("conda run --cwd web pytest", "web"),
        ("pdm run pytest", ""),
        ("direnv exec web pytest", ""),
        ("dotenv run pytest", ""),
    ],
)
def test_the_directory_a_wrapper_runs_its_command_in(text, cwd):
    assert only(text).cwd == cwd


@pytest.mark.parametrize(
    ("text", "argv", "via"),
    [
        ("dotenv run pytest -x", ["pytest", "-x"], ("dotenv",)),
        ("dotenv -f .env.test run pytest", ["pytest"], ("dotenv",)),
        ("dotenv --file=.env run --override pytest", ["pytest"], ("dotenv",)),
        ("dotenv -q never -e false run pytest", ["pytest"], ("dotenv",)),
        ("dotenv -e .env -- pytest --co", ["pytest", "--co"], ("dotenv",)),
        ("dotenv -v A=1 -p X -c dev pytest", ["pytest"], ("dotenv",)),
        ("dotenv run -- pytest", ["pytest"], ("dotenv",)),
        ("direnv exec . pytest -q", ["pytest", "-q"], ("direnv exec",)),
        ("pnpm -C web exec vitest run", ["vitest", "run"], ("pnpm exec",)),
        ("pnpm --reporter silent dlx tsc", ["tsc"], ("pnpm dlx",)),
        ("pnpm exec --resume-from x vitest", ["vitest"], ("pnpm exec",)),
        ("pnpm exec -c vitest run", ["vitest", "run"], ("pnpm exec -c",)),
        ("pnpm exec --shell-mode 'vitest run'", ["vitest", "run"], ("pnpm exec -c",)),
        ("pnpx -c 'vitest run'", ["vitest", "run"], ("pnpx -c",)),
        ("pnpx vitest@1 run", ["vitest", "run"], ("pnpx",)),
        ("yarn exec 'jest --ci'", ["jest", "--ci"], ("yarn exec",)),
        ("yarn exec jest --ci", ["jest", "--ci"], ("yarn exec",)),
        ("yarn --cwd web dlx -p jest@29 jest", ["jest"], ("yarn dlx",)),
        ("yarn workspace app exec jest", ["jest"], ("yarn exec",)),
        ("yarn workspaces foreach -j 2 --all exec jest", ["jest"], ("yarn exec",)),
        ("bun x tsc", ["tsc"], ("bun x",)),
        ("bun --cwd web x tsc@5", ["tsc"], ("bun x",)),
        ("npm x -- eslint .", ["eslint", "."], ("npm exec",)),
        ("npm exec --package=eslint@8 -- eslint@8", ["eslint@8"], ("npm exec",)),
        ("npm --loglevel silent exec eslint", ["eslint"], ("npm exec",)),
        ("npx -c 'eslint .'", ["eslint", "."], ("npx -c",)),
        ("npx --call='eslint .'", ["eslint", "."], ("npx -c",)),
        ("npm exec -c 'eslint .'", ["eslint", "."], ("npm exec -c",)),
        ("npx -p eslint@8 eslint@8 .", ["eslint@8", "."], ("npx",)),
        ("uvx --from ruff ruff@0.5 check", ["ruff@0.5", "check"], ("uvx",)),
        ("uvx ruff@0.5 check", ["ruff", "check"], ("uvx",)),
        ("uv --no-cache run pytest", ["pytest"], ("uv run",)),
        ("uv tool run ruff", ["ruff"], ("uv tool run",)),
        ("uv --directory web run -m pytest -x", ["python", "-m", "pytest", "-x"], ("uv run",)),
        ("poetry run pytest", ["pytest"], ("poetry run",)),
        ("rye run pytest", ["pytest"], ("rye run",)),
        ("mamba run -n env pytest", ["pytest"], ("mamba run",)),
    ],
)
def test_package_runners_hand_over_to_their_command(text, argv, via):
    inv = only(text)
    assert inv.literals() == argv
    assert inv.via == via


@pytest.mark.parametrize(
    "text",
    [
        "dotenv",
        "dotenv -f",
        "dotenv run",
        "dotenv run --bad-value",
        "direnv exec web",
        "direnv allow",
        "pnpm install",
        "pnpm exec",
        "pnpm -C",
        "pnpm exec -c",
        "pnpm exec -F",
        "npm test",
        "npm exec -c",
        "npx",
        "npx -p",
        "yarn workspace app",
        "yarn workspaces",
        "yarn workspaces foreach",
        "yarn workspaces foreach -j",
        "yarn workspaces list",
        "bun run dev",
        "uv",
        "uv sync",
        "uv run",
        "uv run --with",
        "uv --directory",
        "uv tool list",
        "uv tool run",
        "uvx",
        "poetry install",
        "poetry run",
        "poetry -C",
        "poetry run --cwd",
        "conda",
    ],
)
def test_a_package_runner_with_nothing_to_run_is_itself_the_command(text):
    inv = only(text)
    assert inv.literals()[0] == text.split()[0]
    assert inv.via == ()


@pytest.mark.parametrize(
    ("text", "argv", "via"),
    [
        ("flock /tmp/l git gc", ["git", "gc"], ("flock",)),
        ("flock -s -w 3 /tmp/l git gc", ["git", "gc"], ("flock",)),
        ("flock -w3 /tmp/l git gc", ["git", "gc"], ("flock",)),
        ("flock --wait 3 /tmp/l git gc", ["git", "gc"], ("flock",)),
        ("flock --timeout=3 /tmp/l git gc", ["git", "gc"], ("flock",)),
        ("flock --conf 1 /tmp/l git gc", ["git", "gc"], ("flock",)),
        ("flock --nb /tmp/l git gc", ["git", "gc"], ("flock",)),
        ("flock /tmp/l -n git gc", ["-n", "git", "gc"], ("flock",)),
        ("flock -n /tmp/lock -c 'git gc'", ["git", "gc"], ("flock -c",)),
        ("flock /tmp/lock --command 'git gc'", ["git", "gc"], ("flock -c",)),
        ("timeout -s KILL 5 git gc", ["git", "gc"], ("timeout",)),
        ("timeout --sig KILL 5 git gc", ["git", "gc"], ("timeout",)),
        ("timeout --kill 9 5 git gc", ["git", "gc"], ("timeout",)),
        ("timeout --fore 5 git gc", ["git", "gc"], ("timeout",)),
        ("nice --adj 5 git gc", ["git", "gc"], ("nice",)),
        ("nice --adjustment=5 git gc", ["git", "gc"], ("nice",)),
        ("sudo --user app git gc", ["git", "gc"], ("sudo",)),
        ("sudo --us app git gc", ["git", "gc"], ("sudo",)),
        ("sudo --preserve-env git gc", ["git", "gc"], ("sudo",)),
        ("env --ignore-environment git gc", ["git", "gc"], ("env",)),
        ("env --ign git gc", ["git", "gc"], ("env",)),
        ("env --unset X git gc", ["git", "gc"], ("env",)),
        ("env --uns X git gc", ["git", "gc"], ("env",)),
        ("env --default-signal git gc", ["git", "gc"], ("env",)),
        ("env -- git gc", ["git", "gc"], ("env",)),
        ("watch -n 1 -d git status", ["git", "status"], ("watch",)),
        ("watch -dpermanent git status", ["git", "status"], ("watch",)),
        ("watch --differences=permanent git status", ["git", "status"], ("watch",)),
        ("watch --inter 1 git status", ["git", "status"], ("watch",)),
        ("watch -q 3 git status", ["git", "status"], ("watch",)),
        ("watch --shotsdir /tmp git status", ["git", "status"], ("watch",)),
        ("watch --exec git status", ["git", "status"], ("watch",)),
        ("su -c 'git gc' app", ["git", "gc"], ("su -c",)),
        ("su -l app -c 'git gc'", ["git", "gc"], ("su -c",)),
        ("su - app -c 'git gc'", ["git", "gc"], ("su -c",)),
        ("su -s /bin/sh -c 'git gc' app", ["git", "gc"], ("su -c",)),
        ("su -c 'git gc'", ["git", "gc"], ("su -c",)),
        ("su -cgit\\ gc", ["git", "gc"], ("su -c",)),
        ("su --comm 'git gc'", ["git", "gc"], ("su -c",)),
        ("su $U -c 'git gc'", ["git", "gc"], ("su -c",)),
        ("su -c 'git log' app -c 'git gc'", ["git", "gc"], ("su -c",)),
        ("runuser -u app -c 'git gc'", ["git", "gc"], ("runuser -c",)),
    ],
)
def test_process_wrappers_read_their_options_as_their_programs_do(text, argv, via):
    inv = only(text)
    assert inv.literals() == argv
    assert inv.via == via


@pytest.mark.parametrize(
    "text",
    [
        "flock 9",
        "flock -u 9",
        'flock -n "$FD"',
        "flock -w",
        'timeout "$T"',
        "su",
        "su app",
        "su -l app",
        "su -g",
        "su -c",
        "watch",
        "watch -n",
        "env -C",
        "env -u",
    ],
)
def test_a_process_wrapper_that_runs_nothing_is_itself_the_command(text):
    inv = only(text)
    assert inv.literals()[0] == text.split()[0]
    assert inv.via == ()


@pytest.mark.parametrize(
    ("text", "via"),
    [
        ("timeout $T git gc", ("timeout",)),
        ("timeout -s 9 $T git gc", ("timeout",)),
        ("timeout $(cat t) git gc", ("timeout",)),
        ("chrt -f $P git gc", ("chrt",)),
        ("taskset `m` git gc", ("taskset",)),
        ("flock $L -c 'git gc'", ("flock",)),
        ("flock $L", ("flock",)),
        ("env $OPTS git gc", ("env",)),
    ],
)
def test_an_operand_only_known_at_run_time_makes_the_command_unknown(text, via):
    inv = invocations(text)[-1]
    assert inv.argv[0].literal() is None
    assert inv.via == via


@pytest.mark.parametrize(
    "text",
    ['timeout "5$T" git gc', 'flock "/tmp/$L" git gc', "timeout 5 git gc", "flock ~/l git gc"],
)
def test_an_operand_that_cannot_be_an_option_is_skipped(text):
    assert only(text).literals() == ["git", "gc"]


def test_env_i_and_env_dash_drop_the_outer_assignments_and_keep_their_own():
    inv = only("A=1 env -i B=2 git gc")
    assert [a.literal() for a in inv.assignments] == ["B=2"]
    inv = only("A=1 env - B=2 git gc")
    assert [a.literal() for a in inv.assignments] == ["B=2"]
    inv = only("A=1 env -u C B=2 git gc")
    assert [a.literal() for a in inv.assignments] == ["A=1", "C=", "B=2"]
    inv = only("A=1 env --unset=C git gc")
    assert [a.literal() for a in inv.assignments] == ["A=1", "C="]
    inv = only("A=1 env -S 'B=2 git gc'")
    assert [a.literal() for a in inv.assignments] == ["A=1", "B=2"]
    assert inv.literals() == ["git", "gc"]
    inv = only("A=1 env -i -S 'git gc'")
    assert inv.assignments == ()


def test_env_split_string_keeps_its_cwd_and_the_words_after_it():
    inv = only("env -C sub -S 'git add' file.txt")
    assert inv.literals() == ["git", "add", "file.txt"]
    assert inv.cwd == "sub"
    assert inv.via == ("env -S",)
    assert not inv.degraded
    inv = only('env -S "git $SUB"')
    assert inv.literals() == ["git", None]
    assert inv.degraded


def test_sudo_background_hides_the_exit_status_and_sudo_assignments_reach_the_command():
    result = parse("sudo -b FOO=1 git gc")
    (inv,) = walk(result)
    assert inv.literals() == ["git", "gc"]
    assert [a.literal() for a in inv.assignments] == ["FOO=1"]


def unwrapped(text: str):
    """What wrappers.unwrap says the one simple command of text hands over to."""
    from interlock.engine.wrappers import unwrap

    node = parse(text).root
    return unwrap(node.words, None)  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("sudo -b git gc", True),
        ("sudo --background git gc", True),
        ("sudo git gc", False),
        ("watch git status", True),
        ("watch -x git status", True),
        ("watch -e git status", False),
        ("watch --errexit git status", False),
        ("watch -g git status", False),
        ("watch --chgexit -x git status", False),
    ],
)
def test_wrappers_that_hide_the_exit_status_say_so(text, masked):
    found = unwrapped(text)
    assert found is not None
    assert (found.masks is not None) == masked


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("watch git status", "script"),
        ("watch -x git status", "exec"),
        ("watch --exec git status", "exec"),
        ("eval git status", "script"),
        ("env -S 'git status'", "script"),
        ("flock f -c 'git gc'", "script"),
        ("su -c 'git gc'", "script"),
        ("npx -c 'git gc'", "script"),
        ("pnpm exec -c git gc", "script"),
        ("yarn exec git gc", "script"),
        ("pnpm exec git gc", "exec"),
        ("uv run git gc", "exec"),
    ],
)
def test_what_kind_of_hand_over_each_wrapper_makes(text, kind):
    found = unwrapped(text)
    assert found is not None and found.kind == kind


@pytest.mark.parametrize(
    "text",
    [
        "sudo -l",
        "sudo -v",
        "sudo -k",
        "sudo -K",
        "sudo -V",
        "sudo --list git",
        "sudo --validate",
        "sudo --edit /etc/hosts",
        "sudo -u",
        "doas -C /etc/doas.conf git gc",
        "doas -u",
        "doas",
        "command -v git",
        "command",
        "builtin",
        "exec",
        "exec -a",
        "nice",
        "nice -n",
        "ionice -p 1 git gc",
        "ionice -P 1 git gc",
        "ionice -u 1 git gc",
        "ionice --pid 1 git gc",
        "ionice -c",
        "chrt -p 1 1234",
        "chrt --pid 1 1234",
        "chrt -m",
        "chrt --max",
        "chrt -T",
        "taskset -p 1 1234",
        "taskset --pid 1 1234",
        "eval",
        "timeout -s",
        "env -S",
        "watch -n 1",
    ],
)
def test_a_wrapper_that_runs_nothing_hands_over_nothing(text):
    assert unwrapped(text) is None


@pytest.mark.parametrize(
    ("text", "argv"),
    [
        ("doas -u root git gc", ["git", "gc"]),
        ("doas -n git gc", ["git", "gc"]),
        ("command -p git gc", ["git", "gc"]),
        ("command -- git gc", ["git", "gc"]),
        ("command -p -- git gc", ["git", "gc"]),
        ("builtin cd x", ["cd", "x"]),
        ("exec -a name git gc", ["git", "gc"]),
        ("exec -c git gc", ["git", "gc"]),
        ("nice -n 5 git gc", ["git", "gc"]),
        ("nice -5 git gc", ["git", "gc"]),
        ("nice --5 git gc", ["git", "gc"]),
        ("nice +5 git gc", ["git", "gc"]),
        ("nice git gc", ["git", "gc"]),
        ("ionice -c 3 git gc", ["git", "gc"]),
        ("stdbuf -o L git gc", ["git", "gc"]),
        ("/usr/bin/time -f %e git gc", ["git", "gc"]),
        ("chrt -f 10 git gc", ["git", "gc"]),
        ("chrt --sched-runtime 5 -d 0 git gc", ["git", "gc"]),
        ("taskset -c 0 git gc", ["git", "gc"]),
        ("taskset 0x1 git gc", ["git", "gc"]),
        ("sudo -u app -g grp git gc", ["git", "gc"]),
        ("sudo -- git gc", ["git", "gc"]),
        ("timeout 5 git gc", ["git", "gc"]),
        ("eval 'git gc'", ["git", "gc"]),
    ],
)
def test_wrappers_hand_over_the_words_after_their_options(text, argv):
    found = unwrapped(text)
    assert found is not None
    if found.kind == "exec":
        assert [w.literal() for w in found.rest] == argv
    else:
        assert [s.text for s in found.scripts] == [" ".join(argv)]


def test_eval_runs_in_the_same_shell_and_bash_c_in_a_new_one():
    found = unwrapped("eval 'cd x'")
    assert found is not None and found.scripts[0].same_shell
    found = unwrapped("bash -c 'cd x'")
    assert found is not None and not found.scripts[0].same_shell


@pytest.mark.parametrize(
    ("text", "code", "args", "flags"),
    [
        ("bash -c 'git gc'", "git gc", (), (False, False)),
        ("bash -c 'git gc' zero one", "git gc", ("zero", "one"), (False, False)),
        ("bash -ec 'git gc'", "git gc", (), (True, False)),
        ("bash -o pipefail -c 'git gc'", "git gc", (), (False, True)),
        ("sh -c", "$RUNTIME_CODE", None, (False, False)),
        ("sh -e -c", "$RUNTIME_CODE", None, (True, False)),
    ],
)
def test_a_shell_hands_over_its_command_string_flags_and_arguments(text, code, args, flags):
    found = unwrapped(text)
    assert found is not None
    (script,) = found.scripts
    assert script.text == code
    assert (script.errexit, script.pipefail) == flags
    if args is None:
        assert script.args is None and script.degraded
    else:
        assert [w.literal() for w in script.args or ()] == list(args)
        assert not script.degraded


def test_a_shell_reading_its_script_from_stdin_runs_the_heredoc_and_a_file_is_not_unwrapped():
    from interlock.engine.wrappers import unwrap

    words = parse("bash -s").root.words  # type: ignore[union-attr]
    found = unwrap(words, "git gc\n")
    assert found is not None and found.via == "bash <<"
    assert [s.text for s in found.scripts] == ["git gc\n"]
    found = unwrap(parse("bash -e").root.words, "git gc\n")  # type: ignore[union-attr]
    assert found is not None and found.scripts[0].errexit
    assert unwrap(words, None) is None
    assert unwrap(parse("bash x.sh").root.words, "git gc\n") is None  # type: ignore[union-attr]
    assert unwrap(()) is None


def test_env_clears_the_environment_only_when_told():
    found = unwrapped("env -i git gc")
    assert found is not None and found.clears_env
    found = unwrapped("env - git gc")
    assert found is not None and found.clears_env
    found = unwrapped("env -i -S 'git gc'")
    assert found is not None and found.clears_env
    found = unwrapped("env -u X git gc")
    assert found is not None and not found.clears_env
    found = unwrapped("env -S 'git gc'")
    assert found is not None and not found.clears_env


@pytest.mark.parametrize(
    "text",
    [
        "uv",
        "uv run",
        "uv run -m",
        "uv run --python",
        "uv --directory",
        "uv tool",
        "uv tool run",
        "uv tool list",
        "uv pip install x",
        "uvx",
        "uvx --from",
        "poetry run",
        "poetry run -C",
        "poetry -C",
        "poetry install",
        "poetry add requests",
        "conda run --cwd",
        "npx",
        "npx --prefix",
        "npm exec",
        "npm --prefix",
        "npm install",
        "pnpm exec",
        "pnpm -C",
        "pnpm install",
        "yarn workspace app",
        "yarn workspaces",
        "yarn workspaces foreach",
        "yarn workspaces list",
        "yarn workspaces foreach -j",
        "yarn add x",
        "bun x",
        "dotenv",
        "dotenv -f",
        "dotenv run",
        "dotenv run --override",
        "direnv exec .",
        "direnv allow .",
        "direnv",
    ],
)
def test_a_package_runner_that_runs_nothing_is_itself_the_command(text):
    inv = only(text)
    assert inv.literals() == text.split()
    assert inv.via == ()


@pytest.mark.parametrize(
    ("text", "argv", "via"),
    [
        ("uv run -m pytest -x", ["python", "-m", "pytest", "-x"], ("uv run",)),
        ("uv run --module pytest", ["python", "-m", "pytest"], ("uv run",)),
        ("uv -q run pytest", ["pytest"], ("uv run",)),
        ("uv tool run ruff check", ["ruff", "check"], ("uv tool run",)),
        ("uv --directory web tool run --from ruff@1 ruff", ["ruff"], ("uv tool run",)),
        ("uvx ruff@0.5 check", ["ruff", "check"], ("uvx",)),
        ("uvx --from ruff@0.5 ruff@x", ["ruff@x"], ("uvx",)),
        ("npx -p eslint@8 eslint@x .", ["eslint@x", "."], ("npx",)),
        ("npx --package=eslint eslint@8", ["eslint@8"], ("npx",)),
        ("npx @scope/pkg@1.2 run", ["@scope/pkg", "run"], ("npx",)),
        ("pnpm --dir web dlx tsc", ["tsc"], ("pnpm dlx",)),
        ("bunx tsc@5", ["tsc"], ("bunx",)),
        ("yarn workspaces foreach -j 2 --include a exec jest", ["jest"], ("yarn exec",)),
        ("yarn workspace app dlx jest", ["jest"], ("yarn dlx",)),
        ("npm x -- jest", ["jest"], ("npm exec",)),
        ("hatch run pytest", ["pytest"], ("hatch run",)),
        ("pipenv run pytest", ["pytest"], ("pipenv run",)),
        ("conda run -n env pytest", ["pytest"], ("conda run",)),
        ("micromamba run -p /env pytest", ["pytest"], ("micromamba run",)),
        ("rye run pytest", ["pytest"], ("rye run",)),
        ("direnv exec . git gc", ["git", "gc"], ("direnv exec",)),
    ],
)
def test_what_a_package_runner_hands_over(text, argv, via):
    inv = only(text)
    assert inv.literals() == argv
    assert inv.via == via


@pytest.mark.parametrize(
    ("text", "argv", "cwd"),
    [
        # each environment runner's own options: a flag is no option with a value
        ("poetry -n run pytest", ["pytest"], ""),
        ("poetry run -n pytest", ["pytest"], ""),
        ("poetry --no-interaction -C web run pytest", ["pytest"], "web"),
        ("poetry -P web run pytest", ["pytest"], ""),
        ("hatch -e test run pytest", ["pytest"], ""),
        ("hatch --env test -v run pytest", ["pytest"], ""),
        ("pipenv --python 3.11 run pytest", ["pytest"], ""),
        ("pdm -v run -p web pytest", ["pytest"], ""),
        ("conda run -n env -v --cwd web pytest", ["pytest"], "web"),
        ("mamba run -p /env pytest", ["pytest"], ""),
        ("micromamba run -a '' -n env pytest", ["pytest"], ""),
        ("rye run --pyproject web/pyproject.toml pytest", ["pytest"], ""),
    ],
)
def test_an_environment_runner_reads_its_own_options(text, argv, cwd):
    inv = only(text)
    assert (inv.literals(), inv.cwd) == (argv, cwd)


@pytest.mark.parametrize(
    "command",
    [
        "poetry -n run rm -rf src",
        "hatch -e test run rm -rf src",
        "pipenv --python 3.11 run rm -rf src",
        "rye run --pyproject x rm -rf src",
    ],
)
def test_a_discard_behind_an_environment_runners_flag_is_refused(repo, command):
    verdict, kinds = judge(repo, command)
    assert verdict == "block"
    assert "discard" in kinds
