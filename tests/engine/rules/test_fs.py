"""Deletion outside git: rm -r, rm of unknown targets, find -delete, shred, rsync --delete."""

from __future__ import annotations

import os
import shlex
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from interlock.engine.analysis import analyse
from interlock.engine.check import evaluate
from interlock.engine.findings import Finding, RuleInfo, Targets
from interlock.engine.invocation import Invocation
from interlock.engine.rules import index as rules
from interlock.engine.rules.fs import find_start_paths, is_device, is_temp_path
from interlock.shell.parse import parse


def static(findings: list[Finding]) -> list[Finding]:
    """Findings as the text alone judges them: literal temp-dir targets are free, and a write
    that may be creating its file is no discard."""
    return [f for f in findings if not (f.targets and f.targets.by_tree_only)]


@pytest.fixture(scope="session")
def discards(inv: Callable[..., Invocation]) -> Callable[..., list[Finding]]:
    def discards(cmd: str, **kw: object) -> list[Finding]:
        return static([f for f in rules.check_invocation(inv(cmd, **kw)) if f.kind == "discard"])

    return discards


def test_literal_temp_targets_are_reported_as_temp_only_for_the_facts_layer(inv) -> None:
    (finding,) = rules.check_invocation(inv("rm -rf /tmp/work/repo/src"))
    assert finding.targets is not None and finding.targets.temp_only
    (mixed,) = rules.check_invocation(inv("rm -rf /tmp/x src"))
    assert mixed.targets is not None and not mixed.targets.temp_only
    assert rules.check_invocation(inv('rm -rf "$(mktemp -d)/x"')) == []


BLOCKED = [
    ("rm -rf src", "fs.rm-recursive"),
    ("rm -rf .", "fs.rm-recursive"),
    ("rm -rf ./*", "fs.rm-recursive"),
    ("rm -r -f tests/", "fs.rm-recursive"),
    ("rm --recursive --force lib", "fs.rm-recursive"),
    ("rm -R lib", "fs.rm-recursive"),
    ("rm -r lib", "fs.rm-recursive"),
    ("rm -fr lib", "fs.rm-recursive"),
    ("rm -rfv lib", "fs.rm-recursive"),
    ("rm --rec lib", "fs.rm-recursive"),
    ("rm lib -rf", "fs.rm-recursive"),
    ("rm -rf -- -weird", "fs.rm-recursive"),
    ("rm -rf /tmp/x src", "fs.rm-recursive"),
    ("rm -rf ~", "fs.rm-recursive"),
    ("rm -rf /", "fs.rm-recursive"),
    ("rm -rf /tmp/../home/me", "fs.rm-recursive"),
    ('rm -rf "$DIR"', "fs.rm-recursive"),
    ("rm -rf ${TMPDIR:-.}", "fs.rm-recursive"),
    ("rm -rf ${TMPDIR:-src}/lib", "fs.rm-recursive"),
    ("rm -rf $HOME/project", "fs.rm-recursive"),
    ("rm -rf ${template}", "fs.rm-recursive"),
    ("rm *.py", "fs.rm-unknown-targets"),
    ("rm -f src/*.orig", "fs.rm-unknown-targets"),
    ('rm "$FILE"', "fs.rm-unknown-targets"),
    ("rm $(git ls-files -o)", "fs.rm-unknown-targets"),
    ("$RM -rf src", "fs.rm-recursive"),
    ("find . -name '*.py' -delete", "fs.find-delete"),
    ("find src -type f -delete", "fs.find-delete"),
    ("find -L . -name '*.orig' -delete", "fs.find-delete"),
    ("find -delete", "fs.find-delete"),
    ("find . -maxdepth 1 -newer x -delete", "fs.find-delete"),
    ("find /tmp/x src -delete", "fs.find-delete"),
    ("find . -exec echo {} ; -delete", "fs.find-delete"),
    ("gfind . -name '*.py' -delete", "fs.find-delete"),
    ("rsync -a --delete src/ out/a:b/", "fs.rsync-delete"),  # a colon past the first slash
    ("find . -exec echo {} + -delete", "fs.find-delete"),
    ("shred -u secrets.txt", "fs.shred"),
    ("shred notes.txt", "fs.shred"),
    ("rsync -a --delete build/ src/", "fs.rsync-delete"),
    ("rsync -av --delete-after ../upstream/ .", "fs.rsync-delete"),
    ("rsync -a --delete -f '- node_modules' build/ src/", "fs.rsync-delete"),  # no -n
    ("rsync -a --delete --exclude -nope build/ src/", "fs.rsync-delete"),
    ("rm file.txt", "fs.rm-file"),
    ("rm -f a.py b.py", "fs.rm-file"),
    ("rm -f ~/.android/adbkey ~/.android/adbkey.pub", "fs.rm-file"),
    ("rm -d emptydir", "fs.rm-file"),
    ("unlink file.txt", "fs.rm-file"),
    ("unlink -- -x", "fs.rm-file"),
    ("srm notes.txt", "fs.rm-file"),
    ("rm -i draft.md", "fs.rm-file"),
    ("rimraf dist", "fs.rm-recursive"),
    # git's records of work inside .git: what `git update-ref -d`, `git stash clear` and
    # `git reflog expire` are judged for
    ("rm .git/refs/heads/main", "fs.rm-file"),
    ("rm -f .git/refs/stash", "fs.rm-file"),
    ("rm .git/packed-refs", "fs.rm-file"),
    ("rm .git/index", "fs.rm-file"),
    ("rm .git/HEAD", "fs.rm-file"),
    ("rm .git/logs/HEAD", "fs.rm-file"),
    ("rm ../.git/worktrees/wt/index", "fs.rm-file"),
    ("rm .git/objects/ab/cdef", "fs.rm-file"),
]

