"""Build tools as validators: make/gmake/just/ninja, cmake --build, maven, gradle.

A bare `make` builds the default goal: slow. Targets are tiered by name (`test`, `check`,
`build`, `all` slow; `lint`, `typecheck`, `fmt-check` fast; `clean`, `install`, `run` not a
check; any other target is a program being built: slow). `make -i` hides failures (the exit
status is 0 even when a recipe fails); `make -k` does not (it still exits 2), so it is not
masking. `make -n`/`-t`/`-q` run nothing.
"""

from __future__ import annotations

from interlock.engine.findings import Tier
from interlock.engine.invocation import Invocation
from interlock.engine.rules.args import Args, literal_or_text, literal_prefix, parse_args, spec
from interlock.engine.rules.validators.runner import (
    IGNORE_FAILURES,
    NARROWED,
    NEGATIVE,
    NO_RUN,
    NO_TESTS_OK,
    Seen,
    classify_name,
    slowest,
)
from interlock.shell.model import Word

MAKE = spec(
    short_value="CfIoWE",
    long_value="directory file makefile include-dir old-file new-file what-if assume-old assume-new eval",
    long_flags=(
        "ignore-errors keep-going dry-run just-print recon question touch silent quiet "
        "always-make environment-overrides no-print-directory print-directory jobs "
        "load-average debug output-sync warn-undefined-variables check-symlink-times"
    ),
)
JUST = spec(
    short_value="fd",
    long_value="justfile working-directory set dotenv-path shell",
    long_flags="dry-run list summary show evaluate",
)
NINJA = spec(short_value="CfjklwdtO", long_flags="verbose quiet version")
MAVEN = spec(
    short_value="fsPTblD",
    long_value="file settings activate-profiles threads projects resume-from",
    long_flags="fail-never fail-at-end fail-fast batch-mode quiet offline",
)
GRADLE = spec(
    short_value="xpbcIgD",
    long_value="exclude-task project-dir build-file settings-file init-script gradle-user-home tests max-workers console",
    long_flags="dry-run continue offline quiet info debug stacktrace parallel",
)

_MASKING_MAKEFLAGS = {
    "i": (IGNORE_FAILURES, "make -i ignores failing recipes"),
    "n": (NO_RUN, "make -n runs nothing"),
}


def _makeflags(inv: Invocation) -> Args | None:
    """The options of MAKEFLAGS, from the environment or a `make ... MAKEFLAGS=-i` argument
    (make reads variable assignments among its arguments too): a first word without a dash is
    single-letter flags (`ki`), the other words are options (`-k -i`, `--ignore-errors`) up to
    `--`. None when they are known only at run time (`MAKEFLAGS="$X"`)."""
    for word in inv.assignments + inv.argv:  # the command word is no assignment
        lit = word.literal()
        if lit is None and literal_prefix(word).startswith(("MAKEFLAGS=", "MFLAGS=")):
            return None
        if lit is not None and lit.startswith(("MAKEFLAGS=", "MFLAGS=")):
            parts = lit.partition("=")[2].split()
            if parts and not parts[0].startswith("-") and "=" not in parts[0]:
                parts[0] = "-" + parts[0]
            return parse_args(tuple(Word(p, p) for p in parts), MAKE)
    return Args()


def _numeric_jobs(words: tuple[Word, ...]) -> tuple[Word, ...]:
    """`make -j 4 test`: drop the optional numeric value of -j/-l so it is not a target."""
    kept: list[Word] = []
    for i, word in enumerate(words):
        prev = words[i - 1].literal() if i else None
        if (
            prev in ("-j", "-l", "--jobs", "--load-average")
            and (word.literal() or "").replace(".", "").isdigit()
        ):
            continue
        kept.append(word)
    return tuple(kept)


def _make_like(tool: str, words: tuple[Word, ...], inv: Invocation) -> Seen | None:
    ninja = tool == "ninja"
    args = parse_args(_numeric_jobs(words), NINJA if ninja else MAKE)
    # ninja's -v is verbose, and its -t runs a subtool (clean, targets, graph), no build
    info = ("--help", "-h", "--version") + (("-t",) if ninja else ("-v", "-p", "--print-data-base"))
    if args.has(*info):
        return None
    operands = [w for w in args.operands() if "=" not in literal_or_text(w)]
    if tool == "just":
        if args.has("-l", "--list", "--summary", "--show", "--evaluate"):
            return None
        operands = operands[:1]
    tiers = [classify_name(literal_or_text(w)) for w in operands]
    tier = slowest(tiers) if operands else "slow"
    if tier is None:
        return None
    seen = Seen(tool, tier)
    flags = _makeflags(inv)
    if flags is None:
        seen = seen.masked(IGNORE_FAILURES, "MAKEFLAGS, known only at run time, may hold -i")
        flags = Args()
    told = Args(args.opts + flags.opts)  # the options given and those of MAKEFLAGS
    if told.has("-i", "--ignore-errors"):
        seen = seen.masked(IGNORE_FAILURES, f"{tool} -i ignores failing recipes (exit status 0)")
    dry = ("-n",) if ninja else ("-n", "--dry-run", "--just-print", "--recon", "-t", "--touch")
    if told.has(*dry, "-q", "--question"):
        seen = seen.masked(NO_RUN, f"{tool} -n/-t/-q runs no recipe")
    return seen


