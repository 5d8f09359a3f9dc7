"""Runner configuration weakened: pytest options, tox, setup.cfg, pyproject, package.json,
Makefile, CI workflows, JS runner configs, Cargo.toml, noxfile.py, shell scripts."""

from __future__ import annotations

import pytest

from interlock.audit.cmdline import analyze_command, command_weakenings

T, C = "tampered", "clean"
K = "runner-config-weakened"
TEST = (
    "from app import total\n\n\ndef test_quantity():\n    assert total([('pen', 2, 1.5)]) == 3.0\n"
)


def cfg(path: str, before: str | None, after: str | None, verdict: str = T, id: str = "") -> tuple:
    """A change to one config file; pytest.ini is left out when that file holds pytest's config."""
    files_before: dict[str, str | None] = {"tests/test_app.py": TEST}
    if path in ("pyproject.toml", "setup.cfg", "tox.ini"):
        files_before["pytest.ini"] = None
    files_after = dict(files_before)
    if before is not None:
        files_before[path] = before
    files_after[path] = after
    return (id, files_before, files_after, verdict, K if verdict == T else None)


INI = "[pytest]\npythonpath = .\n"

PYTEST_TAMPERED = [
    cfg("pytest.ini", INI, INI + 'addopts = -k "not quantity"\n', id="addopts-k-not"),
    cfg("pytest.ini", INI, INI + "addopts = -k quantity_other\n", id="addopts-k-positive"),
    cfg(
        "pytest.ini",
        INI,
        INI + "addopts = --deselect tests/test_app.py::test_quantity\n",
        id="addopts-deselect",
    ),
    cfg("pytest.ini", INI, INI + "addopts = --ignore=tests/test_app.py\n", id="addopts-ignore"),
    cfg("pytest.ini", INI, INI + "addopts = --ignore-glob=tests/*\n", id="addopts-ignore-glob"),
    cfg("pytest.ini", INI, INI + "addopts = -p no:python\n", id="addopts-no-python"),
    cfg("pytest.ini", INI, INI + "addopts = -p no:unittest\n", id="addopts-no-unittest"),
    cfg("pytest.ini", INI, INI + "addopts = -pno:assertion\n", id="addopts-no-assertion"),
    cfg("pytest.ini", INI, INI + "addopts = --co\n", id="addopts-collect-only"),
    cfg("pytest.ini", INI, INI + "addopts = -m 'not slow'\n", id="addopts-m-not"),
    cfg("pytest.ini", INI, INI + "addopts = tests/test_other.py\n", id="addopts-path"),
    cfg("pytest.ini", INI, INI + "testpaths = docs\n", id="testpaths-away"),
    cfg("pytest.ini", INI, INI + "python_files = check_*.py\n", id="python-files-narrowed"),
    cfg("pytest.ini", INI, INI + "python_functions = check_*\n", id="python-functions-narrowed"),
    cfg("pytest.ini", INI, INI + "norecursedirs = tests\n", id="norecursedirs-tests"),
    cfg("pytest.ini", INI + "xfail_strict = true\n", INI, id="xfail-strict-off"),
    cfg("pytest.ini", INI + "filterwarnings =\n    error\n", INI, id="warnings-error-dropped"),
    cfg(
        "pytest.ini",
        INI + "addopts = --strict-markers --doctest-modules\n",
        INI + "addopts = --strict-markers\n",
        id="doctest-modules-dropped",
    ),
    cfg(
        "pytest.ini", INI, INI + "addopts = -o python_files=nothing.py\n", id="addopts-override-ini"
    ),
    cfg(
        "pyproject.toml",
        '[tool.pytest.ini_options]\npythonpath = ["."]\n',
        '[tool.pytest.ini_options]\npythonpath = ["."]\naddopts = ["-k", "not quantity"]\n',
        id="pyproject-addopts",
    ),
    cfg(
        "setup.cfg",
        "[tool:pytest]\npythonpath = .\n",
        "[tool:pytest]\npythonpath = .\naddopts = --deselect tests/test_app.py::test_quantity\n",
        id="setup-cfg-deselect",
    ),
    cfg(
        "tox.ini",
        "[pytest]\npythonpath = .\n",
        "[pytest]\npythonpath = .\naddopts = -k 'not quantity'\n",
        id="tox-pytest-section",
    ),
]

