"""Python validators: pytest, unittest, tox, nox, Django/setup.py test, linters and checkers."""

from __future__ import annotations

import posixpath
import shlex

from interlock.engine.invocation import Invocation
from interlock.engine.rules.args import Args, may_expand_to, parse_args, spec
from interlock.engine.rules.validators.forced import forced_success
from interlock.engine.rules.validators.regen import regenerating_flag
from interlock.engine.rules.validators.runner import (
    COLLECT_ONLY,
    IGNORE_FAILURES,
    NARROWED,
    NEGATIVE,
    NO_TESTS_OK,
    REGENERATED,
    Seen,
    all_targeted,
    classify_name,
    is_negative,
)
from interlock.shell.model import Word

PYTEST = spec(
    short_value="kmpcoWrn",
    long_value=(
        "deselect ignore ignore-glob rootdir confcutdir basetemp maxfail tb durations "
        "durations-min shard-id num-shards cov-report cov-config cov-fail-under junitxml junit-xml junit-prefix "
        "log-level log-file log-cli-level log-format log-date-format log-file-level "
        "log-file-format timeout count import-mode capture color code-highlight dist "
        "numprocesses maxprocesses reruns reruns-delay html override-ini randomly-seed splits "
        "group splitting-algorithm lfnf last-failed-no-failures"
    ),
    long_flags=(
        "collect-only co collectonly setup-only setup-plan fixtures funcargs fixtures-per-test "
        "markers version help "
        "exitfirst last-failed lf failed-first ff new-first nf stepwise sw runxfail pdb trace "
        "verbose quiet strict-markers strict-config pyargs suppress-no-test-exit-code "
        "suppress-tests-failed-exit-code cache-clear cache-show no-header no-summary showlocals"
    ),
)
UNITTEST = spec(
    short_value="kspt", long_value="durations start-directory pattern top-level-directory"
)
TOX = spec(short_value="ecnx", long_value="conf workdir root override installpkg factor")
NOX = spec(short_value="sktfp", long_value="sessions session keywords tags noxfile envdir python")

_INFO_FLAGS = (
    "-h",
    "--help",
    "--version",
    "-V",
    "--fixtures",
    "--funcargs",
    "--markers",
    "--cache-show",
)
# Runs of a part of the suite chosen by the runner: the tests that failed last time (--lf,
# --sw), a shard (pytest-split's --group, pytest-shard), the tests of changed code (testmon,
# picked).
_PART = (
    "--lf",
    "--last-failed",
    "--sw",
    "--stepwise",
    "--sw-skip",
    "--stepwise-skip",
    "--group",
    "--shard-id",
    "--num-shards",
    "--picked",
    "--testmon",
)
# Runs that collect the tests (and may set up their fixtures) but run none of them.
_COLLECT = (
    "--collect-only",
    "--co",
    "--collectonly",
    "--setup-only",
    "--setup-plan",
    "--fixtures-per-test",
)
_FAST_ENVS = frozenset(
    "lint linters flake8 pylint mypy type types typing typecheck type-check check-types pep8 "
    "ruff black isort style pre-commit precommit format-check fmt-check".split()
)


def _drop_cov_source(words: tuple[Word, ...]) -> tuple[Word, ...]:
    """pytest-cov's `--cov [SOURCE]` takes the next word when it is not an option: the pair
    selects no test, so it goes (`pytest --cov tests/test_a.py` is the whole suite)."""
    kept: list[Word] = []
    i = 0
    while i < len(words):
        lit = words[i].literal()
        nxt = words[i + 1].literal() if i + 1 < len(words) else None
        if lit == "--cov" and nxt is not None and not nxt.startswith("-"):
            i += 2
            continue
        kept.append(words[i])
        i += 1
    return tuple(kept)


def _split(text: str) -> tuple[Word, ...]:
    try:
        return tuple(Word(p, p) for p in shlex.split(text))
    except ValueError:
        return ()


def _addopts(inv: Invocation, words: tuple[Word, ...]) -> tuple[Word, ...]:
    """Words from PYTEST_ADDOPTS and from `-o addopts=...` (they count as if typed)."""
    found: tuple[Word, ...] = ()
    for word in inv.assignments:
        name, _, value = (word.literal() or "").partition("=")
        if name == "PYTEST_ADDOPTS":
            found += _split(value)
    for opt in parse_args(words, PYTEST).values("-o", "--override-ini"):
        key, _, value = (opt.value or "").partition("=")
        if key == "addopts":
            found += _split(value)
    return found


def _unknown_addopts(inv: Invocation, words: tuple[Word, ...]) -> str | None:
    """PYTEST_ADDOPTS or `-o addopts=...` whose value is known only at run time: its text (the
    options in it may deselect tests, forge the status or regenerate snapshots)."""
    for word in inv.assignments:
        if word.literal() is None and word.text.partition("=")[0] == "PYTEST_ADDOPTS":
            return word.text
    for opt in parse_args(words, PYTEST).values("-o", "--override-ini"):
        if opt.unknown_value and may_expand_to(opt.prefix, "addopts="):
            return f"{opt.name} {opt.text}"
    return None


