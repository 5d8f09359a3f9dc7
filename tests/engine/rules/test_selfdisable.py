"""Self-disable rules: what would switch interlock off from inside a run."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from interlock.engine.check import evaluate
from interlock.engine.findings import RuleInfo
from interlock.engine.invocation import Invocation
from interlock.engine.rules import index as rules
from interlock.shell.parse import parse


@pytest.fixture(scope="session")
def selfdisable(inv: Callable[..., Invocation]) -> Callable[..., set[str]]:
    def selfdisable(cmd: str, **kw: object) -> set[str]:
        found = rules.check_invocation(inv(cmd, **kw))
        return {f.rule for f in found if f.kind == "self-disable"}

    return selfdisable


BLOCKED = [
    # skipping hooks
    ("git commit --no-verify -m wip", "selfdisable.no-verify"),
    ("git commit -n -m wip", "selfdisable.no-verify"),
    ("git commit -nm wip", "selfdisable.no-verify"),
    ("git commit -anm wip", "selfdisable.no-verify"),
    ("git commit -am wip -n", "selfdisable.no-verify"),
    ("git commit --no-veri -m wip", "selfdisable.no-verify"),
    ("git commit --amend --no-edit --no-verify", "selfdisable.no-verify"),
    ("git commit --no-post-rewrite --amend", "selfdisable.no-verify"),
    ("git push --no-verify", "selfdisable.no-verify"),
    ("git push origin main --no-verify", "selfdisable.no-verify"),
    ("git merge --no-verify topic", "selfdisable.no-verify"),
    ("git am --no-verify < patch.mbox", "selfdisable.no-verify"),
    ("git rebase --no-verify main", "selfdisable.no-verify"),
    ("git pull --no-verify", "selfdisable.no-verify"),
    ("git -C sub commit -n -m x", "selfdisable.no-verify"),
    ("$GIT commit --no-verify -m x", "selfdisable.no-verify"),
    ("git -c alias.ci='commit --no-verify' ci -m x", "selfdisable.no-verify"),
    # hooks path
    ("git -c core.hooksPath=/dev/null commit -m wip", "selfdisable.hooks-path"),
    ("git -c core.hookspath=x push", "selfdisable.hooks-path"),
    ("git -c CORE.HOOKSPATH=x status", "selfdisable.hooks-path"),
    ("git --config-env=core.hooksPath=HP commit -m x", "selfdisable.hooks-path"),
    ('git -c "$CFG" commit -m x', "selfdisable.hooks-path"),
    ("git config core.hooksPath .nohooks", "selfdisable.hooks-path"),
    ("git config --local core.hooksPath /dev/null", "selfdisable.hooks-path"),
    ("git config --global core.hooksPath ~/nohooks", "selfdisable.hooks-path"),
    ("git config --unset core.hooksPath", "selfdisable.hooks-path"),
    ("git config --unset-all core.hooksPath", "selfdisable.hooks-path"),
    ("git config --replace-all core.hooksPath x", "selfdisable.hooks-path"),
    ("git config set core.hooksPath x", "selfdisable.hooks-path"),
    ("git config unset core.hooksPath", "selfdisable.hooks-path"),
    ("git config -f .git/config core.hooksPath x", "selfdisable.hooks-path"),
    ("git config --remove-section core", "selfdisable.hooks-path"),
    (
        "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.hooksPath GIT_CONFIG_VALUE_0=x git commit -m x",
        "selfdisable.hooks-path",
    ),
    ("GIT_CONFIG_PARAMETERS=\"'core.hooksPath'='x'\" git commit", "selfdisable.hooks-path"),
    ("echo '[core] hooksPath = x' >> .git/config", "selfdisable.hooks-path"),
    ("sed -i 's/a/b/' .git/config", "selfdisable.hooks-path"),
    ("cp /tmp/cfg ~/.gitconfig", "selfdisable.hooks-path"),
    ("echo x >> ~/.config/git/config", "selfdisable.hooks-path"),
    # hooks edit
    ("rm .git/hooks/pre-commit", "selfdisable.hooks-edit"),
    ("rm -f .git/hooks/*", "selfdisable.hooks-edit"),
    ("rm -rf .git/hooks", "selfdisable.hooks-edit"),
    ("unlink .git/hooks/pre-push", "selfdisable.hooks-edit"),
    ("chmod -x .git/hooks/pre-commit", "selfdisable.hooks-edit"),
    ("chmod 644 .git/hooks/pre-commit", "selfdisable.hooks-edit"),
    ("chmod 0600 .git/hooks/pre-commit", "selfdisable.hooks-edit"),
    ("chmod a-x .git/hooks/pre-commit", "selfdisable.hooks-edit"),
    ("echo 'exit 0' > .git/hooks/pre-commit", "selfdisable.hooks-edit"),
    ("printf '#!/bin/sh\\n' >> .git/hooks/pre-commit", "selfdisable.hooks-edit"),
    ("cat > .git/hooks/pre-commit", "selfdisable.hooks-edit"),
    (": > .git/hooks/pre-commit", "selfdisable.hooks-edit"),
    ("cp /dev/null .git/hooks/pre-commit", "selfdisable.hooks-edit"),
    ("cp -t .git/hooks/ myhook", "selfdisable.hooks-edit"),
    ("install -m 755 x .git/hooks/pre-commit", "selfdisable.hooks-edit"),
    ("ln -sf /bin/true .git/hooks/pre-commit", "selfdisable.hooks-edit"),
    ("mv .git/hooks/pre-commit /tmp/", "selfdisable.hooks-edit"),
    ("mv .git/hooks .git/hooks.off", "selfdisable.hooks-edit"),
    ("sed -i 's/interlock/true/' .git/hooks/pre-commit", "selfdisable.hooks-edit"),
    ("sed -i.bak -e 's/a/b/' .git/hooks/pre-commit", "selfdisable.hooks-edit"),
    ("perl -pi -e 's/a/b/' .git/hooks/pre-commit", "selfdisable.hooks-edit"),
    ("tee .git/hooks/pre-commit", "selfdisable.hooks-edit"),
    ("tee -a .git/hooks/commit-msg", "selfdisable.hooks-edit"),
    ("truncate -s 0 .git/hooks/pre-commit", "selfdisable.hooks-edit"),
    ("dd if=/dev/null of=.git/hooks/pre-commit", "selfdisable.hooks-edit"),
    ("shred -u .git/hooks/pre-commit", "selfdisable.hooks-edit"),
    ("chattr +i .git/hooks", "selfdisable.hooks-edit"),
    ("find .git/hooks -type f -delete", "selfdisable.hooks-edit"),
    ("rm ../main/.git/hooks/pre-commit", "selfdisable.hooks-edit"),
    ("rm -rf .git", "selfdisable.hooks-edit"),
    ("mv .git .git.bak", "selfdisable.hooks-edit"),
    ('rm "$(git rev-parse --git-dir)/hooks/pre-commit"', "selfdisable.hooks-edit"),
    ("rm $(git rev-parse --git-path hooks)/pre-push", "selfdisable.hooks-edit"),
    ('echo x > "$GIT_DIR/hooks/pre-commit"', "selfdisable.hooks-edit"),
    # interlock itself
    ("interlock off", "selfdisable.interlock-off"),
    ("interlock uninstall", "selfdisable.interlock-off"),
    ("interlock allow", "selfdisable.interlock-off"),
    ("interlock approve", "selfdisable.interlock-off"),
    ("interlock disable", "selfdisable.interlock-off"),
    ("interlock hooks uninstall", "selfdisable.interlock-off"),
    ("/usr/local/bin/interlock off", "selfdisable.interlock-off"),
    ("python -m interlock off", "selfdisable.interlock-off"),
    ("python3 -m interlock uninstall", "selfdisable.interlock-off"),
    ("interlock $ACTION", "selfdisable.interlock-off"),
    ("interlock config set mode off", "selfdisable.config-edit"),
    # environment
    ("INTERLOCK_MODE=off git reset --hard", "selfdisable.env-override"),
    ("INTERLOCK_MODE=advisory pytest", "selfdisable.env-override"),
    ("INTERLOCK_HOME=/tmp/x ls", "selfdisable.env-override"),
    ("export INTERLOCK_MODE=off", "selfdisable.env-override"),
    ("export PATH=/bin INTERLOCK_WRAPPED=", "selfdisable.env-override"),
    ("declare -x INTERLOCK_MODE=off", "selfdisable.env-override"),
    ("typeset -x INTERLOCK_MODE=off", "selfdisable.env-override"),
    ("unset INTERLOCK_RUN", "selfdisable.env-override"),
    ("env -u INTERLOCK_WRAPPED bash", "selfdisable.env-override"),
    ("env --unset=INTERLOCK_WRAPPED bash", "selfdisable.env-override"),
    ("env INTERLOCK_MODE=off bash", "selfdisable.env-override"),
    # daemon
    ("pkill interlock", "selfdisable.kill-daemon"),
    ("pkill -f interlock", "selfdisable.kill-daemon"),
    ("pkill -9 -f 'python -m interlock'", "selfdisable.kill-daemon"),
    ("killall interlock", "selfdisable.kill-daemon"),
    ("kill $(cat .git/interlock/daemon.pid)", "selfdisable.kill-daemon"),
    ("kill -9 `pgrep -f interlock`", "selfdisable.kill-daemon"),
    ("fuser -k .git/interlock/daemon.sock", "selfdisable.kill-daemon"),
    ("systemctl --user stop interlock", "selfdisable.kill-daemon"),
    ("interlock daemon stop", "selfdisable.kill-daemon"),
    # config and state
    ("echo 'mode = \"off\"' > .interlock.toml", "selfdisable.config-edit"),
    ("rm .interlock.toml", "selfdisable.config-edit"),
    ("sed -i 's/blocking/off/' .interlock.toml", "selfdisable.config-edit"),
    ("mv .interlock.toml /tmp/", "selfdisable.config-edit"),
    ("cp /tmp/lax.toml .interlock.toml", "selfdisable.config-edit"),
    ("tee sub/.interlock.toml", "selfdisable.config-edit"),
    ("rm -rf .git/interlock", "selfdisable.state-edit"),
    ("rm .git/interlock/daemon.pid", "selfdisable.state-edit"),
    ("sqlite3 .git/interlock/journal.db 'delete from events'", "selfdisable.state-edit"),
    ("echo x > .git/interlock/journal.db", "selfdisable.state-edit"),
]

ALLOWED = [
    "git commit -m wip",
    "git commit -m -n",
    "git commit -m 'use --no-verify never'",
    "git commit -am 'fix parser'",
    "git commit -F msg.txt",
    "git commit --amend --no-edit",
    "git push -n origin main",
    "git push origin main",
    "git merge -n topic",
    "git log -n 5",
    "git -c color.ui=never status",
    "git -c user.name=Bot commit -m x",
    "git config core.hooksPath",
    "git config --get core.hooksPath",
    "git config get core.hooksPath",
    "git config user.name Bot",
    "git config --global user.email a@b.c",
    "git config --remove-section alias",
    "cat .git/hooks/pre-commit",
    "ls .git/hooks",
    "chmod +x .git/hooks/pre-commit",
    "chmod u+x .git/hooks/pre-commit",
    "chmod 755 .git/hooks/pre-commit",
    "chmod 0700 .git/hooks/pre-commit",
    "cp .git/hooks/pre-commit /tmp/backup",
    "grep -n interlock .git/hooks/pre-commit",
    "rm hooks/pre-commit",
    "echo hi > hooks/pre-commit",
    "rm src/git/hooks.py",
    "cat .git/config",
    "interlock check 'git status'",
    "interlock explain git.reset-hard",
    "interlock status",
    "interlock daemon status",
    "interlock snapshot -m 'before refactor'",
    "interlock config show",
    "echo $INTERLOCK_MODE",
    "env | grep INTERLOCK",
    "printenv INTERLOCK_MODE",
    "MY_INTERLOCK_X=1 ls",
    "pkill -f pytest",
    "kill %1",
    "kill 12345",
    "killall node",
    "systemctl status interlock",
    "cat .interlock.toml",
    "cat .git/interlock/daemon.log",
    "sqlite3 data.db 'select 1'",
    "sed -n '1,80p' src/app.py",
    "sed -i 's/foo/bar/' src/app.py",
    "echo 'git commit --no-verify' > notes.txt",
    "grep -rn 'no-verify' docs/",
]


@pytest.mark.parametrize(("cmd", "rule_id"), BLOCKED)
def test_self_disabling_command_is_flagged(cmd: str, rule_id: str, inv, selfdisable) -> None:
    assert rule_id in selfdisable(cmd), rules.check_invocation(inv(cmd))


@pytest.mark.parametrize("cmd", ALLOWED)
def test_ordinary_command_is_not_self_disabling(cmd: str, selfdisable) -> None:
    assert selfdisable(cmd) == set()


def test_hooks_edit_is_found_relative_to_the_invocation_cwd(selfdisable) -> None:
    assert "selfdisable.hooks-edit" in selfdisable("rm pre-commit", cwd=".git/hooks")
    assert "selfdisable.hooks-edit" in selfdisable("rm hooks/pre-commit", cwd=".git")
    assert "selfdisable.hooks-edit" in selfdisable("rm hooks/pre-commit", cwd="/srv/repo.git")
    assert selfdisable("rm hooks/pre-commit", cwd="src") == set()


def test_find_exec_rm_under_the_hooks_dir_is_flagged(selfdisable) -> None:
    assert "selfdisable.hooks-edit" in selfdisable(
        "rm -f", extra_args=True, arg_roots=(".git/hooks",)
    )


def test_env_override_and_discard_are_both_reported(inv) -> None:
    found = rules.check_invocation(inv("INTERLOCK_MODE=off git reset --hard"))
    assert {f.kind for f in found} == {"self-disable", "discard"}


def test_one_finding_per_rule_for_one_invocation(inv) -> None:
    found = rules.check_invocation(inv("rm .git/hooks/pre-commit .git/hooks/pre-push"))
    assert [f.rule for f in found if f.kind == "self-disable"] == ["selfdisable.hooks-edit"]


def test_self_disable_finding_names_the_command_and_what_to_do(inv) -> None:
    (finding,) = [
        f for f in rules.check_invocation(inv("interlock off")) if f.kind == "self-disable"
    ]
    assert finding.text == "interlock off"
    assert "person" in finding.reason and finding.instead


@pytest.mark.parametrize(
    "info", [i for i in rules.all_rules() if i.id.startswith("selfdisable.")], ids=lambda i: i.id
)
def test_selfdisable_rule_examples_block_and_allow_as_documented(info: RuleInfo, example) -> None:
    assert info.kind == "self-disable" and info.summary and info.instead and info.examples_block
    for text in info.examples_block:
        assert info.id in {f.rule for f in rules.check_invocation(example(text))}, text
    for text in info.examples_allow:
        assert not [f for f in rules.check_invocation(example(text)) if f.kind == "self-disable"], (
            text
        )


def walked_selfdisable(cmd: str) -> set[str]:
    walk = pytest.importorskip("interlock.engine.walk")
    invocations = walk.walk(parse(cmd))
    found = [f for i in invocations for f in rules.check_invocation(i)]
    return {f.rule for f in found if f.kind == "self-disable"}


@pytest.mark.parametrize(
    ("cmd", "rule_id"),
    [
        ("sudo rm .git/hooks/pre-commit", "selfdisable.hooks-edit"),
        ("cd .git/hooks && rm pre-commit", "selfdisable.hooks-edit"),
        ("cd .git && chmod -x hooks/pre-push", "selfdisable.hooks-edit"),
        ("find .git/hooks -type f -exec rm {} +", "selfdisable.hooks-edit"),
        ("cat > .git/hooks/pre-commit <<'EOF'\nexit 0\nEOF", "selfdisable.hooks-edit"),
        ("echo 'exit 0' | tee .git/hooks/pre-commit", "selfdisable.hooks-edit"),
        ("bash -c 'git commit -n -m x'", "selfdisable.no-verify"),
        ("env INTERLOCK_MODE=off git status", "selfdisable.env-override"),
        ("INTERLOCK_MODE=off; export INTERLOCK_MODE", "selfdisable.env-override"),
        ("kill -9 $(cat .git/interlock/daemon.pid)", "selfdisable.kill-daemon"),
        ("sed -i 's/blocking/off/' .interlock.toml && git commit -am x", "selfdisable.config-edit"),
    ],
)
def test_self_disable_is_found_through_the_walker(cmd: str, rule_id: str) -> None:
    assert rule_id in walked_selfdisable(cmd)


@pytest.mark.parametrize(
    "cmd",
    [
        "echo 'git commit --no-verify' > notes.txt",
        "git commit -m 'do not use --no-verify'",
        "cat .git/hooks/pre-commit | head",
        "cd .git && ls hooks",
    ],
)
def test_data_mentions_are_not_self_disabling_through_the_walker(cmd: str) -> None:
    assert walked_selfdisable(cmd) == set()


def checked(command: str, cwd: str = "/", assume_dirty: bool = True) -> set[str]:
    result = evaluate(command, cwd, mode="blocking", assume_dirty=assume_dirty).result
    return {f.rule for f in result.findings if f.kind == "self-disable"}


@pytest.mark.parametrize(
    ("command", "rule_id"),
    [
        # hook-skipping variables
        ("HUSKY=0 git commit -m x", "selfdisable.hook-skip-env"),
        ("HUSKY=false git push", "selfdisable.hook-skip-env"),
        ("HUSKY_SKIP_HOOKS=1 git commit -m x", "selfdisable.hook-skip-env"),
        ("SKIP=interlock,ruff git commit -m x", "selfdisable.hook-skip-env"),
        ("export SKIP=interlock", "selfdisable.hook-skip-env"),
        ("PRE_COMMIT_ALLOW_NO_CONFIG=1 git commit -m x", "selfdisable.hook-skip-env"),
        ("LEFTHOOK=0 git commit -m x", "selfdisable.hook-skip-env"),
        ("env LEFTHOOK_EXCLUDE=interlock git commit -m x", "selfdisable.hook-skip-env"),
        ("export OVERCOMMIT_DISABLE=1; git commit -m x", "selfdisable.hook-skip-env"),
        ("env HUSKY=0 git commit -m x", "selfdisable.hook-skip-env"),
        ("env -i HUSKY=0 git commit -m x", "selfdisable.hook-skip-env"),
        ("HUSKY= HUSKY=0 git commit -m x", "selfdisable.hook-skip-env"),
        ("env -u HUSKY HUSKY=0 git commit -m x", "selfdisable.hook-skip-env"),
        ('HUSKY_SKIP_HOOKS="$X" git commit -m x', "selfdisable.hook-skip-env"),
        ("export HUSKY_SKIP_HOOKS=1", "selfdisable.hook-skip-env"),
        ("env -u INTERLOCK_MODE git status", "selfdisable.env-override"),
        ("env --unset=INTERLOCK_MODE git status", "selfdisable.env-override"),
        # INTERLOCK_* from shell startup files
        ("echo 'export INTERLOCK_MODE=off' >> ~/.bashrc", "selfdisable.env-override"),
        ("echo 'export INTERLOCK_MODE=off' | tee -a ~/.profile", "selfdisable.env-override"),
        ("printf 'export INTERLOCK_RUN=\\n' >> ~/.zshenv", "selfdisable.env-override"),
        ("cat >> ~/.bash_profile <<'EOF'\nunset INTERLOCK_RUN\nEOF", "selfdisable.env-override"),
        (
            "echo 'set -x INTERLOCK_MODE off' >> ~/.config/fish/config.fish",
            "selfdisable.env-override",
        ),
        (
            "echo 'export INTERLOCK_MODE=off' > e.sh && BASH_ENV=e.sh bash -c 'git status'",
            "selfdisable.env-override",
        ),
        # interlock's configuration by any writer
        ("vim .interlock.toml", "selfdisable.config-edit"),
        ("nano .interlock.toml", "selfdisable.config-edit"),
        (
            "printf '[tool.interlock]\\nmode = \"off\"\\n' >> pyproject.toml",
            "selfdisable.config-edit",
        ),
        ("sed -i '/tool.interlock/,$d' pyproject.toml", "selfdisable.config-edit"),
        ("perl -pi -e 's/blocking/off/ if /interlock/' pyproject.toml", "selfdisable.config-edit"),
        (
            "python3 -c \"open('.interlock.toml', 'w').write('mode = \\\"off\\\"')\"",
            "selfdisable.config-edit",
        ),
        ("node -e \"require('fs').unlinkSync('.interlock.toml')\"", "selfdisable.config-edit"),
        ("awk '{print > \".interlock.toml\"}' x", "selfdisable.config-edit"),
        ("git config -f .interlock.toml core.mode off", "selfdisable.config-edit"),
        # a file only partly known at run time is still named by its shape
        ('git config --file="$DIR/.interlock.toml" mode advisory', "selfdisable.config-edit"),
        ('git config -f"$DIR/.interlock.toml" mode advisory', "selfdisable.config-edit"),
        ('git config "--file=$DIR/.interlock.toml" mode advisory', "selfdisable.config-edit"),
        ("git config --file=.git/hooks/pre-commit a.b c", "selfdisable.hooks-edit"),
        # hooks by any writer
        ("vim .git/hooks/pre-commit", "selfdisable.hooks-edit"),
        ("python3 -c \"import os; os.remove('.git/hooks/pre-push')\"", "selfdisable.hooks-edit"),
        ("ruby -e \"File.write('.git/hooks/pre-commit', 'exit 0')\"", "selfdisable.hooks-edit"),
        ("perl -e \"chmod 0644, '.git/hooks/pre-commit'\"", "selfdisable.hooks-edit"),
        ("sed -n 'w .git/hooks/pre-commit' /dev/null", "selfdisable.hooks-edit"),
        # state and socket
        ("socat UNIX-LISTEN:.git/interlock/daemon.sock,fork EXEC:cat", "selfdisable.state-edit"),
        ("nc -lU .git/interlock/daemon.sock", "selfdisable.state-edit"),
        (
            'python3 -c "import socket; s = socket.socket(socket.AF_UNIX);'
            " s.bind('.git/interlock/daemon.sock'); s.listen()\"",
            "selfdisable.state-edit",
        ),
        ("ln -sf /tmp/impostor.sock .git/interlock/daemon.sock", "selfdisable.state-edit"),
        ("socat UNIX-LISTEN:/tmp/interlock-1000/0123abcd.sock -", "selfdisable.state-edit"),
        # the daemon by name, by pid, by everything
        ("pkill python", "selfdisable.kill-daemon"),
        ("pkill -9 python3", "selfdisable.kill-daemon"),
        ("pkill -f interlock", "selfdisable.kill-daemon"),
        ("pkill -f 'daemon run'", "selfdisable.kill-daemon"),
        ("killall python3", "selfdisable.kill-daemon"),
        ("killall -r 'py.*'", "selfdisable.kill-daemon"),
        ("killall -u dev", "selfdisable.kill-daemon"),
        ("killall5 -9", "selfdisable.kill-daemon"),
        ("kill -9 -1", "selfdisable.kill-daemon"),
        ("kill -- -1", "selfdisable.kill-daemon"),
        ("kill $(cat .git/interlock/daemon.pid)", "selfdisable.kill-daemon"),
        ("kill -STOP $(pgrep -f interlock)", "selfdisable.kill-daemon"),
        ("kill $(ps aux | grep interlock | awk '{print $2}')", "selfdisable.kill-daemon"),
        ("pgrep -f interlock | xargs kill", "selfdisable.kill-daemon"),
        ("pgrep python | xargs -r kill -9", "selfdisable.kill-daemon"),
        (
            "ps aux | grep 'interlock daemon' | awk '{print $2}' | xargs kill",
            "selfdisable.kill-daemon",
        ),
        (
            "python3 -c \"import os; os.kill(int(open('.git/interlock/daemon.pid').read()), 9)\"",
            "selfdisable.kill-daemon",
        ),
        # approval in any form
        ("interlock approve 3", "selfdisable.interlock-off"),
        ("script -qc 'interlock approve 3' /dev/null", "selfdisable.interlock-off"),
        ("script -q /dev/null interlock approve 3", "selfdisable.interlock-off"),
        ("unbuffer interlock approve 3", "selfdisable.interlock-off"),
        (
            "expect -c 'spawn interlock approve 3; expect y; send y\\r; interact'",
            "selfdisable.interlock-off",
        ),
        ("tmux send-keys 'interlock approve 1 2' Enter", "selfdisable.interlock-off"),
        ("screen -dm interlock approve 3", "selfdisable.interlock-off"),
        ("yes | interlock approve 3", "selfdisable.interlock-off"),
        ("python3 -I -S -m interlock approve 3", "selfdisable.interlock-off"),
        ("python3 -m interlock.cli approve 3", "selfdisable.interlock-off"),
        ("python3 -minterlock off", "selfdisable.interlock-off"),
        ("python3 -Im interlock off", "selfdisable.interlock-off"),
        ("python3 -Wignore -minterlock.cli uninstall", "selfdisable.interlock-off"),
        ("python3 -X dev -W ignore -m interlock off", "selfdisable.interlock-off"),
        (
            "python3 ~/.local/share/interlock/venv/bin/interlock approve 3",
            "selfdisable.interlock-off",
        ),
        (
            "python3 -c \"from interlock.cli import main; main(['approve', '3'])\"",
            "selfdisable.interlock-off",
        ),
        ("~/.local/bin/interlock approve 3", "selfdisable.interlock-off"),
        # the monitor's brakes and a harness's marks (a person's or a harness's)
        ("interlock resume", "selfdisable.run-control"),
        ("python3 -m interlock run start --id fresh", "selfdisable.run-control"),
        ("interlock run end", "selfdisable.run-control"),
        ("(setsid interlock resume &)", "selfdisable.run-control"),
        ("interlock turn --no-count --set repeat_threshold=50", "selfdisable.run-control"),
        ("interlock turn --set=flat_attempts=9", "selfdisable.run-control"),
        ("interlock turn --experiment", "selfdisable.run-control"),
        ("interlock turn --no-count --step parse-2", "selfdisable.run-control"),
        # hooks skipped through an alias
        ("git -c alias.ci='commit --no-verify' ci -m x", "selfdisable.no-verify"),
        ("git config alias.ci 'commit -n' && git ci -m x", "selfdisable.no-verify"),
    ],
)
def test_self_disable_by_any_writer_or_form_is_found(command: str, rule_id: str) -> None:
    assert rule_id in checked(command)


@pytest.mark.parametrize(
    "command",
    [
        "HUSKY=1 git commit -m x",
        "SKIP=1 pytest",
        # an empty or unset hook-skipping variable skips nothing: the hooks run
        "env -u HUSKY_SKIP_HOOKS git commit -m x",
        "env --unset=HUSKY_SKIP_HOOKS git commit -m x",
        "env -u SKIP git commit -m x",
        "HUSKY=0 env -u HUSKY git commit -m x",
        "HUSKY= git commit -m x",
        "HUSKY=0 HUSKY= git commit -m x",
        "SKIP= git commit -m x",
        "export HUSKY_SKIP_HOOKS=",
        "python3 -m pytest",
        "python3 -c 'print(1)' -m interlock off",
        "python3 -m",
        "echo 'export PATH=$HOME/bin:$PATH' >> ~/.bashrc",
        "sed -i 's/requests/httpx/' pyproject.toml",
        "git config -f .gitmodules submodule.lib.url ../lib",
        "git config -f .interlock.toml --get mode",
        "cat > pyproject.toml <<'EOF'\n[project]\nname = \"demo\"\nEOF",
        "vim src/app.py",
        "code .",
        "cat .git/interlock/daemon.log",
        "tail -n 50 .git/interlock/daemon.log",
        "ls -la .git/interlock",
        "pkill -f 'python app.py'",
        "pkill -f uvicorn",
        "pkill node",
        "killall chromium",
        "kill %1",
        "kill -1 1234",
        "kill 1234",
        "pgrep node | xargs kill",
        "ps aux | grep -v grep | grep node | awk '{print $2}' | xargs kill",
        "kill `pstree -p 24901 | grep '(' | sed 's/(\\(.*\\)).*/\\1/'`",
        "interlock status",
        "interlock check 'git status'",
        "python3 -m interlock check 'git status'",
        "interlock turn --failed",
        "interlock todo done 2",
        "interlock run --help",
        "interlock runs",
        "interlock handoff --json",
    ],
)
def test_neighbours_of_self_disable_are_allowed(command: str) -> None:
    assert checked(command) == set()


def test_the_run_control_finding_says_what_it_would_reset() -> None:
    result = evaluate("interlock run start", "/", assume_dirty=True).result
    (finding,) = result.findings
    assert "ends the run the monitor watches" in finding.reason
    assert "only a person, outside the run, can turn interlock down" in finding.reason


def test_the_approve_finding_says_approval_belongs_to_a_person() -> None:
    result = evaluate("script -qc 'interlock approve 3' /dev/null", "/", assume_dirty=True).result
    (finding,) = result.findings
    assert "approval belongs to a person outside the run" in finding.reason


def test_killing_the_daemons_pid_copied_out_of_its_pid_file_is_found(git_repo) -> None:
    state = git_repo / ".git" / "interlock"
    state.mkdir()
    (state / "daemon.pid").write_text("424242\n")
    assert "selfdisable.kill-daemon" in checked("kill -9 424242", str(git_repo), False)
    assert "selfdisable.kill-daemon" in checked("kill -STOP 424242", str(git_repo), False)
    assert checked("kill 424243", str(git_repo), False) == set()


@pytest.mark.parametrize(
    ("cmd", "rule_id"),
    [
        ("interlock run end", "selfdisable.run-control"),
        ("interlock run start --id fresh", "selfdisable.run-control"),
        ("interlock run reconcile 3 --not-landed", "selfdisable.run-control"),
        ("interlock resume", "selfdisable.run-control"),
        ("interlock run $WHAT", "selfdisable.run-control"),
        ("interlock turn --set repeat_threshold=9", "selfdisable.run-control"),
        ("interlock turn --set=repeat_threshold=9 --no-count", "selfdisable.run-control"),
        ("interlock turn --experiment", "selfdisable.run-control"),
        ("python -m interlock run end", "selfdisable.run-control"),
        ("python3.12 -I -S -m interlock.cli run end", "selfdisable.run-control"),
        ("/home/dev/.local/bin/interlock run end", "selfdisable.run-control"),
        ("\\interlock run end", "selfdisable.run-control"),
        ("command interlock resume", "selfdisable.run-control"),
        ("uv run interlock run end", "selfdisable.run-control"),
        ("timeout 5 nohup interlock run end", "selfdisable.run-control"),
        ("env -u INTERLOCK_RUN interlock status", "selfdisable.env-override"),
        ("env --unset INTERLOCK_WRAPPED bash", "selfdisable.env-override"),
        ("env -iu INTERLOCK_RUN git commit -m x", "selfdisable.env-override"),
        ("sudo env -u INTERLOCK_MODE make", "selfdisable.env-override"),
    ],
)
def test_turning_the_run_down_is_found_in_every_form(cmd: str, rule_id: str) -> None:
    assert rule_id in walked_selfdisable(cmd)


@pytest.mark.parametrize(
    "cmd",
    [
        "interlock stop",
        "interlock stop --run r-20261201-101500-3fa2",
        "interlock pause",
        "interlock runs",
        "interlock run --help",
        "interlock turn",
        "interlock turn --failed",
        "interlock todo add 'x' && interlock todo done 1",
        "interlock log",
        "echo 'interlock run end' > notes.md",
        "grep -rn 'interlock run end' docs/",
        "env -u PYTHONPATH pytest",
    ],
)
def test_what_turns_interlock_up_or_reads_it_is_not_self_disable(cmd: str) -> None:
    assert walked_selfdisable(cmd) == set()


@pytest.mark.parametrize(
    "command",
    [
        # interpreter options that take a value, before -m
        "python3 --check-hash-based-pycs always -m interlock off",
        "python3 --check-hash-based-pycs never -I -m interlock.cli uninstall",
        "python3 -W ignore -X dev -m interlock off",
        "python3 -bb -Wd -m interlock off",
        # an option known only at run time
        "python3 $OPTS -m interlock off",
        'python3 -E "$O" -m interlock off',
        # another Python
        "pypy3 -m interlock off",
        "python3.12 -m interlock off",
        # a module that runs interlock's
        "python3 -m pdb -m interlock off",
        "python3 -m cProfile -o prof -m interlock off",
        "python3 -m runpy interlock off",
        "python3 -m trace --count --module interlock off",
        # interlock's package run as a script
        "python3 interlock/__main__.py off",
        "python3 ./interlock off",
        # interlock's code imported by a call, not an import line
        'python3 -c \'__import__("interlock.cli").cli.main(["off"])\'',
        'python3 -c \'import importlib; importlib.import_module("interlock.cli").main(["off"])\'',
        'python3 -c \'import importlib as i; i.import_module("interlock.cli").main(["off"])\'',
        "python3 ~/src/interlock/interlock/__main__.py off",
    ],
)
def test_interlock_run_through_python_in_any_form_is_found(command: str) -> None:
    assert "selfdisable.interlock-off" in checked(command), command


@pytest.mark.parametrize(
    "command",
    [
        "python3 -c 'print(1)' -m interlock off",
        "python3 -Ic 'print(1)' interlock off",
        "python3 -c 'import sys' ./interlock off",
        "python3 -- -m interlock off",
        "python3 --check-hash-based-pycs always -m pytest",
        "python3 --check-hash-based-pycs always interlock.py off",
        "python3 -X dev -m interlock.cli check 'git status'",
        "python3 -m pip install interlocking",
        "python3 -m pytest -k interlock",
        "python3 -m json.tool interlock.json",
        "python3 interlock/cli.py",
        "python3 src/__main__.py off",
        'python3 -c \'import importlib; importlib.import_module("json").dumps(["off"])\'',
    ],
)
def test_python_that_does_not_run_interlock_off_is_allowed(command: str) -> None:
    assert checked(command) == set(), command


def judged(command: str) -> tuple[str, set[str]]:
    """The verdict and every finding's rule (an internal error shows as its own rule)."""
    result = evaluate(command, "/", mode="blocking", assume_dirty=True).result
    return result.verdict, {f.rule for f in result.findings}