ALLOWED = [
    "rm -f /tmp/out.log",
    "rm .git/index.lock",
    "rm -f .git/gc.log",
    "rm .git/worktrees/wt/index.lock",
    "rm .git/info/exclude.orig",
    "shred -s 10 -",
    "rm -rf /tmp/build-cache",
    "rm -rf /var/tmp/x /tmp/y",
    "rm -rf /tmp",
    "rm -rf $(mktemp -d)",
    'rm -rf "$(mktemp -d)/cache"',
    "rm --help",
    "rmdir empty/",
    "unlink --help",
    "find . -name '*.py'",
    "find . -name -delete",
    "find . -name '*.py' -print",
    "find /tmp -name '*.log' -delete",
    "find . -exec echo -delete ;",
    "shred --help",
    "rsync -a build/ /tmp/out/",
    "rsync -an --delete a/ b/",
    "rsync -a --delete --dry-run a/ b/",
    "rsync -a --delete src/",  # one operand: rsync lists it
    "rsync -a --exclude=--delete src/ out/",  # a pattern, not the option
    "rsync -a -n --delete a/ b/",
    "rsync -a --delete src/ /tmp/mirror/",
    "rsync -a --delete src/ host:backup/",
    "mktemp -d",
    "ls -la",
    "grep -rn 'rm -rf' scripts/",
    "echo rm -rf src",
]


@pytest.mark.parametrize(("cmd", "rule_id"), BLOCKED)
def test_deletion_is_flagged_with_its_rule(cmd: str, rule_id: str, inv, discards) -> None:
    assert rule_id in {f.rule for f in discards(cmd)}, rules.check_invocation(inv(cmd))


@pytest.mark.parametrize("cmd", ALLOWED)
def test_named_files_and_temp_dirs_are_not_discards(cmd: str, discards) -> None:
    assert discards(cmd) == []


@pytest.mark.parametrize(
    ("cmd", "paths", "unknown"),
    [
        ("rm -rf src build/", ("src", "build/"), False),
        ("rm -rf /tmp/x src", ("/tmp/x", "src"), False),
        ("rm -rf ./*", ("./*",), False),
        ('rm -rf "$DIR"', ('"$DIR"',), True),
        ("find src lib -delete", ("src", "lib"), False),
        ("find -delete", (".",), False),
        ("rsync -a --delete build/ out/", ("out/",), False),
    ],
)
def test_deletion_reports_its_targets(
    cmd: str, paths: tuple[str, ...], unknown: bool, discards
) -> None:
    (finding,) = discards(cmd)
    assert finding.targets is not None
    assert finding.targets.destroys == "files"
    search = finding.targets.search  # find: the start paths of the search that chooses
    assert (search.starts if search else finding.targets.paths) == paths
    assert finding.targets.unknown is unknown
    assert not finding.targets.single


