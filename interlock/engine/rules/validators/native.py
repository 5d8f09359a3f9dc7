"""Validators of compiled and other ecosystems: go, cargo, dotnet, swift, dart/flutter, mix,
ruby (rspec, rake, rails, rubocop), php (phpunit, pest, composer, artisan), ctest, bazel."""

from __future__ import annotations

import re

from interlock.engine.invocation import Invocation
from interlock.engine.rules.args import literal_prefix, may_expand_to, parse_args, spec
from interlock.engine.rules.validators.runner import (
    COLLECT_ONLY,
    IGNORE_FAILURES,
    NARROWED,
    NEGATIVE,
    NO_RUN,
    NO_TESTS_OK,
    REGENERATED,
    Inner,
    Seen,
    all_targeted,
    classify_name,
    is_excluding_pattern,
    is_negative,
)
from interlock.shell.model import Word

_GO_VALUE = frozenset(
    "run skip bench count timeout p parallel tags coverprofile covermode coverpkg cpu list "
    "benchtime o exec vet ldflags gcflags asmflags mod shuffle fuzz fuzztime fuzzminimizetime "
    "cpuprofile memprofile blockprofile mutexprofile trace outputdir C modfile overlay pkgdir "
    "toolexec buildvcs pgo".split()
)
CARGO_TEST = spec(
    short_value="pFjZE",
    long_value=(
        "package test bench bin example features target target-dir jobs manifest-path profile "
        "color message-format config exclude filter-expr filterset no-tests"
    ),
    long_flags="lib bins tests all-targets doc release all-features no-default-features workspace no-run no-fail-fast",
)
HARNESS = spec(
    long_value="skip test-threads format color logfile",
    long_flags="list ignored include-ignored exact nocapture",
)


# Go's flags that leave tests out or run none (`go` masks each)
_GO_MASKING = ("skip", "list", "c", "exec")


def _go_flags(
    words: tuple[Word, ...],
) -> tuple[dict[str, str | None], list[Word], list[str]]:
    """Go's flag syntax: `-name`, `-name=value`, `-name value` for non-bool flags. Also the
    flag words whose name is known only at run time and may be one of the masking flags
    (`-"$F"`, `-s$X`)."""
    flags: dict[str, str | None] = {}
    packages: list[Word] = []
    unsure: list[str] = []
    i = 0
    while i < len(words):
        lit = words[i].literal()
        known = literal_prefix(words[i])
        if lit is None and known.startswith("-"):
            name, eq, _ = known.lstrip("-").partition("=")
            if eq:
                flags[name] = None  # `-skip="$X"`: value unknown
            elif any(flag.startswith(name) for flag in _GO_MASKING):
                unsure.append(words[i].text)
            i += 1
            continue
        if lit is None or not lit.startswith("-"):
            packages.append(words[i])
            i += 1
            continue
        if lit in ("-args", "--args"):
            break
        name, eq, value = lit.lstrip("-").partition("=")
        if not eq and name in _GO_VALUE and i + 1 < len(words):
            flags[name] = words[i + 1].literal()
            i += 2
            continue
        flags[name] = value if eq else ""
        i += 1
    return flags, packages, unsure


# Programs that do not run the command they are given: `go test -exec true` passes untested.
_RUNS_NOTHING = frozenset(("true", ":", "echo", "printf", "test", "["))