@pytest.mark.parametrize(
    ("command", "rule_id"),
    [
        # an abbreviation git reads as --no-verify, where the option set is not spelled out
        ("git push --no-veri", "selfdisable.no-verify"),
        # git config's subcommand forms (git 2.46) and the key named before its value
        ("git config set core.hooksPath /dev/null", "selfdisable.hooks-path"),
        ("git config unset core.hooksPath", "selfdisable.hooks-path"),
        ("git config remove-section core", "selfdisable.hooks-path"),
        ("git config rename-section core old", "selfdisable.hooks-path"),
        ("git config --remove-section core", "selfdisable.hooks-path"),
        ("git config core.hooksPath list", "selfdisable.hooks-path"),
        ("git config core.hooksPath get", "selfdisable.hooks-path"),
        ("git config --global core.hooksPath x", "selfdisable.hooks-path"),
        ('git -c "$CFG" commit -m x', "selfdisable.hooks-path"),
        # git's config given through the environment to any program that runs git
        ("GIT_CONFIG_KEY_0=core.hooksPath GIT_CONFIG_VALUE_0=x make", "selfdisable.hooks-path"),
        ("GIT_CONFIG_KEY_0=$K GIT_CONFIG_VALUE_0=x make", "selfdisable.hooks-path"),
        ("GIT_CONFIG_PARAMETERS=\"'core.hooksPath'='x'\" make", "selfdisable.hooks-path"),
        ("GIT_CONFIG_PARAMETERS=$P make", "selfdisable.hooks-path"),
        # a hook-skipping variable with a value only known at run time, or set again bare
        ('HUSKY="$V" git commit -m x', "selfdisable.hook-skip-env"),
        ("export HUSKY=0 HUSKY", "selfdisable.hook-skip-env"),
        ("env SKIP=lint", "selfdisable.hook-skip-env"),
        # INTERLOCK_* unset by env, the name glued to -u
        ("env -uINTERLOCK_MODE", "selfdisable.env-override"),
        ("env --unset=INTERLOCK_MODE", "selfdisable.env-override"),
        # python options: `--` before a script, a long option's value before the script
        ("python3 -- ./interlock off", "selfdisable.interlock-off"),
        ("python3 --check-hash-based-pycs always ./interlock off", "selfdisable.interlock-off"),
        ("python3 -m cProfile -minterlock off", "selfdisable.interlock-off"),
        ("python3 $OPTS ./interlock off", "selfdisable.interlock-off"),
        ("python3 -Wmodule ./interlock off", "selfdisable.interlock-off"),
        ("interlock integrate claude --remove", "selfdisable.interlock-off"),
        ("interlock hooks remove", "selfdisable.interlock-off"),
        ("interlock config unset mode", "selfdisable.config-edit"),
        ("interlock daemon kill", "selfdisable.kill-daemon"),
        ("python3 -m interlock daemon stop", "selfdisable.kill-daemon"),
        ("interlock config edit", "selfdisable.config-edit"),
        ("interlock config reset", "selfdisable.config-edit"),
        ("systemctl --user kill interlock", "selfdisable.kill-daemon"),
        ("systemctl --user disable interlock", "selfdisable.kill-daemon"),
        ("systemctl --user mask interlock", "selfdisable.kill-daemon"),
        ("launchctl unload ~/Library/LaunchAgents/dev.interlock.plist", "selfdisable.kill-daemon"),
        ("launchctl bootout gui/501/dev.interlock", "selfdisable.kill-daemon"),
        ("launchctl remove dev.interlock", "selfdisable.kill-daemon"),
        ("fuser -k interlock.log", "selfdisable.kill-daemon"),
        ("vim +10 .interlock.toml", "selfdisable.config-edit"),
        ("nano -w .git/hooks/pre-commit", "selfdisable.hooks-edit"),
        ("python3 -Xfrozen_modules=off -m interlock off", "selfdisable.interlock-off"),
        ("python3 -m pdb -m interlock.cli off", "selfdisable.interlock-off"),
    ],
)
def test_each_spelling_of_a_self_disable_is_found(command: str, rule_id: str) -> None:
    verdict, rules = judged(command)
    assert verdict == "block"
    assert rule_id in rules