def test_rm_of_named_files_reports_each_file_exactly_for_the_run(discards) -> None:
    (finding,) = discards("rm -f src/a.py 'my notes.txt'")
    assert finding.rule == "fs.rm-file" and finding.targets is not None
    assert finding.targets.paths == ("src/a.py", "my notes.txt")
    assert finding.targets.single and not finding.targets.creates and not finding.targets.unknown
    assert finding.instead == rules.rule_info("fs.rm-file").instead  # two files: general advice


def test_rm_of_one_named_file_suggests_moving_it_aside(discards) -> None:
    (finding,) = discards("rm notes.txt")
    assert finding.instead.startswith("mv notes.txt /tmp/notes.txt.bak")


def test_xargs_rm_has_unknown_targets(discards) -> None:
    (finding,) = discards("rm", extra_args=True)
    assert finding.rule == "fs.rm-unknown-targets"
    assert finding.targets is not None and finding.targets.unknown and finding.targets.paths == ()


def test_xargs_rm_rf_is_still_unknown_targets(discards) -> None:
    (finding,) = discards("rm -rf", extra_args=True)
    assert finding.rule == "fs.rm-unknown-targets"


def test_find_exec_rm_reports_the_find_roots(discards) -> None:
    (finding,) = discards("rm", extra_args=True, arg_roots=("src",))
    assert finding.targets is not None
    assert finding.targets.paths == ("src",) and not finding.targets.unknown


def test_find_exec_rm_under_temp_roots_is_allowed(discards) -> None:
    assert discards("rm -f", extra_args=True, arg_roots=("/tmp/cache",)) == []


def test_relative_target_in_a_temp_cwd_is_temp(discards) -> None:
    assert discards("rm -rf build", cwd="/tmp/work") == []
    assert discards("rm -rf build", cwd="sub") != []


def test_rm_finding_keeps_the_invocation_cwd(discards) -> None:
    (finding,) = discards("rm -rf src", cwd="pkg")
    assert finding.cwd == "pkg"


@pytest.mark.parametrize(
    ("path", "temp"),
    [
        ("/tmp/x", True),
        ("/var/tmp/a/b", True),
        ("/dev/shm/x", True),
        ("/private/tmp/x", True),
        # no variable is a temp dir by its name: the walker puts in TMPDIR's value
        ("$TMPDIR/x", False),  # /x when TMPDIR is unset
        ('"$TMPDIR"/*', False),  # /*
        ("${TMPDIR:-/tmp}/x", False),
        ("$tmpdir", False),
        ("$TMP_DIR", False),
        ("$(mktemp -d)", True),
        ("`mktemp -d`", True),
        ('"$(mktemp -d -t x.XXX)"/build', True),
        ("$(mktemp -d)/a/b", True),
        ("$(mktemp -d)/..", False),
        ("$(mktemp -d)/a/../../src", False),
        ("$(mktemp -d)/$X", False),
        ("$(mktemp -d)/`pick`", False),
        ("$(mktemp -d)x", False),
        ("/tmp", True),
        ("/tmp/../etc", False),
        ("tmp/x", False),
        ("./tmp", False),
        ("$template", False),
        ("$TMPDIR/../x", False),
        ("$TMPDIR/$X", False),
        ("/tmp/$X", False),  # X may be ../home
        ("/tmp/`pick`/x", False),
        ("tmp", False),
        ("", False),
        ("/home/me/tmp", False),
        ("$HOME", False),
    ],
)
def test_is_temp_path(path: str, temp: bool) -> None:
    assert is_temp_path(path) is temp


@pytest.mark.parametrize(
    "info", [i for i in rules.all_rules() if i.id.startswith("fs.")], ids=lambda i: i.id
)
def test_fs_rule_examples_block_and_allow_as_documented(info: RuleInfo, example) -> None:
    assert info.summary and info.why and info.instead and info.examples_block
    for text in info.examples_block:
        assert info.id in {f.rule for f in rules.check_invocation(example(text))}, text
    for text in info.examples_allow:
        assert static(rules.check_invocation(example(text))) == [], text


def walked_rules(cmd: str) -> set[str]:
    walk = pytest.importorskip("interlock.engine.walk")
    invocations = walk.walk(parse(cmd))
    return {f.rule for i in invocations for f in static(rules.check_invocation(i))}