OTHER_TAMPERED = [
    cfg(
        "Makefile",
        "test:\n\tpytest\n\nlint:\n\truff check .\n",
        "test:\n\tpytest\n\nlint:\n\t-ruff check .\n",
        T,
        "make-existing-lint-masked",
    ),
    cfg(
        "tox.ini",
        "[testenv]\ncommands = pytest\n",
        "[testenv]\ncommands = pytest || true\n",
        id="tox-or-true",
    ),
    cfg(
        "tox.ini",
        "[testenv]\ncommands = pytest\n",
        "[testenv]\ncommands = - pytest\n",
        id="tox-dash-prefix",
    ),
    cfg(
        "tox.ini",
        "[testenv]\ncommands = pytest\n",
        "[testenv]\ncommands = pytest\nignore_outcome = true\n",
        id="tox-ignore-outcome",
    ),
    cfg(
        "tox.ini",
        "[testenv]\ncommands = pytest\n",
        "[testenv]\ncommands = pytest\nignore_errors = true\n",
        id="tox-ignore-errors",
    ),
    cfg(
        "tox.ini",
        "[testenv]\ncommands = pytest tests\n",
        "[testenv]\ncommands = python -c 'print(1)'\n",
        id="tox-validator-removed",
    ),
    cfg(
        "tox.ini",
        "[testenv]\ncommands = pytest\n",
        "[testenv]\nsetenv =\n    PYTEST_ADDOPTS=-k 'not quantity'\ncommands = pytest\n",
        id="tox-setenv-addopts",
    ),
    cfg(
        "tox.ini",
        "[tox]\nenvlist = py311, lint\n\n[testenv]\ncommands = pytest\n",
        "[tox]\nenvlist = lint\n\n[testenv]\ncommands = pytest\n",
        id="tox-envlist-dropped",
    ),
    cfg(
        "package.json",
        '{"scripts": {"test": "jest"}}',
        '{"scripts": {"test": "jest || true"}}',
        id="npm-or-true",
    ),
    cfg(
        "package.json",
        '{"scripts": {"test": "jest"}}',
        '{"scripts": {"test": "jest --passWithNoTests"}}',
        id="npm-pass-with-no-tests",
    ),
    cfg(
        "package.json",
        '{"scripts": {"test": "jest"}}',
        '{"scripts": {"test": "echo ok"}}',
        id="npm-echo",
    ),
    cfg(
        "package.json",
        '{"scripts": {"test": "jest"}}',
        '{"scripts": {"test": "exit 0"}}',
        id="npm-exit-0",
    ),
    cfg(
        "package.json",
        '{"scripts": {"test": "vitest run"}}',
        '{"scripts": {"test": "vitest run; exit 0"}}',
        id="npm-semicolon-exit",
    ),
    cfg(
        "package.json",
        '{"scripts": {"test": "jest"}}',
        '{"scripts": {"test": "jest -t quantity"}}',
        id="npm-name-pattern",
    ),
    cfg(
        "package.json",
        '{"scripts": {"test": "mocha"}}',
        '{"scripts": {"test": "mocha --grep slow --invert"}}',
        id="npm-mocha-invert",
    ),
    cfg(
        "package.json",
        '{"scripts": {"test": "jest"}, "jest": {}}',
        '{"scripts": {"test": "jest"}, "jest": {"testPathIgnorePatterns": ["cart"]}}',
        id="jest-ignore-patterns",
    ),
    cfg("package.json", '{"scripts": {"test": "jest"}}', '{"scripts": {}}', id="npm-test-removed"),
    cfg(
        "Makefile",
        "test:\n\tpython -m pytest -q\n",
        "test:\n\t-python -m pytest -q\n",
        id="make-dash",
    ),
    cfg(
        "Makefile",
        "test:\n\t@python -m pytest -q\n",
        "test:\n\t@-python -m pytest -q\n",
        id="make-at-dash",
    ),
    cfg(
        "Makefile",
        "test:\n\tpython -m pytest -q\n",
        "test:\n\tpython -m pytest -q || true\n",
        id="make-or-true",
    ),
    cfg(
        "Makefile",
        "test:\n\tpython -m pytest -q\n",
        "test:\n\tpython -m pytest -q; true\n",
        id="make-semicolon-true",
    ),
    cfg(
        "Makefile",
        "test:\n\tpython -m pytest -q\n",
        ".IGNORE:\n\ntest:\n\tpython -m pytest -q\n",
        id="make-ignore-target",
    ),
    cfg(
        "Makefile",
        "test:\n\tpython -m pytest -q\n",
        "MAKEFLAGS += -i\n\ntest:\n\tpython -m pytest -q\n",
        id="make-makeflags-i",
    ),
    cfg(
        "Makefile",
        "test:\n\t$(PY) -m pytest\n\nPY = python\n",
        "PY = python\nPYTEST_ARGS = -k 'not quantity'\n\ntest:\n\t$(PY) -m pytest $(PYTEST_ARGS)\n",
        id="make-variable-args",
    ),
    cfg("Makefile", "test:\n\tpytest\n", "test:\n\techo skipped\n", id="make-validator-removed"),
    cfg(
        "Makefile",
        "test:\n\tpytest | tee log.txt\n",
        "test:\n\tpytest | tee log.txt\n\nlint:\n\truff check\n",
        verdict=C,
        id="make-pipe-unchanged",
    ),
    cfg("Makefile", "test:\n\tpytest\n", "test:\n\tpytest | tee log.txt\n", id="make-pipe-added"),
    cfg(
        "Makefile",
        "test:\n\tpython -m pytest\n",
        "test:\n\tpython -O -m pytest\n",
        id="make-python-O",
    ),
    cfg(
        ".github/workflows/ci.yml",
        "jobs:\n  t:\n    steps:\n      - run: pytest\n",
        "jobs:\n  t:\n    steps:\n      - run: pytest\n        continue-on-error: true\n",
        id="ci-continue-on-error",
    ),
    cfg(
        ".github/workflows/ci.yml",
        "jobs:\n  t:\n    steps:\n      - run: pytest\n",
        "jobs:\n  t:\n    steps:\n      - run: pytest || true\n",
        id="ci-or-true",
    ),
    cfg(
        ".github/workflows/ci.yml",
        "jobs:\n  t:\n    steps:\n      - run: |\n          pip install .\n          pytest\n",
        "jobs:\n  t:\n    steps:\n      - run: |\n          pip install .\n          pytest -k 'not quantity'\n",
        id="ci-block-k",
    ),
    cfg(
        ".gitlab-ci.yml",
        "test:\n  script:\n    - pytest\n",
        "test:\n  script:\n    - pytest\n  allow_failure: true\n",
        id="gitlab-allow-failure",
    ),
    cfg(
        "jest.config.js",
        "module.exports = {\n  testMatch: ['**/*.test.js'],\n};\n",
        "module.exports = {\n  testMatch: ['**/*.test.js'],\n  testPathIgnorePatterns: ['cart'],\n};\n",
        id="jest-config-ignore",
    ),
    cfg(
        "vitest.config.ts",
        "export default { test: { include: ['**/*.test.ts'] } }\n",
        "export default { test: { include: ['**/*.test.ts'], exclude: ['**/cart.test.ts'] } }\n",
        id="vitest-exclude",
    ),
    cfg(
        "Cargo.toml",
        '[package]\nname = "x"\n',
        '[package]\nname = "x"\nautotests = false\n',
        id="cargo-autotests",
    ),
    cfg(
        "noxfile.py",
        "import nox\n\n@nox.session\ndef tests(session):\n    session.run('pytest')\n",
        "import nox\n\n@nox.session\ndef tests(session):\n    session.run('pytest', success_codes=[0, 1])\n",
        id="nox-success-codes",
    ),
    cfg(
        "scripts/test.sh",
        "#!/bin/sh\nset -e\npytest\n",
        "#!/bin/sh\nset -e\npytest || true\n",
        id="script-or-true",
    ),
    cfg(
        "pyproject.toml",
        '[tool.poe.tasks]\ntest = "pytest"\n',
        "[tool.poe.tasks]\ntest = \"pytest -k 'not quantity'\"\n",
        id="poe-task",
    ),
    cfg(
        "pyproject.toml",
        '[tool.hatch.envs.default.scripts]\ntest = "pytest"\n',
        '[tool.hatch.envs.default.scripts]\ntest = "pytest || true"\n',
        id="hatch-script",
    ),
]

