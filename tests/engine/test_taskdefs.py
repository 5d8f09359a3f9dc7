"""Tasks judged as the commands their definitions in the tree run (engine/taskdefs.py,
engine/definitions.py, engine/makerecipes.py): package.json scripts, Makefile recipes, tox
commands, hatch and pdm scripts, read from a real repository."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from interlock.engine import makerecipes
from interlock.engine.check import evaluate


def judge(repo: Path, command: str, cwd: Path | None = None) -> dict:
    return evaluate(command, str(cwd or repo), mode="blocking").result.to_json()


def rules_of(result: dict) -> set[str]:
    return {f["rule"] for f in result["findings"]}


@pytest.fixture
def project(git_repo: Path, git) -> Path:
    scripts = {
        "test": "jest --passWithNoTests || true",
        "verify": "pytest -q",
        "lint": "eslint .",
        "e2e": "playwright test | tee log",
        "snap": "jest -u",
        "unit": "jest",
        "start": "node server.js",
        "all": "npm run lint && npm run unit",
    }
    (git_repo / "package.json").write_text(json.dumps({"scripts": scripts}))
    (git_repo / "Makefile").write_text(
        textwrap.dedent(
            """\
            PYTEST ?= python -m pytest
            .PHONY: test check quiet good all

            all: lint good

            lint:
            \t@ruff check .

            test:
            \t-$(PYTEST) tests/

            check:
            \t$(PYTEST) tests/ | tee log.txt

            quiet: lint
            \t$(PYTEST) -k "not test_token"

            good:
            \t$(PYTEST) -x \\
            \t  tests/

            serve:
            \tpython -m http.server
            """
        )
    )
    (git_repo / "tox.ini").write_text(
        textwrap.dedent(
            """\
            [tox]
            envlist = py311

            [testenv]
            commands = pytest {posargs:tests}

            [testenv:lint]
            commands = - ruff check .

            [testenv:cheat]
            commands = pytest -k "not test_token" {posargs}

            [testenv:hidden]
            commands = pytest
            ignore_outcome = true

            [testenv:literal]
            commands = pytest || true
            """
        )
    )
    (git_repo / "pyproject.toml").write_text(
        textwrap.dedent(
            """\
            [tool.hatch.envs.default.scripts]
            test = "pytest {args} || true"
            cov = ["- pytest --cov", "coverage report"]
            good = "pytest {args:tests}"
            both = ["good", "coverage report"]
            [tool.hatch.envs.lint.scripts]
            check = "ruff check --exit-zero ."
            [tool.pdm.scripts]
            test = {shell = "pytest | tail -3"}
            ok = "pytest -x"
            chain = {composite = ["ok", "ruff check ."], keep_going = true}
            """
        )
    )
    (git_repo / "web").mkdir()
    (git_repo / "web" / "package.json").write_text('{"scripts": {"test": "vitest run"}}')
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "tasks")
    return git_repo


@pytest.mark.parametrize(
    ("command", "verdict", "rule"),
    [
        ("npm test", "block", "validator.exit-forged"),
        ("npm test", "block", "validator.pass-with-no-tests"),
        ("yarn test", "block", "validator.exit-forged"),
        ("pnpm run test", "block", "validator.exit-forged"),
        ("npm run e2e", "warn", "validator.exit-masked"),
        ("npm run snap", "block", "validator.regenerated"),
        ("npm run unit -- -u", "block", "validator.regenerated"),
        ("make test", "block", "validator.ignore-failures"),
        ("make check", "warn", "validator.exit-masked"),
        ("make quiet", "block", "validator.negative-selection"),
        ("tox -e lint", "block", "validator.ignore-failures"),
        ("tox -e cheat", "block", "validator.negative-selection"),
        ("tox -e hidden", "block", "validator.ignore-failures"),
        ("tox -e py311 -- -k 'not test_x'", "block", "validator.negative-selection"),
        ("hatch run test", "block", "validator.exit-forged"),
        ("hatch run cov", "block", "validator.ignore-failures"),
        ("hatch run lint:check", "block", "validator.ignore-failures"),
        ("pdm run test", "warn", "validator.exit-masked"),
        ("pdm run chain", "block", "validator.ignore-failures"),
    ],
)
def test_a_task_is_judged_as_what_its_definition_runs(project, command, verdict, rule):
    result = judge(project, command)
    assert result["verdict"] == verdict, result
    assert rule in rules_of(result), result
    assert any(v["masked"] for v in result["validators"]), result


def test_the_message_names_the_file_and_the_command_inside(project):
    (finding,) = [f for f in judge(project, "make quiet")["findings"]]
    assert finding["reason"].startswith("Makefile recipe of `quiet` runs `python -m pytest -k")
    assert finding["text"] == "make quiet"


@pytest.mark.parametrize(
    ("command", "tier"),
    [
        ("npm run verify", "slow"),  # a name that says nothing; the script runs pytest
        ("npm run lint", "fast"),
        ("npm run unit", "slow"),
        ("npm run all", "slow"),
        ("make good", "slow"),
        ("make", "slow"),  # the default goal `all`: lint, then good
        ("make lint", "fast"),
        ("tox", "slow"),
        ("tox -e py311 -- tests/test_a.py", "fast"),
        ("hatch run good", "slow"),
        ("hatch run both", "slow"),
        ("pdm run ok", "slow"),
        ("npm --prefix web test", "slow"),
    ],
)
def test_a_task_whose_definition_is_clean_is_an_unmasked_validator(project, command, tier):
    result = judge(project, command)
    assert result["verdict"] == "allow" and not result["findings"], result
    assert [v["tier"] for v in result["validators"]] == [tier], result
    assert not any(v["masked"] for v in result["validators"])


def test_a_task_in_a_subdirectory_reads_that_directorys_file(project):
    assert judge(project, "cd web && npm test")["verdict"] == "allow"
    assert judge(project, "npm test", cwd=project / "web")["verdict"] == "allow"
    assert judge(project, "npm test")["verdict"] == "block"


def test_a_task_that_runs_no_validator_is_not_one(project):
    for command in ("npm start", "make serve", "npm run start"):
        result = judge(project, command)
        assert result["verdict"] == "allow" and result["validators"] == [], (command, result)


def test_a_task_masked_on_the_line_is_still_masked(project):
    result = judge(project, "make good | tail -5")
    assert result["verdict"] == "warn" and rules_of(result) == {"validator.exit-masked"}
    result = judge(project, "npm run verify || true")
    assert result["verdict"] == "block" and rules_of(result) == {"validator.exit-forged"}


def test_text_alone_does_not_read_definitions(project):
    result = evaluate("npm test", str(project), mode="blocking", assume_dirty=True).result
    assert result.verdict == "allow" and not result.findings


def test_a_definition_edited_in_the_run_is_read_as_it_is_now(project):
    (project / "package.json").write_text('{"scripts": {"test": "jest"}}')
    assert judge(project, "npm test")["verdict"] == "allow"
    (project / "package.json").write_text('{"scripts": {"test": "jest; exit 0"}}')
    assert rules_of(judge(project, "npm test")) == {"validator.exit-forged"}


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("package.json", "{not json"),
        ("package.json", '{"scripts": ["jest"]}'),
        ("package.json", '{"scripts": {"test": 5}}'),
        ("tox.ini", "[testenv\ncommands = pytest"),
        ("pyproject.toml", "[tool.hatch\n"),
        ("Makefile", "test:\n\t$(\n"),
    ],
)
def test_a_malformed_definition_file_falls_back_to_the_name(project, name, content):
    (project / name).write_text(content)
    command = {"package.json": "npm test", "tox.ini": "tox", "pyproject.toml": "hatch run test"}
    result = judge(project, command.get(name, "make test"))
    assert "interlock.internal-error" not in rules_of(result)
    assert result["parse"] in ("ok", "degraded")


def test_a_task_outside_the_worktree_is_not_read(project, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "package.json").write_text('{"scripts": {"test": "jest || true"}}')
    assert judge(project, f"npm --prefix {outside} test")["verdict"] == "allow"


def test_a_script_that_calls_itself_stops(project):
    (project / "package.json").write_text('{"scripts": {"test": "npm test || true"}}')
    result = judge(project, "npm test")
    assert "interlock.internal-error" not in rules_of(result)


# -- the Makefile reader ---------------------------------------------------------------------


def test_makefile_recipes_follow_prerequisites_variables_and_prefixes():
    mk = makerecipes.parse(
        "CC = gcc\nT := $(CC) -v\nall: build test\nbuild:\n\t@$(T) main.c\n"
        "test: build\n\t-pytest $@\n\t+echo $$HOME $(shell date)\n"
    )
    found = [(r.target, r.text, r.ignore_errors) for r in makerecipes.recipes(mk, ())]
    assert found == [
        ("build", "gcc -v main.c", False),
        ("test", "pytest test", True),
        ("test", "echo $HOME ${MAKE_shell_date}", False),
    ]


def test_makefile_special_targets_and_shell_flags():
    mk = makerecipes.parse(
        "SHELL := /bin/bash\n.SHELLFLAGS := -eu -o pipefail -c\n.IGNORE: lint\n"
        "lint:\n\truff check .\ntest:\n\tpytest | tee log\n"
    )
    lint, test = makerecipes.recipes(mk, ("lint", "test"))
    assert lint.ignore_errors and not test.ignore_errors
    assert test.text.startswith("set -o pipefail; set -e; ")


def test_makefile_oneshell_is_one_script():
    mk = makerecipes.parse(".ONESHELL:\ntest:\n\tpytest\n\techo done\n")
    (recipe,) = makerecipes.recipes(mk, ("test",))
    assert recipe.text == "pytest\necho done"


def test_a_oneshell_recipe_with_a_trailing_echo_is_masked(project):
    (project / "Makefile").write_text(".ONESHELL:\ntest:\n\tpytest\n\techo done\n")
    assert rules_of(judge(project, "make test")) == {"validator.exit-masked"}


def test_a_pipefail_makefile_does_not_mask_its_pipes(project):
    (project / "Makefile").write_text(
        "SHELL := bash\n.SHELLFLAGS := -o pipefail -c\ntest:\n\tpytest | tee log\n"
    )
    assert judge(project, "make test")["verdict"] == "allow"


def test_a_recipe_that_runs_a_task_in_another_directory_reads_that_directorys_file(project):
    (project / "Makefile").write_text("test:\n\t$(MAKE) -C web test\nweb:\n\tcd web && npm test\n")
    (project / "web" / "Makefile").write_text("test:\n\tnpm test\n")
    (project / "web" / "package.json").write_text('{"scripts": {"test": "vitest run || true"}}')
    for command in ("make test", "make web"):
        result = judge(project, command)
        assert rules_of(result) == {"validator.exit-forged"}, (command, result)
        assert (
            "web/" in result["findings"][0]["reason"]
            or "package.json" in result["findings"][0]["reason"]
        )
