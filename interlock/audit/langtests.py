"""Tests, assertions and skips in JS/TS, Go, Rust and Java/Kotlin files.

Each extractor returns the file's `CTest`s (identity, checks, skip, focus) plus file-level
skips (a Go build constraint, a disabled Java class). Assertions are ranked like Python's:
4 exact (`toBe`, `assert_eq!`, `assertEquals`), 2 loose (`toContain`, `assert!`,
`assertTrue`), 1 nearly nothing (`toBeDefined`, `assert_ne!`, `assertNotNull`, `.not.`).
"""

from __future__ import annotations

import re

from interlock.audit.clike import (
    CCheck,
    CTest,
    Scanned,
    collect_checks,
    first_string,
    match_close,
    scan,
    table_checks,
)

_JS_HEADS = (
    "describe",
    "context",
    "suite",
    "it",
    "test",
    "specify",
    "xit",
    "xtest",
    "xdescribe",
    "xcontext",
    "xspecify",
    "fit",
    "fdescribe",
    "ftest",
    "fcontext",
)
_JS_BLOCK = re.compile(r"(?<![\w$.])(" + "|".join(_JS_HEADS) + r")\b")
_JS_GROUPS = frozenset(
    ("describe", "context", "suite", "xdescribe", "xcontext", "fdescribe", "fcontext")
)
_JS_CHECK = re.compile(
    r"(?<![\w$.])(?:expect|assert(?:\s*\.\s*\w+)?|expectTypeOf|t\s*\.\s*(?:is|not|"
    r"deepEqual|notDeepEqual|like|true|false|truthy|falsy|throws|throwsAsync|"
    r"notThrows|regex|equal|same|strictSame|ok|notOk|match|snapshot))\s*\("
)
_EXACT = re.compile(
    r"^(toBe|toEqual|toStrictEqual|toMatchObject|toHaveBeenCalledWith|"
    r"toHaveBeenLastCalledWith|toHaveBeenNthCalledWith|toMatchSnapshot|"
    r"toMatchInlineSnapshot|toHaveLength|toBeNull|toBeUndefined|toBeNaN|equal|"
    r"deepEqual|strictEqual|deepStrictEqual|eql|is|same|strictSame|"
    r"toHaveBeenCalledTimes|toThrowErrorMatchingSnapshot|assert_eq|"
    r"debug_assert_eq|prop_assert_eq|assert_approx_eq|assert_relative_eq|"
    r"assertEquals|assertArrayEquals|assertSame|assertIterableEquals|"
    r"assertLinesMatch|assertNull|Equal|EqualValues|Exactly|JSONEq|YAMLEq|"
    r"ElementsMatch|Len|Nil|NoError|ErrorIs|EqualError|Same|Zero|Empty|InDelta|"
    r"isEqualTo|containsExactly|hasSize|toBeCloseTo)$"
)
_WEAK = re.compile(
    r"^(toBeDefined|notEqual|notDeepEqual|notStrictEqual|exist|exists|assert_ne|"
    r"debug_assert_ne|prop_assert_ne|assertNotNull|assertNotEquals|assertNotSame|"
    r"NotNil|NotEmpty|NotZero|NotEqual|isNotNull|ok|truthy|isNotEmpty)$"
)


def rank(name: str, text: str) -> int:
    """4 exact, 3 unknown, 2 loose, 1 nearly nothing; `.not.` matchers are weak."""
    if ".not." in text.replace(" ", "") and name not in ("toHaveBeenCalled", "toThrow"):
        return 1
    if name in ("toThrow", "toThrowError", "throws", "assertThrows", "Panics", "should_panic"):
        inner = text.rsplit("(", 1)[-1].rstrip(") ")
        broad = inner in ("", "Error", "Exception.class", "Throwable.class", "Exception")
        return 1 if broad and name != "toThrow" else (2 if broad else 4)
    if name in ("assert", "debug_assert", "prop_assert"):
        return 4 if "==" in text else 2
    if _EXACT.match(name):
        return 4
    if _WEAK.match(name):
        return 1
    return (
        2 if re.match(r"^(to|assert|is|has|contains|True|False|Contains|Greater|Less)", name) else 3
    )