@pytest.mark.parametrize(
    "command",
    [
        "git push --no-ver",
        "git config --list",
        "git config -l",
        "git config get core.hooksPath",
        "git config --get core.hooksPath",
        "git config list",
        "git config edit --help",
        "git config remove-section alias",
        "git config user.name Bot -f",
        "git config user.name Bot --file",
        "git config --rename-section alias old",
        "git config user.name core.hooksPath",
        "git -c color.ui status",
        "git -c user.name commit -m x",
        "git -c user.name=$V status",
        "git --config-env=user.name=V status",
        "git --version",
        "git --help commit --no-verify",
        "git help config",
        "GIT_CONFIG_KEY_0=user.name GIT_CONFIG_VALUE_0=x make",
        "GIT_CONFIG_PARAMETERS=\"'user.name'='x'\" make",
        "GIT_CONFIG_COUNT=1 make",
        "FOO=$X make",
        "NOTE=core.hooksPath make",
        "export HUSKY=1 HUSKY",
        "env HUSKY=1",
        "env -uHOME",
        "echo interlock off",
        "ls interlock off",
        "python3 -I",
        "python3 -E -s",
        "python3 -m",
        "python3 -I -X",
        "python3 - interlock off",
        "python3 -m cProfile -mpytest",
        "python3 -m pdb script.py interlock",
        "interlock integrate claude",
        "interlock status --remove",
        "interlock --version",
        "interlock todo remove 2",
        "interlock --experiment turn",
        "interlock --set=x turn --failed",
        "interlock hooks status",
        "interlock config show",
        "/opt/interlock/bin/pkill node",
        "fuser -v interlock.log",
        ".git/hooks/vim notes.txt",
        "vim -R notes.txt",
        'vim "$F"',
        "nano $NOTES",
        "vim '+set ft=toml' notes.txt",
        "systemctl --user status interlock",
        "interlock",
        "python3 -m interlock --help",
    ],
)
def test_neighbours_of_each_spelling_are_allowed_without_error(command: str) -> None:
    assert judged(command) == ("allow", set())