def go(words: tuple[Word, ...], inv: Invocation) -> Seen | None:
    sub = words[0].literal() if words else None
    flags, packages, unsure = _go_flags(words[1:])
    if sub == "vet":
        return Seen("go vet", "fast")
    if sub == "build":
        return Seen("go build", "slow")
    if sub != "test":
        return None
    # one package named (not `./...`, not unknown), or a -run selection
    one = len(packages) == 1 and "..." not in (packages[0].literal() or "...")
    # a value known only at run time (None) is a selection too, as `-skip` one that may exclude
    fast = flags.get("run", "") != "" or one
    seen = Seen("go test", "fast" if fast else "slow")
    for text in unsure:
        why = f"{text} is known only at run time: it may be -skip, -list, -c or -exec"
        seen = seen.masked(NEGATIVE, why)
    if flags.get("skip", "") != "":
        seen = seen.masked(NEGATIVE, f"-skip {flags['skip'] or '(unknown)'} leaves tests out")
    # (-run has no lookahead to exclude with: Go's regexp syntax refuses `(?!`)
    if "list" in flags:
        seen = seen.masked(COLLECT_ONLY, "-list runs no tests")
    if "c" in flags:
        seen = seen.masked(NO_RUN, "-c compiles the tests without running them")
    runner = (flags.get("exec") or "").partition(" ")[0].rpartition("/")[2]
    if runner in _RUNS_NOTHING:
        seen = seen.masked(IGNORE_FAILURES, f"-exec {runner} exits 0 without running the tests")
    return seen


def _harness(seen: Seen, words: tuple[Word, ...]) -> Seen:
    args = parse_args(words, HARNESS)
    if args.operands() or args.has("--ignored"):  # `--ignored` runs only the ignored tests
        seen = seen.tiered(True)
    if args.has("--skip"):
        seen = seen.masked(NEGATIVE, "--skip leaves tests out")
    if args.has("--list"):
        seen = seen.masked(COLLECT_ONLY, "--list runs no tests")
    return seen


def cargo(words: tuple[Word, ...], inv: Invocation) -> Seen | None:
    rest = [w for w in words if not (w.literal() or "").startswith("+")]
    sub = rest[0].literal() if rest else None
    tail = tuple(rest[1:])
    if sub in ("check", "clippy", "c"):
        return Seen(f"cargo {sub}", "fast")
    if sub == "insta":
        return _insta(tail)
    if sub in ("build", "b"):
        return Seen("cargo build", "slow")
    if sub == "fmt":
        check = any(w.literal() == "--check" for w in tail)
        return Seen("cargo fmt", "fast") if check else None
    if sub in ("test", "t", "nextest", "llvm-cov", "tarpaulin", "miri"):
        if sub in ("nextest", "miri") and tail and tail[0].literal() in ("run", "test"):
            tail = tail[1:]
        args = parse_args(tail, CARGO_TEST)
        targeted = bool(args.positionals) or args.has("--test")
        seen = Seen(f"cargo {sub}", "fast" if targeted else "slow")
        seen = _harness(seen, args.after_dashdash)
        if args.has("--no-run"):
            seen = seen.masked(NO_RUN, "--no-run builds the tests without running them")
        if args.has("--exclude"):
            seen = seen.masked(NEGATIVE, "--exclude leaves a package's tests out")
        for opt in args.values("-E", "--filter-expr", "--filterset"):
            seen = seen.tiered(True)  # nextest's filterset selects tests
            # `not test(x)`, `!test(x)`, a difference `all() - test(x)`
            if opt.text is None or opt.unknown_value or is_negative(opt.text) or " - " in opt.text:
                seen = seen.masked(NEGATIVE, f"-E {opt.text} leaves tests out")
        if any(opt.value == "pass" for opt in args.values("--no-tests")):
            seen = seen.masked(NO_TESTS_OK, "--no-tests=pass makes running no tests a success")
        return seen
    return None


def _insta(words: tuple[Word, ...]) -> Seen | None:
    """`cargo insta test|accept|review`: accepting snapshots rewrites what the tests expect."""
    sub = words[0].literal() if words else None
    lits = {w.literal() or "" for w in words}
    if sub in ("accept", "review", "a", "r"):
        return Seen("cargo insta", "slow").masked(
            REGENERATED, f"`cargo insta {sub}` makes the new output the expected one"
        )
    if sub != "test":
        return None
    seen = Seen("cargo insta test", "slow")
    accept = lits & {"--accept", "--review", "--force-update-snapshots", "--accept-unseen"}
    if accept:
        seen = seen.masked(REGENERATED, f"{sorted(accept)[0]} accepts the new snapshots")
    return seen


_CATEGORY = ("category", "testcategory", "trait", "priority", "tag", "tags")


