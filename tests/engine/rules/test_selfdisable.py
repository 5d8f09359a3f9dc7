"""Self-disable rules: what would switch interlock off from inside a run."""

from __future__ import annotations

from collections.abc import Callable

import pytest

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
    "vim .git/hooks/pre-commit",
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
