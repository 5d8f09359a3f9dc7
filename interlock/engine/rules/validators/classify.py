"""Recognising validators: which runner a command is, its tier, and selection masking.

`classify(inv, declared)` reads one invocation. Runners are found by name (`pytest`,
`/usr/bin/mypy`, `./gradlew`), through module and package-manager forms (`python3.11 -m
pytest`, `npx jest`, `pnpm exec vitest`, `yarn test`, `bundle exec rspec`, `uv run pytest`,
`coverage run -m pytest`), and as test/check scripts (`./run_tests.sh`, `bash scripts/lint.sh`).
Declared validators (config `validators`, exact command strings) are slow. Masking by exit
status (`|| true`, pipes) is the exit-flow module's; masking here is what the runner is told:
negative selection, collect-only, pass-with-no-tests, ignored failures, dry runs.
"""

from __future__ import annotations

import re
import shlex

from interlock.engine.findings import ValidatorMatch
from interlock.engine.invocation import Invocation
from interlock.engine.rules.args import parse_args, spec
from interlock.engine.rules.validators import build as build
from interlock.engine.rules.validators import javascript as js
from interlock.engine.rules.validators import native as sysr
from interlock.engine.rules.validators import python as py
from interlock.engine.rules.validators.forced import forced_success
from interlock.engine.rules.validators.regen import regenerating_flag, regenerating_variable
from interlock.engine.rules.validators.runner import (
    IGNORE_FAILURES,
    NO_RUN,
    REGENERATED,
    Inner,
    Seen,
    classify_name,
    is_test_file,
)
from interlock.engine.unwrap import shell_script
from interlock.shell.model import Word

_PYTHON = r"^(python|pypy)[0-9.]*(-dbg)?$|^py$"
_PYTEST = r"^(py\.test|pytest)(-?[0-9.]+)?$"
_SHELLS = frozenset(("bash", "sh", "zsh", "dash", "ksh"))
_SCRIPT_EXT = r"\.(sh|bash|zsh|py|rb|js|mjs|ts|pl|ps1|cmd|bat)$"
_PYTHON_VALUE = frozenset(("-W", "-X", "--check-hash-based-pycs"))
_COVERAGE_VALUE = frozenset(
    ("--rcfile", "--source", "--omit", "--include", "--concurrency", "--context", "--data-file")
)
NPX = spec(short_value="pc", long_value="package call node-options", stop_at_positional=True)
RUN_WRAPPER = spec(
    long_value="with python package extra group directory project env index-url from only-group",
    stop_at_positional=True,
)


def _checker(tool: str) -> Inner:
    return lambda words, inv: py.checker(tool, words)


def _fast(tool: str) -> Inner:
    return lambda words, inv: (
        Seen(tool, "fast")
        if not any(w.literal() in ("--help", "-h", "--version") for w in words)
        else None
    )


def _sub(tool: str, table: dict[str, str]) -> Inner:
    """Tools whose first word picks a tier: `ng test` slow, `ng lint` fast."""

    def recognise(words: tuple[Word, ...], inv: Invocation) -> Seen | None:
        sub = words[0].literal() if words else None
        tier = table.get(sub or "")
        return Seen(f"{tool} {sub}", "fast" if tier == "fast" else "slow") if tier else None

    return recognise


def _gofmt(words: tuple[Word, ...], inv: Invocation) -> Seen | None:
    lits = [w.literal() for w in words]
    return Seen("gofmt", "fast") if "-l" in lits or "-d" in lits else None


def _script_run(tool: str) -> Inner:
    """`pdm run X`, `hatch run env:X`, `pipenv run X`, `poetry run X`, `uv run X`, ..."""

    def recognise(words: tuple[Word, ...], inv: Invocation) -> Seen | None:
        sub = words[0].literal() if words else None
        if sub in ("test", "lint", "check", "typecheck") and tool in ("hatch", "rye", "pdm"):
            return Seen(f"{tool} {sub}", classify_name(sub) or "slow")
        if sub != "run" and tool != "uvx":  # `uvx TOOL` runs TOOL; the others say `run`
            return None
        start = 1 if sub == "run" else 0
        rest = parse_args(words[start:], RUN_WRAPPER).rest
        if not rest:
            return None
        found = _dispatch(rest, inv)
        if found is not None:
            return found
        name = rest[0].literal() or ""  # unknown: no name, no task
        tier = classify_name(name, unknown=None)
        return Seen(f"{tool} run {name}", tier) if tier else None

    return recognise


def _npx(words: tuple[Word, ...], inv: Invocation) -> Seen | None:
    rest = parse_args(words, NPX).rest
    return _dispatch(rest, inv) if rest else None


def _bundle(words: tuple[Word, ...], inv: Invocation) -> Seen | None:
    if not words or words[0].literal() != "exec":
        return None
    return _dispatch(words[1:], inv)


