"""Variables assigned earlier on the line: a target named through one is judged where it
really is (`F=notes.md; rm $F`), and a value the walker cannot vouch for stays unknown."""

from __future__ import annotations

import pytest

from interlock.engine.check import evaluate
from interlock.engine.walk import walk
from interlock.shell.parse import parse


def argvs(text: str) -> list[list[str | None]]:
    return [[w.literal() for w in inv.argv] for inv in walk(parse(text))]


def texts(text: str) -> list[str]:
    return [inv.text for inv in walk(parse(text))]


def findings(text: str, cwd: str = "/", assume_dirty: bool = True):
    return evaluate(text, cwd, mode="blocking", assume_dirty=assume_dirty).result.findings


@pytest.mark.parametrize(
    ("line", "argv"),
    [
        ("F=notes.md; rm $F", ["rm", "notes.md"]),
        ('F=notes.md; rm "$F"', ["rm", "notes.md"]),
        ("F=notes.md; rm ${F}", ["rm", "notes.md"]),
        ("F=notes.md && rm -- $F.bak", ["rm", "--", "notes.md.bak"]),
        ('D=src; rm -rf "$D/"', ["rm", "-rf", "src/"]),
        ("DISK=/dev/sda; dd if=/dev/zero of=$DISK", ["dd", "if=/dev/zero", "of=/dev/sda"]),
        ("A=src; B=$A/app.py; rm $B", ["rm", "src/app.py"]),
        ("F=a; F+=b; rm $F", ["rm", "ab"]),
        ('F="a b"; rm "$F"', ["rm", "a b"]),
        ('F="a b"; rm $F', ["rm", "a", "b"]),
        ("F=; rm -rf /$F", ["rm", "-rf", "/"]),
        ("export F=notes.md; rm $F", ["rm", "notes.md"]),
        ("declare F=notes.md; rm $F", ["rm", "notes.md"]),
        ("set -- a notes.md; rm $2", ["rm", "notes.md"]),
        ('set -- a notes.md; shift; rm "$@"', ["rm", "notes.md"]),
        ("F='it''s'; rm $F", ["rm", "its"]),
    ],
)
def test_a_literal_assignment_earlier_on_the_line_is_put_into_later_words(line, argv):
    assert argvs(line)[-1] == argv


@pytest.mark.parametrize(
    "line",
    [
        "rm $F",  # from the environment
        "F=$(cat list); rm $F",  # built at run time
        "F=x; cond || F=notes.md; rm $F",  # may or may not have run
        "F=x; [ -e y ] && F=notes.md; rm $F",
        "F=x; if cond; then F=notes.md; fi; rm $F",
        "F=x; while cond; do rm $F; F=notes.md; done",  # a later pass sees the new value
        "F=notes.md; f() { F=x; }; f; rm $F",  # a function the line defined
        "F=x; read F; rm $F",
        "F=x; source ./env.sh; rm $F",
        'F=x; eval "$CMD"; rm $F',
        "F=x; $CMD; rm $F",  # an unknown command may be `read`
        "F=x; : ${F:=y}; rm $F",
        "F=x; printf -v F '%s' y; rm $F",
        "F=x; declare -n F=G; rm $F",
        "F=x; (( F++ )); rm $F",
        "F=x; IFS=.; rm $F",
        "F='*.py'; rm $F",  # globbed at run time
        "( F=x ); rm $F",  # a subshell does not leak
        "F=x | true; rm $F",
        "RANDOM=1; rm $RANDOM",
    ],
)
def test_a_value_the_walker_cannot_vouch_for_stays_unknown(line):
    last = [inv for inv in walk(parse(line)) if inv.name == "rm"][-1]
    assert any(w.literal() is None or w.has_glob for w in last.argv[1:]), last.text