def make(words: tuple[Word, ...], inv: Invocation) -> Seen | None:
    return _make_like("make", words, inv)


def just(words: tuple[Word, ...], inv: Invocation) -> Seen | None:
    return _make_like("just", words, inv)


def ninja(words: tuple[Word, ...], inv: Invocation) -> Seen | None:
    return _make_like("ninja", words, inv)


def cmake(words: tuple[Word, ...], inv: Invocation) -> Seen | None:
    lits = [w.literal() or "" for w in words]
    if "--build" not in lits:
        return None
    targets: list[str] = []
    for i, lit in enumerate(lits):
        if lit in ("--target", "-t") and i + 1 < len(lits):
            targets += lits[i + 1].split(",")
    tier = slowest([classify_name(t) for t in targets]) if targets else "slow"
    return Seen("cmake --build", tier) if tier else None


_MAVEN_FAST = frozenset(("compile", "test-compile", "validate"))
_MAVEN_SLOW = frozenset(("test", "verify", "package", "install", "integration-test", "deploy"))


def maven(words: tuple[Word, ...], inv: Invocation) -> Seen | None:
    args = parse_args(words, MAVEN)
    # -Dkey=value, -D key=value (a value flag: -Dx never reads as a cluster of flags)
    props = dict((o.value or "").partition("=")[::2] for o in args.values("-D"))
    phases = [literal_or_text(w).rpartition(":")[2] for w in args.operands()]
    tier: Tier
    if any(p in _MAVEN_SLOW for p in phases):
        tier = "slow"
    elif any(
        p in _MAVEN_FAST or p == "check" or classify_name(p, unknown=None) == "fast" for p in phases
    ):
        tier = "fast"
    else:
        return None
    # -DskipTests, -DskipTests=true (=false runs them), -Dmaven.test.skip[=true]
    skip = props.get("skipTests", "false") != "false" or props.get("maven.test.skip") in (
        "",
        "true",
    )
    seen = Seen("maven", "fast" if "test" in props and not is_excluding(props["test"]) else tier)
    if skip:
        if "test" in phases:
            return seen.masked(NO_RUN, "-DskipTests runs no tests")
        return Seen("maven", "fast")
    if "test" in props and is_excluding(props["test"]):
        seen = seen.masked(NEGATIVE, f"-Dtest={props['test']} leaves tests out")
    if props.get("excludedGroups") or props.get("groups", "").startswith("!"):
        seen = seen.masked(NARROWED, "excluded groups leave a category of tests out")
    for key in ("surefire.failIfNoSpecifiedTests", "failIfNoTests", "failIfNoSpecifiedTests"):
        if props.get(key, "true").lower() == "false":
            seen = seen.masked(NO_TESTS_OK, f"-D{key}=false makes a selection of no tests pass")
    if props.get("maven.test.failure.ignore") in ("", "true") or args.has("--fail-never", "-fn"):
        seen = seen.masked(IGNORE_FAILURES, "test failures are ignored")
    return seen


def is_excluding(selector: str) -> bool:
    return any(part.strip().startswith("!") for part in selector.split(","))


_GRADLE_FAST = frozenset(
    (
        "compileJava",
        "compileKotlin",
        "compileTestJava",
        "classes",
        "assemble",
        "lint",
        "detekt",
        "ktlintCheck",
        "spotlessCheck",
        "checkstyleMain",
    )
)


def gradle(words: tuple[Word, ...], inv: Invocation) -> Seen | None:
    args = parse_args(words, GRADLE)
    tasks = [literal_or_text(w).rpartition(":")[2] for w in args.operands()]
    excluded = {(o.value or "").rpartition(":")[2] for o in args.values("-x", "--exclude-task")}
    tiers = ["fast" if t in _GRADLE_FAST else classify_name(t, unknown=None) for t in tasks]
    tier = slowest(list(tiers))
    if tier is None:
        return None
    if args.has("--tests"):
        tier = "fast"
    if "test" in excluded and tier == "slow":
        if "test" in tasks:
            return Seen("gradle", tier).masked(NO_RUN, "-x test runs no tests")
        tier = "fast"
    seen = Seen("gradle", tier)
    if args.has("--dry-run", "-m"):
        seen = seen.masked(NO_RUN, "--dry-run runs no task")
    return seen
