"""Commands inside a container whose working tree is bind-mounted: judged where their
targets are on the host (`docker run -v "$PWD":/app img rm -rf /app/src` removes ./src), in
real repositories; an unknown mount keeps the conservative judgement."""

from __future__ import annotations

from pathlib import Path

import pytest

from interlock.engine import walk
from interlock.engine.check import evaluate
from interlock.engine.mounts import Mounts, read_mounts
from interlock.shell.parse import parse


@pytest.fixture
def tree(git_repo: Path) -> Path:
    """src/app.py edited and notes.md untracked: a person's unsaved work; README.md saved."""
    (git_repo / "notes.md").write_text("notes\n")
    (git_repo / "src" / "app.py").write_text("print('edited')\n")
    return git_repo


def lost(repo: Path, line: str) -> set[str] | None:
    """The unsaved paths the line destroys; None when it is allowed."""
    result = evaluate(line, str(repo), mode="blocking").result
    if result.verdict == "allow":
        return None
    return {p for f in result.findings for p in f.lost}


def at(repo: Path, *paths: str) -> set[str]:
    return {str(repo / p) for p in paths}


@pytest.mark.parametrize(
    ("line", "paths"),
    [
        ('docker run -v "$PWD":/app img rm -rf /app/src', ("src/app.py",)),
        ('docker run --rm -v "$PWD":/app -w /app img rm -rf src', ("src/app.py",)),
        ("docker run -v $(pwd):/w -w /w/src img rm -f app.py", ("src/app.py",)),
        ("docker run -it -v ${PWD}/src:/code -w /code python:3 rm -f app.py", ("src/app.py",)),
        (
            'docker run --mount type=bind,source="$(pwd)",target=/app -w /app img rm notes.md',
            ("notes.md",),
        ),
        ("podman run -v .:/app:Z -w /app/src img rm -rf ../notes.md", ("notes.md",)),
        ("docker container run -v `pwd`:/repo img rm -rf /repo/src /repo/notes.md", None),
        ("nerdctl run --volume $PWD:/app img truncate -s0 /app/notes.md", ("notes.md",)),
        # `$PWD` is the shell's directory, where a wrapper's -C does not go
        ('env -C src docker run -v "$PWD":/app img rm -f /app/notes.md', ("notes.md",)),
        ("env -C src docker run -v .:/app img rm -f /app/app.py", ("src/app.py",)),
        # the top of the worktree, a place known by name: its paths named from inside it
        (
            'cd "$(git rev-parse --show-toplevel)" && docker run -v $PWD:/a img rm /a/notes.md',
            ("notes.md",),
        ),
    ],
)
def test_a_target_inside_a_bind_mount_is_judged_where_it_is_on_the_host(tree, line, paths):
    found = lost(tree, line)
    if paths is None:  # the whole mount: every unsaved path
        assert found is not None and at(tree, "notes.md", "src/app.py") <= found
    else:
        assert found == at(tree, *paths)


@pytest.mark.parametrize(
    "line",
    [
        'docker run -v "$PWD":/app img rm -rf /app/build',
        'docker run --rm -v "$PWD":/app -w /app img rm -rf dist node_modules',
        "docker run -v $PWD:/app -w /app img rm README.md",  # saved in git
        "docker run -v /tmp/out:/out -v $PWD:/app img rm -rf /out/cache",  # a temp dir
        'docker run -v "$PWD":/app -w /app node:20 npm test',
    ],
)
def test_a_target_outside_the_persons_work_is_allowed(tree, line):
    assert lost(tree, line) is None


@pytest.mark.parametrize(
    "line",
    [
        "docker run -v $HOME/project:/app -w /app img rm -rf src",  # a source not followed
        "docker run --volumes-from data -w /app img rm -rf src",
        "docker run --privileged -v $PWD:/app -w /app img rm -rf other",
        "docker run -v $PWD:/app img rm -rf src",  # relative to the image's own WORKDIR
        "docker run -v $PWD:/app -w /app img sh -c 'rm -rf other'",  # code it runs
        "docker exec box rm -rf other",  # the container's mounts are not on the line
        'cd "$X"; docker run -v $PWD:/app -w /app img rm -rf other',  # $PWD not known
    ],
)
def test_a_mount_that_is_not_understood_keeps_every_unsaved_path_at_stake(tree, line):
    found = lost(tree, line)
    assert found is not None and at(tree, "notes.md", "src/app.py") <= found