def _js_chain(scanned: Scanned, at: int) -> tuple[list[str], int | None, list[CCheck]]:
    """Modifiers after a test head (`.skip`, `.only`, `.each(...)`), the call's `(`, and the
    rows of an `.each` table."""
    code, i, mods = scanned.code, at, []
    rows: list[CCheck] = []
    while True:
        match = re.match(r"\s*\.\s*([\w$]+)", code[i:])
        if match:
            mods.append(match.group(1))
            i += match.end()
            continue
        match = re.match(r"\s*\(", code[i:])
        if not match:
            return mods, None, rows
        open_at = i + match.end() - 1
        close = match_close(code, open_at)
        if (
            re.match(r"\s*\(", code[close + 1 :])
            and mods
            and mods[-1] in ("each", "skipIf", "runIf", "for", "only", "concurrent")
        ):
            if mods[-1] == "each":
                table = re.match(r"\s*\[", code[open_at + 1 : close])
                if table:
                    rows += table_checks(scanned, open_at + table.end())
            mods.append(f"{mods[-1]}({scanned.squash(open_at + 1, close)})")
            i = close + 1
            continue
        return mods, open_at, rows


def _js_skip(head: str, mods: list[str]) -> tuple[str | None, str, bool]:
    focus = head in ("fit", "fdescribe", "ftest", "fcontext") or "only" in mods
    for mod in mods:
        if mod in ("skip", "todo", "failing"):
            return f".{mod}", "always", focus
        if mod.startswith("skipIf("):
            cond = mod[7:-1].strip()
            return f".{mod}", "always" if cond in ("true", "1", "!0") else "unknown", focus
        if mod.startswith("runIf("):
            cond = mod[6:-1].strip()
            return f".{mod}", "always" if cond in ("false", "0", "!1") else "unknown", focus
    if head.startswith("x"):
        return head, "always", focus
    return None, "always", focus


def js_tests(text: str) -> tuple[list[CTest], list[str]]:
    scanned = scan(text, "js")
    blocks: list[tuple[int, int, str, str, str | None, str, bool, list[CCheck]]] = []
    for match in _JS_BLOCK.finditer(scanned.code):
        head = match.group(1)
        mods, open_at, rows = _js_chain(scanned, match.end())
        if open_at is None:
            continue
        close = match_close(scanned.code, open_at)
        name = first_string(scanned, open_at + 1, close)
        if name is None:
            name = scanned.squash(open_at + 1, close).split(",")[0][:60]
        skip, truth, focus = _js_skip(head, mods)
        if "," not in scanned.code[open_at:close] and head not in _JS_GROUPS:
            skip, truth = skip or "a test without a body (pending)", "always"
        blocks.append((open_at, close, head, name, skip, truth, focus, rows))
    tests: list[CTest] = []
    groups = [b for b in blocks if b[2] in _JS_GROUPS]
    for start, end, head, name, skip, truth, focus, rows in blocks:
        if head in _JS_GROUPS:
            continue
        parents = [g for g in groups if g[0] < start and end <= g[1]]
        ident = " > ".join([g[3] for g in parents] + [name])
        for parent in parents:
            skip, truth = (skip, truth) if skip else (parent[4], parent[5])
            focus = focus or parent[6]
        brace = scanned.code.find("{", start, end)
        body = scanned.squash(brace + 1, match_close(scanned.code, brace)) if brace >= 0 else ""
        test = CTest(
            ident, name, scanned.line_of(start), body, skip=skip, skip_truth=truth, focus=focus
        )
        test.checks = rows + collect_checks(scanned, start, end, _JS_CHECK, rank)
        tests.append(test)
    return tests, []