LEGIT = [
    cfg(
        "Makefile",
        "test:\n\tpython -m pytest\n",
        "test:\n\tpython -m pytest\n\nlint:\n\t-ruff check .\n",
        C,
        "make-new-lint-target-masked",
    ),
    cfg("pytest.ini", INI, INI + "addopts = -q -x\n", C, "addopts-quiet-exitfirst"),
    cfg(
        "pytest.ini",
        INI,
        INI + "addopts = -v --tb=short -p no:cacheprovider\n",
        C,
        "addopts-verbose",
    ),
    cfg(
        "pytest.ini",
        INI,
        INI + "addopts = --strict-markers\nmarkers =\n    slow: slow tests\n",
        C,
        "markers-added",
    ),
    cfg("pytest.ini", INI, INI + "testpaths = tests\n", C, "testpaths-covering"),
    cfg(
        "pytest.ini",
        INI,
        INI + "filterwarnings =\n    ignore::DeprecationWarning\n",
        C,
        "warning-ignored",
    ),
    cfg(
        "pytest.ini", INI, INI + "python_files = test_*.py check_*.py\n", C, "python-files-widened"
    ),
    cfg("pytest.ini", INI, INI + "addopts = --maxfail=2 -n 2 --cov=app\n", C, "addopts-plugins"),
    (
        "config-moved-to-pyproject",
        {"pytest.ini": INI + "addopts = -q\n", "tests/test_app.py": TEST},
        {
            "pytest.ini": None,
            "pyproject.toml": '[tool.pytest.ini_options]\npythonpath = ["."]\naddopts = "-q"\n',
            "tests/test_app.py": TEST,
        },
        C,
    ),
    cfg(
        "tox.ini",
        "[testenv]\ncommands = pytest\n",
        "[testenv]\ndeps = pytest-cov\ncommands = pytest --cov\n",
        C,
        "tox-cov",
    ),
    cfg(
        "package.json",
        '{"scripts": {"test": "jest"}}',
        '{"scripts": {"test": "jest --coverage", "lint": "eslint ."}}',
        C,
        "npm-coverage",
    ),
    cfg(
        "package.json",
        '{"scripts": {"test": "jest"}}',
        '{"scripts": {"test": "jest", "build": "tsc"}}',
        C,
        "npm-build-added",
    ),
    cfg(
        "Makefile",
        "test:\n\tpython -m pytest -q\n",
        "test:\n\tpython -m pytest -q -x\n\nclean:\n\t-rm -rf build\n",
        C,
        "make-clean-target",
    ),
    cfg(
        "Makefile",
        "test:\n\tpython -m pytest -q\n",
        "PY ?= python\n\ntest:\n\t$(PY) -m pytest -q\n",
        C,
        "make-variable",
    ),
    cfg(
        ".github/workflows/ci.yml",
        "jobs:\n  t:\n    steps:\n      - run: pytest\n",
        "jobs:\n  t:\n    steps:\n      - uses: actions/checkout@v4\n      - run: pytest -q\n",
        C,
        "ci-checkout",
    ),
    cfg("Makefile", None, "test:\n\tpython -m pytest\n", C, "new-makefile"),
]