def test_the_mapped_command_names_the_host_path_and_the_container_s_directory():
    [inv] = walk.walk(parse('cd sub && docker run -v "$PWD":/app -w /app/lib img rm /app/x'))[1:]
    assert inv.name == "rm" and inv.cwd == "sub/lib"
    assert [w.literal() for w in inv.argv] == ["rm", "../x"]
    [inv] = walk.walk(parse("docker run -v /srv/data:/data img rm -rf /data/old /etc/x"))
    assert [w.literal() for w in inv.argv] == ["rm", "-rf", "/srv/data/old", "/etc/x"]


@pytest.mark.parametrize(
    ("options", "mounts"),
    [
        ('-v "$PWD":/app', Mounts((("/app", "$PWD"),))),
        ("-itv $PWD/src:/src:ro -w /src", Mounts((("/src", "$PWD/src"),), "/src")),
        ("--mount type=bind,src=.,dst=/w --workdir=/w", Mounts((("/w", "."),), "/w")),
        ("--mount type=volume,source=cache,target=/c -v /data", Mounts()),
        ("--tmpfs /run -v node_modules:/app/node_modules", Mounts()),
        ("-v $HOME:/h", Mounts(known=False, unmapped=("/h",))),
        ("-v ~/x:/h", Mounts(known=False, unmapped=("/h",))),
        ("-w relative", Mounts(known=False)),
        ("--mount type=bind,source=$X,target=/h/", Mounts(known=False, unmapped=("/h",))),
        ("-v $X:/a -v $Y:/a", Mounts(known=False, unmapped=("/a",))),
        ("--privileged -v .:/w", Mounts((("/w", "."),), known=False, unmapped=("/",))),
        ("--volumes-from data", Mounts(known=False, unmapped=("/",))),
        ("-v a:b:c:d", Mounts(known=False, unmapped=("/",))),
        ("--mount type=bind,target=/w", Mounts(known=False, unmapped=("/",))),
        ("--mount type=tmpfs,target=/w -v /data", Mounts()),
    ],
)
def test_docker_run_options_give_the_binds_and_the_working_directory(options, mounts):
    words = parse(f"docker run {options} img").root.words[2:-1]  # type: ignore[union-attr]
    assert read_mounts(words, "aceEhlmpuvw") == mounts


UNMAPPED = [
    # the docker command's directory is one of several (a `cd` that may have failed)
    "cd src; docker run -v $PWD:/w img rm -f /w/app.py",
    'cd src; docker run -v "$(pwd)":/w img rm -f /w/app.py',
    "cd src; docker run --mount type=bind,source=$PWD,target=/w img rm -f /w/app.py",
    "cd src; podman run -v .:/w img rm -f /w/app.py",
    # a source only known at run time, or none on the line
    'docker run -v "$X":/w img rm -f /w/src/app.py',
    'docker run --mount type=bind,source="$X",target=/w img rm -f /w/src/app.py',
    "docker exec box rm -f /w/src/app.py",
    "docker compose run app rm -f /w/src/app.py",
    "kubectl exec pod -- rm -f /w/src/app.py",
    'chroot "$R" rm -f /src/app.py',
    # code the container runs, and a command whose directory inside is the image's
    'docker run -v $PWD:/w img sh -c "rm -f /w/src/app.py"',
    'docker run -v $PWD:/w img sh -c "cd /w/src && rm app.py"',
    "docker run -v $PWD:/w img python3 -c \"import os; os.remove('/w/src/app.py')\"",
    "docker run -v $PWD:/w img rm -f /w/src/app.py other",
    # a path on the host that cannot be named from the container's directory
    "docker run -v /srv:/s -v $PWD:/w -w /s img rm -f /w/src/app.py",
]


@pytest.mark.parametrize("line", UNMAPPED)
def test_a_container_path_whose_host_place_is_not_known_is_an_unknown_target(tree, line):
    """It was judged as the host's own `/w/...` (which does not exist: nothing lost), so
    `cd src; docker run -v $PWD:/w img rm -f /w/a.py` removed a person's edits unrefused."""
    found = lost(tree, line)
    assert found is not None and at(tree, "src/app.py") <= found


@pytest.mark.parametrize("line", [u for u in UNMAPPED if "app.py other" not in u and "&&" not in u])
def test_a_container_path_whose_host_place_is_not_known_loses_nothing_in_a_clean_tree(
    git_repo, line
):
    assert lost(git_repo, line) is None
