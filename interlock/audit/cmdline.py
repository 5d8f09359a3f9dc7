"""What a test command written into a config file does: which validators it runs, and what
masks them (`|| true`, `; exit 0`, a pipe without pipefail, `-k 'not x'`, `--passWithNoTests`).

Used for tox commands, package.json scripts, Makefile recipes, CI `run:` steps and addopts.
A light tokenizer (shlex with shell punctuation) is enough here: these are short command lines
a person wrote into a file, and anything unreadable counts as a change to look at.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

from interlock.audit.runnerargs import runner_features

_DIRECT = frozenset(
    (
        "pytest",
        "py.test",
        "tox",
        "nox",
        "jest",
        "vitest",
        "mocha",
        "ava",
        "tap",
        "jasmine",
        "karma",
        "ctest",
        "rspec",
        "phpunit",
        "nose2",
        "nosetests",
        "trial",
        "behave",
        "mypy",
        "ruff",
        "flake8",
        "pylint",
        "pyright",
        "eslint",
        "tsc",
        "playwright",
        "cypress",
    )
)
_SUBCOMMANDS = {
    "go": ("test", "vet"),
    "cargo": ("test", "nextest", "check", "clippy"),
    "npm": ("test", "t", "run", "run-script"),
    "yarn": ("test", "run"),
    "pnpm": ("test", "run", "t"),
    "bun": ("test", "run"),
    "make": ("test", "check", "tests", "ci", "verify", "all"),
    "mvn": ("test", "verify", "package", "install"),
    "gradle": ("test", "check", "build"),
    "gradlew": ("test", "check", "build"),
    "dotnet": ("test",),
    "deno": ("test",),
}
_WRAPPERS = frozenset(
    (
        "env",
        "time",
        "nice",
        "exec",
        "sudo",
        "command",
        "xvfb-run",
        "npx",
        "pnpx",
        "bunx",
        "uv",
        "poetry",
        "pipenv",
        "hatch",
        "pdm",
        "rye",
        "run",
        "dlx",
        "coverage",
        "nohup",
    )
)
_SUCCESS_WORDS = frozenset(("true", ":", "echo", "printf", "exit", "/bin/true", "/usr/bin/true"))
_PYTHON = re.compile(r"^(python[0-9.]*|pypy[0-9.]*|\$[({]?\w*PY\w*[)}]?)$", re.I)
_OPERATORS = frozenset(("||", "&&", ";", "|", "&", "|&", ";;", "(", ")"))


@dataclass(frozen=True)
class CommandInfo:
    """The validators a command line runs and how their results are masked or narrowed."""

    validators: tuple[str, ...]
    features: frozenset[str]
    paths: tuple[str, ...]


def _variable(match: re.Match[str]) -> str:
    name = match.group(1)
    if name == "MAKE":
        return "make"
    return "python" if "PY" in name.upper() and "ARGS" not in name.upper() else f"__{name}__"


def tokens(line: str) -> list[str]:
    """Words and shell operators; `$(VAR)` / `${VAR}` references kept as one word."""
    line = re.sub(r"\$[({](\w+)[)}]", _variable, line)
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        return list(lexer)
    except ValueError:
        return re.findall(r"\|\||&&|[;|&()]|[^\s;|&()]+", line)


def _segments(tokens: list[str]) -> list[tuple[list[str], str]]:
    """Simple commands and the operator that follows each."""
    segments: list[tuple[list[str], str]] = []
    words: list[str] = []
    for token in tokens:
        if token in _OPERATORS:
            segments.append((words, token))
            words = []
        else:
            words.append(token)
    segments.append((words, ""))
    return [(w, op) for w, op in segments if w or op not in ("(", ")")]


def _strip(words: list[str]) -> list[str]:
    """Drop assignments and wrappers (`FOO=1 uv run coverage run -m pytest` -> pytest ...)."""
    i = 0
    while i < len(words):
        word = words[i].rsplit("/", 1)[-1]
        if word == "!":
            i += 1
            continue
        if (
            re.match(r"^\w+=", words[i])
            or word in _WRAPPERS
            or (word == "timeout" and i + 1 < len(words))
        ):
            i += 2 if word == "timeout" else 1
            continue
        if word.startswith("-") and i > 0 and words[i - 1].rsplit("/", 1)[-1] in _WRAPPERS:
            i += 1
            continue
        break
    return words[i:]


_CHECKERS = frozenset(
    (
        "mypy",
        "ruff",
        "flake8",
        "pylint",
        "pyright",
        "eslint",
        "tsc",
        "go vet",
        "cargo check",
        "cargo clippy",
    )
)


def runs_tests(text: str) -> bool:
    """Does a script run a test runner (not only linters and type checkers)?"""
    return any(v not in _CHECKERS for v in analyze_command(text).validators)


def validator_of(words: list[str]) -> str | None:
    """The validator a simple command runs, e.g. `python -m pytest` -> `pytest`."""
    words = _strip(words)
    if not words:
        return None
    head = words[0].rsplit("/", 1)[-1]
    if head in ("$(MAKE)", "${MAKE}"):
        head = "make"
    if head in _DIRECT:
        return head
    if _PYTHON.match(head):
        rest = [w for w in words[1:] if w not in ("-O", "-OO", "-u", "-B", "-W", "-X")]
        if len(rest) >= 2 and rest[0] == "-m":
            module = rest[1]
            return (
                module
                if module in _DIRECT or module in ("unittest", "doctest")
                else (validator_of(rest[1:]) or None)
            )
        if rest and rest[0].endswith(".py") and re.search(r"test|check", rest[0], re.I):
            return rest[0]
        return None
    subs = _SUBCOMMANDS.get(head.lstrip("./"))
    if subs and len(words) > 1:
        sub = next((w for w in words[1:] if not w.startswith("-")), "")
        if head in ("make", "gmake") and re.search(r"test|check|verify", sub):
            return f"make {sub}"
        if sub in subs:
            if sub in ("run", "run-script") and len(words) > 2:
                target = words[words.index(sub) + 1] if words.index(sub) + 1 < len(words) else ""
                return (
                    f"{head} run {target}" if re.search(r"test|check|ci|verify", target) else None
                )
            return f"{head} {sub}"
    return None


def _python_optimized(words: list[str]) -> bool:
    if any(re.match(r"^PYTHONOPTIMIZE=(?!0?$)", w) for w in words):
        return True
    for i, word in enumerate(words):
        if _PYTHON.match(word.rsplit("/", 1)[-1]):
            return any(w in ("-O", "-OO") for w in words[i + 1 : i + 4])
    return False


def analyze_command(text: str) -> CommandInfo:
    """Validators, masking/narrowing features and test path arguments of a script: each line
    (backslash continuations joined) is one command line."""
    validators: list[str] = []
    features: set[str] = set()
    paths: list[str] = []
    for line in re.sub(r"\\\n", " ", text).splitlines():
        info = _analyze_line(line)
        validators.extend(info.validators)
        features |= info.features
        paths.extend(info.paths)
    return CommandInfo(tuple(validators), frozenset(features), tuple(paths))


def _analyze_line(line: str) -> CommandInfo:
    validators: list[str] = []
    features: set[str] = set()
    paths: list[str] = []
    words = tokens(line)
    segments = _segments(words)
    pipefail = "pipefail" in line
    for index, (words, op) in enumerate(segments):
        name = validator_of(words)
        if name is None:
            if words and words[0] == "exit" and words[1:2] in (["0"], []) and index > 0:
                features.add("ends with `exit 0`")
            continue
        validators.append(name)
        stripped = _strip(words)
        found, found_paths = runner_features(name, stripped)
        features |= found
        paths.extend(found_paths)
        if _python_optimized(words):
            features.add("python -O strips every assert statement")
        if words and words[0] == "!":
            features.add(f"`! {name}` inverts the result")
        features |= _mask(name, op, segments[index + 1 :], pipefail)
    if "--passWithNoTests" in line or "--pass-with-no-tests" in line:
        features.add("--passWithNoTests")
    return CommandInfo(tuple(validators), frozenset(features), tuple(paths))


def _mask(name: str, op: str, rest: list[tuple[list[str], str]], pipefail: bool) -> set[str]:
    following = rest[0][0] if rest else []
    head = following[0].rsplit("/", 1)[-1] if following else ""
    if op == "||":
        if head in _SUCCESS_WORDS and following[1:2] not in (["1"], ["$?"]):
            return {f"`{name} || {' '.join(following)}` masks its failure"}
        if head and head not in ("false", "exit"):
            return {f"`{name} || {head} ...` replaces its failure with another command's result"}
    if op == "|" and not pipefail:
        return {f"`{name} | {head}` without pipefail hides its exit status"}
    if op == "&":
        return {f"`{name} &` runs it in the background"}
    if op == ";" and rest and any(w for w, _ in rest):
        return {f"`{name}; {' '.join(following)}` continues after a failure"}
    return set()


def command_weakenings(before: str | None, after: str) -> list[str]:
    """How the after command line checks less than the before one (human phrases)."""
    old = analyze_command(before) if before is not None else CommandInfo((), frozenset(), ())
    new = analyze_command(after)
    found = sorted(f for f in new.features - old.features if not f.startswith("strict:"))
    found += sorted(
        f"dropped {f[7:]}" for f in old.features - new.features if f.startswith("strict:")
    )
    lost = [v for v in old.validators if v not in new.validators]
    if lost:
        found.append(f"no longer runs {', '.join(lost)}")
    new_paths = [p for p in new.paths if p not in old.paths]
    dropped = [p for p in old.paths if p not in new.paths]
    if new_paths and (dropped or any(p.endswith(".py") or "::" in p for p in new_paths)):
        found.append(f"now only runs {', '.join(new_paths)}")
    return found