_GO_TEST = re.compile(r"\bfunc\s+((?:Test|Fuzz)\w*)\s*\(\s*\w+\s+\*testing\.[TF]\s*\)")
_GO_CHECK = re.compile(
    r"\b(?:\w+\.(?:Error|Errorf|Fatal|Fatalf|Fail|FailNow)|"
    r"(?:assert|require|is|qt)\.\w+)\s*\("
)
_GO_SKIP = re.compile(r"\b\w+\.(?:Skip|Skipf|SkipNow)\s*\(")


def go_tests(text: str) -> tuple[list[CTest], list[str]]:
    scanned = scan(text, "go")
    tests = []
    for match in _GO_TEST.finditer(scanned.code):
        brace = scanned.code.find("{", match.end())
        if brace < 0:
            continue
        end = match_close(scanned.code, brace)
        test = CTest(
            match.group(1),
            match.group(1),
            scanned.line_of(match.start()),
            scanned.squash(brace + 1, end),
        )
        test.checks = collect_checks(scanned, brace, end, _GO_CHECK, rank) + _go_tables(
            scanned, brace, end
        )
        skip = _GO_SKIP.search(scanned.code, brace, end)
        if skip:
            depth = scanned.code[brace : skip.start()].count("{") - scanned.code[
                brace : skip.start()
            ].count("}")
            test.skip = scanned.squash(skip.start(), match_close(scanned.code, skip.end() - 1) + 1)
            test.skip_truth = "always" if depth <= 1 else "unknown"
        tests.append(test)
    header = text.split("\npackage ", 1)[0] if "\npackage " in text else ""
    constraints = re.findall(r"^//\s*(?:go:build|\+build)\s+(.*)$", header, re.M)
    return tests, [f"build constraint `{c.strip()}`" for c in constraints]


def _go_tables(scanned: Scanned, start: int, end: int) -> list[CCheck]:
    """Rows of table-driven tests: `cases := []struct{...}{ {...}, {...} }`."""
    rows: list[CCheck] = []
    for match in re.finditer(r"\[\]struct\s*\{", scanned.code[start:end]):
        type_close = match_close(scanned.code, start + match.end() - 1)
        literal = re.match(r"\s*\{", scanned.code[type_close + 1 : end])
        if literal:
            rows += table_checks(scanned, type_close + literal.end())
    return rows


_RS_TEST_ATTR = re.compile(
    r"^#\s*\[\s*(?:[\w]+::)*(?:test|test_case|rstest|wasm_bindgen_test|"
    r"quickcheck|proptest)\b"
)
_RS_CHECK = re.compile(
    r"\b(?:assert|assert_eq|assert_ne|debug_assert|debug_assert_eq|"
    r"debug_assert_ne|assert_matches|assert_approx_eq|assert_relative_eq|"
    r"assert_abs_diff_eq|prop_assert|prop_assert_eq|prop_assert_ne)!\s*[(\[{]"
)
_RS_FN = re.compile(
    r"\s*(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?fn\s+(\w+)"
)


def _attribute_runs(scanned: Scanned, marker: str) -> list[tuple[int, list[str], int]]:
    """Runs of attributes/annotations: (start, texts, offset after the run)."""
    code, runs, consumed = scanned.code, [], 0
    pattern = re.compile(r"#\s*\[" if marker == "#" else r"@[\w.]+")
    for match in pattern.finditer(code):
        if match.start() < consumed:
            continue
        i, attrs = match.start(), []
        while True:
            step = re.match(r"\s*(#\s*\[|@[\w.]+)", code[i:])
            if not step:
                break
            start = i + step.start(1)
            i += step.end()
            if marker == "#":
                i = match_close(code, i - 1) + 1
            elif re.match(r"\s*\(", code[i:]):
                i = match_close(code, code.index("(", i)) + 1
            attrs.append(scanned.squash(start, i))
        consumed = i
        runs.append((match.start(), attrs, i))
    return runs