@pytest.mark.parametrize(
    ("cmd", "rule_id"),
    [
        ("find src -type f -exec rm {} +", "fs.rm-unknown-targets"),
        ("find /tmp/x src -type f -exec rm {} +", "fs.rm-unknown-targets"),  # src is no temp
        ("find /tmp/x -exec rm {} src/a.py \\;", "fs.rm-unknown-targets"),
        ("find . -name '*.orig' -execdir rm -f {} \\;", "fs.rm-unknown-targets"),
        ("git ls-files -o | xargs rm -f", "fs.rm-unknown-targets"),
        ("ls | xargs -I{} rm -rf {}", "fs.rm-unknown-targets"),
        ("sudo rm -rf src", "fs.rm-recursive"),
        ("cd pkg && rm -rf build", "fs.rm-recursive"),
        ("timeout 5 find . -delete", "fs.find-delete"),
        ("bash -c 'rm -rf lib'", "fs.rm-recursive"),
    ],
)
def test_deletion_is_found_through_the_walker(cmd: str, rule_id: str) -> None:
    assert rule_id in walked_rules(cmd)


@pytest.mark.parametrize(
    "cmd",
    [
        "find /tmp/cache -type f -exec rm {} +",
        "cd /tmp && rm -rf build",
        'tmp=$(mktemp -d) && rm -rf "$tmp"',
        "echo 'rm -rf src' > notes.txt",
        "grep -rn 'rm -rf' scripts/",
        "sudo rm -f /tmp/out.log",
    ],
)
def test_temp_and_data_deletions_are_allowed_through_the_walker(cmd: str) -> None:
    assert walked_rules(cmd) == set()


# --- in real repositories: what GNU find and rm really delete -----------------------------


def judged(command: str, cwd: Path) -> list[Finding]:
    found = evaluate(command, str(cwd), mode="blocking").result.findings
    return [f for f in found if f.kind == "discard"]


def lost(command: str, cwd: Path) -> set[str]:
    return {os.path.relpath(p, cwd) for f in judged(command, cwd) for p in f.lost}


@pytest.fixture
def odd_dirs(git_repo: Path) -> Path:
    """Untracked work in directories named `,`, `)` and `-` (find reads them as start paths),
    and in sub/w.txt; src/app.py committed and clean."""
    for name in (",", ")", "-", "sub"):
        (git_repo / name).mkdir()
        (git_repo / name / "w.txt").write_text("work\n")
    return git_repo


@pytest.mark.parametrize(
    ("command", "gone"),
    [
        ("find /tmp/no-such-dir , -delete", ",/w.txt"),
        ("find /tmp/no-such-dir ')' -delete", ")/w.txt"),
        ("find /tmp/no-such-dir - -delete", "-/w.txt"),
        ("find -- ')' -name w.txt -delete", ")/w.txt"),
        ("find -P -- , -delete", ",/w.txt"),
        ("find /tmp/no-such-dir , -exec rm {} +", ",/w.txt"),
        ("find /tmp/no-such-dir - -type f -exec rm -- {} \\;", "-/w.txt"),
    ],
)
def test_find_takes_every_leading_word_that_is_no_expression_as_a_start_path(
    command: str, gone: str, odd_dirs: Path
) -> None:
    assert gone in lost(command, odd_dirs)
    subprocess.run(["bash", "-c", command], cwd=odd_dirs, capture_output=True, check=False)
    assert not (odd_dirs / gone).exists()  # GNU find read it the same way


def test_find_after_the_end_of_options_starts_only_where_it_is_told(odd_dirs: Path) -> None:
    for command in ("find -- sub -delete", "find -L -- sub -name w.txt -delete"):
        found = lost(command, odd_dirs)
        assert found and all(p.split("/")[0] == "sub" for p in found), command


@pytest.mark.parametrize(
    ("words", "starts", "expression"),
    [
        ("-H -L -P -O3 -D stat . -x", ["."], ["-x"]),
        ("-- -x -delete", [], ["-x", "-delete"]),  # GNU: unknown predicate -x
        (", ) - ( -o", [",", ")", "-"], ["(", "-o"]),
        ("a ! -name x", ["a"], ["!", "-name", "x"]),
        ("-O -delete", [], ["-O", "-delete"]),
        ("$D -delete", ["$D"], ["-delete"]),
    ],
)
def test_find_start_paths_are_split_as_gnu_find_splits_them(
    words: str, starts: list[str], expression: list[str], inv
) -> None:
    found, rest = find_start_paths(inv("find " + words).argv[1:])
    assert [w.text for w in found] == starts and [w.text for w in rest] == expression


