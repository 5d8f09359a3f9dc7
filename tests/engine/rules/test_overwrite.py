"""The overwrite family: a single file written over, emptied, cut short, edited down,
unpacked over or given git's content back (overwrite, copies, editors, extract).

Judged here by text alone, as `--assume-dirty` does, through the real parser and walker; the
tree side (which file really holds unsaved work) is in tests/engine/test_precision_files.py.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

import pytest

from interlock.engine.analysis import analyse
from interlock.engine.check import evaluate
from interlock.engine.findings import Finding
from interlock.engine.rules import index as rules
from interlock.engine.rules.sedscript import ex_deletes, sed_commands, sed_deletes


def text_alone(command: str) -> list[Finding]:
    return list(evaluate(command, "/", mode="blocking", assume_dirty=True).result.findings)


def rules_of(command: str) -> set[str]:
    return {f.rule for f in text_alone(command)}


def raw(command: str) -> list[Finding]:
    """Every finding before the text-alone filter (writes that may create their file too)."""
    return [f for f in analyse(command).findings if f.kind == "discard"]


BLOCKED_BY_TEXT = [
    # emptied or cut short, in every form of redirection
    ("> src/app.py", "overwrite.truncate"),
    (": > src/app.py", "overwrite.truncate"),
    (":>src/app.py", "overwrite.truncate"),
    (">| src/app.py", "overwrite.truncate"),
    ("&> src/app.py true", "overwrite.truncate"),
    ("exec 3> src/app.py", "overwrite.truncate"),
    ("true > src/app.py", "overwrite.truncate"),
    ("cat /dev/null > README.md", "overwrite.truncate"),
    ("cat < /dev/null > README.md", "overwrite.truncate"),
    ("echo -n > notes.md", "overwrite.truncate"),
    ("printf '' > notes.md", "overwrite.truncate"),
    ("X=1 > notes.md", "overwrite.truncate"),
    ("sudo true > notes.md", "overwrite.truncate"),
    ("sh -c ': > src/app.py'", "overwrite.truncate"),
    ("eval ': > src/app.py'", "overwrite.truncate"),
    ("truncate -s 0 src/app.py", "overwrite.truncate"),
    ("truncate --size=0 src/app.py", "overwrite.truncate"),
    ("truncate -s -100 src/app.py", "overwrite.truncate"),
    ("truncate -r /dev/null src/app.py", "overwrite.truncate"),
    ('truncate -s 0 "$F"', "overwrite.truncate"),
    ("fallocate --punch-hole -o 0 -l 4096 data.bin", "overwrite.truncate"),
    ("install /dev/null src/app.py", "overwrite.truncate"),
    ("ln -sf /dev/null src/app.py", "overwrite.truncate"),
    ("head -c 0 > src/app.py", "overwrite.truncate"),
    ("head -n0 src/app.py > src/app.py", "overwrite.truncate"),
    (": | sponge src/app.py", "overwrite.truncate"),
    ("grep -v TODO notes.md | sponge notes.md", "overwrite.edit-deletes"),
    ("sort -u words.txt | sponge words.txt", "overwrite.edit-deletes"),
    ("git show HEAD:src/app.py | cat > src/app.py", "overwrite.git-content"),
    (
        "git archive --format=zip -o /tmp/s.zip HEAD && unzip -o /tmp/s.zip",
        "overwrite.git-content",
    ),
    ("cp /dev/null src/app.py", "overwrite.truncate"),
    ("cp /dev/null -- src/app.py", "overwrite.truncate"),
    ("dd if=/dev/null of=src/app.py", "overwrite.truncate"),
    ("dd of=src/app.py count=0 < /dev/zero", "overwrite.truncate"),
    ("tee src/app.py < /dev/null", "overwrite.truncate"),
    (": | tee src/app.py", "overwrite.truncate"),
    ("echo -n | tee src/app.py", "overwrite.truncate"),
    # a write over the file the command (or its pipeline) reads: emptied before it is read
    ("sort data.txt > data.txt", "overwrite.redirect"),
    ("grep -v TODO notes.md > notes.md", "overwrite.redirect"),
    ("tr a-z A-Z < notes.md > notes.md", "overwrite.redirect"),
    ("cat notes.md | grep -v TODO > notes.md", "overwrite.redirect"),
    ("cd src && sort app.py > ./app.py", "overwrite.redirect"),
    ("sed 's/a/b/' f.txt | tee f.txt", "overwrite.redirect"),
    ("uniq f f", "overwrite.redirect"),
    # in-place edits that delete
    ("sed -i '/^import os$/d' src/app.py", "overwrite.edit-deletes"),
    ("sed -i -e '1d' src/app.py", "overwrite.edit-deletes"),
    ("sed --in-place '1,$d' notes.md", "overwrite.edit-deletes"),
    ("sed -i'' '/x/d' notes.md", "overwrite.edit-deletes"),
    ("sed -i '' '/x/d' notes.md", "overwrite.edit-deletes"),
    ("sed -Ei '/x/d' notes.md", "overwrite.edit-deletes"),
    ("sed -i d notes.md", "overwrite.edit-deletes"),
    ("sed -i '5q' notes.md", "overwrite.edit-deletes"),
    ("sed -i 's/.*//' notes.md", "overwrite.edit-deletes"),
    ("sed -i 'c\\\\gone' notes.md", "overwrite.edit-deletes"),
    ("sed -i -n '/keep/p' notes.md", "overwrite.edit-deletes"),
    ("sed -i -f cleanup.sed notes.md", "overwrite.edit-deletes"),
    ('sed -i "/$PATTERN/d" notes.md', "overwrite.edit-deletes"),
    ("find . -name '*.py' -exec sed -i '1d' {} +", "overwrite.edit-deletes"),
    ("perl -ni -e 'print unless /TODO/' src/app.py", "overwrite.edit-deletes"),
    ("perl -n -e 'print unless /TODO/' -i src/app.py", "overwrite.edit-deletes"),
    ("perl -i -n prog.pl src/app.py", "overwrite.edit-deletes"),  # a program interlock cannot read
    ("perl -pi -e '$_ = \"\" if /x/' src/app.py", "overwrite.edit-deletes"),
    ("perl -i -pe 'last if /END/' src/app.py", "overwrite.edit-deletes"),
    ("perl -0777 -pi -e 's/.*//s' src/app.py", "overwrite.edit-deletes"),
    ("ruby -i -ne 'print if /x/' src/app.py", "overwrite.edit-deletes"),
    ("sort -o words.txt words.txt", "overwrite.edit-deletes"),
    ("sort words.txt -o words.txt", "overwrite.edit-deletes"),
    ("sort -u --output=words.txt words.txt", "overwrite.edit-deletes"),
    ("shuf -o deck.txt deck.txt", "overwrite.edit-deletes"),
    ("vim -es -c '%d' -c 'wq' src/app.py", "overwrite.edit-deletes"),
    ("ex -sc '%d|x' src/app.py", "overwrite.edit-deletes"),
    ("vi -c ':g/TODO/d' -c ':wq' src/app.py", "overwrite.edit-deletes"),
    ("vim +'%d' +wq src/app.py", "overwrite.edit-deletes"),
    ("ed -s src/app.py <<< $',d\\nw'", "overwrite.edit-deletes"),
    ("printf ',d\\nw\\n' | ed -s src/app.py", "overwrite.edit-deletes"),
    # git content written over the tree
    ("git show HEAD:src/app.py > src/app.py", "overwrite.git-content"),
    ("git show HEAD~3:./app.py > app.py", "overwrite.git-content"),
    ("git show :src/app.py > src/app.py", "overwrite.git-content"),
    ("git cat-file -p HEAD:README.md > README.md", "overwrite.git-content"),
    ("git cat-file blob HEAD:README.md >| README.md", "overwrite.git-content"),
    ("git --no-pager show main:src/app.py > src/app.py", "overwrite.git-content"),
    ("git show HEAD:src/app.py | tee src/app.py", "overwrite.git-content"),
    ("git archive HEAD | tar -x", "overwrite.git-content"),
    ("git archive HEAD src | tar x", "overwrite.git-content"),
    ("git archive --format=tar HEAD | (cd . && tar xf -)", "overwrite.git-content"),
    ("git archive HEAD | gzip | tar xz", "overwrite.git-content"),
    ("git archive -o /tmp/a.tar HEAD && tar -xf /tmp/a.tar", "overwrite.git-content"),
    ("git diff | git apply -R", "overwrite.git-content"),
    ("git diff HEAD -- src | git apply --reverse", "overwrite.git-content"),
    ("git apply -R <(git diff)", "overwrite.git-content"),
    ("git diff | patch -R -p1", "overwrite.git-content"),
    ("patch -R -p1 < <(git diff)", "overwrite.git-content"),
    # the same diff through a file written earlier on the line
    ("git diff > p && git apply -R p", "overwrite.git-content"),
    ("git diff > p; git apply -R p", "overwrite.git-content"),
    ("git diff >> p && git apply -R p", "overwrite.git-content"),
    ("git diff --output=p && git apply -R p", "overwrite.git-content"),
    ("git diff --output p && git apply -R p", "overwrite.git-content"),
    ("git diff > p && git apply -R < p", "overwrite.git-content"),
    ("git diff > p && cat p | git apply -R", "overwrite.git-content"),
    ("git diff > p && patch -R -p1 < p", "overwrite.git-content"),
    ("git diff > p && patch -R -p1 -i p", "overwrite.git-content"),
    ("git diff > p && patch -R -p1 --input=p", "overwrite.git-content"),
    ("git diff > /tmp/p && cd src && git apply -R /tmp/p", "overwrite.git-content"),
    ("git diff > src/p && cd src && git apply -R p", "overwrite.git-content"),
    ('git diff > "$F" && git diff > p && git apply -R p', "overwrite.git-content"),
]


@pytest.mark.parametrize(("command", "rule_id"), BLOCKED_BY_TEXT)
def test_a_write_that_destroys_a_file_is_a_discard_by_text_alone(command, rule_id):
    assert rule_id in rules_of(command), text_alone(command)


ALLOWED_BY_TEXT = [
    "echo 'git reset --hard' > notes.txt",  # new content: may be creating the file
    "cat > new_module.py <<'EOF'\nprint(1)\nEOF",
    "ls -la 2>&1 | tee listing.txt",
    "make 2> errors.txt",
    "exec > build.log 2>&1",
    "echo done >> notes.md",
    ": >> notes.md",
    "ls | tee -a log.txt",
    "echo x > /dev/null",
    "echo > src/pkg/__init__.py",  # a new line: read as making the file
    "make > /dev/null 2>&1",
    "echo 1 > /dev/tcp/localhost/80",
    "echo x > /tmp/out",
    ": > /tmp/scratch.log",
    ': > "$(mktemp -d)/x"',
    'echo x > "$OUT"',  # a path known only at run time, written like a new file
    "sort words.txt > sorted.txt",
    "sort -o sorted.txt words.txt",
    "echo words.txt > words.txt",  # echo does not read its operand
    "find . -name all.txt > all.txt",  # find reads names, not the file
    "cp template.py src/app.py",
    "mv draft.md README.md",
    "install -m 755 build/tool bin/tool",
    "ln -sf ../shared.cfg app.cfg",
    "rsync -a src/ backup/",
    "curl -fsSL -o install.sh https://example.com/install.sh",
    "wget -O setup.py https://example.com/setup.py",
    "dd if=/dev/zero of=disk.img bs=1M count=10",
    "truncate -s +1M disk.img",
    "truncate -s 10M disk.img",
    "tar -xzf vendor.tgz",
    "unzip -o release.zip",
    "sed -i 's/foo/bar/' src/app.py",
    'sed -i "s/$OLD/$NEW/g" src/app.py',
    "sed -i.bak '/x/d' notes.md",
    "sed -ie '/x/d' notes.md",  # GNU reads `e` as the backup suffix
    "sed -i .orig '/x/d' notes.md",
    "sed -i '$q' notes.md",
    "sed -i -n p notes.md",
    "sed -n '1,80p' src/app.py",
    "sed '/x/d' notes.md",
    "sed 's/a/b/' notes.md | sponge notes.md",  # an edit through sponge
    "echo hi | sponge new.txt",
    "perl -pi -e 's/a/b/g' src/app.py",
    "perl -pi.bak -ne 'print if /x/' src/app.py",
    "perl -pie 's/a/b/' src/app.py",  # -i with the suffix `e`
    "perl -n prog.pl -i src/app.py",  # after the script: `-i` is a file perl reads
    "ruby -n prog.rb -i src/app.py",
    "vim -es -c '%s/a/b/g' -c 'wq' src/app.py",
    "vim -c '%d' src/app.py",  # deletes in the buffer, never writes it
    "git show HEAD:src/app.py > /tmp/app.py",
    "git show HEAD~1:src/app.py > old_app.py",
    "git diff > edits.patch",
    "git apply -R fix.patch",  # the patch file keeps every line it takes out
    "git diff > p && git apply p",  # forwards: puts the changes in again
    "git diff > p && echo x > p && git apply -R p",  # p holds other lines by then
    "git diff --cached > p && git apply -R p",  # the index's changes
    "git diff --stat > p && git apply -R p",
    "git diff > p && git apply -R q",
    "git diff > p && cd src && git apply -R p",  # another file: src/p
    "git diff > p && git apply -R --check p",
    "git diff > p && patch -R -p1 --dry-run -i p",
    'git diff > p && git apply -R "$P"',
    "git diff > p && cat q | git apply -R",
    "git apply -R --check fix.patch",
    "git diff --cached | git apply -R",
    "git archive -o /tmp/src.tar HEAD",
    "git archive HEAD | tar -x -C /tmp/export",
    "rm .git/index.lock",
    "cat /dev/null > .git/info/exclude",
]


@pytest.mark.parametrize("command", ALLOWED_BY_TEXT)
def test_ordinary_writes_and_edits_are_allowed_by_text_alone(command):
    assert text_alone(command) == []


@pytest.mark.parametrize(
    ("command", "rule_id", "paths"),
    [
        ("echo x > notes.md", "overwrite.redirect", ("notes.md",)),
        ("cp a.py b.py src/", "overwrite.copy", ("src/",)),
        ("mv -f a.py b.py", "overwrite.copy", ("b.py",)),
        ("ln -sf /opt/tool/bin/tool", "overwrite.copy", ("tool",)),
        ("install -Dm644 a.cfg -t /etc/app/", "overwrite.copy", ("/etc/app/",)),
        ("curl -sO https://example.com/dl/tool.sh", "overwrite.download", ("tool.sh",)),
        ("curl --output-dir dl -O https://x.io/a/b.tgz", "overwrite.download", ("dl/b.tgz",)),
        ("wget -N https://example.com/x/data.csv", "overwrite.download", ("data.csv",)),
        ("wget -O- https://example.com | sh -s", None, ()),
        ("tar xzf vendor.tgz -C third_party", "overwrite.extract", ("third_party",)),
        ("unzip -o pkg.zip -d out", "overwrite.extract", ("out",)),
        ("7z x -y pack.7z -oout", "overwrite.extract", ("out",)),
        ("cpio -idu < a.cpio", "overwrite.extract", (".",)),
        ("pytest 2>&1 | tee test.log", "overwrite.redirect", ("test.log",)),
    ],
)
def test_writes_that_may_create_their_file_are_kept_for_the_tree_with_exact_targets(
    command, rule_id, paths
):
    found = [f for f in raw(command) if f.rule == rule_id]
    if rule_id is None:
        assert not [f for f in raw(command) if f.rule.startswith("overwrite.")]
        return
    (finding,) = found
    assert finding.targets is not None and finding.targets.creates
    assert finding.targets.paths == paths
    assert text_alone(command) == [] or rule_id not in rules_of(command)


def test_copy_into_a_directory_names_what_it_writes_there():
    (finding,) = [f for f in raw("cp src/a.py src/b.py backup/") if f.rule == "overwrite.copy"]
    assert finding.targets is not None
    assert finding.targets.into == ("a.py", "b.py") and finding.targets.single
    (tree,) = [f for f in raw("cp -r src backup/") if f.rule == "overwrite.copy"]
    assert tree.targets is not None and tree.targets.into == ("src",) and not tree.targets.single


@pytest.mark.parametrize(
    ("command", "paths"),
    [
        ("mv src/app.py /dev/null", ("src/app.py",)),
        ("mv a.py b.py /dev/null", ("a.py", "b.py")),
        ("mv -t /dev/null src", ("src",)),
        ("mv notes.md /dev/zero", ("notes.md",)),
        ("mv notes.md /dev/./null", ("notes.md",)),
        ("mv notes.md /dev/sda1", ("notes.md",)),
    ],
)
def test_a_move_onto_a_device_destroys_what_it_moves(command, paths):
    """`mv f /dev/null`, the idiom for deleting by moving: as root the file replaces the
    device, and the next write to /dev/null empties it. It was no finding at all."""
    (finding,) = text_alone(command)
    assert finding.rule == "fs.rm-recursive" and finding.targets is not None
    assert finding.targets.paths == paths


@pytest.mark.parametrize(
    "command",
    ["mv notes.md /dev/shm/", "mv notes.md /dev/shm/x", "cp src/app.py /dev/null"],
)
def test_a_move_into_a_directory_under_dev_or_a_copy_to_null_destroys_nothing(command):
    assert not [f for f in text_alone(command) if f.rule.startswith("fs.rm")]


def test_symlink_following_differs_by_tool():
    def follows(command: str) -> bool:
        (finding,) = [f for f in raw(command) if f.targets is not None]
        assert finding.targets is not None
        return finding.targets.follows

    assert follows("echo x > link")  # the shell opens the file the link points to
    assert follows("cp a link")
    assert not follows("mv a link")  # mv and ln replace the link itself
    assert not follows("ln -sf a link")
    assert not follows("rm link")
    assert not follows("sed -i '/x/d' link")  # GNU sed -i replaces the link with a file
    assert follows("sed -i --follow-symlinks '/x/d' link")


@pytest.mark.parametrize(
    "command",
    [
        "cp -n a.py b.py",
        "cp --no-clobber a b",
        "cp -i a b",
        "cp -b a b",
        "cp --backup=numbered a b",
        "cp --update=none a b",
        "mv -n a b",
        "mv --backup a b",
        "mv --exchange a b",
        "ln -s target new-link",
        "ln target new-link",
        "install -d build/bin",
        "rsync -a --ignore-existing a/ b/",
        "rsync -an a/ b/",
        "rsync -a src/ host:backup/",
        "wget https://example.com/x.tar.gz",
        "wget -nc -N https://example.com/x.csv",
        "curl -C - -o big.iso https://example.com/big.iso",
        "curl -o /dev/null https://example.com",
        "tar -tzf vendor.tgz",
        "tar -xkf vendor.tgz",
        "tar --skip-old-files -xf vendor.tar",
        "tar -xOf vendor.tar a.txt",
        "unzip release.zip",
        "unzip -n release.zip",
        "unzip -lo release.zip",
        "7z x pack.7z",
        "7z x -aos -y pack.7z",
        "cpio -id < a.cpio",
        "dd if=a.img of=b.img conv=notrunc oflag=append",
    ],
)
def test_options_that_never_replace_a_file_make_no_finding(command):
    assert [f for f in raw(command) if f.rule.startswith("overwrite.")] == []


def test_redirection_inherited_from_a_group_is_reported_once_with_the_group():
    findings = [f for f in raw("{ echo a; echo b; } > out.txt") if f.rule.startswith("overw")]
    assert {f.text for f in findings} == {"{ ... } > out.txt"}
    assert all(f.targets is not None and f.targets.creates for f in findings)


def test_emptiness_is_read_from_the_command_that_owns_the_redirection():
    # `bash -c ':' > f` writes nothing, but the redirection belongs to bash, whose script may
    # write; it is read as a write of new content
    assert text_alone("bash -c ':; echo hi' > f") == []
    assert text_alone("{ :; echo hi; } > f") == []


def test_rule_examples_are_judged_as_documented():
    for info in rules.all_rules():
        if not info.id.startswith("overwrite."):
            continue
        assert info.summary and info.why and info.instead and info.extra.get("judged")
        for example in info.examples_block:
            assert info.id in {f.rule for f in raw(example)}, (info.id, example)
        for example in info.examples_allow:
            assert info.id not in {f.rule for f in raw(example)} or text_alone(example) == [], (
                info.id,
                example,
            )


def test_sed_script_reader_finds_commands_past_addresses_and_substitutions():
    commands = sed_commands("/a;b/d; s|x|y|g;2,$ { /z/!p }; y/abc/xyz/; $q")
    assert [c for _, c, _, _ in commands] == ["d", "s", "p", "y", "q"]
    assert commands[0][0] == "/a;b/"
    assert commands[1][2:] == ("x", "y")
    assert commands[-1][0] == "$"


@pytest.mark.parametrize(
    ("script", "quiet", "deletes"),
    [
        ("s/a/b/g", False, False),
        ("s/a//g", False, False),  # removes a word: an edit
        ("s/.*//", False, True),
        ("s/^.*$//", False, True),
        ("/x/d", False, True),
        ("/x/!d", False, True),
        ("1~2D", False, True),
        ("$d", False, True),
        ("10q", False, True),
        ("$q", False, False),
        ("/x/c\\\\y", False, True),
        ("z", False, True),
        ("a\\\\text", False, False),
        ("1i header", False, False),
        ("p", True, False),
        ("/x/p", True, True),
        ("s/a/b/p", True, True),
        ("#n\np", False, False),
        ("#n\n/x/p", False, True),
        ("", False, False),
    ],
)
def test_sed_script_deletion_is_read_from_its_commands(script, quiet, deletes):
    assert (sed_deletes(script, quiet) is not None) is deletes, script


@pytest.mark.parametrize(
    ("commands", "deletes"),
    [
        (["%d", "wq"], True),
        (["%d|x"], True),
        (["g/TODO/d", "w"], True),
        (["1,$delete", "update"], True),
        (["normal! ggdG", "wq"], True),
        (["%!true", "x"], True),
        ([",d", "w"], True),  # ed
        (["%d"], False),  # never written
        (["%s/a/b/g", "wq"], False),
        (["set ff=unix", "wq"], False),
    ],
)
def test_ex_scripts_delete_only_when_they_write_the_file(commands, deletes):
    assert (ex_deletes(commands) is not None) is deletes, commands


# Every descriptor a redirection empties is emptied before the command reads the file, and
# `N<>` writes over the file in place; each case is run in real bash to show what it destroys.
SELF_DESTROYING = [
    "sort f.txt 2> f.txt",
    "sort f.txt 3> f.txt",
    "sort f.txt 2>| f.txt",
    "sort f.txt &> f.txt",
    "sort f.txt >& f.txt",
    "sort < f.txt 9> f.txt",
    "cat f.txt | sort 2> f.txt",
    "sed s/one/1/ f.txt 1<> f.txt",
    "tail -n 1 f.txt 1<> f.txt",
    "sed s/one/1/ f.txt 2<> f.txt >&2",
]


@pytest.mark.parametrize("command", SELF_DESTROYING)
def test_a_redirection_of_any_descriptor_over_a_file_the_command_reads_is_a_discard(
    command, tmp_path
):
    (tmp_path / "f.txt").write_text("one\ntwo\n")
    subprocess.run(["bash", "-c", command], cwd=tmp_path, capture_output=True, check=False)
    assert (tmp_path / "f.txt").read_text() != "one\ntwo\n"  # real bash destroyed it
    (finding,) = [f for f in text_alone(command) if f.rule == "overwrite.redirect"]
    assert finding.targets is not None and finding.targets.paths == ("f.txt",)
    assert not finding.targets.creates
    assert "before the command reads it" in finding.reason or "in place" in finding.reason


@pytest.mark.parametrize(
    "command",
    [
        "sort f.txt <> f.txt",  # stdin opened read-write: nothing is written to it
        "sort 0<> f.txt",
        ": 3<> f.txt",  # opened, never written, never cut short
        "true 1<> f.txt",
        "sort f.txt 2>> f.txt",
        "sort f.txt &>> f.txt",
        "sort f.txt 2>&1",
    ],
)
def test_a_redirection_that_neither_empties_nor_writes_the_file_it_reads_is_no_discard(
    command, tmp_path
):
    (tmp_path / "f.txt").write_text("one\ntwo\n")
    subprocess.run(["bash", "-c", command], cwd=tmp_path, capture_output=True, check=False)
    assert (tmp_path / "f.txt").read_text().startswith("one\ntwo\n")
    assert text_alone(command) == []


def test_a_read_write_redirection_of_output_may_write_over_an_existing_file():
    (finding,) = raw("echo hi 1<> notes.md")
    assert finding.rule == "overwrite.redirect" and finding.targets is not None
    assert finding.targets.creates and finding.targets.paths == ("notes.md",)
    (opened,) = raw("exec 3<> notes.md")  # later writes to fd 3 land in it; never emptied
    assert opened.rule == "overwrite.redirect" and opened.targets is not None
    assert opened.targets.creates


@pytest.mark.parametrize(
    ("command", "pasted"),
    [
        ("> 'my notes.md'", "'my notes.md'"),
        (": > -x.md", "./-x.md"),
        ('truncate -s 0 "it\'s.md"', "'it'\"'\"'s.md'"),
        ("> $'a\\nb.md'", "'a\nb.md'"),
    ],
)
def test_the_advice_names_the_file_as_one_word_to_paste(command, pasted, tmp_path):
    (finding,) = text_alone(command)
    assert f"cp {pasted} {pasted}.bak" in finding.instead
    path = tmp_path / shlex.split(pasted)[0]
    path.write_text("work")
    copy = finding.instead.split("(", 1)[1].split(")", 1)[0]
    subprocess.run(["bash", "-c", copy], cwd=tmp_path, check=True)
    assert (tmp_path / (shlex.split(pasted)[0] + ".bak")).read_text() == "work"


# --- in a real repository: targets named by a glob or known only at run time -------------


def lost_in(command: str, cwd: Path) -> set[str]:
    found = evaluate(command, str(cwd), mode="blocking").result.findings
    return {os.path.relpath(p, cwd) for f in found if f.kind == "discard" for p in f.lost}


@pytest.fixture
def notes(git_repo: Path) -> Path:
    """notes.md untracked (unsaved), README.md committed and clean."""
    (git_repo / "notes.md").write_text("my notes\n")
    return git_repo


@pytest.mark.parametrize(
    "command",
    [
        ": > n*.md",
        "truncate -s 0 n*.md",
        "tee n*.md < /dev/null",
        "cp /dev/null n?tes.md",
        "echo x > n*.md",  # new content, but the glob names the file that is there
        "sort README.md > [n]otes.md",
    ],
)
def test_a_glob_names_the_files_it_matches_now(command: str, notes: Path) -> None:
    assert lost_in(command, notes) == {"notes.md"}
    subprocess.run(["bash", "-c", command], cwd=notes, capture_output=True, check=False)
    assert (notes / "notes.md").read_text() != "my notes\n"  # the shell expanded it


@pytest.mark.parametrize("command", [": > x*.md", "echo x > R*.md", "truncate -s 0 *.none"])
def test_a_glob_that_matches_no_unsaved_file_is_no_discard(command: str, notes: Path) -> None:
    assert lost_in(command, notes) == set()


@pytest.mark.parametrize(
    "command",
    [
        ': > "$F"',
        'truncate -s 0 "$F"',
        'tee "$F" < /dev/null',
        'cp /dev/null "$F"',
        'sort "$F" > "$F"',
        'sort < "$F" 2> "$F"',
        'grep -v x "$F" | sponge "$F"',
        'sed s/a/b/ "$F" | tee "$F"',
    ],
)
def test_a_single_file_known_only_at_run_time_may_be_any_unsaved_file(
    command: str, notes: Path
) -> None:
    assert "notes.md" in lost_in(command, notes)
    assert text_alone(command) != []


@pytest.mark.parametrize(
    "command", ['sort "$F" > "$G"', 'grep x "$F" | sponge "$G"', 'cat "$F" > "$OUT"']
)
def test_a_write_to_a_path_known_only_at_run_time_is_read_as_a_new_file(
    command: str, notes: Path
) -> None:
    assert text_alone(command) == [] and lost_in(command, notes) == set()


# --- what each redirection and producer is read as (pinned one by one) ---------------------


def rules_raw(command: str) -> list[str]:
    return [f.rule for f in raw(command)]


@pytest.mark.parametrize(
    "command",
    [
        "sort <> notes.md",
        "sort 0<> notes.md",
        "sort notes.md >&-",
        "sort notes.md 2>&-",
        "sort notes.md 2>&1",
        "sort notes.md >&2",
        "sort notes.md 1>&2",
    ],
)
def test_descriptors_copied_closed_or_opened_for_reading_write_no_file(command):
    assert raw(command) == []


@pytest.mark.parametrize(
    ("command", "path"),
    [("echo x > -", "-"), ("echo x > 2", "2"), ("echo x >& out.txt", "out.txt")],
)
def test_a_file_named_like_a_descriptor_is_written_as_a_file(command, path):
    (finding,) = raw(command)
    assert finding.rule == "overwrite.redirect" and finding.targets is not None
    assert finding.targets.paths == (path,) and finding.targets.creates
    assert finding.targets.follows  # `>` writes through a symlink to what it points to


@pytest.mark.parametrize(
    "command",
    [
        "false > notes.md",
        "echo -n '' > notes.md",
        "echo -n -e > notes.md",
        "printf %s > notes.md",
        "printf '%s' '' > notes.md",
        "printf '' '' '' > notes.md",
        "cat /dev/null /dev/null > notes.md",
        "tail -n 0 other.md > notes.md",
        "head --lines=0 other.md > notes.md",
        "head --lines 0 other.md > notes.md",
        "head -0 other.md > notes.md",  # the old form: -n 0
        "head -n +0 other.md > notes.md",
        "tail -0 other.md > notes.md",
        "tail -n -0 other.md > notes.md",
        "tail -c -0 other.md > notes.md",
        "tail -n 0K other.md > notes.md",
        "tail -n 1 -n 0 other.md > notes.md",  # the last count wins
        "tee notes.md <<'EOF'\nEOF",
        "tee notes.md 0<<'EOF'\nEOF",
        "tee notes.md <<< ''",
    ],
)
def test_a_producer_of_nothing_empties_the_file(command):
    assert rules_of(command) == {"overwrite.truncate"}, text_alone(command)


@pytest.mark.parametrize(
    "command",
    [
        "echo -e > notes.md",  # a new line
        "echo -n x > notes.md",
        "echo x -n > notes.md",
        "printf x '' > notes.md",
        "printf '%s' x > notes.md",
        "printf '%s\\n' > notes.md",
        "cat /dev/null other.md > notes.md",
        "cat < other.md > notes.md",
        "cat 2> /dev/null > notes.md",
        "tail -n 1 other.md > notes.md",
        # a sign turns a count of 0 into the whole input
        "tail -n +0 other.md > notes.md",
        "tail -c +0 other.md > notes.md",
        "tail --lines=+0 other.md > notes.md",
        "tail +0 other.md > notes.md",
        "head -n -0 other.md > notes.md",
        "head -c -0 other.md > notes.md",
        "tail -n 0 -n +1 other.md > notes.md",  # the last count wins
        "head -n 0 other.md -n 2 > notes.md",  # options after the file count too
        'tail -n 0 -n "$N" other.md > notes.md',  # a count known only at run time
        "tee notes.md < other.md",
        "ls | tee notes.md 2> /dev/null",
        "tee notes.md <<'EOF'\nx\nEOF",
        "tee notes.md 3<<'EOF'\nEOF",
        "tee notes.md <<< x",
    ],
)
def test_a_producer_of_content_writes_a_file_it_may_be_creating(command):
    assert text_alone(command) == []
    findings = [f for f in raw(command) if f.rule.startswith("overwrite.")]
    assert findings and all(f.rule == "overwrite.redirect" for f in findings)
    assert all(f.targets is not None and f.targets.creates for f in findings)


@pytest.mark.parametrize(
    ("command", "rule_id"),
    [
        ("exec > log.txt", "overwrite.redirect"),  # the rest of the shell's output
        ("exec 1> log.txt", "overwrite.redirect"),
        ("exec 2> log.txt", "overwrite.redirect"),
        ("exec &> log.txt", "overwrite.redirect"),
        ("exec 3<> log.txt", "overwrite.redirect"),
        ("exec 0> log.txt", "overwrite.truncate"),  # nothing is written to it: only emptied
        ("exec 3> log.txt", "overwrite.truncate"),
        ("exec 9>| log.txt", "overwrite.truncate"),
    ],
)
def test_exec_redirections_write_the_shells_output_or_only_empty_the_file(command, rule_id):
    (finding,) = raw(command)
    assert finding.rule == rule_id and finding.targets is not None
    assert finding.targets.creates is (rule_id == "overwrite.redirect")


def test_the_reason_says_how_the_file_the_command_reads_is_destroyed():
    (emptied,) = text_alone("sort notes.md 2> notes.md")
    assert emptied.reason.startswith("the shell empties the file before the command reads it")
    (overwritten,) = text_alone("sed s/a/b/ notes.md 1<> notes.md")
    assert overwritten.reason.startswith("the command writes over the file in place")
    assert text_alone(": 3<> notes.md") == [] and raw(": 3<> notes.md") == []


def test_a_quoted_file_name_read_and_written_is_the_same_file():
    (finding,) = text_alone("sort 'my notes.md' > 'my notes.md'")
    assert finding.rule == "overwrite.redirect" and finding.targets is not None
    assert finding.targets.paths == ("my notes.md",)


def test_the_finding_shows_the_command_with_its_own_redirection():
    (finding,) = text_alone("sort notes.md > notes.md")
    assert finding.text == "sort notes.md > notes.md"
    (fd,) = text_alone("sort notes.md 2> notes.md")
    assert fd.text == "sort notes.md 2> notes.md"


def test_git_content_written_over_its_file_is_reported_once():
    assert rules_raw("git show HEAD:src/app.py > src/app.py") == ["overwrite.git-content"]


@pytest.mark.parametrize(
    "command",
    [
        "tee --help",
        "tee -a notes.md < /dev/null",
        "tee --append notes.md < /dev/null",
        "truncate notes.md",  # no size: truncate refuses
        "truncate --help -s 0 notes.md",
        "truncate -s +1M disk.img",
        "truncate -s '>1M' disk.img",
        "truncate -s %4K disk.img",
        "fallocate --punch-hole -l 4096",  # no file
        "fallocate -l 1M disk.img",
        "ls | sponge -a notes.md",
        "ls | sponge --append notes.md",
        "ls | sponge -a",
        "ls | sponge --append",
        "ls | sponge a.md b.md",
        "sed s/a/b/ notes.md | sponge notes.md",  # an edit of its own lines
        "sort notes.md | sponge notes.md",
        "sort -r notes.md | sponge notes.md",
        "sed -u s/a/b/ notes.md | sponge notes.md",
    ],
)
def test_options_and_forms_that_write_nothing_over_a_file_make_no_finding(command):
    assert [f for f in raw(command) if f.rule.startswith("overwrite.")] == []


@pytest.mark.parametrize(
    "command",
    [
        "grep -v x notes.md | sponge notes.md",
        "egrep -v x notes.md | sponge notes.md",
        "fgrep -v x notes.md | sponge notes.md",
        "rg -v x notes.md | sponge notes.md",
        "head -n 5 notes.md | sponge notes.md",
        "tail -n 5 notes.md | sponge notes.md",
        "uniq notes.md | sponge notes.md",
        "comm -12 notes.md other.md | sponge notes.md",
        "cut -c1-10 notes.md | sponge notes.md",
        "sort -u notes.md | sponge notes.md",
        "sort --unique notes.md | sponge notes.md",
        "sort -uf notes.md | sponge notes.md",
        "grep -v x notes.md | cat | sponge notes.md",
        "cat notes.md | grep -v x | sponge -- notes.md",
    ],
)
def test_sponge_over_a_filter_that_drops_lines_of_the_file_deletes_from_it(command):
    (finding,) = raw(command)
    assert finding.rule == "overwrite.edit-deletes" and finding.targets is not None
    assert finding.targets.paths == ("notes.md",) and finding.targets.follows


@pytest.mark.parametrize(
    ("command", "rule_id", "creates"),
    [
        ("tee notes.md < /dev/null", "overwrite.truncate", False),
        ("git show HEAD:notes.md | tee notes.md", "overwrite.git-content", False),
        ("sed s/a/b/ notes.md | tee notes.md", "overwrite.redirect", False),
        ("ls | tee notes.md", "overwrite.redirect", True),
        ("truncate -s 0 notes.md", "overwrite.truncate", False),
        ("fallocate -p -o 0 -l 4096 notes.md", "overwrite.truncate", False),
        (": | sponge -- notes.md", "overwrite.truncate", False),
        ("ls | sponge notes.md", "overwrite.redirect", True),
        ("true | echo x | tee notes.md", "overwrite.redirect", True),  # echo's output
    ],
)
def test_each_write_names_its_file_and_writes_through_a_link(command, rule_id, creates):
    (finding,) = [f for f in raw(command) if f.rule.startswith("overwrite.")]
    assert finding.rule == rule_id and finding.targets is not None
    assert finding.targets.paths == ("notes.md",)
    assert finding.targets.follows and finding.targets.creates is creates


def test_fallocate_names_its_one_file_by_the_last_word():
    (finding,) = raw("fallocate --punch-hole -l 4096 a.bin notes.md")
    assert finding.targets is not None and finding.targets.paths == ("notes.md",)


def test_a_redirection_of_another_descriptor_leaves_tee_reading_its_pipe():
    assert rules_of(": | tee notes.md 2> /dev/null") == {"overwrite.truncate"}
    assert rules_of(": | tee notes.md 2> err.log") == {"overwrite.truncate"}
