"""Which paths an invocation writes: downloads, sorted output, sponge and unpacked archives
count too, so writing interlock's own files by any of them is seen."""

from __future__ import annotations

import pytest

from interlock.engine.rules.args import known_path
from interlock.engine.rules.writes import touched_paths
from interlock.engine.walk import walk
from interlock.shell.parse import parse


def written(command: str) -> set[str]:
    return {
        known_path(t.word) or t.word.text
        for inv in walk(parse(command))
        for t in touched_paths(inv)
        if t.verb == "write"
    }


@pytest.mark.parametrize(
    ("command", "path"),
    [
        ("curl -fsSL -o .git/hooks/pre-commit https://example.com/h", ".git/hooks/pre-commit"),
        ("curl --output=.interlock.toml https://example.com/c", ".interlock.toml"),
        ("wget -O .interlock.toml https://example.com/c", ".interlock.toml"),
        ("sort -o .git/hooks/pre-push list", ".git/hooks/pre-push"),
        ("shuf -o out.txt in.txt", "out.txt"),
        ("uniq in.txt out.txt", "out.txt"),
        ("echo x | sponge .interlock.toml", ".interlock.toml"),
        ("fallocate -l 1M big.img", "big.img"),
        ("tar -xzf hooks.tgz -C .git/hooks", ".git/hooks"),
        ("tar xzf hooks.tgz -C .git/hooks", ".git/hooks"),
        ("unzip -o hooks.zip -d .git/hooks", ".git/hooks"),
        ("7z x hooks.7z -o.git/hooks", ".git/hooks"),
    ],
)
def test_writers_name_the_path_they_write(command, path):
    assert path in written(command)


@pytest.mark.parametrize(
    "command",
    [
        "curl -o - https://example.com",
        "tar -cf x.tar -C .git/hooks .",
        "sort in.txt",
        "uniq in.txt",
    ],
)
def test_reading_or_writing_to_stdout_writes_no_path(command):
    assert written(command) == set()