@pytest.mark.parametrize(
    "command",
    [
        "pip uninstall -y interlock",
        "pip3 uninstall interlock",
        "pip3.12 uninstall --yes Interlock",
        "/home/dev/.local/share/interlock/venv/bin/pip uninstall -y interlock",
        "python3 -m pip uninstall -y interlock",
        "python3 -I -m pip uninstall interlock",
        "pip --disable-pip-version-check uninstall interlock requests",
        "pip uninstall requests 'interlock[dev]>=0.1'",
        "pip uninstall -y INTERLOCK",
        "pip uninstall --root-user-action ignore interlock",
        "pip uninstall -r requirements.txt",
        "pip uninstall --requirement=requirements.txt",
        "pip uninstall -rrequirements.txt",
        "pip uninstall -y $PKG",
        "pip $VERB interlock",
        "uv pip uninstall interlock",
        "uv pip uninstall --python .venv/bin/python interlock",
        "uv pip uninstall --python=.venv/bin/python interlock",
        "pip uninstall -y requests $PKG",
        "pip uninstall -- interlock",
        "uv tool uninstall interlock",
        "uv tool uninstall --all",
        "uv remove --group dev interlock",
        "pipx uninstall interlock",
        "pipx uninstall-all",
        "poetry remove -G dev interlock",
        "pdm remove -d interlock",
        "pipenv uninstall interlock",
        "conda remove -y interlock",
        "conda remove -n work --all",
        "mamba uninstall interlock",
        "micromamba remove interlock",
        "sudo pip uninstall -y interlock",
        "uv run pip uninstall -y interlock",
    ],
)
def test_removing_interlocks_package_is_interlock_off(command: str) -> None:
    verdict, found = judged(command)
    assert verdict == "block", command
    assert "selfdisable.interlock-off" in found, command


