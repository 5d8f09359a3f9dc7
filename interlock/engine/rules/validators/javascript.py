"""JavaScript/TypeScript validators: package-manager scripts, jest, vitest, mocha, ava,
playwright, cypress, node --test, bun/deno test, tsc, eslint, prettier, biome, task runners."""

from __future__ import annotations

from collections.abc import Callable

from interlock.engine.invocation import Invocation
from interlock.engine.rules.args import Args, parse_args, spec
from interlock.engine.rules.validators.regen import regenerating_flag
from interlock.engine.rules.validators.runner import (
    COLLECT_ONLY,
    NEGATIVE,
    NO_TESTS_OK,
    REGENERATED,
    Inner,
    Seen,
    all_targeted,
    classify_name,
    is_excluding_pattern,
    is_negative,
    slowest,
)
from interlock.shell.model import Word

JS_RUNNER = spec(
    short_value="tgcm",
    long_value=(
        "testNamePattern testPathPattern testPathIgnorePatterns config reporter reporters grep "
        "fgrep exclude project shard coverageReporters maxWorkers outputFile testTimeout match "
        "spec environment env workers retries timeout root dir mode browser changedSince shard "
        "grep-invert reporter-options require file ignore ignoreProjects modulePathIgnorePatterns "
        "selectProjects"
    ),
    long_flags=(
        "passWithNoTests pass-with-no-tests listTests list dry-run watch watchAll run ci "
        "coverage bail silent verbose invert onlyChanged onlyFailures findRelatedTests runInBand update "
        "headed debug forbid-only updateSnapshot update-snapshots changed lastCommit"
    ),
)
_PM_OPTS = spec(
    short_value="wCF",
    long_value="prefix workspace dir filter cwd",
    stop_at_positional=True,
)
_TEST_ALIASES = frozenset(("test", "t", "tst", "it", "cit", "install-test", "install-ci-test"))
_RUN_ALIASES = frozenset(("run", "run-script", "rum", "urn"))


# Options whose value leaves tests out: jest's ignore patterns and ignored projects, vitest's and
# mocha's exclusions, playwright's inverted grep.
_EXCLUDING = (
    "--testPathIgnorePatterns",
    "--modulePathIgnorePatterns",
    "--ignoreProjects",
    "--exclude",
    "--grep-invert",
    "--ignore",
)
_NAME_PATTERNS = ("-m", "--match", "-t", "--testNamePattern", "-g", "--grep", "--fgrep")
_PATH_PATTERNS = ("--testPathPattern", "--testPathPatterns", "--spec")


def _on(args: Args, *names: str) -> bool:
    """A flag given and not turned off (`--passWithNoTests=false`), or an option given a
    value that is not empty (`--testPathIgnorePatterns=[]` excludes nothing)."""
    return any(
        (opt.text or "").strip("'\"").lower() not in ("false", "0", "[]", "") or opt.text is None
        for opt in args.values(*names)
    )


def js_masking(seen: Seen, args: Args, words: tuple[Word, ...] = ()) -> Seen:
    """The masking flags jest, vitest, mocha, ava and playwright share."""
    if _on(args, "--passWithNoTests", "--pass-with-no-tests"):
        seen = seen.masked(NO_TESTS_OK, "--passWithNoTests makes running no tests a success")
    if _on(args, *_EXCLUDING):
        seen = seen.masked(NEGATIVE, "an exclusion pattern leaves tests out")
    if args.has("--invert") and args.has("-g", "--grep", "--fgrep"):
        seen = seen.masked(NEGATIVE, "--invert runs every test except the selected ones")
    for opt in args.values(*_NAME_PATTERNS, *_PATH_PATTERNS):
        text = opt.text
        if opt.unknown_value or (
            text is not None and (is_negative(text) or is_excluding_pattern(text))
        ):
            seen = seen.masked(NEGATIVE, f"`{opt.name} {text}` leaves tests out")
    for word in args.operands():
        if (word.literal() or "").startswith("!"):
            seen = seen.masked(NEGATIVE, f"the pattern {word.literal()} leaves tests out")
    regen = regenerating_flag(words, short_update=True)
    if regen is not None:
        seen = seen.masked(REGENERATED, f"{regen} rewrites the snapshots it checks against")
    if args.has("--listTests", "--list", "--dry-run"):
        seen = seen.masked(COLLECT_ONLY, "listing tests runs none of them")
    return seen