def test_a_literal_for_list_is_read_once_per_word():
    assert texts("for f in notes.md b.txt; do rm $f; done") == ["rm notes.md", "rm b.txt"]
    assert texts("for f in *.txt; do rm $f; done") == ["rm $f"]  # globbed: unknown
    assert texts("for f in a b; do echo hi; done") == ["echo hi"]  # the body does not use it
    long = " ".join(f"f{k}" for k in range(20))
    assert texts(f"for f in {long}; do rm $f; done") == ["rm $f"]  # too many: unknown


def test_a_for_without_a_list_takes_the_positional_parameters():
    assert argvs("sh -c 'for f; do rm \"$f\"; done' _ a b") == [["rm", "a"], ["rm", "b"]]


def test_sh_c_arguments_are_its_positional_parameters():
    assert argvs("sh -c 'rm \"$1\"' _ notes.md")[-1] == ["rm", "notes.md"]
    assert argvs("bash -c 'rm \"$@\"' sh a 'b c'")[-1] == ["rm", "a", "b c"]
    assert argvs("bash -c 'rm $3' sh a b")[-1] == ["rm"]  # unset: the word goes
    # xargs appends the run-time input after the literal ones
    assert argvs('xargs sh -c \'rm "$1" "$@"\' _ a')[-1][1:] == ["a", None]


def test_a_new_shell_sees_exported_variables_only_with_nothing_between():
    assert argvs("export F=a; bash -c 'rm $F'")[-1] == ["rm", "a"]
    assert argvs("F=a; bash -c 'rm $F'")[-1] == ["rm", None]  # not exported
    assert argvs("export F=a; sudo bash -c 'rm $F'")[-1] == ["rm", None]  # sudo clears it
    assert argvs("export F=a; env -i bash -c 'rm $F'")[-1] == ["rm", None]
    assert argvs("F=a bash -c 'rm $F'")[-1] == ["rm", "a"]  # its own environment


def test_code_built_from_unknown_words_resolves_nothing_inside():
    # the outer shell expands $Y before bash runs the code: the inner `Y=a` does not decide it
    assert argvs('bash -c "Y=a; rm $Y"')[-1] == ["rm", None]
    assert argvs('eval "Y=a; rm $Y"')[-1] == ["rm", None]
    assert argvs('Y=x; eval "$CMD"; rm $Y')[-1] == ["rm", None]


def test_outer_values_go_into_double_quoted_code_and_unquoted_heredocs():
    assert argvs('F=notes.md; bash -c "rm $F"')[-1] == ["rm", "notes.md"]
    assert argvs("F=notes.md; bash <<EOF\nrm $F\nEOF")[-1] == ["rm", "notes.md"]
    assert argvs("F=notes.md; bash <<'EOF'\nrm $F\nEOF")[-1] == ["rm", None]


def test_a_variable_named_like_a_temp_dir_is_judged_by_its_value():
    rules = {f.rule for f in findings("TMPDIR=src; rm -rf $TMPDIR")}
    assert "fs.rm-recursive" in rules
    assert not findings("TMPDIR=/tmp/x; rm -rf $TMPDIR")


