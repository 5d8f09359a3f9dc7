"""Properties of code handed over as data: every launcher, runner and carrier of code that
interlock reads never lowers the verdict of the code it carries, and an alias or a file
written on the line is as blocked as the command itself."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interlock.engine.check import evaluate

SEEDS = [
    "git reset --hard",
    "git checkout -- .",
    "git clean -fdx",
    "git stash clear",
    "git branch -D topic",
    "git push --force",
    "rm -rf src",
    "git commit --no-verify -m wip",
    "git -c core.hooksPath=/dev/null commit -m x",
    "interlock off",
    "pkill -f interlock",
    "git tag -d v1",
    "git merge --abort",
]

# Each wraps a command line (`{}`) as shell code some program runs.
CODE_WRAPPERS = [
    "fish -c '{}'",
    "dash -c '{}'",
    "zsh -c '{}'",
    "tcsh -c '{}'",
    "busybox sh -c '{}'",
    "pwsh -Command '{}'",
    "script -qc '{}' /dev/null",
    "tmux new -d '{}'",
    "tmux send-keys -t x '{}' Enter",
    "screen -dm sh -c '{}'",
    "ssh localhost '{}'",
    "nix-shell --run '{}'",
    "watch -n 1 '{}'",
    "trap '{}' EXIT",
    "bash <(echo '{}')",
    "echo '{}' | sh /dev/stdin",
    "echo '{}' | at now",
    "echo '{}' > job.sh && sh job.sh",
    "printf '%s\\n' '{}' > job.sh; bash job.sh",
    "git -c alias.x='!{}' x",
    "git config alias.x '!{}' && git x",
    "GIT_PAGER='{}' git log",
    "git -c core.editor='{}' commit",
    "GIT_SSH_COMMAND='{}' git fetch",
    "hyperfine '{}'",
    "vim -c '!{}' -c q",
    "gdb -batch -ex 'shell {}'",
    "sqlite3 :memory: '.shell {}'",
    "tar -xf a.tar --to-command='{}'",
]
# Each runs one simple command (`{}`) as words.
PREFIX_LAUNCHERS = [
    "busybox {}",
    "script -q /dev/null {}",
    "unshare -r {}",
    "firejail {}",
    "chroot / {}",
    "xvfb-run -a {}",
    "op run -- {}",
    "nix develop -c {}",
    "screen -dmS job {}",
    "wsl {}",
    "cmd /c {}",
    "sshpass -p pw {}",
    "fakeroot {}",
]


@pytest.fixture(scope="module")
def seeds(corpus_dir: Path) -> list[str]:
    """SEEDS, and every one-line discard or self-disable case of the shared corpus."""
    found = list(SEEDS)
    corpus = corpus_dir / "commands.jsonl"
    if corpus.exists():
        for line in corpus.read_text().splitlines():
            case = json.loads(line)
            if {"discard", "self-disable"} & set(case["expect"]) and "\n" not in case["cmd"]:
                found.append(case["cmd"])
    return found


def verdict(command: str) -> str:
    return evaluate(command, "/", mode="blocking", assume_dirty=True).result.verdict


def _simple(command: str) -> bool:
    if "=" in command.split()[0]:
        return False
    return not any(op in command for op in ("|", "&", ";", "(", "!", "{", "$", "<", ">", "\n"))


@settings(max_examples=250, deadline=None)
@given(st.data(), st.lists(st.sampled_from(CODE_WRAPPERS), min_size=1, max_size=2))
def test_code_handed_over_as_data_never_lowers_its_verdict(seeds, data, wrappers):
    seed = data.draw(st.sampled_from([s for s in seeds if "'" not in s]), label="seed")
    assert verdict(seed) == "block", seed
    command = seed
    for wrapper in wrappers:
        if "'" in command:
            break  # single quotes do not nest; one level is the property
        command = wrapper.format(command)
    assert verdict(command) == "block", command


@settings(max_examples=150, deadline=None)
@given(st.data(), st.lists(st.sampled_from(PREFIX_LAUNCHERS), min_size=1, max_size=3))
def test_launchers_never_lower_a_simple_blocked_command(seeds, data, launchers):
    seed = data.draw(st.sampled_from([s for s in seeds if _simple(s)]), label="seed")
    command = seed
    for launcher in launchers:
        command = launcher.format(command)
    assert verdict(command) == "block", command


@settings(max_examples=100, deadline=None)
@given(st.data(), st.sampled_from(["GIT", "Git", "git.exe", "'C:/Program Files/Git/bin/git.exe'"]))
def test_a_git_spelled_for_another_file_system_is_git(seeds, data, spelling):
    seed = data.draw(st.sampled_from([s for s in seeds if s.startswith("git ")]), label="seed")
    assert verdict(spelling + seed[3:]) == "block", spelling + seed[3:]
