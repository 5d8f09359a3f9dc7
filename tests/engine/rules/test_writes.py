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


@pytest.mark.parametrize(
    ("command", "paths"),
    [
        ("gawk -i inplace '{print}' f.txt", {"f.txt"}),
        ("gawk -i inplace -f prog.awk f.txt", {"f.txt"}),
        ("gawk -i inplace -- '{print}' f.txt", {"f.txt"}),
        # options end at the program text: `-f x` after it is two more files, edited too
        ("gawk -i inplace '{print}' -f x f.txt", {"-f", "x", "f.txt"}),
        ("gawk -i inplace '{print}' v=1 f.txt", {"f.txt"}),
        ("perl -pe 's/a/b/' -i f.txt", {"f.txt"}),  # switches go on until the first file
        ("perl -I lib -i -pe 's/a/b/' f.txt", {"f.txt"}),  # -I takes the next word
        ("sed 's/a/b/' -i f.txt", {"f.txt"}),  # GNU sed reads options anywhere
    ],
)
def test_in_place_editors_write_the_files_they_read(command, paths):
    assert written(command) == paths


@pytest.mark.parametrize(
    "command",
    [
        # after the program text (or perl's script) come files: `-i inplace` there is a file
        "gawk '{print}' -i inplace f.txt",
        "awk 1 -i inplace f.txt",
        "perl -p script.pl -i f.txt",
        "perl -n /dev/null -i f.txt",
    ],
)
def test_an_in_place_option_after_the_program_is_a_file_name(command):
    assert written(command) == set()