@pytest.mark.parametrize(
    "line",
    [
        'tmp=$(pwd)/src; rm -rf "$tmp"',  # a run-time value: no longer a temp dir by its name
        'TMPDIR=$PWD; rm -rf "$TMPDIR/src"',
        'tmp_dir=$(git rev-parse --show-toplevel); rm -rf "$tmp_dir"/*',
        'export tmp=$(pwd); bash -c "rm -rf \\$tmp/src"',
        'read tmp < list; rm -rf "$tmp"',
        'for tmp in $(pwd)/src; do rm -rf "$tmp"; done',
        'unset tmp; rm -rf "$tmp"/*',  # `/*`
        'tmp=$(mktemp -d); tmp=$(pwd); rm -rf "$tmp"',
        'tmp=$(mktemp -d); read tmp; rm -rf "$tmp"',
        'tmp=$(mktemp -d); [ -e x ] && tmp=$(pwd); rm -rf "$tmp"',
        'eval "$X"; rm -rf "$TMPDIR/src"',  # eval may assign anything
        'f() { tmp=$(pwd); }; f; rm -rf "$tmp"',
        'cd "$tmp"; tmp=$(pwd); cd "$tmp" && rm -rf src',
        "tmp=$(pwd)/src bash -c 'rm -rf \"$tmp\"'",  # on a new shell's command line
        "export tmp=$(mktemp -d); tmp=$(pwd)/src bash -c 'rm -rf \"$tmp\"'",
        "export tmp=$(mktemp -d); tmp+=/../../src bash -c 'rm -rf \"$tmp\"'",
        "export tmp=$(mktemp -d); tmp+=/../.. bash -c 'cd \"$tmp\" && rm -rf src'",
        'if [ -e x ]; then eval "$X"; fi; rm -rf "$TMPDIR/src"',  # one branch may assign
        'rm -rf "$tmp"',  # from the environment: unknown, whatever its name
        'export tmp; rm -rf "$tmp"',  # exporting assigns nothing
        "read TMPDIR < f; rm -rf \"$TMPDIR\"",
        'TMPDIR=$(pwd); bash -c "rm -rf \\$TMPDIR/src"',  # still exported
        'eval "$X"; bash -c "rm -rf \\$TMPDIR/src"',
    ],
)
def test_a_variable_named_like_a_temp_dir_the_line_assigns_holds_what_it_was_given(
    git_repo, line, monkeypatch
):
    """`tmp=$(pwd)/src; rm -rf "$tmp"` was allowed: `$tmp` read as a temp dir by its name."""
    monkeypatch.setenv("TMPDIR", "/tmp/scratch")
    (git_repo / "src" / "app.py").write_text("unsaved\n")
    found = findings(line, str(git_repo), assume_dirty=False)
    assert any(f.kind == "discard" and f.lost for f in found), line


@pytest.mark.parametrize(
    "line",
    [
        'tmp=$(mktemp -d); rm -rf "$tmp"',
        'tmp=$(mktemp -d) && cd "$tmp" && rm -rf *',
        'tmp="$TMPDIR/x"; rm -rf "$tmp"',
        'export tmp=$(mktemp -d); bash -c "rm -rf \\$tmp/src"',
        'tmp=$(mktemp -d); [ -e x ] && tmp=$(mktemp -d); rm -rf "$tmp"',
        'rm -rf "${TMPDIR:-/tmp}/build"',
        "tmp=$(mktemp -d) bash -c 'rm -rf \"$tmp\"'",
        "export tmp=$(mktemp -d); bash -c 'cd \"$tmp\" && rm -rf src'",
        'rm -rf "$TMPDIR"/*',  # TMPDIR as the environment holds it
        "bash -c 'rm -rf \"$TMPDIR\"/*'",
        'rm -rf "${TMPDIR:-/tmp}"/*',
    ],
)
def test_a_temp_dir_assigned_as_one_stays_one(git_repo, line, monkeypatch):
    monkeypatch.setenv("TMPDIR", "/tmp/scratch")
    (git_repo / "src" / "app.py").write_text("unsaved\n")
    assert not [f for f in findings(line, str(git_repo), assume_dirty=False) if f.lost], line


def test_a_loop_variable_is_not_exported_to_a_new_shell(git_repo):
    (git_repo / "notes.md").write_text("a person's notes\n")
    found = findings("for f in README.md; do bash -c 'rm \"$f\"'; done", str(git_repo), False)
    assert [f.rule for f in found] == ["fs.rm-unknown-targets"]
    assert not findings('for f in README.md; do rm "$f"; done', str(git_repo), False)


def test_a_device_named_through_a_variable_is_a_disk_write():
    assert {f.rule for f in findings("DISK=/dev/sda; dd if=/dev/zero of=$DISK")} == {
        "disk.write-device"
    }