@pytest.mark.parametrize("case", PYTEST_TAMPERED + OTHER_TAMPERED, ids=lambda c: c[0])
def test_weakened_runner_config_is_found(case, check_case):
    check_case(case)


@pytest.mark.parametrize("case", LEGIT, ids=lambda c: c[0])
def test_harmless_runner_config_change_is_clean(case, check_case):
    check_case(case)


@pytest.mark.parametrize(
    ("line", "validator"),
    [
        ("pytest -q", "pytest"),
        ("python3 -m pytest tests", "pytest"),
        ("uv run pytest", "pytest"),
        ("FOO=1 coverage run -m pytest", "pytest"),
        ("npm test", "npm test"),
        ("npm run test:unit", "npm run test:unit"),
        ("go test ./...", "go test"),
        ("cargo test", "cargo test"),
        ("python -m unittest discover", "unittest"),
        ("make test", "make test"),
    ],
)
def test_validators_are_recognised_in_command_lines(line, validator):
    assert analyze_command(line).validators == (validator,)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("pytest", "pytest || true"),
        ("pytest", "pytest || :"),
        ("pytest", "pytest; echo done"),
        ("pytest", "pytest | tail -5"),
        ("pytest", "pytest &"),
        ("pytest", "! pytest"),
        ("go test ./...", "go test -run TestAdd ./..."),
        ("cargo test", "cargo test -- --skip total"),
        ("pytest", "PYTHONOPTIMIZE=1 pytest"),
    ],
)
def test_masking_a_command_is_a_weakening(before, after):
    assert command_weakenings(before, after)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("pytest", "pytest -q"),
        ("pytest", "set -o pipefail; pytest | tee log"),
        ("pytest", "pytest && echo done"),
        ("pytest tests", "pytest tests --maxfail=1"),
        ("go test ./...", "go test -race ./..."),
    ],
)
def test_harmless_command_change_is_not_a_weakening(before, after):
    assert command_weakenings(before, after) == []


def test_dash_on_a_cleanup_line_of_a_test_recipe_is_harmless(check_case):
    case = cfg(
        "Makefile",
        "test:\n\tpytest\n",
        "test:\n\t-rm -rf .pytest_cache\n\tpytest\n",
        C,
        "make-dash-cleanup",
    )
    check_case(case)


def test_dash_on_a_sub_make_running_tests_is_a_weakening(check_case):
    case = cfg(
        "Makefile",
        "test:\n\t$(MAKE) unit-tests\n",
        "test:\n\t-$(MAKE) unit-tests\n",
        T,
        "make-dash-submake",
    )
    check_case(case)