@pytest.mark.parametrize(
    "command",
    [
        "pip uninstall -y requests",
        "pip uninstall -y interlock-extras",
        "pip uninstall -y myinterlock",
        "pip install -r requirements.txt",
        "pip uninstall",
        "pip --version",
        "uv pip",
        "pip $VERB requests",
        "pip3 show interlock",
        "python3 -m pip uninstall -y requests",
        "python3 -m pip show interlock",
        "python3 -c 'print(1)' pip uninstall interlock",
        "uv pip uninstall requests",
        "uv tool uninstall ruff",
        "uv tool list",
        "uv remove --group interlock requests",
        "uv remove --project interlock requests",
        "uv pip uninstall -p interlock requests",
        "uv pip uninstall --target interlock requests",
        "uv pip uninstall --prefix interlock requests",
        "pip uninstall -c interlock requests",
        "pip uninstall --constraint interlock requests",
        "uv --directory interlock remove requests",
        "pipx uninstall black",
        "pipx list",
        "poetry remove requests",
        "conda remove -n interlock numpy",
        "conda remove --name interlock numpy",
        "conda remove --name=interlock numpy",
        "npm uninstall interlock",
        "echo pip uninstall interlock",
        "pip uninstall - requests",
    ],
)
def test_neighbours_of_removing_interlocks_package_are_allowed(command: str) -> None:
    assert judged(command) == ("allow", set()), command