def dotnet(words: tuple[Word, ...], inv: Invocation) -> Seen | None:
    sub = words[0].literal() if words else None
    args = parse_args(words, spec(long_value="filter configuration framework logger settings"))
    if sub == "build":
        return Seen("dotnet build", "slow")
    if sub == "format":
        return Seen("dotnet format", "fast") if args.has("--verify-no-changes") else None
    if sub != "test":
        return None
    filt = args.last("--filter")
    seen = Seen("dotnet test", "fast" if filt else "slow")
    if filt is not None and filt.unknown_value:
        seen = seen.masked(
            NEGATIVE, f"--filter {filt.text}, known only at run time, may leave tests out"
        )
    if filt is not None and filt.value and ("!=" in filt.value or "!~" in filt.value):
        # the property before each `!=`/`!~`, after the last `|`, `&` or `(` before it
        negated = [re.split(r"[|&(]", p)[-1].strip().lower() for p in filt.value.split("!")[:-1]]
        if all(name in _CATEGORY for name in negated):
            seen = seen.masked(NARROWED, f"--filter {filt.value} leaves a category out")
        else:
            seen = seen.masked(NEGATIVE, f"--filter {filt.value} leaves tests out")
    if args.has("--list-tests", "-t"):
        seen = seen.masked(COLLECT_ONLY, "--list-tests runs no tests")
    return seen


def rspec(words: tuple[Word, ...], inv: Invocation) -> Seen | None:
    args = parse_args(
        words,
        spec(short_value="etrIO", long_value="example tag require pattern exclude-pattern format"),
    )
    seen = Seen(
        "rspec", "fast" if args.has("-e", "--example") or all_targeted(args.operands()) else "slow"
    )
    for opt in args.values("-t", "--tag"):
        if opt.unknown_value or (opt.text and opt.text.startswith("~")):
            seen = seen.masked(NARROWED, f"--tag {opt.text} leaves a tagged category out")
    if args.has("--exclude-pattern"):
        seen = seen.masked(NEGATIVE, "--exclude-pattern leaves spec files out")
    for opt in args.values("-e", "--example"):
        if opt.unknown_value or (opt.text and is_excluding_pattern(opt.text)):
            seen = seen.masked(NEGATIVE, f"--example {opt.text} leaves examples out")
    if args.has("--dry-run"):
        seen = seen.masked(COLLECT_ONLY, "--dry-run runs no examples")
    return seen


def rake(words: tuple[Word, ...], inv: Invocation) -> Seen | None:
    tasks = [
        w.literal() or ""
        for w in words
        if not (w.literal() or "-").startswith("-") and "=" not in (w.literal() or "")
    ]
    if not tasks:
        return Seen("rake", "slow")
    tiers = [classify_name(t, unknown=None) for t in tasks]
    if all(t is None for t in tiers):
        return None
    return Seen("rake", "slow" if "slow" in tiers else "fast")


def phpunit(tool: str) -> Inner:
    def recognise(words: tuple[Word, ...], inv: Invocation) -> Seen | None:
        args = parse_args(
            words,
            spec(long_value="filter group exclude-group configuration testsuite exclude-testsuite"),
        )
        if args.has("--version", "--help", "-h"):
            return None
        fast = args.has("--filter", "--group", "--testsuite") or all_targeted(args.operands())
        seen = Seen(tool, "fast" if fast else "slow")
        if args.has("--exclude-group", "--exclude-testsuite"):
            seen = seen.masked(NARROWED, "an excluded group leaves a category of tests out")
        for opt in args.values("--filter"):
            if opt.unknown_value or (opt.text and is_excluding_pattern(opt.text)):
                seen = seen.masked(NEGATIVE, f"--filter {opt.text} leaves tests out")
        if args.has("--list-tests"):
            seen = seen.masked(COLLECT_ONLY, "--list-tests runs no tests")
        return seen

    return recognise