@pytest.fixture
def climbing(git_repo: Path) -> Path:
    """src/app.py modified (unsaved); pkg/inner/x.py committed and clean; pkg/inner.d/ empty."""
    (git_repo / "pkg" / "inner.d").mkdir(parents=True)
    (git_repo / "pkg" / "inner").mkdir(parents=True)
    (git_repo / "pkg" / "inner" / "x.py").write_text("x\n")
    subprocess.run(["git", "add", "-A"], cwd=git_repo, check=True)
    subprocess.run(["git", "commit", "-qm", "pkg"], cwd=git_repo, check=True)
    (git_repo / "src" / "app.py").write_text("edited\n")
    return git_repo


@pytest.mark.parametrize(
    "command",
    [
        "find pkg -name inner -exec rm -rf {}/../../src \\;",
        "find pkg -name inner -execdir rm -rf {}/../../src \\;",
        "find pkg -type d -exec rm -rf {}/../../src \\;",
        "find pkg -name inner -exec rm -rf {}.d/../../src \\;",
        "find pkg | xargs -I{} rm -rf {}/../../src",
    ],
)
def test_a_word_that_climbs_out_of_the_found_path_is_judged_as_what_it_names(
    command: str, climbing: Path
) -> None:
    assert "src/app.py" in lost(command, climbing)
    subprocess.run(["bash", "-c", command], cwd=climbing, capture_output=True, check=False)
    assert not (climbing / "src" / "app.py").exists()  # what it named was deleted


@pytest.mark.parametrize(
    "command",
    [
        "find pkg -name inner -ok rm -rf {}/../../src \\;",
        "find pkg -name inner -okdir rm -rf {}/../src \\;",
        "find pkg -name inner -exec rm -rf ../{} \\;",  # not under the found path at all
        "find pkg -name inner -exec rm -rf /{} \\;",
        "find pkg -maxdepth 0 -exec rm -rf {}/.. \\;",
    ],
)
def test_words_built_around_the_found_path_reach_what_it_names(
    command: str, climbing: Path
) -> None:
    assert "src/app.py" in lost(command, climbing) or any(
        "the whole worktree" in p or "(unknown" in p
        for f in judged(command, climbing)
        for p in f.reason.split("; ")
    )


def test_a_word_built_under_the_found_path_stays_under_the_start(climbing: Path) -> None:
    assert lost("find pkg -name inner -exec rm -rf {}/x \\;", climbing) == set()
    assert lost("find pkg/ -name inner -exec rm -rf {}.bak \\;", climbing) == set()
    (finding,) = judged("find pkg -name inner -exec rm -rf {}.bak \\;", climbing)
    assert "src/app.py" in {os.path.relpath(p, climbing) for p in finding.lost}  # pkg.bak


def test_a_search_from_a_temp_dir_around_the_worktree_judges_the_worktree(
    climbing: Path,
) -> None:
    src = climbing / "src"  # the worktree lives in pytest's temp dir
    assert lost("find ../.. -name '*.py' -delete", src) == {"app.py"}
    assert lost("find ../.. -name '*.nomatch' -delete", src) == set()
    assert lost("find ../.. -name app.py -exec rm {} +", src) == {"app.py"}
    git_dir = judged("find ../.. -name HEAD -delete", src)
    assert any(".git (git's own data)" in f.reason for f in git_dir)
    subprocess.run(["find", "../..", "-name", "*.py", "-delete"], cwd=src, check=True)
    assert not (src / "app.py").exists()


@pytest.mark.parametrize(
    ("command", "moved"),
    [
        ("rm 'my notes.txt'", ["mv", "my notes.txt", "/tmp/my notes.txt.bak"]),
        ("rm -- -x.txt", ["mv", "./-x.txt", "/tmp/-x.txt.bak"]),
        ('rm "it\'s.txt"', ["mv", "it's.txt", "/tmp/it's.txt.bak"]),
        ("rm $'a\\nb.txt'", ["mv", "a\nb.txt", "/tmp/a\nb.txt.bak"]),
        ("rm -rf -- '-my dir'", ["mv", "./-my dir", "/tmp/-my dir.bak"]),
        ("rm -rf sub/.cache/", ["mv", "sub/.cache/", "/tmp/cache.bak"]),
    ],
)
def test_the_move_aside_advice_pastes_as_the_command_it_shows(
    command: str, moved: list[str], tmp_path: Path
) -> None:
    (finding,) = [f for f in analyse(command).findings if f.kind == "discard"]
    pasted = finding.instead.split(" (recoverable)")[0]
    assert shlex.split(pasted) == moved