def test_in_a_repository_only_the_named_file_decides(git_repo):
    (git_repo / "notes.md").write_text("a person's notes\n")
    blocked = findings("F=notes.md; rm $F", str(git_repo), assume_dirty=False)
    assert [f.lost for f in blocked] == [(str(git_repo / "notes.md"),)]
    assert not findings("F=README.md; rm $F", str(git_repo), assume_dirty=False)
    loop = findings("for f in README.md notes.md; do rm $f; done", str(git_repo), False)
    assert [f.text for f in loop] == ["rm notes.md"]
    # without the assignment the target is unknown: every unsaved file counts
    unknown = findings("rm $F", str(git_repo), assume_dirty=False)
    assert unknown and unknown[0].rule == "fs.rm-unknown-targets"


def test_an_assignment_the_line_may_skip_leaves_the_target_unknown(git_repo):
    (git_repo / "notes.md").write_text("a person's notes\n")
    found = findings("F=README.md; test -e x && F=y; rm $F", str(git_repo), False)
    assert [f.rule for f in found] == ["fs.rm-unknown-targets"]


@pytest.mark.parametrize(
    "line",
    [
        'T=$(mktemp -d) && cp a.py "$T" && rm -rf "$T"',
        'T=$(mktemp -d); rm -rf "$T"',
        'T=$(mktemp -d -t x.XXX); rm -rf "$T"',
        'T="$(mktemp -d /tmp/x.XXXX)"; rm -rf "$T/build"',
        "T=`mktemp -d`; rm -rf $T/*",
        'T=$(mktemp); rm -f "$T"',
        'out=$(mktemp -d); for f in a b; do rm -rf "${out}/$f"; done',
    ],
)
def test_a_variable_holding_a_fresh_temp_dir_is_one_whatever_its_name(git_repo, line):
    """`T=$(mktemp -d) && ... && rm -rf "$T"` was refused: only names like `tmp` were read as
    temp dirs, though the walker knew T held mktemp's output (Vars.temps)."""
    (git_repo / "src" / "app.py").write_text("unsaved\n")
    assert not [f for f in findings(line, str(git_repo), assume_dirty=False) if f.lost], line


@pytest.mark.parametrize(
    "line",
    [
        'T=$(mktemp -d); T=src; rm -rf "$T"',
        'T=$(mktemp -d); rm -rf "$T"/..',
        'T=$(mktemp -d); rm -rf "$T/../src"',
        'T=$(mktemp -d); rm -rf "$T"/$X',
        'T=$(mktemp -d); read T; rm -rf "$T"',
        'T=$(mktemp -d); [ -e x ] && T=src; rm -rf "$T"',
        'T=$(mktemp -d); eval "$X"; rm -rf "$T"',
        'T=$(mktemp -d); T+=/../src; rm -rf "$T"',
        "T=$(mktemp -d); bash -c 'rm -rf \"$T\"'",  # not exported: empty in the new shell
    ],
)
def test_a_temp_dir_variable_that_may_hold_something_else_is_judged_as_that(git_repo, line):
    (git_repo / "src" / "app.py").write_text("unsaved\n")
    found = findings(line, str(git_repo), assume_dirty=False)
    assert any(f.kind == "discard" and f.lost for f in found), line


def test_the_temp_dir_of_a_variable_is_shown_to_the_rules_as_mktemp():
    assert texts('T=$(mktemp -d); rm -rf "$T"/x')[-1] == 'rm -rf "$(mktemp -d)"/x'
    assert argvs('T=$(mktemp -d); T=a; rm -rf "$T"')[-1] == ["rm", "-rf", "a"]
    assert texts('T=$(mktemp -d); echo "$1" "$@" "$#"')[-1] == 'echo "$1" "$@" "$#"'


