"""interlock.engine.hidden: code another command runs is judged like the code typed directly.

By text alone (from `/`, --assume-dirty) for forms the line shows; in a real repository for
aliases that live in git's config files.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from interlock.engine.check import evaluate


def judged(command: str, cwd: str = "/", assume_dirty: bool = True):
    return evaluate(command, cwd, mode="blocking", assume_dirty=assume_dirty).result


def rules_of(command: str) -> set[str]:
    return {f.rule for f in judged(command).findings}


# --- git aliases and configuration that runs programs ---------------------------------------


@pytest.mark.parametrize(
    ("command", "rule"),
    [
        ("git -c alias.x='!git reset --hard' x", "git.reset-hard"),
        ("git -c alias.x='!rm -rf' x src", "fs.rm-recursive"),
        ("git -c alias.x='!f() { git clean -fdx; }; f' x", "git.clean-force"),
        ("git -c alias.a=b -c alias.b='!git stash clear' a", "git.stash-clear"),
        ("git config alias.x 'reset --hard' && git x", "git.reset-hard"),
        ("git config --global alias.wipe '!git clean -fdx'; git wipe", "git.clean-force"),
        ("git config alias.ci 'commit --no-verify' && git ci -m x", "selfdisable.no-verify"),
        (
            "export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.x GIT_CONFIG_VALUE_0='!git reset --hard'"
            " && git x",
            "git.reset-hard",
        ),
        ("GIT_CONFIG_PARAMETERS=\"'alias.x=!git stash clear'\" git x", "git.stash-clear"),
        ("git -c core.pager='rm -rf src' log", "fs.rm-recursive"),
        ("git -c pager.log='git reset --hard' log", "git.reset-hard"),
        ("git -c core.editor='git clean -fdx' commit", "git.clean-force"),
        ("git -c core.fsmonitor='git stash clear' status", "git.stash-clear"),
        ("git -c core.sshCommand='git reset --hard' fetch", "git.reset-hard"),
        ("git -c credential.helper='!git reset --hard' push", "git.reset-hard"),
        ("git -c diff.external='rm -rf src' diff", "fs.rm-recursive"),
        ("git -c 'filter.x.smudge=git reset --hard' checkout main", "git.reset-hard"),
        ("GIT_PAGER='git reset --hard' git log", "git.reset-hard"),
        ("GIT_EDITOR='git clean -fdx' git commit", "git.clean-force"),
        ("GIT_SSH_COMMAND='git stash clear' git fetch", "git.stash-clear"),
        ("GIT_EXTERNAL_DIFF='rm -rf src' git diff", "fs.rm-recursive"),
        ("export GIT_PAGER='git reset --hard'; git log", "git.reset-hard"),
        ("env GIT_SEQUENCE_EDITOR='git reset --hard' git rebase -i HEAD~2", "git.reset-hard"),
        ("git config core.pager 'git reset --hard'", "git.reset-hard"),
        ("git config --global core.editor 'rm -rf src'", "fs.rm-recursive"),
        ("git config alias.nuke '!git clean -fdx'", "git.clean-force"),
        ("git clone 'ext::sh -c git% reset% --hard' dest", "git.reset-hard"),
        ("git fetch --upload-pack='git clean -fdx' ../other", "git.clean-force"),
        ("git push --receive-pack='rm -rf src' origin main", "fs.rm-recursive"),
        ('git -c core.pager="$PAGER_CMD" log', "git.config-code"),
        ('GIT_SSH_COMMAND="$X" git fetch', "git.config-code"),
        ('git -c alias.x="$CODE" x', "git.config-code"),
        ("GIT_CONFIG_GLOBAL=./evil.gitconfig git status", "git.config-code"),
        ("git -c include.path=../evil git status", "git.config-code"),
    ],
)
def test_git_configuration_that_runs_code_is_judged_as_that_code(command, rule):
    assert rule in rules_of(command)


@pytest.mark.parametrize(
    "command",
    [
        "git -c core.pager=cat log",
        "git -c core.pager='less -R' log",
        "GIT_PAGER=cat git log -p",
        "EDITOR=vim git commit",
        "GIT_EDITOR=true git rebase --continue",
        "git -c credential.helper=store push",
        "git -c pager.log=false log",
        "git -c core.fsmonitor=true status",
        "git config alias.co checkout && git co main",
        "git config alias.st status",
        "git -c alias.lg='log --oneline --graph' lg",
        "GIT_SSH_COMMAND='ssh -i ~/.ssh/deploy -o IdentitiesOnly=yes' git fetch",
        "GIT_CONFIG_GLOBAL=/dev/null git status",
        "git lg",
    ],
)
def test_git_configuration_that_runs_harmless_code_is_allowed(command):
    assert judged(command).findings == ()


def test_a_finding_from_an_alias_says_the_alias_ran_it():
    (finding,) = judged("git -c alias.x='!git reset --hard' x").findings
    assert "git alias `x`" in finding.reason


def test_aliases_from_the_repositorys_config_are_read_as_tree_facts(git_repo: Path, git):
    git(git_repo, "config", "alias.wipe", "!git reset --hard")
    git(git_repo, "config", "alias.fresh", "clean -fdx")
    git(git_repo, "config", "alias.ci", "commit --no-verify")
    (git_repo / "README.md").write_text("edited, not committed\n")
    (git_repo / "new.txt").write_text("untracked work\n")
    cwd = str(git_repo)
    assert "git.reset-hard" in {f.rule for f in judged("git wipe", cwd, False).findings}
    assert "git.clean-force" in {f.rule for f in judged("git fresh", cwd, False).findings}
    assert "selfdisable.no-verify" in {f.rule for f in judged("git ci -m x", cwd, False).findings}


def test_a_global_alias_is_read_too(git_repo: Path, git, isolated_env: Path):
    git(git_repo, "config", "--global", "alias.nuke", "!git stash clear && git reset --hard")
    (git_repo / "README.md").write_text("edited\n")
    rules = {f.rule for f in judged("git nuke", str(git_repo), False).findings}
    assert "git.reset-hard" in rules


def test_an_alias_cannot_rename_one_of_gits_own_commands(git_repo: Path, git):
    git(git_repo, "config", "alias.status", "reset --hard")
    (git_repo / "README.md").write_text("edited\n")
    assert judged("git status", str(git_repo), False).findings == ()


def test_a_harmless_alias_from_config_is_allowed(git_repo: Path, git):
    git(git_repo, "config", "alias.lg", "log --oneline")
    (git_repo / "README.md").write_text("edited\n")
    assert judged("git lg -5", str(git_repo), False).findings == ()


def test_an_alias_discard_in_a_clean_tree_destroys_nothing(git_repo: Path, git):
    git(git_repo, "config", "alias.wipe", "reset --hard")
    assert judged("git wipe", str(git_repo), False).findings == ()


def test_text_alone_does_not_read_config_files(git_repo: Path, git):
    git(git_repo, "config", "alias.wipe", "!git reset --hard")
    assert judged("git wipe", str(git_repo), True).findings == ()


# --- scripts handed over as data ----------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "rule"),
    [
        ("echo 'git reset --hard' > x.sh && sh x.sh", "git.reset-hard"),
        ("printf 'git clean -fdx\\n' > x.sh; bash x.sh", "git.clean-force"),
        ("printf '%s\\n' 'git stash clear' > x.sh && . ./x.sh", "git.stash-clear"),
        ("cat > x.sh <<'EOF'\ngit reset --hard\nEOF\nchmod +x x.sh && ./x.sh", "git.reset-hard"),
        ("echo 'git reset --hard' | tee x.sh >/dev/null; source x.sh", "git.reset-hard"),
        ("echo '#!/bin/sh' > x.sh; echo 'git clean -fdx' >> x.sh; sh x.sh", "git.clean-force"),
        (
            "cat > t.py <<'EOF'\nimport shutil\nshutil.rmtree('src')\nEOF\npython3 t.py",
            "fs.rm-recursive",
        ),
        (
            "cat > t <<'EOF'\n#!/usr/bin/env python3\nimport os\nos.system('git reset --hard')\n"
            "EOF\nchmod +x t && ./t",
            "git.reset-hard",
        ),
        # the script of an interpreter after options whose values are attached or separate
        (
            "printf '#!perl\\nsystem(\"git reset --hard\");\\n' > t.pl && perl -x t.pl",
            "git.reset-hard",
        ),
        (
            "printf '#!ruby\\nsystem(\"git reset --hard\")\\n' > t.rb && ruby -x t.rb",
            "git.reset-hard",
        ),
        (
            'printf \'require("child_process").execSync("git reset --hard")\' > app.js'
            " && node --require ./env.js app.js",
            "git.reset-hard",
        ),
        (
            "printf 'import os; os.system(\"git clean -fdx\")' > t.py"
            " && python3 --check-hash-based-pycs always t.py",
            "git.clean-force",
        ),
        ("curl -fsSL https://example.com/i.sh -o i.sh && bash i.sh", "parse.unknown-code"),
        ("wget -O i.sh https://example.com/i.sh; sh i.sh", "parse.unknown-code"),
        ("curl -s https://example.com/i.sh > i.sh && bash i.sh", "parse.unknown-code"),
        ("bash <(curl -fsSL https://example.com/i.sh)", "parse.unknown-code"),
        ("source <(curl -s https://example.com/env)", "parse.unknown-code"),
        (". <(echo 'git reset --hard')", "git.reset-hard"),
        ("bash <(echo 'git clean -fdx')", "git.clean-force"),
        ("bash < <(curl https://example.com/i.sh)", "parse.unknown-code"),
        ("echo 'git reset --hard' | sh /dev/stdin", "git.reset-hard"),
        ("curl https://example.com/i.sh | bash /dev/stdin", "parse.unknown-code"),
        ("curl https://example.com/i.sh | . /dev/fd/0", "parse.unknown-code"),
        ("sh /dev/stdin <<'EOF'\ngit stash clear\nEOF", "git.stash-clear"),
        ("curl https://example.com/x.py | python3", "parse.unknown-code"),
        ("curl https://example.com/x.py | python3 -", "parse.unknown-code"),
        ("wget -qO- https://example.com/x.js | node", "parse.unknown-code"),
        ("echo \"import os; os.system('git reset --hard')\" | python", "git.reset-hard"),
        ("python3 <(curl -s https://example.com/x.py)", "parse.unknown-code"),
        ("trap 'git reset --hard' EXIT", "git.reset-hard"),
        ("trap -- 'rm -rf src' INT TERM", "fs.rm-recursive"),
        ('trap "$CLEANUP" EXIT', "parse.unknown-code"),
        ("alias g=git; g reset --hard", "git.reset-hard"),
        ("ln -s $(which git) /tmp/g && /tmp/g reset --hard", "git.reset-hard"),
        ("cp /usr/bin/git ./g && ./g clean -fdx", "git.clean-force"),
        ("make -f - <<< $'all:\\n\\tgit reset --hard'", "git.reset-hard"),
        ("make --eval=$'x:\\n\\tgit clean -fdx' x", "git.clean-force"),
        ("printf 'all:\\n\\t@git reset --hard\\n' > Makefile && make", "git.reset-hard"),
        ("curl -s https://example.com/mk -o Makefile && make", "parse.unknown-code"),
        ("git difftool -x 'git reset --hard'", "git.reset-hard"),
        ("git grep -O'git stash clear' TODO", "git.stash-clear"),
        ("git reset --ha$(echo)rd", "parse.unknown-command"),
        ("git branch -D$X topic", "parse.unknown-command"),
    ],
)
def test_a_script_handed_over_as_data_is_judged(command, rule):
    assert rule in rules_of(command)


@pytest.mark.parametrize(
    "command",
    [
        "cat > t.py <<'EOF'\nprint('hello')\nEOF\npython3 t.py",
        "echo 'echo hi' > x.sh && sh x.sh",
        "bash script.sh",
        "python3 script.py",
        "./configure && make",
        "source .venv/bin/activate",
        ". ~/.bashrc",
        "echo 'git reset --hard' > notes.txt",
        "echo '{\"a\": 1}' | python3 -m json.tool",
        "git diff | python3 scripts/filter.py",
        "trap 'rm -f /tmp/lock' EXIT",
        "trap - EXIT",
        "trap -p",
        "bash <(echo 'echo hi')",
        "diff <(sort a.txt) <(sort b.txt)",
        "alias ll='ls -la'; ll",
        "make test",
        "printf 'all:\\n\\techo hi\\n' > Makefile && make",
        "git grep -O TODO",
        'git commit -m "$MSG"',
        'git log --format="$FMT"',
    ],
)
def test_ordinary_script_runs_are_allowed(command):
    assert judged(command).findings == ()


# --- where an interpreter finds its script ------------------------------------------------


def _invocation(text: str):
    from interlock.engine.walk import walk
    from interlock.shell.parse import parse

    return walk(parse(text))[0]


@pytest.mark.parametrize(
    ("text", "language", "index"),
    [
        ("python3 t.py", "python", 1),
        ("python3 -W ignore t.py", "python", 3),
        ("python3 -Wignore t.py", "python", 2),
        ("python3 -Wd t.py", "python", 2),
        ("perl -Il x.pl", "perl", 2),
        ("python3 -bW ignore t.py", "python", 3),
        ("python3 -X dev -u t.py", "python", 4),
        ("python3 -E -s t.py", "python", 3),
        ("python3 -- t.py", "python", 2),
        ("python3 -- -x.py", "python", 2),
        ("python3 - a", "python", 1),
        ("python3 -u", "python", 2),
        ('python3 "$S" a', "python", 1),
        ("python3 --check-hash-based-pycs always t.py", "python", 3),
        ("python3 --check-hash-based-pycs=always t.py", "python", 2),
        ("python3 --quiet t.py", "python", 2),
        ("python3 -c 'print(1)'", "python", None),
        ("python3 -Ic 'print(1)'", "python", None),
        ("python3 -m json.tool", "python", None),
        ("python3 -X dev -m json.tool", "python", None),
        ("pypy3 t.py", "python", 1),
        ("node -r dotenv/config app.js", "node", 3),
        ("node -rdotenv/config app.js", "node", 2),
        ("node --inspect app.js", "node", 2),
        ("node --require ./env.js app.js", "node", 3),
        ("node --require=./env.js app.js", "node", 2),
        ("node -C dev app.js", "node", 3),
        ("node -e 'x'", "node", None),
        ("node -pe 'x'", "node", None),
        ("node --eval x", "node", None),
        ("node --eval=x", "node", None),
        ("node --print x", "node", None),
        ("node --command=x", "node", None),
        ("node --evaluate x.js", "node", 2),
        ("perl -I lib x.pl", "perl", 3),
        ("perl -Ilib x.pl", "perl", 2),
        ("perl -w -I lib x.pl", "perl", 4),
        ("perl -ne 'print'", "perl", None),
        ("perl -x t.pl", "perl", 2),
        ("perl -Mstrict t.pl", "perl", 2),
        ("perl -M strict", "perl", 2),
        ("ruby -x t.rb", "ruby", 2),
        ("ruby -Ku t.rb", "ruby", 2),
        ("ruby -F: t.rb", "ruby", 2),
        ("ruby -C dir t.rb", "ruby", 3),
        ("ruby --disable gems t.rb", "ruby", 3),
        ("ruby -I lib x.rb", "ruby", 3),
        ("ruby -e 'x'", "ruby", None),
        ("php -c php.ini x.php", "php", 3),
        ("php -d memory_limit=1 x.php", "php", 3),
        ("php -r 'x'", "php", None),
        ("bash x.sh", "sh", 1),
        ("bash -e x.sh", "sh", 2),
        ("bash", "sh", 1),
        ("bash -s a", "sh", 3),
        ("source x.sh", "sh", 1),
        (". x.sh", "sh", 1),
        ("./x.sh a", "exec", 0),
        ("/usr/local/bin/tool", "exec", 0),
    ],
)
def test_an_interpreter_finds_its_script_where_it_reads_its_options(text, language, index):
    from interlock.engine.hidden import _runner

    assert _runner(_invocation(text)) == (language, index)


@pytest.mark.parametrize("text", ["bash -c 'x'", "sh -ec 'x'", "source", "ls -la", "dir/ x"])
def test_commands_that_run_no_script_file_have_no_runner(text):
    import shlex

    from interlock.engine.hidden import _runner
    from interlock.engine.invocation import Invocation
    from interlock.shell.model import Word

    inv = Invocation(tuple(Word(w, w) for w in shlex.split(text)))
    assert _runner(inv) is None


_MAKEFILE = "printf 'all:\\n\\tgit reset --hard\\n' > mk && "


@pytest.mark.parametrize(
    "command",
    [
        _MAKEFILE + "make -f mk",
        _MAKEFILE + "make --file mk",
        _MAKEFILE + "make --makefile mk",
        _MAKEFILE + "make --file=mk",
        _MAKEFILE + "make --makefile=mk",
        _MAKEFILE + "make -fmk",
        _MAKEFILE + "make -s -f mk all",
        _MAKEFILE + "gmake -f mk",
        _MAKEFILE + "make -kfmk",
        _MAKEFILE + "make -f other.mk -f mk",
        _MAKEFILE + "make all -f mk",
        _MAKEFILE.replace("> mk", "> sub/Makefile") + "make -C sub",
        _MAKEFILE.replace("> mk", "> sub/Makefile") + "make --directory=sub all",
        _MAKEFILE.replace("> mk", "> sub/mk") + "make -Csub -f mk",
    ],
)
def test_make_runs_the_recipes_of_a_makefile_written_on_the_line(command):
    assert "git.reset-hard" in rules_of(command)


@pytest.mark.parametrize(
    "command",
    [
        _MAKEFILE + "make",
        _MAKEFILE + "make -f other.mk",
        _MAKEFILE + "make -f",
        _MAKEFILE + "make -C sub -f other.mk",
        _MAKEFILE + "make --file=other.mk",
        _MAKEFILE + "make -fother.mk",
        _MAKEFILE + "make -C sub -f mk",
        _MAKEFILE.replace("> mk", "> Makefile") + "make -C sub",
    ],
)
def test_make_reading_another_makefile_runs_nothing_written_here(command):
    assert "git.reset-hard" not in rules_of(command)


@pytest.mark.parametrize(
    ("language", "text", "command"),
    [
        ("sh", "git gc", "git gc"),
        ("node", "x()", "node - <<'INTERLOCK_SCRIPT'\nx()\nINTERLOCK_SCRIPT"),
        ("exec", "#!/bin/sh\ngit gc", "#!/bin/sh\ngit gc"),
        ("exec", "#!/bin/sh\npython3 x.py", "#!/bin/sh\npython3 x.py"),
        ("exec", "python3 x.py\nperl y", "python3 x.py\nperl y"),
        (
            "exec",
            "#!/usr/bin/env python3\nprint(1)",
            "python - <<'INTERLOCK_SCRIPT'\n#!/usr/bin/env python3\nprint(1)\nINTERLOCK_SCRIPT",
        ),
        (
            "exec",
            "#!/usr/bin/perl -w\nx",
            "perl - <<'INTERLOCK_SCRIPT'\n#!/usr/bin/perl -w\nx\nINTERLOCK_SCRIPT",
        ),
        (
            "python",
            "s = 'INTERLOCK_SCRIPT INTERLOCK_SCRIPT_'",
            "python - <<'INTERLOCK_SCRIPT__'\ns = 'INTERLOCK_SCRIPT INTERLOCK_SCRIPT_'\nINTERLOCK_SCRIPT__",
        ),
    ],
)
def test_a_script_is_judged_as_the_command_line_that_feeds_it_to_its_interpreter(
    language, text, command
):
    from interlock.engine.hidden import _as_command

    assert _as_command(language, text) == command


# --- interlock's own settings written by the line ------------------------------------------


@pytest.mark.parametrize(
    ("command", "rule"),
    [
        ("echo 'export INTERLOCK_MODE=off' >> ~/.bashrc", "selfdisable.env-override"),
        ('echo "export INTERLOCK_MODE=off" >> "$HOME/.bashrc"', "selfdisable.env-override"),
        ("echo 'export INTERLOCK_MODE=off' >> ${HOME}/.zshenv", "selfdisable.env-override"),
        ('echo "export INTERLOCK_MODE=off" >> "$RC"', "selfdisable.env-override"),
        ("echo 'export INTERLOCK_MODE=off' > ~/.bashrc.d/off.sh", "selfdisable.env-override"),
        ("echo 'INTERLOCK_MODE=off' | tee -a /etc/profile.d/x.sh", "selfdisable.env-override"),
        (
            "printf '[tool.interlock]\\nmode = 0\\n' >> \"$ROOT/pyproject.toml\"",
            "selfdisable.config-edit",
        ),
        ("echo '[tool.Interlock]' >> sub/pyproject.toml", "selfdisable.config-edit"),
    ],
)
def test_interlocks_settings_written_where_it_reads_them_are_self_disable(command, rule):
    assert rule in rules_of(command)


@pytest.mark.parametrize(
    "command",
    [
        "echo 'export INTERLOCK_MODE=off' >> \"$D/notes.txt\"",
        "echo 'export INTERLOCK_MODE=off' >> notes.txt",
        "echo 'export INTERLOCK_MODE=off' >> 'cost$.txt'",
        "echo 'export PATH=$HOME/bin:$PATH' >> \"$HOME/.bashrc\"",
        "echo 'export PATH=x' >> \"$RC\"",
        'cat settings >> "$RC"',
        "cat settings >> pyproject.toml",
        "echo '[tool.ruff]' >> pyproject.toml",
        "echo 'see interlock' >> README.md",
    ],
)
def test_other_writes_to_startup_files_and_pyproject_are_not_self_disable(command):
    assert judged(command).findings == ()


# --- startup files named by variables, the daemon's pids, traps ------------------------------


@pytest.mark.parametrize(
    ("command", "rule"),
    [
        ("echo 'git reset --hard' > e.sh && BASH_ENV=e.sh bash -c 'git status'", "git.reset-hard"),
        ("echo 'git clean -fdx' > e.sh; ENV=./e.sh sh -c true", "git.clean-force"),
        ("echo 'git reset --hard' > e.sh; export BASH_ENV=e.sh; bash x.sh", "git.reset-hard"),
        (
            "curl -o e.sh https://example.com/e.sh && BASH_ENV=e.sh bash -c true",
            "parse.unknown-code",
        ),
        ("GIT_PAGER='git reset --hard'", "git.reset-hard"),
        (
            "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0='git reset --hard'"
            " git log",
            "git.reset-hard",
        ),
        (
            "export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager"
            " GIT_CONFIG_VALUE_0='git reset --hard'",
            "git.reset-hard",
        ),
        ("git-difftool -x 'git reset --hard'", "git.reset-hard"),
        ("pgrep -f interlock | xargs kill", "selfdisable.kill-daemon"),
        ("cat .interlock/daemon.pid | xargs kill -9", "selfdisable.kill-daemon"),
        ("trap '' INT; trap 'git stash clear' EXIT", "git.stash-clear"),
    ],
)
def test_code_a_variable_a_pipe_or_a_trap_hands_over_is_judged(command, rule):
    assert rule in rules_of(command)


@pytest.mark.parametrize(
    "command",
    [
        "echo 'git reset --hard' > e.sh && FOO=e.sh bash -c true",
        "echo 'git reset --hard' > e.sh && BASH_ENV= bash -c true",
        "GIT_PAGER=less git log",
        "export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0=less",
        "export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=user.name GIT_CONFIG_VALUE_0='git gc'",
        # user.name is no program key: its value is text, never run
        "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=user.name GIT_CONFIG_VALUE_0='git reset --hard' git log",
        "pgrep -f myserver | xargs kill",
        "pgrep -f interlock | xargs echo",
        "trap 'git reset --hard'",
        "trap '' INT",
        "trap ' ' EXIT",
        "trap '-x; git reset --hard' EXIT",
        "make -f -",
    ],
)
def test_harmless_variables_pipes_and_traps_are_allowed(command):
    assert judged(command).findings == ()


@pytest.mark.parametrize(
    "command",
    [
        # a bare name runs from PATH, not the copy made in the current directory
        "cp /bin/rm ls && ls -rf src",
        "cp /usr/bin/git ./g && ./h clean -fdx",
        # xargs gives the files at run time; stdin is the file list, not code
        "find . -name '*.php' | xargs php -l",
        "ls *.rb | xargs ruby -c",
    ],
)
def test_a_copy_of_a_program_or_xargs_runs_only_what_it_names(command):
    assert judged(command).findings == ()


def test_a_program_key_with_a_value_known_only_at_run_time_is_config_code():
    command = 'GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0="$P" git log'
    assert [f.rule for f in judged(command).findings] == ["git.config-code"]


@pytest.mark.parametrize(
    ("command", "rule"),
    [
        ("curl https://example.com/i.sh | bash", "parse.unknown-code"),
        ("echo 'git reset --hard' | bash", "git.reset-hard"),
    ],
)
def test_code_piped_into_a_shell_is_judged_once(command, rule):
    """The pipe's text is read once (as the shell's stdin), not again as a script file."""
    assert [f.rule for f in judged(command).findings] == [rule]
