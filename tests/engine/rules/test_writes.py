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


def touches(command: str) -> list[tuple[str, str, str | None]]:
    return sorted(
        (t.word.text, t.verb, t.mode) for inv in walk(parse(command)) for t in touched_paths(inv)
    )


W, R, M = "write", "remove", "mode"


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("echo x 2>&1 > a", [("a", W, None)]),
        ("echo x >&2", []),  # a copy of a descriptor
        ("echo x >&-", []),
        ("echo x > 2", [("2", W, None)]),  # a file named 2
        ("echo x > -", [("-", W, None)]),
        ("echo x >& f", [("f", W, None)]),
        ("echo x &> f", [("f", W, None)]),
        ("echo x >> f", [("f", W, None)]),
        ("cat < f", []),
        ("cat <<EOF > f\nx\nEOF", [("f", W, None)]),
        ("cat <<EOF\nx\nEOF", []),
        ("mv -t d a b", [("a", R, None), ("b", R, None), ("d", W, None)]),
        ("mv --target-directory=d a", [("a", R, None), ("d", W, None)]),
        ("mv a b", [("a", R, None), ("b", R, None)]),
        ("cp a", []),  # no destination
        ("cp a b c", [("c", W, None)]),
        ('cp -t "$D" a', [('"$D"', W, None)]),
        ("cp -t d a b", [("d", W, None)]),
        ("ln -s a b", [("b", W, None)]),
        ("install -m 644 a b", [("b", W, None)]),
        ("rsync -a a/ b/", [("b/", W, None)]),
        ("chmod 644 f g", [("f", M, "644"), ("g", M, "644")]),
        ("chmod u+x,g-w f", [("f", M, "u+x,g-w")]),
        ("chmod -R 755 d", [("d", M, "755")]),
        ("chmod a=rwX,o-st f", [("f", M, "a=rwX,o-st")]),
        ("chmod 0755 f", [("f", M, "0755")]),
        ("chmod 07555 f", [("07555", M, None), ("f", M, None)]),  # not a mode: 5 digits
        ("chmod ux f", [("f", M, "ux")]),
        ("chmod u+q f", [("f", M, None), ("u+q", M, None)]),
        ("chmod u+x,9 f", [("f", M, None), ("u+x,9", M, None)]),  # every part must be one
        ("chmod rwx f", [("f", M, None), ("rwx", M, None)]),  # a mode starts with who or how
        ('chmod "$M" f', [('"$M"', M, None), ("f", M, None)]),
        ("chown u:g f", [("f", M, None)]),
        ("chgrp g f g2", [("f", M, None), ("g2", M, None)]),
        ("setfacl -m u:x:r f", [("f", M, None)]),
        ("chown", []),
        ("rm -rf a -- -b", [("a", R, None)]),
        ('rm "$X" -f', [('"$X"', R, None)]),
        ("unlink f", [("f", R, None)]),
        ("rmdir d", [("d", R, None)]),
        ("shred -u f", [("f", R, None)]),
        ("dd if=a of=b", [("b", W, None)]),
        ('dd of="$X"', [('"$X"', W, None)]),
        ("dd if=a", []),
        ("sponge f", [("f", W, None)]),
        ("fallocate -l 1M f", [("f", W, None)]),
        ("uniq a b", [("b", W, None)]),
        ("uniq -c a b", [("b", W, None)]),
        ("uniq -f 1 a b", [("b", W, None)]),  # an option's value is no operand
        ("uniq -s 2 -w 3 a b", [("b", W, None)]),
        ("uniq --skip-fields 1 a b", [("b", W, None)]),
        ("uniq a", []),
        ("unzip a.zip -d d", [("d", W, None)]),
        ("unzip a.zip", []),
        ("7z x a.7z -odir", [("dir", W, None)]),
        ("7z x a.7z -o", []),
        ("7z x a.7z", []),
        ("7za x a.7z -oa", [("a", W, None)]),
        ("7zr x a.7z -ob", [("b", W, None)]),
        ("7zz x a.7z -oc", [("c", W, None)]),
        ("gfind d -delete", [("d", R, None)]),
        ("find . -name x -delete", [(".", R, None)]),
        ("find . -print", []),
        ("tar -xf a.tar -C d", [("d", W, None)]),
        ("tar -cf a.tar -C d .", []),
        ("tar xf a.tar", []),
        ("sqlite3 db.sqlite 'x'", [("db.sqlite", W, None)]),
        ("sqlite3 --cmd x db.sqlite", [("db.sqlite", W, None)]),
        ("sqlite3 -cmd x db.sqlite", [("db.sqlite", W, None)]),  # one dash, as sqlite3 documents
        ("sqlite3 -init f.sql -bail db.sqlite", [("db.sqlite", W, None)]),
        ("sqlite3", []),
        ("tee a b", [("a", W, None), ("b", W, None)]),
        ("truncate -s 0 f", [("f", W, None)]),
        ("sort -o out in", [("out", W, None)]),
        ("sort -o - in", []),
        ("curl -o f u", [("f", W, None)]),
        ("curl --output=f u", [("f", W, None)]),  # an attached value
        ("sort -oout in", [("out", W, None)]),
        ("wget u", []),
        ("sed -i s/a/b/ f", [("f", W, None)]),
        ("sed -e s/a/b/ -i f g", [("f", W, None), ("g", W, None)]),
        ("sed -f x.sed -i f", [("f", W, None)]),
        ("sed s/a/b/ f", []),
        ("perl -i -e x f", [("f", W, None)]),
        ("perl -i -E x f", [("f", W, None)]),
        ("perl -i x.pl f", [("f", W, None)]),
        ("awk -i inplace -e x f", [("f", W, None)]),
        ("awk -i inplace -E x.awk f", [("f", W, None)]),
        ("awk -i inplace -f p.awk f g", [("f", W, None), ("g", W, None)]),
        ("awk -i inplace --source=x f", [("f", W, None)]),
        ("awk -i inplace x f v=1", [("f", W, None)]),
        ("gawk --include=inplace x f", [("f", W, None)]),
        ("awk -i ./lib/inplace.awk x f", [("f", W, None)]),
        ("awk -i inplacer x f", []),
        ("awk -i lib x f", []),
        ('awk -i "$L" x f', [("f", W, None)]),
        ("awk -i", []),
        ("git status", []),
        ("$CMD f", []),
    ],
)
def test_each_touch_names_its_path_and_how(command, expected):
    assert touches(command) == expected


def test_dd_writes_a_literal_path_or_one_known_only_at_run_time():
    ((plain,),) = [touched_paths(inv) for inv in walk(parse("dd if=a of=b"))]
    assert plain.word.literal() == "b"
    ((built,),) = [touched_paths(inv) for inv in walk(parse('dd of="$X/b"'))]
    assert built.word.literal() is None