@pytest.mark.parametrize("tmpdir", [None, "", "SRC"])
@pytest.mark.parametrize(
    "line",
    [
        'rm -rf "$TMPDIR"/*',
        'rm -rf "${TMPDIR}/"*',
        "rm -rf $TMPDIR/../src",
        "find $TMPDIR/ -delete",
        "bash -c 'rm -rf \"$TMPDIR\"/*'",
        'rm -rf "${TMPDIR-src}"',  # unset: src
    ],
)
def test_tmpdir_is_what_the_environment_holds_unset_empty_or_not_a_temp_dir(
    git_repo, line, tmpdir, monkeypatch
):
    """`rm -rf "$TMPDIR"/*` was allowed, TMPDIR read as a temp dir by its name: unset (as it
    is on most Linux systems), it is `rm -rf /*`."""
    if tmpdir is None:
        monkeypatch.delenv("TMPDIR", raising=False)
    else:
        monkeypatch.setenv("TMPDIR", str(git_repo / "src") if tmpdir == "SRC" else tmpdir)
    if tmpdir == "" and "TMPDIR-" in line:
        line = line.replace("TMPDIR-", "TMPDIR:-")
    (git_repo / "src" / "app.py").write_text("unsaved\n")
    found = findings(line, str(git_repo), assume_dirty=False)
    assert any(f.kind == "discard" and f.severity == "block" for f in found), line


@pytest.mark.parametrize(
    "line",
    [
        'rm -rf "$TMPDIR/build"',
        'rm -rf "$TMPDIR"/*',
        'rm -rf "${TMPDIR:-/tmp}"/foo',
        'rm -rf "${TMPDIR-/tmp}"/foo',
        'X="$TMPDIR/x"; rm -rf "$X"',
        'cd "$TMPDIR" && rm -rf *',
    ],
)
def test_tmpdir_set_to_a_temp_dir_is_one(git_repo, line, monkeypatch):
    monkeypatch.setenv("TMPDIR", "/tmp/x")
    (git_repo / "src" / "app.py").write_text("unsaved\n")
    assert not [f for f in findings(line, str(git_repo), assume_dirty=False) if f.lost], line


def test_an_unset_tmpdir_takes_the_default_and_an_unknown_one_stays_unknown(monkeypatch):
    monkeypatch.delenv("TMPDIR", raising=False)
    assert argvs('rm -rf "${TMPDIR:-/tmp}"/foo')[-1] == ["rm", "-rf", "/tmp/foo"]
    assert argvs('rm -rf "$TMPDIR/x"')[-1] == ["rm", "-rf", "/x"]
    assert argvs('TMPDIR=; rm -rf "${TMPDIR-/tmp}"/foo')[-1] == ["rm", "-rf", "/foo"]
    assert argvs('TMPDIR=; rm -rf "${TMPDIR:-/tmp}"/foo')[-1] == ["rm", "-rf", "/tmp/foo"]
    assert argvs('rm -rf "${tmp:-/tmp}"/foo')[-1] == ["rm", "-rf", None]
    assert argvs('eval "$X"; rm -rf "$TMPDIR/x"')[-1] == ["rm", "-rf", None]
    monkeypatch.setenv("TMPDIR", "/tmp/x")
    assert argvs('rm -rf "${TMPDIR:-/tmp}"/foo')[-1] == ["rm", "-rf", "/tmp/x/foo"]
    assert argvs('rm -rf "${TMPDIR-/tmp}"')[-1] == ["rm", "-rf", "/tmp/x"]
    assert argvs("env -i bash -c 'rm -rf $TMPDIR'")[-1] == ["rm", "-rf", None]
    assert argvs("TMPDIR=a; bash -c 'rm -rf $TMPDIR'")[-1] == ["rm", "-rf", "a"]


def test_the_environment_the_walker_reads_is_sent_to_the_daemon_with_each_check():
    from interlock.daemon.hotwhere import CHECK_ENV
    from interlock.engine.shellvars import SEEN_ENV

    assert set(SEEN_ENV) <= set(CHECK_ENV)


def test_a_trap_removing_the_fresh_temp_dir_of_its_variable_loses_nothing(git_repo):
    """`T=$(mktemp -d); trap 'rm -rf "$T"' EXIT` was refused: the trap's body was read with
    no variable known, `$T` unknown."""
    (git_repo / "src" / "app.py").write_text("unsaved\n")
    for line in (
        "T=$(mktemp -d); trap 'rm -rf \"$T\"' EXIT; cp README.md \"$T\"",
        "T=$(mktemp -d) && trap 'rm -rf \"$T\"' EXIT INT TERM && cp README.md $T",
        "T=$(mktemp -d); [ -e x ] && trap 'rm -rf \"$T\"' EXIT; echo",
        "T=$(mktemp -d); { trap -- 'rm -rf \"$T\"' EXIT; }",
    ):
        assert not [f for f in findings(line, str(git_repo), assume_dirty=False) if f.lost], line


