"""Arguments that make a test runner select fewer tests or hide failures.

`runner_features(name, words)` reads the words of one runner invocation (`pytest -k 'not x'`,
`jest -t foo`, `go test -run X`, `cargo test -- --skip y`) and returns feature phrases plus
the test paths it was limited to. Features starting with `strict:` make the run stricter
(`--strict-markers`, `--doctest-modules`): losing one is a weakening too.
"""

from __future__ import annotations

import re

_PYTEST_VALUE_OPTS = frozenset(
    (
        "-k",
        "-m",
        "-p",
        "-c",
        "-o",
        "-W",
        "-r",
        "-n",
        "--deselect",
        "--ignore",
        "--ignore-glob",
        "--rootdir",
        "--basetemp",
        "--confcutdir",
        "--maxfail",
        "--tb",
        "--durations",
        "--junitxml",
        "--junit-xml",
        "--cov",
        "--cov-report",
        "--cov-config",
        "--cov-fail-under",
        "--log-level",
        "--log-cli-level",
        "--log-file",
        "--color",
        "--capture",
        "--import-mode",
        "--timeout",
        "--numprocesses",
        "--dist",
        "--randomly-seed",
        "--reruns",
        "--html",
        "--doctest-glob",
        "--override-ini",
        "--keyword",
        "--config-file",
        "--lfnf",
        "--last-failed-no-failures",
        "--deselect-glob",
        "--durations-min",
        "--log-format",
    )
)
HARMLESS_PLUGINS = frozenset(
    (
        "cacheprovider",
        "randomly",
        "random_order",
        "xdist",
        "sugar",
        "instafail",
        "html",
        "metadata",
        "benchmark",
        "rerunfailures",
        "flaky",
        "faulthandler",
        "pastebin",
        "nose",
        "junitxml",
        "stepwise",
        "logging",
        "legacypath",
        "terminal",
        "debugging",
        "setuponly",
        "setupplan",
        "freeze_support",
        "capture",
        "env",
        "dotenv",
        "timeout",
        "clarity",
        "icdiff",
        "emoji",
        "testmon",
        "hypothesispytest",
        "skipping",
        "threadexception",
        "picked",
        "unraisableexception",
        "pretty",
        "rich",
        "tldr",
        "warnings",
        "doctest",
    )
)
_NOTHING_RUNS = frozenset(
    (
        "--co",
        "--collect-only",
        "--collectonly",
        "--setup-only",
        "--setup-plan",
        "--fixtures",
        "--fixtures-per-test",
        "--markers",
        "--help",
        "-h",
        "--version",
        "-V",
        "--listTests",
        "--list",
        "-list",
        "--no-run",
        "--dry-run",
        "--list-tests",
    )
)
_PYTEST_STRICT = (
    "--doctest-modules",
    "--doctest-glob",
    "--strict-markers",
    "--strict-config",
    "--strict",
    "--runxfail",
    "-Werror",
)
_SENSITIVE_INI = (
    "python_files",
    "python_functions",
    "python_classes",
    "testpaths",
    "norecursedirs",
    "xfail_strict",
    "addopts",
    "filterwarnings",
)


def _split_opt(
    word: str, words: list[str], i: int, value_opts: frozenset[str]
) -> tuple[str, str | None, int]:
    """(option, value, next index) for `--opt=v`, `--opt v`, `-kEXPR`."""
    if word.startswith("--") and "=" in word:
        opt, value = word.split("=", 1)
        return opt, value, i + 1
    if word in value_opts:
        return word, (words[i + 1] if i + 1 < len(words) else ""), i + 2
    if len(word) > 2 and word[:2] in ("-k", "-m", "-p", "-o", "-W", "-c") and word[1] != "-":
        return word[:2], word[2:], i + 1
    return word, None, i + 1


def pytest_features(words: list[str]) -> tuple[set[str], list[str]]:
    """Features and positional paths of pytest arguments (no `pytest` word in front)."""
    features: set[str] = set()
    paths: list[str] = []
    i = 0
    while i < len(words):
        opt, value, i = _split_opt(words[i], words, i, _PYTEST_VALUE_OPTS)
        if opt in ("-k", "--keyword"):
            features.add(f"-k {value!r} runs only the tests it selects")
        elif opt == "-m" and value and value.strip():
            features.add(f"-m {value!r} runs only the tests it selects")
        elif opt in ("--deselect", "--deselect-glob"):
            features.add(f"--deselect {value}")
        elif opt in ("--ignore", "--ignore-glob"):
            features.add(f"{opt} {value}")
        elif opt == "-p" and value and value.startswith("no:"):
            plugin = value[3:]
            if plugin not in HARMLESS_PLUGINS:
                features.add(f"-p no:{plugin} disables a plugin that checks or collects tests")
        elif opt in ("-o", "--override-ini") and value:
            key = value.split("=", 1)[0].strip()
            if key in _SENSITIVE_INI:
                features.add(f"-o {value}")
        elif opt in ("-c", "--config-file"):
            features.add(f"{opt} {value} reads another configuration")
        elif opt in _NOTHING_RUNS:
            features.add(f"{opt} runs no tests")
        elif opt == "--suppress-no-test-exit-code":
            features.add(f"{opt} turns 'no tests ran' into success")
        elif opt.startswith(_PYTEST_STRICT) or (
            opt == "-W" and value and value.startswith("error")
        ):
            features.add(f"strict:{opt if value is None else opt + ' ' + value}")
        elif value is None and not opt.startswith("-") and opt:
            paths.append(opt)
    return features, paths