def _split_interpreter(
    words: tuple[Word, ...], takes_value: frozenset[str]
) -> tuple[str | None, tuple[Word, ...]] | None:
    """Options of python / coverage run up to `-m MODULE` or the script: (module, rest).

    None when the code is inline (`-c`, `-`) or a word is unknown.
    """
    i = 0
    while i < len(words):
        lit = words[i].literal()
        if lit is None or lit == "-" or lit.startswith("-c"):
            return None
        if lit == "-m":
            module = words[i + 1].literal() if i + 1 < len(words) else None
            return (module, words[i + 2 :]) if module else None
        if lit.startswith("-m"):
            return lit[2:], words[i + 1 :]
        if not lit.startswith("-"):
            return None, words[i:]
        i += 2 if lit in takes_value else 1
    return None


def _coverage(words: tuple[Word, ...], inv: Invocation) -> Seen | None:
    if not words or words[0].literal() != "run":
        return None
    split = _split_interpreter(words[1:], _COVERAGE_VALUE)
    if split is None:
        return None
    module, rest = split
    return _module(module, rest, inv) if module else _python_file(rest, inv)


def _module(module: str, words: tuple[Word, ...], inv: Invocation) -> Seen | None:
    """`python -m MODULE words`: the modules that are no command of their own, else the
    command of that name (`-m pytest`, `-m coverage`, `-m mypy`)."""
    if module == "unittest":
        return py.unittest(words, inv)
    if module == "django" and words and words[0].literal() == "test":
        return py.django_test(words[1:], inv)
    return _dispatch((Word(module, module),) + words, inv)


def _python_file(words: tuple[Word, ...], inv: Invocation) -> Seen | None:
    """A Python script and its words (the first is a literal path: the callers check)."""
    path = words[0].literal() or ""
    base = path.rpartition("/")[2]
    sub = words[1].literal() if len(words) > 1 else None
    if base == "manage.py" and sub == "test":
        return py.django_test(words[2:], inv)
    if base == "setup.py" and sub == "test":
        return Seen("setup.py test", "slow")
    if is_test_file(path):
        return Seen(base, "fast")
    return _script(path)


def _python(words: tuple[Word, ...], inv: Invocation) -> Seen | None:
    split = _split_interpreter(words, _PYTHON_VALUE)
    if split is None:
        return None
    module, rest = split
    return _module(module, rest, inv) if module else _python_file(rest, inv)


def _shell_script(argv: tuple[Word, ...], inv: Invocation) -> Seen | None:
    rest = parse_args(argv[1:], spec(short_value="o", stop_at_positional=True))
    if rest.has("-c") or not rest.rest or rest.rest[0].literal() is None:
        return None
    seen = _script(rest.rest[0].literal() or "")
    if seen is not None and shell_script(argv) is None:
        seen = seen.masked(NO_RUN, "-n reads the script without running it")
    return seen


def _script(path: str) -> Seen | None:
    """A test or check script by its file name: run_tests.sh, scripts/lint, ci.sh."""
    base = path.rpartition("/")[2]
    if not re.match(r"^[\w.+-]+$", base):
        return None
    stem = re.sub(_SCRIPT_EXT, "", base)
    tier = classify_name(re.sub(r"^run[_-]?", "", stem) or stem, unknown=None)
    return Seen(base, tier) if tier else None


def _table() -> dict[str, Inner]:
    table: dict[str, Inner] = {
        "tox": py.tox,
        "nox": py.nox,
        "ruff": py.ruff,
        "pre-commit": py.pre_commit,
        "coverage": _coverage,
        "bundle": _bundle,
        "npx": _npx,
        "pnpx": _npx,
        "bunx": _npx,
        "node": js.node,
        "biome": js.biome,
        "deno": js.deno,
        "tsc": js.checker("tsc"),
        "vue-tsc": js.checker("vue-tsc"),
        "eslint": js.checker("eslint"),
        "stylelint": js.checker("stylelint"),
        "xo": js.checker("xo"),
        "standard": js.checker("standard"),
        "prettier": js.checker("prettier", ("--check", "-c", "--list-different", "-l")),
        "playwright": js.after_subcommand("test", "playwright"),
        "cypress": js.after_subcommand("run", "cypress"),
        "karma": js.after_subcommand("start", "karma"),
        "next": _sub("next", {"lint": "fast", "build": "slow"}),
        "ng": _sub("ng", {"test": "slow", "e2e": "slow", "lint": "fast", "build": "slow"}),
        "go": sysr.go,
        "gofmt": _gofmt,
        "golangci-lint": _fast("golangci-lint"),
        "staticcheck": _fast("staticcheck"),
        "revive": _fast("revive"),
        "cargo": sysr.cargo,
        "cargo-nextest": sysr.cargo,
        "dotnet": sysr.dotnet,
        "rspec": sysr.rspec,
        "rake": sysr.rake,
        "rails": _sub("rails", {"test": "slow", "spec": "slow"}),
        "rubocop": _fast("rubocop"),
        "standardrb": _fast("standardrb"),
        "phpunit": sysr.phpunit("phpunit"),
        "pest": sysr.phpunit("pest"),
        "phpstan": _fast("phpstan"),
        "psalm": _fast("psalm"),
        "phpcs": _fast("phpcs"),
        "mix": sysr.mix,
        "swift": sysr.swift,
        "dart": sysr.dart("dart"),
        "flutter": sysr.dart("flutter"),
        "ctest": sysr.ctest,
        "make": build.make,
        "gmake": build.make,
        "just": build.just,
        "ninja": build.ninja,
        "cmake": build.cmake,
        "mvn": build.maven,
        "mvnw": build.maven,
        "gradle": build.gradle,
        "gradlew": build.gradle,
        "shellcheck": _fast("shellcheck"),
        "hadolint": _fast("hadolint"),
    }
    for name in ("bazel", "bazelisk", "blaze"):
        table[name] = sysr.bazel
    for name in ("jest", "vitest", "mocha", "ava"):
        table[name] = js.js_test_runner(name)
    for name in ("npm", "pnpm", "yarn", "bun"):
        table[name] = js.package_manager(name, lambda w, i: _dispatch(w, i))
    for name in ("turbo", "nx", "lerna"):
        table[name] = js.task_runner(name)
    for name in ("pdm", "hatch", "rye", "pipenv", "poetry", "uv", "uvx", "pipx"):
        table[name] = _script_run(name)
    for name in py._CHECKERS:
        table[name] = _checker(name)
    table["composer"] = js.package_manager("composer", lambda words, inv: None)
    return table