@pytest.mark.parametrize(
    "line",
    [
        "T=$(mktemp -d); trap 'rm -rf \"$T\"' EXIT; T=src",  # reassigned before it runs
        "T=$(mktemp -d); trap 'rm -rf \"$T\"' EXIT; [ -e x ] && T=src",
        "T=$(mktemp -d); trap 'rm -rf \"$T\"' EXIT; eval \"$X\"",
        "T=$(mktemp -d); trap 'rm -rf \"$T\"' EXIT; read T",
        "T=$(mktemp -d); (trap 'rm -rf \"$T\"' EXIT; T=src)",  # the subshell's own end
        "T=$(mktemp -d); f() { trap 'rm -rf \"$T\"' EXIT; T=src; }; f",
        "trap 'rm -rf \"$T\"' EXIT; T=$(mktemp -d)",  # may run before T is set
        "T=$(mktemp -d); trap 'T=src; rm -rf \"$T\"' EXIT",
        "T=$(mktemp -d); trap 'rm -rf \"$T\"/..' EXIT",
        "TMPDIR=src; trap 'rm -rf \"$TMPDIR\"' EXIT",  # not the environment's TMPDIR any more
        "trap 'rm -rf \"$TMPDIR\"' EXIT; TMPDIR=src",
        "trap 'rm -rf \"$TMPDIR\"' EXIT; eval \"$X\"",
    ],
)
def test_a_trap_is_read_with_what_its_variables_may_hold_when_it_runs(
    git_repo, line, monkeypatch
):
    monkeypatch.setenv("TMPDIR", "/tmp/scratch")
    (git_repo / "src" / "app.py").write_text("unsaved\n")
    found = findings(line, str(git_repo), assume_dirty=False)
    assert any(f.kind == "discard" and f.lost for f in found), line


def test_a_trap_sees_the_environment_the_line_left_alone(git_repo, monkeypatch):
    monkeypatch.setenv("TMPDIR", "/tmp/scratch")
    (git_repo / "src" / "app.py").write_text("unsaved\n")
    for line in ("trap 'rm -rf \"$TMPDIR/x\"' EXIT", "F=a; trap 'rm -rf \"$TMPDIR\"/*' EXIT"):
        assert not [f for f in findings(line, str(git_repo), assume_dirty=False) if f.lost], line


@pytest.mark.parametrize(
    ("line", "argv"),
    [
        ("F=a || exit 1; rm $F", ["rm", "a"]),  # goes on only if the assignment ran
        ("cond && F=a || exit; rm $F", ["rm", "a"]),
        ("F=x; cond && F=a || return 1; rm $F", ["rm", "a"]),
        ("F=x; cond || F=a || exit; rm $F", ["rm", None]),  # F=a may not have run
        ("F=x; F=a || F=b; rm $F", ["rm", None]),  # no exit: F=b may have run
        ("F=x; F=a || echo failed; rm $F", ["rm", None]),
    ],
)
def test_a_chain_guarded_by_exit_goes_on_with_what_all_of_it_assigned(line, argv):
    """`T=$(mktemp -d) || exit 1; rm -rf "$T"` was refused: after `||` the walker forgot what
    the chain assigned, though the line only goes on when all of it ran."""
    assert argvs(line)[-1] == argv


def test_a_temp_dir_assigned_before_an_exit_guard_stays_one(git_repo):
    (git_repo / "src" / "app.py").write_text("unsaved\n")
    line = 'T=$(mktemp -d) || exit 1; cp README.md "$T" && rm -rf "$T"'
    assert not [f for f in findings(line, str(git_repo), assume_dirty=False) if f.lost]