@pytest.mark.parametrize("command", ["rm -rf ./.", "rm -rf ../..", "rm -rf /home", "rm -rf ..."])
def test_the_move_aside_advice_is_general_when_no_one_name_can_be_moved(command: str) -> None:
    (finding,) = [f for f in analyse(command).findings if f.kind == "discard"]
    assert finding.instead == rules.rule_info(finding.rule).instead


@pytest.mark.parametrize(
    "command",
    [
        "rm .git/refs/heads/main",
        "find .git/refs -type f -delete",
        "find .git/refs/heads -name main -exec rm {} +",
        ": > .git/refs/heads/main",
    ],
)
def test_git_refs_removed_behind_gits_back_are_git_data_lost(command: str, git_repo: Path) -> None:
    assert any("(git's own data)" in f.reason for f in judged(command, git_repo))


@pytest.mark.parametrize(
    "command", ["rm .git/refs/heads/no-such-branch", "find .git/refs -name nothing -delete"]
)
def test_git_records_that_are_not_there_are_not_lost(command: str, git_repo: Path) -> None:
    assert judged(command, git_repo) == []


@pytest.mark.parametrize(
    ("path", "device"),
    [("/dev/$DISK", True), ("/dev/`pick`", True), ("/dev/sda1", True), ("/dev/null", False)],
)
def test_a_device_named_at_run_time_is_a_device(path: str, device: bool) -> None:
    assert is_device(path) is device


@pytest.mark.parametrize(
    ("command", "advice"),
    [
        (
            "rm notes.txt",
            "mv notes.txt /tmp/notes.txt.bak (recoverable), or commit or stash it first",
        ),
        ("rm -rf src", "mv src /tmp/src.bak (recoverable), or delete the named files one by one"),
        ("rm -rf /opt/app", "mv /opt/app /tmp/app.bak (recoverable), or delete the named files"),
        ("rm -rf /home/me/", "mv /home/me/ /tmp/me.bak (recoverable)"),
    ],
)
def test_the_move_aside_advice_fits_the_rule(command: str, advice: str) -> None:
    (finding,) = [f for f in analyse(command).findings if f.kind == "discard"]
    assert finding.instead.startswith(advice)


def test_a_literal_operand_beside_the_found_path_is_judged_as_itself() -> None:
    (finding,) = [
        f
        for f in analyse("find pkg -name '*.o' -exec rm -f {} notes.md \\;").findings
        if f.kind == "discard"
    ]
    assert finding.targets is not None and finding.targets.paths == ("notes.md",)
    assert finding.targets.search is not None and finding.targets.search.expr is not None


def test_a_word_under_the_found_path_keeps_what_the_search_can_reach(git_repo: Path) -> None:
    # fd never yields .git (hidden), so `{}/x` never names anything in it
    assert not any(".git" in f.reason for f in judged("fd . -x rm -rf {}/x", git_repo))
    assert any(".git" in f.reason for f in judged("find . -exec rm -rf {}/x \\;", git_repo))


def test_operands_beside_the_found_path_are_unknown_when_any_is(git_repo: Path) -> None:
    def targets(command: str) -> Targets:
        (finding,) = [f for f in analyse(command).findings if f.kind == "discard"]
        assert finding.targets is not None
        return finding.targets

    assert not targets("find pkg -exec rm -f {} notes.md \\;").unknown
    assert targets('find pkg -exec rm -f {} notes.md "$X" \\;').unknown
    assert targets("find pkg -exec rm -rf ../{} \\;").unknown


def test_a_word_that_does_not_start_at_the_found_path_may_name_anything(climbing: Path) -> None:
    pkg = climbing / "pkg"
    assert "../src/app.py" in lost("find . -name inner -exec rm -rf ../{} \\;", pkg)


def test_a_word_under_the_found_path_counts_everything_under_the_start(climbing: Path) -> None:
    (climbing / "pkg" / "other.txt").write_text("unsaved\n")
    assert lost("find pkg -name inner -exec rm -rf {}/x \\;", climbing) == {"pkg/other.txt"}


def test_each_word_reaches_from_each_start_path() -> None:
    command = "find pkg -name inner -exec rm -rf {}/x {}/.. \\;"
    (finding,) = [f for f in analyse(command).findings if f.kind == "discard"]
    assert finding.targets is not None and finding.targets.search is not None
    assert finding.targets.search.starts == (".", "pkg")