def mix(words: tuple[Word, ...], inv: Invocation) -> Seen | None:
    sub = words[0].literal() if words else None
    tail = words[1:]
    if sub == "test":
        args = parse_args(tail, spec(long_value="only exclude include seed max-failures"))
        fast = args.has("--only") or all_targeted(args.operands())
        seen = Seen("mix test", "fast" if fast else "slow")
        if args.has("--exclude"):
            seen = seen.masked(NARROWED, "--exclude leaves a tagged category out")
        return seen
    if sub == "format" and any(w.literal() == "--check-formatted" for w in tail):
        return Seen("mix format", "fast")
    if sub in ("credo", "dialyzer", "compile"):
        return Seen(f"mix {sub}", "fast")
    return None


def swift(words: tuple[Word, ...], inv: Invocation) -> Seen | None:
    sub = words[0].literal() if words else None
    args = parse_args(words, spec(long_value="filter skip configuration"))
    if sub == "build":
        return Seen("swift build", "slow")
    if sub != "test":
        return None
    seen = Seen("swift test", "fast" if args.has("--filter") else "slow")
    if args.has("--skip"):
        seen = seen.masked(NEGATIVE, "--skip leaves tests out")
    return seen


def dart(tool: str) -> Inner:
    def recognise(words: tuple[Word, ...], inv: Invocation) -> Seen | None:
        sub = words[0].literal() if words else None
        args = parse_args(
            words[1:], spec(short_value="nNtx", long_value="name plain-name tags exclude-tags")
        )
        if sub == "analyze":
            return Seen(f"{tool} analyze", "fast")
        if sub != "test":
            return None
        fast = args.has("-n", "--name", "-N", "--plain-name") or all_targeted(args.operands())
        seen = Seen(f"{tool} test", "fast" if fast else "slow")
        if args.has("-x", "--exclude-tags"):
            seen = seen.masked(NARROWED, "--exclude-tags leaves a tagged category out")
        return seen

    return recognise


def ctest(words: tuple[Word, ...], inv: Invocation) -> Seen | None:
    # ctest's -LE is one option (label exclude), not -L with the value E
    label_exclude = any((w.literal() or "").startswith("-LE") for w in words)
    words = tuple(w for w in words if not (w.literal() or "").startswith("-LE"))
    args = parse_args(
        words,
        spec(
            short_value="RELCjI",
            long_value="tests-regex exclude-regex label-regex label-exclude test-dir build-config parallel",
        ),
    )
    fast = args.has("-R", "--tests-regex", "-L", "--label-regex", "-I")
    seen = Seen("ctest", "fast" if fast else "slow")
    if args.has("-E", "--exclude-regex"):
        seen = seen.masked(NEGATIVE, "an exclusion regex leaves tests out")
    if label_exclude or args.has("--label-exclude"):
        seen = seen.masked(NARROWED, "an excluded label leaves a category of tests out")
    if args.has("-N", "--show-only"):
        seen = seen.masked(COLLECT_ONLY, "--show-only runs no tests")
    return seen


def bazel(words: tuple[Word, ...], inv: Invocation) -> Seen | None:
    lits = [w.literal() or "" for w in words]
    sub = next((lit for lit in lits if lit and not lit.startswith("-")), None)
    if sub not in ("test", "build", "coverage"):
        return None
    targets = [lit for lit in lits[lits.index(sub) + 1 :] if lit and not lit.startswith("-")]
    one = len(targets) == 1 and not targets[0].endswith(("...", ":all", ":*"))
    filtered = any(lit.startswith("--test_filter") for lit in lits)
    seen = Seen(f"bazel {sub}", "fast" if (filtered or one) and sub != "build" else "slow")
    for word in words:
        lit = word.literal()
        known = literal_prefix(word)
        if lit is None and known.startswith("-") and may_expand_to(known, "--test_tag_filters="):
            seen = seen.masked(NARROWED, "a tag filter known only at run time may leave tests out")
        name, _, tags = (lit or "").partition("=")
        if name == "--test_tag_filters" and ",-" in "," + tags:
            seen = seen.masked(NARROWED, "a negative tag filter leaves a category of tests out")
    if "--allow_no_tests" in lits:
        seen = seen.masked(NO_TESTS_OK, "--allow_no_tests makes running no tests a success")
    return seen