def _generic(
    words: list[str], selectors: dict[str, str], value_opts: frozenset[str]
) -> tuple[set[str], list[str]]:
    features: set[str] = set()
    paths: list[str] = []
    i = 0
    while i < len(words):
        opt, value, i = _split_opt(words[i], words, i, value_opts)
        if opt in selectors:
            features.add(f"{opt} {value or ''} {selectors[opt]}".replace("  ", " "))
        elif opt in _NOTHING_RUNS:
            features.add(f"{opt} runs no tests")
        elif opt in ("--forbid-only", "--forbid-pending"):
            features.add(f"strict:{opt}")
        elif value is None and not opt.startswith("-") and opt not in ("--",):
            paths.append(opt)
    return features, paths


_JS_SELECTORS = {
    "-t": "runs only matching tests",
    "--testNamePattern": "runs only matching tests",
    "--testPathIgnorePatterns": "ignores test files",
    "--testPathPattern": "runs only some files",
    "-o": "runs only changed files",
    "--onlyChanged": "runs only changed files",
    "--changedSince": "runs only changed files",
    "--lastCommit": "runs only changed files",
    "--changed": "runs only changed files",
    "--findRelatedTests": "runs only related tests",
    "--exclude": "excludes tests",
    "--grep": "runs only matching tests",
    "-g": "runs only matching tests",
    "--fgrep": "runs only matching tests",
    "-f": "runs only matching tests",
    "--invert": "inverts the selection",
    "-i": "inverts the selection",
    "--ignore": "ignores test files",
    "--passWithNoTests": "passes when no test ran",
    "--if-present": "passes when nothing runs",
}
_JS_VALUE_OPTS = frozenset(
    (
        "-t",
        "--testNamePattern",
        "--testPathIgnorePatterns",
        "--testPathPattern",
        "--changedSince",
        "--exclude",
        "--grep",
        "-g",
        "--fgrep",
        "-f",
        "--ignore",
        "--reporter",
        "--config",
        "-c",
        "--shard",
        "--maxWorkers",
        "-w",
        "--timeout",
        "--testTimeout",
    )
)
_GO_SELECTORS = {
    "-run": "runs only matching tests",
    "-skip": "skips matching tests",
    "-short": "skips tests that honour testing.Short()",
}
_CARGO_SELECTORS = {
    "--skip": "skips matching tests",
    "--ignored": "runs only ignored tests",
    "--exact": "runs only exact matches",
    "--lib": "runs only library tests",
    "--doc": "runs only doc tests",
    "--bins": "runs only binary tests",
    "--test": "runs only one test target",
}


def runner_features(name: str, words: list[str]) -> tuple[set[str], list[str]]:
    """Features of the invocation `words` of validator `name` (words[0] is the command)."""
    args = words[1:]
    if "-m" in args and name in ("pytest", "unittest", "tox", "nose2"):
        args = args[args.index("-m") + 2 :]
    base = name.split(" ")[0].split("/")[-1]
    if base in ("pytest", "py.test") or name.endswith(".py"):
        return pytest_features(args)
    if base in ("jest", "vitest", "mocha", "ava", "npm", "yarn", "pnpm", "bun", "playwright"):
        return _generic(args, _JS_SELECTORS, _JS_VALUE_OPTS)
    if base == "go":
        return _generic(
            args[1:],
            _GO_SELECTORS,
            frozenset(("-run", "-skip", "-tags", "-count", "-timeout", "-p")),
        )
    if base == "cargo":
        return _generic(
            [a for a in args[1:] if a != "--"],
            _CARGO_SELECTORS,
            frozenset(("--skip", "--test", "-p", "--package", "--features")),
        )
    if base == "tox":
        return _generic(args, {"-e": "runs only some environments"}, frozenset(("-e", "-c")))
    if base == "make":
        flags = {"-i": "ignores errors", "--ignore-errors": "ignores errors"}
        features, _ = _generic(args, flags, frozenset(("-C", "-f", "-j")))
        return features | {
            "-i ignores errors" for a in args if re.match(r"^-\w*i", a) and not a.startswith("--")
        }, []
    return set(), []