@pytest.mark.parametrize(
    "command",
    [
        "python3 --check-hash-based-pycs always -m interlock off",
        "python3 --check-hash-based-pycs always ./interlock off",
        "python3 --check-hash-based-pycs never -I ./interlock off",
        "python3 -W ignore ./interlock off",
        "python3 -X dev -m interlock off",
        "python3 -Wignore -minterlock off",
        "python3 -m cProfile -minterlock off",
        "python3 -- ./interlock off",
        "python3 $OPTS ./interlock off",
        "python3 interlock/__main__.py off",
        "pypy3 -m interlock.cli uninstall",
    ],
)
def test_python_running_interlock_is_read_by_the_rule_itself(command: str, selfdisable) -> None:
    """The rule's own reading of python's options, without the walker's (which finds some of
    these again by other routes)."""
    assert "selfdisable.interlock-off" in selfdisable(command), command


@pytest.mark.parametrize(
    "command",
    [
        "python3 --check-hash-based-pycs always x.py interlock off",
        "python3 -W ignore x.py ./interlock off",
        "python3 -X dev -m pytest tests off",
        "python3 -c 'print(1)' ./interlock off",
        "python3 - ./interlock off",
        "python3 -- x.py ./interlock off",
    ],
)
def test_python_running_something_else_is_not_read_as_interlock(command: str, selfdisable) -> None:
    assert selfdisable(command) == set(), command
