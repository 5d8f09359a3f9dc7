"""engine.mounts by itself, without a repository: which container paths reach the host,
and which words are hidden (unknown) because where they are on the host is not known. The
judgements in real repositories are in test_container_mounts.py."""

from __future__ import annotations

import pytest

from interlock.engine import walk
from interlock.engine.mounts import (
    OPAQUE,
    Mounts,
    enter,
    hide,
    hide_args,
    is_under,
    read_mounts,
)
from interlock.shell.model import Redirect, Word
from interlock.shell.parse import parse


def words(*texts: str) -> tuple[Word, ...]:
    return tuple(Word(t, t) for t in texts)


def literals(found: tuple[Word, ...]) -> list[str | None]:
    return [w.literal() for w in found]


def test_the_reach_is_the_bind_targets_and_the_unmapped_ones():
    assert Mounts((("/w", "."), ("/s", "/srv")), unmapped=("/x",)).reach() == ("/w", "/s", "/x")
    assert OPAQUE.reach() == ("/",) and not OPAQUE.known


@pytest.mark.parametrize(
    ("path", "roots", "under"),
    [
        ("/w", ("/w",), True),
        ("/w/x", ("/w",), True),
        ("/w/x/../y", ("/w",), True),
        ("/w/../etc", ("/w",), False),
        ("/wx", ("/w",), False),
        ("/etc", ("/w", "/"), True),
        ("/w/x", ("/w/",), True),
        ("/w", (), False),
    ],
)
def test_a_path_is_under_a_root_by_its_components(path, roots, under):
    assert is_under(path, roots) is under


def test_hide_makes_the_paths_under_the_reach_unknown_and_keeps_their_text():
    given = words("-f", "/w/a", "--out=/w/b", "-o=/x", "/x/c", "rel", "-", "w/a") + (
        Word("$X", None),
    )
    found = hide(given, ("/w",))
    assert literals(found) == ["-f", None, None, "-o=/x", "/x/c", "rel", "-", "w/a", None]
    assert [w.text for w in found] == [w.text for w in given]
    assert literals(hide(words("rel", "-x", "/a"), ("/",))) == ["rel", "-x", None]
    glob = Word("/w/*.py", "/w/*.py", True)
    assert hide((glob,), ("/w",))[0].has_glob
    same = words("/w/a")
    assert hide(same, ()) is same


@pytest.mark.parametrize(
    ("mounts", "cwd", "argv", "expected", "inner"),
    [
        # mapped: known binds, a known directory, a path-free command
        (Mounts((("/w", "."),)), "", ("rm", "/w/a", "/t"), ["rm", "a", "/t"], ""),
        (Mounts((("/w", "src"),), "/w"), "", ("rm", "a", "/w/b"), ["rm", "a", "b"], "src"),
        # the directory of the docker command unknown (or one of several)
        (Mounts((("/w", "."),)), None, ("rm", "/w/a", "/t"), ["rm", None, "/t"], None),
        # a bind whose source is not known, or a reach that is not
        (Mounts(known=False, unmapped=("/w",)), "", ("rm", "/w/a", "/t"), ["rm", None, "/t"], None),
        (OPAQUE, "", ("/w/tool", "/w/a", "/t", "x"), ["/w/tool", None, None, "x"], None),
        # the image's own directory: relative words are unknown there, and so are mapped ones
        (Mounts((("/w", "."),)), "", ("rm", "/w/a", "x"), ["rm", None, "x"], None),
        # a host path that cannot be named from the directory inside
        (
            Mounts((("/s", "/srv"), ("/w", ".")), "/s"),
            "",
            ("rm", "/w/a", "/s/b"),
            ["rm", None, None],
            None,
        ),
        (Mounts((("/s", "/srv"),), "/s"), "", ("rm", "/s/a", "b"), ["rm", "/srv/a", "b"], "/srv"),
    ],
)
def test_enter_maps_what_it_can_and_hides_what_it_cannot(mounts, cwd, argv, expected, inner):
    found, where = enter(mounts, words(*argv), cwd, cwd)
    assert literals(found) == expected and where == inner


TOP = "/(the top of the worktree)"