def test_a_search_from_an_unknown_directory_is_never_temp_only() -> None:
    assert "fs.rm-unknown-targets" in walked_rules(
        'cd "$D" && find /tmp/a -name x -exec rm -rf {}/.. \\;'
    )
    assert walked_rules("find /tmp/a -name x -exec rm -rf {}/.. \\;") == set()


@pytest.mark.parametrize(
    "command",
    [
        "find /tmp/a src -name x -exec rm -rf {}/.. \\;",
        "find /tmp/a -name x -exec rm -rf {}/.. src \\;",
        "find /tmp/a -name x -exec rm -rf {}/.. /tmp/b src \\;",
    ],
)
def test_a_climbing_word_is_temp_only_when_every_place_it_reaches_is(command: str) -> None:
    assert "fs.rm-unknown-targets" in walked_rules(command)


def discard_targets(command: str) -> Targets:
    (finding,) = [f for f in analyse(command).findings if f.kind == "discard"]
    assert finding.targets is not None
    return finding.targets


def test_operands_beside_a_climbing_word_are_unknown_when_any_is() -> None:
    assert not discard_targets("find pkg -exec rm -rf {}/.. notes.md \\;").unknown
    assert discard_targets('find pkg -exec rm -rf {}/.. notes.md "$X" \\;').unknown


@pytest.mark.parametrize(
    ("command", "paths"),
    [
        ("unlink file.txt", ("file.txt",)),
        ("unlink -- -x", ("-x",)),
        ("unlink -f", ("-f",)),  # unlink takes no options but --help and --version
        ("unlink a.txt b.txt", ("a.txt",)),  # exactly one operand
        ("unlink -- a.txt b.txt", ("a.txt",)),
    ],
)
def test_unlink_removes_its_one_operand(command: str, paths: tuple[str, ...]) -> None:
    targets = discard_targets(command)
    assert targets.paths == paths and targets.single


def test_the_placeholder_of_a_search_from_unknown_starts_is_no_path() -> None:
    targets = discard_targets('find "$D" -exec rm -f {} \\;')
    assert targets.paths == () and targets.unknown


def test_operands_beside_the_placeholder_of_an_unknown_search_are_kept() -> None:
    assert discard_targets('find "$D" -exec rm -f {} notes.md \\;').paths == ("notes.md",)


def test_run_time_targets_under_known_roots_are_temp_only_when_every_root_is(discards) -> None:
    assert discards("rm -f", extra_args=True, arg_roots=("/tmp/cache", "/tmp/b")) == []
    assert discards("rm -f", extra_args=True, arg_roots=("/tmp/cache", "src")) != []


def test_one_unknown_or_globbed_operand_makes_every_target_unknown(discards) -> None:
    (recursive,) = discards('rm -rf src "$X"')
    assert recursive.targets is not None and recursive.targets.unknown
    (globbed,) = discards("rm notes.txt *.py")
    assert globbed.rule == "fs.rm-unknown-targets"
    (named,) = discards("rm notes.txt '*.py'")  # a quoted star is a name
    assert named.rule == "fs.rm-file"


@pytest.mark.parametrize(
    ("command", "paths", "unknown", "follows"),
    [
        ('find "$D" -name x -delete', ('"$D"',), True, False),
        ("find src/* -delete", ("src/*",), False, False),
        ('find "$D" src/* -delete', ('"$D"', "src/*"), True, False),
        ("find -L src/* -delete", ("src/*",), False, True),
        ("find -H src/* -delete", ("src/*",), False, True),
        ("find -P src/* -delete", ("src/*",), False, False),
    ],
)
def test_find_from_start_paths_it_cannot_read_deletes_under_them(
    command: str, paths: tuple[str, ...], unknown: bool, follows: bool
) -> None:
    targets = discard_targets(command)
    assert targets.search is None and targets.paths == paths
    assert targets.unknown is unknown and targets.follows is follows


def test_shred_targets_are_unknown_when_any_is_known_only_at_run_time() -> None:
    assert not discard_targets("shred notes.txt").unknown
    assert discard_targets('shred notes.txt "$X"').unknown
    assert discard_targets('shred "$X"').unknown


@pytest.mark.parametrize(
    "command", ['find "$TMPDIR" -name x -delete', 'T=$(mktemp -d); find "$T" -delete']
)
def test_find_delete_under_temp_dirs_only_is_no_discard(command: str, monkeypatch) -> None:
    monkeypatch.setenv("TMPDIR", "/tmp/scratch")
    assert [f for f in static(analyse(command).findings) if f.kind == "discard"] == []