def _js_selected(args: Args, operands: tuple[Word, ...]) -> bool:
    named = args.has(
        "-t",
        "--testNamePattern",
        "--testPathPattern",
        "-g",
        "--grep",
        "--fgrep",
        "-m",
        "--match",
        "--spec",
        "--findRelatedTests",
        "--selectProjects",
        "--onlyChanged",
        "--onlyFailures",
        "--changed",
        "-o",
        "-f",
        # a part of the suite: a shard, the tests of changed files, the last failures
        "--shard",
        "--changedSince",
        "--lastCommit",
        "--last-failed",
        "--only-changed",
    )
    return named or all_targeted(operands)


def js_test_runner(tool: str) -> Inner:
    """jest, vitest, mocha, ava, playwright test, cypress run, karma start, node --test."""

    def recognise(words: tuple[Word, ...], inv: Invocation) -> Seen | None:
        args = parse_args(words, JS_RUNNER)
        # mocha's -V is its version (its -v is nothing); the others' is -v
        if args.has("--help", "-h", "--version", "-V" if tool == "mocha" else "-v"):
            return None
        operands = args.operands()
        sub = operands[0].literal() if operands else None
        if tool == "vitest" and sub in ("run", "watch", "dev", "related", "list"):
            operands = operands[1:]
            if sub == "list":
                return Seen(tool, "slow").masked(COLLECT_ONLY, "listing tests runs none of them")
            if sub == "related":
                return Seen(tool, "fast")
        elif tool == "vitest" and sub in ("bench", "init"):
            return None
        seen = Seen(tool, "slow").tiered(_js_selected(args, operands))
        return js_masking(seen, args, words)

    return recognise


def after_subcommand(first: str, tool: str) -> Inner:
    """`playwright test ...`, `cypress run ...`, `karma start ...`: only that subcommand."""
    runner = js_test_runner(tool)

    def recognise(words: tuple[Word, ...], inv: Invocation) -> Seen | None:
        if not words or words[0].literal() != first:
            return None
        return runner(words[1:], inv)

    return recognise


_NODE_VALUE = (
    "test-name-pattern test-skip-pattern test-shard test-reporter test-reporter-destination "
    "test-concurrency test-timeout import require loader experimental-loader env-file "
    "conditions input-type"
)
_NODE_FLAGS = "test test-only test-update-snapshots watch"
NODE = spec(short_value="rC", long_value=_NODE_VALUE, long_flags=_NODE_FLAGS)
# node's own options end at the script: `node app.js --test` passes `--test` to app.js
_NODE_OWN = spec(
    short_value="rC", long_value=_NODE_VALUE, long_flags=_NODE_FLAGS, stop_at_positional=True
)


def node(words: tuple[Word, ...], inv: Invocation) -> Seen | None:
    """`node --test [files]`; other node invocations are programs, not validators."""
    if not parse_args(words, _NODE_OWN).has("--test"):
        return None
    args = parse_args(words, NODE)
    # a name pattern, a shard or `--test-only` runs a part of the suite
    part = args.has("--test-name-pattern", "--test-shard", "--test-only")
    seen = Seen("node --test", "fast" if part or all_targeted(args.operands()) else "slow")
    if args.has("--test-skip-pattern"):
        seen = seen.masked(NEGATIVE, "--test-skip-pattern leaves the tests it matches out")
    for opt in args.values("--test-name-pattern"):
        if opt.text is None or opt.unknown_value or is_excluding_pattern(opt.text):
            seen = seen.masked(NEGATIVE, f"`--test-name-pattern {opt.text}` leaves tests out")
    if args.has("--test-update-snapshots"):
        seen = seen.masked(REGENERATED, "--test-update-snapshots rewrites the snapshots")
    return seen


def checker(tool: str, needs: tuple[str, ...] = ()) -> Inner:
    """A fast JS checker; `needs`: flags that make a formatter a check (prettier --check)."""

    def recognise(words: tuple[Word, ...], inv: Invocation) -> Seen | None:
        lits = [w.literal() for w in words]
        if any(lit in ("--help", "-h", "--version", "-v", "--init") for lit in lits):
            return None
        if needs and not any(lit in needs for lit in lits):
            return None
        return Seen(tool, "fast")

    return recognise