def rust_tests(text: str) -> tuple[list[CTest], list[str]]:
    scanned = scan(text, "rust")
    tests = []
    for start, attrs, after in _attribute_runs(scanned, "#"):
        if not any(_RS_TEST_ATTR.match(a) for a in attrs):
            continue
        fn = _RS_FN.match(scanned.code, after)
        brace = scanned.code.find("{", fn.end()) if fn else -1
        if fn is None or brace < 0:
            continue
        end = match_close(scanned.code, brace)
        test = CTest(
            fn.group(1), fn.group(1), scanned.line_of(start), scanned.squash(brace + 1, end)
        )
        test.checks = collect_checks(scanned, brace, end, _RS_CHECK, rank)
        test.checks += [
            CCheck("case:" + re.sub(r"\s+", "", a), "table row", 4, a, test.line, a)
            for a in attrs
            if re.match(r"#\s*\[\s*(?:\w+::)*(?:test_case|case)\b", a)
        ]
        for attr in attrs:
            if re.search(r"\bignore\b", attr):
                test.skip, test.skip_truth = attr, "always"
            elif "should_panic" in attr:
                test.skip, test.skip_truth = f"{attr} inverts the test", "always"
            elif re.match(r"#\s*\[\s*cfg\s*\(", attr):
                dead = re.search(r"any\(\s*\)|not\(\s*test\s*\)|\bFALSE\b|\bfalse\b", attr)
                test.skip, test.skip_truth = attr, "always" if dead else "unknown"
        tests.append(test)
    return tests, []


_JAVA_METHOD = re.compile(
    r"\s*(?:(?:public|protected|private|static|final|suspend|override|open|"
    r"internal|synchronized|abstract)\s+)*(?:void\s+|fun\s+)"
    r"(`[^`]+`|\w+)\s*\("
)
_JAVA_CHECK = re.compile(r"(?<![\w$])(?:\w+\.)?(?:assert\w*|fail|verify)\s*\(")


def java_tests(text: str) -> tuple[list[CTest], list[str]]:
    scanned = scan(text, "java")
    tests, file_skips = [], []
    for start, attrs, after in _attribute_runs(scanned, "@"):
        names = [a[1:].split("(")[0].rsplit(".", 1)[-1] for a in attrs]
        disabled = [a for a, n in zip(attrs, names, strict=True) if n in ("Disabled", "Ignore")]
        if re.match(
            r"\s*(?:(?:public|final|abstract|open|internal)\s+)*class\b", scanned.code[after:]
        ):
            file_skips += [f"{d} on the class" for d in disabled]
            continue
        if not any(n.endswith("Test") or n in ("TestFactory", "TestTemplate") for n in names):
            continue
        method = _JAVA_METHOD.match(scanned.code, after)
        brace = scanned.code.find("{", method.end()) if method else -1
        if method is None or brace < 0:
            continue
        end = match_close(scanned.code, brace)
        name = method.group(1).strip("`")
        test = CTest(name, name, scanned.line_of(start), scanned.squash(brace + 1, end))
        test.checks = collect_checks(scanned, brace, end, _JAVA_CHECK, rank)
        conditional = [
            a
            for a, n in zip(attrs, names, strict=True)
            if n.startswith(("DisabledIf", "DisabledOn", "EnabledIf", "EnabledOn"))
        ]
        if disabled or conditional:
            test.skip = (disabled or conditional)[0]
            test.skip_truth = "always" if disabled else "unknown"
        assume = re.search(r"\bassume\w*\s*\(", scanned.code[brace:end])
        if assume and not test.skip:
            call = scanned.squash(brace + assume.start(), brace + assume.end() + 20)
            test.skip = call
            test.skip_truth = (
                "always"
                if re.search(r"assumeTrue\(\s*false|assumeFalse\(\s*true", call)
                else "unknown"
            )
        tests.append(test)
    return tests, file_skips


EXTRACTORS = {"js": js_tests, "go": go_tests, "rust": rust_tests, "java": java_tests}