@pytest.mark.parametrize("command", ['find "$tmp_dir" -delete', 'rm -rf "$tmpdir"'])
def test_a_variable_from_the_environment_is_no_temp_dir_by_its_name(command: str) -> None:
    assert [f.rule for f in analyse(command).findings if f.kind == "discard"]


@pytest.mark.parametrize(
    "command",
    [
        "cd build && ls || rm -rf *",  # ls failed: in build; cd failed: here
        "cd build && ls && true || rm -rf *",
        "cd build && { ls; } || rm -rf *",
    ],
)
def test_a_command_after_a_failed_chain_is_judged_wherever_the_failure_leaves_the_line(
    command: str, git_repo: Path
) -> None:
    (git_repo / ".gitignore").write_text("build/\n")
    (git_repo / "build").mkdir()
    (git_repo / "build" / "out.o").write_text("ignored output\n")
    (git_repo / "README.md").write_text("work in progress\n")
    assert judged("cd build && rm -rf *", git_repo) == []  # ignored output only
    assert "README.md" in lost(command, git_repo)
    # and so bash does when the cd fails
    (git_repo / "build" / "out.o").unlink()
    (git_repo / "build").rmdir()
    subprocess.run(["bash", "-c", command], cwd=git_repo, capture_output=True, check=False)
    assert not (git_repo / "README.md").exists()


@pytest.mark.parametrize(
    "command",
    [
        "f() { cd src; }; f; rm -f app.py",
        "f() { cd src && true; }; f && rm -f app.py",
        "function f { pushd src; }; f; rm -f app.py",
    ],
)
def test_a_function_that_changes_directory_moves_the_commands_after_its_call(
    command: str, git_repo: Path
) -> None:
    (git_repo / "src" / "app.py").write_text("print('work in progress')\n")
    assert judged(command, git_repo) != []
    subprocess.run(["bash", "-c", command], cwd=git_repo, capture_output=True, check=False)
    assert not (git_repo / "src" / "app.py").exists()  # bash removed src/app.py


def test_a_function_that_stays_leaves_the_directory_known(git_repo: Path) -> None:
    (git_repo / "src" / "app.py").write_text("print('work in progress')\n")
    assert judged("f() { echo hi; }; f; rm -f app.py", git_repo) == []  # no app.py here
    assert judged("f() { (cd src); }; f; rm -f app.py", git_repo) == []


@pytest.mark.parametrize(
    "command",
    [
        "find . $A -print",  # $A may be `-delete` or `-exec rm {} +`
        "find . -name x $A",
        'find . -name x "$A"',  # one word, but it may be -delete
        "find src -type f \\( -name x -o $A \\)",
        "find . ! $A",
        "A=-delete; find . $A",
        "find . -maxdepth 1 $ACTION",
        "find . -newermt yesterday $A",
        "find . -fprintf out %p $A",
        "find . x$A",
        'find . "$A"$B',  # $B is outside the quotes
        "find . '$A'`pick`",
        'find . "\\"$A\\""$B',
    ],
)
def test_a_find_with_a_run_time_word_where_a_primary_stands_may_delete(command: str) -> None:
    """`find . $A -print` was allowed: an unknown word of the expression may be -delete."""
    assert "fs.find-delete" in {f.rule for f in analyse(command).findings}, command


@pytest.mark.parametrize(
    "command",
    [
        'find . -name "$PAT" -print',
        "find . -name $PAT",
        'find "$DIR" -name x',
        "find $DIR -name '*.py'",  # the first start path: read as one
        'find . "$DIR" -print',  # a quoted start path is one word
        'find . -newermt "$DATE" -print',
        "find . -maxdepth $D -name x",
        'find . -fprintf "$OUT" "%p" -name x',
        'find . -fprintf out "$FMT" -print',  # -fprintf takes two values
        "find . -exec grep -l \"$P\" {} +",
        "A=-print; find . $A",
        "find . -path '*$x*'",
        'find . "$A" "${B}/x" -print',  # quoted start paths are one word each
        'find . "\\"$A"',
    ],
)
def test_a_run_time_word_in_a_value_or_a_path_is_no_deletion(command: str) -> None:
    assert "fs.find-delete" not in {f.rule for f in analyse(command).findings}, command