# Directories no test of the project is ever in, wherever they are: tools' environments and
# caches.
_NEVER_TESTS = frozenset(
    "node_modules venv .venv .tox .nox site-packages .git __pycache__ .eggs .mypy_cache "
    ".pytest_cache .ruff_cache".split()
)
# Output, documentation and vendored directories, and the project's scripts that are not tests:
# no test of the project, unless they are inside a test directory (`tests/build` holds the
# tests of the build code).
_NOT_TESTS = frozenset(
    "build dist env .env docs doc vendor third_party target out htmlcov "
    "setup.py noxfile.py conf.py manage.py fabfile.py tasks.py wsgi.py asgi.py".split()
)


def _names_tests(part: str) -> bool:
    low = part.lower()
    return "test" in low or "spec" in low


def _leaves_out_tests(path: str, glob: bool) -> bool:
    """Does `--ignore PATH` / `--ignore-glob GLOB` leave out tests of the project?

    A glob leaves out tests unless one of its directories holds none (a glob over `*slow*`
    matches test files wherever they are); a path does when it names a test file or folder
    (`tests/`, `test_api.py`, any `.py` module but setup.py and the like).
    """
    # `build/../tests` is `tests`: a directory named on the way out does not exempt the path
    parts = posixpath.normpath(path.strip("'\"")).split("/")
    for k, part in enumerate(parts):
        if part in _NEVER_TESTS or part.endswith(".egg-info"):
            return False
        if part in _NOT_TESTS and not any(_names_tests(p) for p in parts[:k]):
            return False
    if glob:
        return True
    low = path.lower()
    return _names_tests(low) or low.endswith(".py")


def pytest_masking(seen: Seen, args: Args) -> Seen:
    """Negative selection, collect-only, no-tests-is-ok and exit-code suppressing flags."""
    for opt in args.values("-k"):
        if opt.unknown_value:
            seen = seen.masked(
                NEGATIVE, f"`-k {opt.text}`, known only at run time, may deselect tests"
            )
        elif opt.text is not None and (is_negative(opt.text) or opt.text.startswith("-")):
            seen = seen.masked(NEGATIVE, f"`-k {opt.text}` deselects tests by name")
    if args.has("--deselect"):
        seen = seen.masked(NEGATIVE, "--deselect skips tests")
    for opt in args.values("--ignore", "--ignore-glob"):
        glob = opt.name == "--ignore-glob"
        if opt.text is None or opt.unknown_value or _leaves_out_tests(opt.text, glob):
            seen = seen.masked(NEGATIVE, f"{opt.name} {opt.text or ''} leaves tests out".strip())
    if args.has("--suppress-tests-failed-exit-code"):
        seen = seen.masked(IGNORE_FAILURES, "failing tests no longer fail the run")
    for opt in args.values("-m"):
        if opt.unknown_value:
            seen = seen.masked(
                NARROWED,
                f"`-m {opt.text}`, known only at run time, may leave a marked category out",
            )
        elif opt.text is not None and is_negative(opt.text):
            seen = seen.masked(NARROWED, f"`-m {opt.text}` leaves a marked category out")
    if args.has(*_COLLECT):
        seen = seen.masked(COLLECT_ONLY, "collecting tests runs none of them")
    if args.has("--suppress-no-test-exit-code"):
        seen = seen.masked(NO_TESTS_OK, "running no tests counts as success")
    return seen


def pytest(words: tuple[Word, ...], inv: Invocation) -> Seen | None:
    addopts = _addopts(inv, words)
    args = parse_args(_drop_cov_source(words + addopts), PYTEST)
    if args.has(*_INFO_FLAGS):
        return None
    # a selection known only at run time is no narrowing: it is masked as one that may exclude
    positive = any(opt.value and not is_negative(opt.value) for opt in args.values("-k", "-m"))
    narrowed = positive or args.has(*_PART)
    paths = args.operands()
    seen = Seen("pytest", "slow").tiered(narrowed or all_targeted(paths))
    seen = pytest_masking(seen, args)
    unknown = _unknown_addopts(inv, words)
    if unknown is not None:
        seen = seen.masked(
            NEGATIVE, f"`{unknown}` is known only at run time: it may deselect tests"
        )
    forced = forced_success(addopts)  # PYTEST_ADDOPTS counts as if typed
    if forced is not None:
        seen = seen.masked(IGNORE_FAILURES, f"{forced} makes it exit 0 whatever it finds")
    regen = regenerating_flag(addopts)
    if regen is not None:
        seen = seen.masked(REGENERATED, f"{regen} rewrites the snapshots it checks against")
    return seen


