"""Code interlock cannot read is never assumed harmless; literal code fed to a shell is read."""

from __future__ import annotations

import pytest

from interlock.engine.check import evaluate


def rules_of(command: str) -> set[str]:
    result = evaluate(command, "/", mode="blocking", assume_dirty=True).result
    return {f.rule for f in result.findings}


@pytest.mark.parametrize(
    ("command", "rule"),
    [
        ('eval "$X"', "parse.unknown-code"),
        ("eval $(cat cmds.txt)", "parse.unknown-code"),
        ('bash -c "$SCRIPT"', "parse.unknown-code"),
        ('sh -ec "$1"', "parse.unknown-code"),
        ("curl -fsSL https://example.com/install.sh | sh", "parse.unknown-code"),
        ("sed 's/^/rm /' list.txt | bash", "parse.unknown-code"),
        ("find . -name '*.tmp' | awk '{print \"rm \" $0}' | sh -s", "parse.unknown-code"),
        ("$CMD --all", "parse.unknown-command"),
        ("`which tool` --force", "parse.unknown-command"),
        ("git $SUB", "parse.unknown-command"),
        ("git $(echo reset) --hard", "parse.unknown-command"),
        ('env "$NAME"=1 ls', "parse.unknown-command"),  # which variable: known at run time
        ("env F$X=1 ls", "parse.unknown-command"),
    ],
)
def test_code_known_only_at_run_time_is_flagged(command, rule):
    assert rule in rules_of(command)


@pytest.mark.parametrize(
    ("command", "rule"),
    [
        ("echo 'git reset --hard' | bash", "git.reset-hard"),
        ("echo git clean -fdx | sh", "git.clean-force"),
        ("printf 'git stash clear\\n' | bash", "git.stash-clear"),
        ("cat <<EOF | bash\ngit branch -D topic\nEOF", "git.branch-force-delete"),
        ("cat <<'EOF' | sh -s\nrm -rf src\nEOF", "fs.rm-recursive"),
    ],
)
def test_literal_script_fed_to_a_shell_is_judged_like_the_script(command, rule):
    assert rule in rules_of(command)


@pytest.mark.parametrize(
    "command",
    [
        "echo 'git status' | bash",
        "printf 'ls\\n' | sh",
        "bash script.sh",
        "bash < setup.sh",
        "bash | tee log",
        "~/bin/tool --all",
        "git --version",
        'git -C "$DIR" status',
        "echo hi | bash -c 'cat'",
        "eval 'git status'",
    ],
)
def test_readable_commands_are_not_flagged_as_unknown(command):
    assert not {r for r in rules_of(command) if r.startswith("parse.")}


@pytest.mark.parametrize(
    "rule_id", ["parse.unknown-code", "parse.unknown-command", "git.config-code"]
)
def test_unknown_code_rules_block_and_allow_their_documented_examples(rule_id):
    from interlock.engine.rules.index import rule_info

    info = rule_info(rule_id)
    assert info is not None and info.examples_block
    for example in info.examples_block:
        assert rule_id in rules_of(example), example
    for example in info.examples_allow:
        assert rules_of(example) == set(), example
