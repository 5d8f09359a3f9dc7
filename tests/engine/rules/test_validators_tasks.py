"""Which task an invocation runs and where its definition lives, from the words alone
(validators/tasks.py `reference`); reading the definitions is engine/taskdefs.py's (its tests
are tests/engine/test_taskdefs.py)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from interlock.engine.invocation import Invocation
from interlock.engine.rules.validators.tasks import Definition, TaskRef, reference, shell_words


def _npm(manager: str, name: str, args: tuple[str, ...] = (), directory: str = "") -> TaskRef:
    return TaskRef("npm", (name,), args, directory, "sub", manager=manager)


@pytest.mark.parametrize(
    ("cmd", "ref"),
    [
        ("npm test", _npm("npm", "test")),
        ("npm t --watch", _npm("npm", "test", ("--watch",))),
        ("npm tst -- --watch", _npm("npm", "test", ("--watch",))),
        ("npm test -- -- x", _npm("npm", "test", ("--", "x"))),
        ("npm run lint", _npm("npm", "lint")),
        ("npm run-script build -- a b", _npm("npm", "build", ("a", "b"))),
        ("npm run test:unit --if-present", _npm("npm", "test:unit", ("--if-present",))),
        ("npm --prefix web test", _npm("npm", "test", (), "web")),
        ("npm --prefix= test", _npm("npm", "test")),
        ("pnpm -C web lint", _npm("pnpm", "lint", (), "web")),
        ("yarn --cwd web test", _npm("yarn", "test", (), "web")),
        ("yarn lint --quiet", _npm("yarn", "lint", ("--quiet",))),
        ("pnpm build", _npm("pnpm", "build")),
        ("bun run e2e", _npm("bun", "e2e")),
        ("bun lint", _npm("bun", "lint")),
        ("make", TaskRef("make", (), (), "", "sub")),
        ("gmake check", TaskRef("make", ("check",), (), "", "sub")),
        ("make -C web test CC=gcc lint", TaskRef("make", ("test", "lint"), (), "web", "sub")),
        ("make -C a --directory b", TaskRef("make", (), (), "a/b", "sub")),
        ("make -f build.mk check", TaskRef("make", ("check",), (), "", "sub", "build.mk")),
        ("make --file=a.mk -f b.mk", TaskRef("make", (), (), "", "sub", "b.mk")),
        ("tox", TaskRef("tox", (), (), "", "sub")),
        ("tox -e py311,,lint -- -k x", TaskRef("tox", ("py311", "lint"), ("-k", "x"), "", "sub")),
        ("tox -e a -e b", TaskRef("tox", ("a", "b"), (), "", "sub")),
        ("tox -c other.ini", TaskRef("tox", (), (), "", "sub", "other.ini")),
        ("tox -- $X", TaskRef("tox", (), (), "", "sub")),
    ],
)
def test_a_task_is_read_from_the_words(cmd: str, ref: TaskRef, inv: Callable[..., Invocation]):
    assert reference(inv(cmd, "sub")) == ref


@pytest.mark.parametrize(
    "cmd",
    [
        "npm",
        "npm run",
        "npm lint",  # npm runs a script only through run (or test)
        "npm install",
        "npm --version",
        "npm test $X",
        "npm $X",
        "yarn install",
        "yarn add lodash",
        "pnpm exec jest",
        "yarn --version",
        "make test $X",
        "make $T",
        "pytest",
        "cargo test",
        "test -f x",
    ],
)
def test_no_task_of_the_tree(cmd: str, inv: Callable[..., Invocation]) -> None:
    assert reference(inv(cmd)) is None


@pytest.mark.parametrize(
    ("cmd", "via", "ref"),
    [
        ("test", ("hatch run",), TaskRef("hatch", ("test",), (), "", "sub")),
        ("lint -x a", ("env", "pdm run"), TaskRef("pdm", ("lint",), ("-x", "a"), "", "sub")),
        ("check", ("rye run",), TaskRef("rye", ("check",), (), "", "sub")),
        # the last runner counts: here `tox` is run by env, and tox is a task runner itself
        ("tox -e lint", ("pdm run", "env"), TaskRef("tox", ("lint",), (), "", "sub")),
        ("test", ("poetry run",), None),
        ("tox $X", ("hatch run",), None),  # a script named by unknown words: no task
        ("test $X", ("pdm run",), None),
    ],
)
def test_a_project_script_run_by_hatch_pdm_or_rye(
    cmd: str, via: tuple[str, ...], ref: TaskRef | None, inv: Callable[..., Invocation]
) -> None:
    assert reference(inv(cmd, "sub", via=via)) == ref


def test_refs_and_definitions_are_values() -> None:
    ref = TaskRef("make", ("test",), (), "", None)
    assert {ref: 1}[TaskRef("make", ("test",), (), "", None)] == 1
    definition = Definition("Makefile test", "pytest")
    assert definition.ignore_errors is False and definition.directory == ""
    assert len({definition, Definition("Makefile test", "pytest")}) == 1


def test_a_command_run_without_a_shell_is_quoted_as_one() -> None:
    assert shell_words("pytest -k 'a b' || true") == "pytest -k 'a b' '||' true"
    assert shell_words("echo 'unbalanced") == "echo 'unbalanced"