def unittest(words: tuple[Word, ...], inv: Invocation) -> Seen | None:
    args = parse_args(words, UNITTEST)
    if args.has("-h", "--help"):
        return None
    names = args.operands()  # test names, or `discover` and its start directory
    targeted = bool(names) and not any(w.literal() == "discover" for w in names)
    seen = Seen("unittest", "slow").tiered(targeted or args.has("-k"))
    for opt in args.values("-k"):
        if opt.unknown_value or (opt.text is not None and is_negative(opt.text)):
            seen = seen.masked(NEGATIVE, f"`-k {opt.text}` deselects tests")
    return seen


def _env_tier(names: list[str]) -> Seen:
    fast = bool(names) and all(n.lower() in _FAST_ENVS or classify_name(n) == "fast" for n in names)
    return Seen("", "fast" if fast else "slow")


def _posargs_masking(seen: Seen, args: Args) -> Seen:
    """What tox/nox pass on to the test command after `--` (pytest's flags, by far)."""
    inner = parse_args(args.after_dashdash, PYTEST)
    return pytest_masking(seen, inner)


def tox(words: tuple[Word, ...], inv: Invocation) -> Seen | None:
    args = parse_args(words, TOX)
    listing = args.has("-l", "-a", "--listenvs", "--listenvs-all", "--help", "-h", "--version")
    command = args.positionals[0].literal() if args.positionals else None
    if listing or command in (
        "list",
        "l",
        "config",
        "c",
        "devenv",
        "d",
        "quickstart",
        "depends",
        "de",
    ):
        return None
    envs = [n for opt in args.values("-e") for n in (opt.value or "").split(",") if n]
    seen = Seen("tox", _env_tier(envs).tier)
    for opt in args.values("--skip-missing-interpreters"):
        if (opt.value or "true").lower() in ("true", "1", "yes"):
            seen = seen.masked(NO_TESTS_OK, "an environment whose Python is missing is skipped")
    return _posargs_masking(seen, args)


def nox(words: tuple[Word, ...], inv: Invocation) -> Seen | None:
    args = parse_args(words, NOX)
    if args.has("-l", "--list", "--list-sessions", "--help", "-h", "--version"):
        return None
    sessions = [
        n
        for opt in args.values("-s", "--session", "--sessions", "-e")
        for n in (opt.value or "").split(",")
        if n
    ]
    seen = Seen("nox", _env_tier(sessions).tier)
    for opt in args.values("-k", "--keywords"):
        if opt.unknown_value or (opt.text is not None and is_negative(opt.text)):
            seen = seen.masked(NEGATIVE, f"`-k {opt.text}` leaves sessions out")
    return _posargs_masking(seen, args)


def django_test(words: tuple[Word, ...], inv: Invocation) -> Seen | None:
    """`python manage.py test [labels]`."""
    args = parse_args(words, spec(long_value="settings pythonpath exclude-tag tag parallel"))
    labels = args.operands()
    seen = Seen("django test", "fast" if labels else "slow")
    if args.has("--exclude-tag"):
        seen = seen.masked(NARROWED, "--exclude-tag leaves a tagged category out")
    return seen


# Linters and checkers: (tool name, flags that make it a check when it would otherwise write).
_CHECKERS: dict[str, tuple[str, ...]] = {
    "flake8": (),
    "pylint": (),
    "mypy": (),
    "dmypy": (),
    "pyright": (),
    "basedpyright": (),
    "pyre": (),
    "pytype": (),
    "bandit": (),
    "pydocstyle": (),
    "pycodestyle": (),
    "pyflakes": (),
    "pyroma": (),
    "black": ("--check", "--diff"),
    "isort": ("--check", "--check-only", "-c", "--diff"),
    "autopep8": ("--diff",),
    "yapf": ("--diff", "-d"),
    "blue": ("--check", "--diff"),
}


def checker(tool: str, words: tuple[Word, ...]) -> Seen | None:
    """A Python linter/type checker/format check (fast), or None for a formatter that writes."""
    lits = [w.literal() for w in words]
    if any(lit in ("--help", "-h", "--version", "-V") for lit in lits):
        return None
    needs = _CHECKERS[tool]
    if needs and not any(lit in needs for lit in lits):
        return None
    return Seen(tool, "fast")


def ruff(words: tuple[Word, ...], inv: Invocation) -> Seen | None:
    lits = [w.literal() for w in words]
    sub = next((lit for lit in lits if lit is not None and not lit.startswith("-")), None)
    if any(lit in ("--help", "-h", "--version", "-V") for lit in lits):
        return None
    if sub is None or sub == "check" or sub.startswith((".", "/")):
        return Seen("ruff", "fast")
    if sub == "format" and any(lit in ("--check", "--diff") for lit in lits):
        return Seen("ruff", "fast")
    return None


def pre_commit(words: tuple[Word, ...], inv: Invocation) -> Seen | None:
    lits = [w.literal() for w in words]
    if any(lit in ("--help", "-h", "--version", "-V") for lit in lits):
        return None
    # the subcommand (`run` when none is given); an unknown word is no known one
    sub = next((lit for lit in lits if lit is None or not lit.startswith("-")), "run")
    return Seen("pre-commit", "fast") if sub in ("run", "try-repo") else None