@pytest.mark.parametrize(
    ("binds", "cwd", "shell", "argv", "expected", "inner"),
    [
        # `$PWD` is the shell's directory, `.` the docker command's (after `env -C src`)
        ((("/w", "$PWD"),), "src", "", ("rm", "/w/a"), ["rm", "../a"], "src"),
        ((("/w", "$PWD/x"),), "src", "", ("rm", "/w/a"), ["rm", "../x/a"], "src"),
        ((("/w", "."),), "src", "", ("rm", "/w/a"), ["rm", "a"], "src"),
        ((("/w", "$PWD"),), "src", None, ("rm", "/w/a", "/t"), ["rm", None, "/t"], None),
        # the top of the worktree: named from inside it, never as a path of the host
        ((("/w", "."),), TOP, TOP, ("rm", "/w/a"), ["rm", "a"], TOP),
        ((("/w", "$PWD"),), f"{TOP}/src", TOP, ("rm", "/w/a"), ["rm", "../a"], f"{TOP}/src"),
        ((("/w", "/(the top of the worktree)"),), "", "", ("rm", "/w/a"), ["rm", None], None),
        ((("/w", "/srv"),), TOP, TOP, ("rm", "/w/a"), ["rm", "/srv/a"], TOP),
    ],
)
def test_enter_reads_each_source_where_it_is(binds, cwd, shell, argv, expected, inner):
    found, where = enter(Mounts(binds), words(*argv), cwd, shell)
    assert literals(found) == expected and where == inner


def test_only_the_paths_a_container_may_reach_the_host_through_are_hidden():
    [inv] = walk.walk(parse('docker run -v "$X":/w img rm -rf /w/a /etc/x --out=/w/b /wx'))
    assert [w.literal() for w in inv.argv] == ["rm", "-rf", None, "/etc/x", None, "/wx"]
    assert inv.argv[2].text == "/w/a" and inv.cwd is None
    inv = walk.walk(parse("cd a; docker run -v .:/w -v /srv:/s img rm /w/x /s/y /t"))[-1]
    assert [w.literal() for w in inv.argv] == ["rm", None, None, "/t"]
    [inv] = walk.walk(parse('chroot "$R" rm -f /x rel'))
    assert [w.literal() for w in inv.argv] == ["rm", "-f", None, "rel"] and inv.cwd is None
    [inv] = walk.walk(parse("chroot /r rm -f /x"))
    assert [w.literal() for w in inv.argv] == ["rm", "-f", "/r/x"]
    [inv] = walk.walk(parse("docker exec box /w/bin/tool /w/x"))
    assert [w.literal() for w in inv.argv] == ["/w/bin/tool", None]  # the program stays named
    inv = walk.walk(parse("docker run -v .:/w img sh -c 'cat < /w/in > /w/out 2>/t'"))[-1]
    assert [r.target.literal() for r in inv.redirects if r.target] == [None, None, "/t"]
    [inv] = walk.walk(parse("docker run -v .:/w img env -C /w/src rm -f app.py /tmp/x"))
    assert inv.cwd is None and [w.literal() for w in inv.argv] == ["rm", "-f", "app.py", "/tmp/x"]
    [inv] = walk.walk(parse("docker run -v .:/w img env -C /opt rm -f x"))
    assert inv.cwd == "/opt"  # not a path the container shares with the host
    [inv] = walk.walk(parse("docker run -v .:/w img sudo -u me rm -f /w/x"))
    assert [w.literal() for w in inv.argv] == ["rm", "-f", None]
    [inv] = walk.walk(parse("docker run -v /srv:/s -v .:/w -w /s img rm /w/x /s/y"))
    assert [w.literal() for w in inv.argv] == ["rm", None, None] and inv.cwd is None


def test_hide_args_keeps_the_program_named():
    found = hide_args(words("/w/bin/tool", "/w/x", "/t"), ("/w",))
    assert literals(found) == ["/w/bin/tool", None, "/t"]
    assert hide_args((), ("/w",)) == ()


def test_code_a_container_runs_is_in_the_images_directory_and_hides_redirect_targets():
    inv = walk.walk(parse("docker run -v .:/w img sh -c 'rm -rf src'"))[-1]
    assert inv.name == "rm" and inv.cwd is None
    assert walk._hidden(Redirect(">&", 2), ("/",)) == Redirect(">&", 2)  # no target: as it is
    kept = Redirect(">", None, Word("/t/x", "/t/x"))
    assert walk._hidden(kept, ("/w",)) == kept
    assert walk._hidden(Redirect(">", None, Word("/w/x", "/w/x")), ("/w",)).target == Word(
        "/w/x", None
    )


@pytest.mark.parametrize(
    ("options", "mounts"),
    [
        ("-v $PWD/$X:/h", Mounts(known=False, unmapped=("/h",))),
        ("-v $PWD/`x`:/h", Mounts(known=False, unmapped=("/h",))),
        ("-v $PWD/x:/h", Mounts((("/h", "$PWD/x"),))),
        ("--mount type=bind,source=cache,target=/w", Mounts(known=False, unmapped=("/",))),
        ("--mount type=bind,source=/srv,target=/w", Mounts((("/w", "/srv"),))),
    ],
)
def test_a_source_read_from_the_shells_directory_or_not_understood(options, mounts):
    assert read_mounts(tuple(Word(t, t) for t in options.split()), "v") == mounts