_TABLE = _table()


def _dispatch(argv: tuple[Word, ...], inv: Invocation) -> Seen | None:
    """Recognise `argv` (a command name and its words) as a validator run."""
    if not argv:
        return None
    cmd = argv[0].literal()
    if cmd is None:
        return None
    name = cmd.rpartition("/")[2].lstrip("\\")
    words = argv[1:]
    if re.match(_PYTEST, name):
        return py.pytest(words, inv)
    if re.match(_PYTHON, name):
        return _python(words, inv)
    if name in _SHELLS:
        return _shell_script(argv, inv)
    if name.endswith(".py"):
        return _python_file(argv, inv)
    if name == "php" and words:
        if words[0].literal() == "artisan" and len(words) > 1 and words[1].literal() == "test":
            return Seen("artisan test", "slow")
        return _dispatch(words, inv)
    if name == "ruby" and words and is_test_file(words[-1].literal() or ""):
        return Seen("ruby", "fast")
    recogniser = _TABLE.get(name)
    if recogniser is not None:
        return recogniser(words, inv)
    if "/" in cmd or re.search(_SCRIPT_EXT, name):
        return _script(cmd)
    return None


def _declared_words(command: str) -> list[str]:
    try:
        words = shlex.split(command)
    except ValueError:
        words = []  # an unbalanced quote declares nothing
    while words and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[0]):
        words.pop(0)
    if words:
        words[0] = words[0].removeprefix("./")
    return words


def _is_declared(inv: Invocation, declared: tuple[str, ...]) -> bool:
    argv = [w.literal() for w in inv.argv]
    if not argv or argv[0] is None:
        return False
    argv[0] = (argv[0] or "").removeprefix("./")
    for command in declared:
        words = _declared_words(command)
        if words and argv[: len(words)] == words:
            return True
    return False


def _told_to_pass(seen: Seen, inv: Invocation) -> Seen:
    """Flags and variables any runner may be given: forced success, regenerated expectations."""
    forced = forced_success(inv.argv)  # the command word is no flag
    if forced is not None:
        seen = seen.masked(IGNORE_FAILURES, f"{forced} makes it exit 0 whatever it finds")
    regen = regenerating_flag(inv.argv) or regenerating_variable(inv.assignments)
    if regen is not None:
        seen = seen.masked(REGENERATED, f"{regen} rewrites the expectations it checks against")
    return seen


_SCRIPT_RUNNERS = frozenset(("hatch run", "pdm run", "rye run"))


def _project_script(inv: Invocation) -> Seen | None:
    """`hatch run test`, `pdm run lint`: the walker hands over to `test`, which is a script
    of the project (not the `test` builtin); judged by its name, like `npm run NAME`."""
    if not inv.via or inv.via[-1] not in _SCRIPT_RUNNERS or not inv.argv:
        return None
    name = inv.argv[0].literal()
    tier = classify_name(name, unknown=None) if name else None
    return Seen(f"{inv.via[-1]} {name}", tier) if tier else None


def classify(inv: Invocation, declared: tuple[str, ...] = ()) -> ValidatorMatch | None:
    """The validator `inv` runs (tier, tool, masking), or None when it is not one."""
    seen = _dispatch(inv.argv, inv) or _project_script(inv)
    if _is_declared(inv, declared):
        seen = (
            Seen("declared", "slow")
            if seen is None
            else Seen(seen.tool, "slow", seen.masked_by, seen.rule)
        )
    if seen is None:
        return None
    seen = _told_to_pass(seen, inv)
    return ValidatorMatch(inv.text, seen.tier, seen.tool, seen.masked_by, seen.rule)