def biome(words: tuple[Word, ...], inv: Invocation) -> Seen | None:
    sub = words[0].literal() if words else None
    if sub in ("check", "lint", "ci"):
        return Seen("biome", "fast")
    if sub == "format" and not any(w.literal() == "--write" for w in words):
        return Seen("biome", "fast")
    return None


def script(manager: str, name: str, extra: tuple[Word, ...], inv: Invocation) -> Seen | None:
    """`npm run NAME -- extra`: tier by the script's name; masking from the extra args."""
    tier = classify_name(name, unknown=None)
    if tier is None:
        return None
    own = extra
    for k, word in enumerate(extra):
        if word.literal() == "--":
            own = extra[:k]
            break
    if extra and extra[0].literal() == "--":
        extra = extra[1:]  # npm passes what follows `--` to the script
    args = parse_args(extra, JS_RUNNER)
    operands = args.operands()
    seen = Seen(f"{manager} {name}", tier)
    if tier == "slow" and _js_selected(args, operands):
        seen = seen.tiered(True)
    if any(w.literal() == "--if-present" for w in own):
        seen = seen.masked(NO_TESTS_OK, "--if-present succeeds when the script does not exist")
    return js_masking(seen, args, extra)


def package_manager(
    manager: str, inner: Callable[[tuple[Word, ...], Invocation], Seen | None]
) -> Inner:
    """npm / pnpm / yarn / bun: `test`, `run NAME`, `exec TOOL`, `yarn TOOL`, `bun test`."""

    def recognise(words: tuple[Word, ...], inv: Invocation) -> Seen | None:
        parsed = parse_args(words, _PM_OPTS)
        rest = parsed.rest
        if not rest or rest[0].literal() is None:
            return None
        command = rest[0].literal() or ""
        if command == "workspace" and manager == "yarn" and len(rest) > 2:
            rest = rest[2:]
            command = rest[0].literal() or ""
        tail = rest[1:]
        if manager == "bun" and command == "test":
            return js_test_runner("bun test")(tail, inv)
        if command in _TEST_ALIASES:
            return script(manager, "test", tail, inv)
        if command in _RUN_ALIASES:
            run = parse_args(tail, spec(stop_at_positional=True)).rest
            if not run or run[0].literal() is None:
                return None
            return script(manager, run[0].literal() or "", run[1:], inv)
        if command in ("exec", "dlx", "x"):
            return inner(tail, inv)
        if manager in ("yarn", "pnpm", "bun"):
            found = inner(rest, inv)
            return found if found is not None else script(manager, command, tail, inv)
        return None

    return recognise


_TASKS = spec(
    short_value="tp", long_value="target targets filter scope projects project configuration"
)


def task_runner(tool: str) -> Inner:
    """turbo run NAMES / nx run-many -t NAMES / nx test PROJECT / lerna run NAME."""

    def recognise(words: tuple[Word, ...], inv: Invocation) -> Seen | None:
        args = parse_args(words, _TASKS)
        targets = args.values("-t", "--target", "--targets")
        names = [n for opt in targets for n in (opt.value or "").split(",")]
        positional = [w.literal() or "" for w in args.positionals]
        if not targets and positional:
            first, rest = positional[0], positional[1:]
            if first != "run":
                names = [first]  # `nx test api`, `turbo test`
            elif tool == "nx":  # `nx run api:test[:configuration]`, `nx run test`
                target = rest[0] if rest else ""
                names = [target.split(":")[1] if ":" in target else target]
            else:
                names = rest  # `turbo run lint test`, `lerna run test`
        tier = slowest([classify_name(n, unknown=None) for n in names])
        return Seen(tool, tier) if tier else None

    return recognise


def deno(words: tuple[Word, ...], inv: Invocation) -> Seen | None:
    sub = words[0].literal() if words else None
    rest = words[1:]
    if sub == "test":
        return js_test_runner("deno test")(rest, inv)
    if sub in ("lint", "check"):
        return Seen(f"deno {sub}", "fast")
    if sub == "fmt" and any(w.literal() == "--check" for w in rest):
        return Seen("deno fmt", "fast")
    return None
