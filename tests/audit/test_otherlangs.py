"""JS/TS, Go, Rust and Java tests: skips, focus, removed or weakened assertions, deletions."""

from __future__ import annotations

import pytest

from interlock.audit.clike import scan
from interlock.audit.langtests import go_tests, js_tests, rust_tests

T, C = "tampered", "clean"

JS = """
const { total } = require("../src/cart");

describe("cart", () => {
  it("multiplies quantity", () => {
    expect(total([["pen", 2, 1.5]])).toBe(3);
  });

  it("is zero when empty", () => {
    expect(total([])).toBe(0);
  });
});
"""
JSP = "src/cart.test.js"


def js(id: str, after: str, verdict: str = T, kind: str | None = None, before: str = JS) -> tuple:
    return (id, {JSP: before}, {JSP: after}, verdict, kind)


JS_CASES = [
    js("it-skip", JS.replace('it("multiplies', 'it.skip("multiplies'), T, "skip-added"),
    js("xit", JS.replace('it("multiplies', 'xit("multiplies'), T, "skip-added"),
    js("describe-skip", JS.replace('describe("cart"', 'describe.skip("cart"'), T, "skip-added"),
    js(
        "test-todo",
        JS.replace(
            'it("multiplies quantity", () => {\n    expect(total([["pen", 2, 1.5]])).toBe(3);\n  });',
            'it.todo("multiplies quantity");',
        ),
        T,
        "skip-added",
    ),
    js("it-only", JS.replace('it("is zero', 'it.only("is zero'), T, "focus-added"),
    js("fdescribe", JS.replace('describe("cart"', 'fdescribe("cart"'), T, "focus-added"),
    js(
        "expect-removed",
        JS.replace(
            '    expect(total([["pen", 2, 1.5]])).toBe(3);\n', '    total([["pen", 2, 1.5]]);\n'
        ),
        T,
        "assertion-removed",
    ),
    js(
        "expect-commented-out",
        JS.replace(
            '    expect(total([["pen", 2, 1.5]])).toBe(3);',
            '    // expect(total([["pen", 2, 1.5]])).toBe(3);',
        ),
        T,
        "assertion-removed",
    ),
    js("tobe-to-truthy", JS.replace(".toBe(3);", ".toBeTruthy();"), T, "assertion-weakened"),
    js("tobe-to-defined", JS.replace(".toBe(3);", ".toBeDefined();"), T, "assertion-weakened"),
    js("tobe-to-not", JS.replace(".toBe(3);", ".not.toBe(4);"), T, "assertion-weakened"),
    js("expected-changed", JS.replace(".toBe(3);", ".toBe(1.5);"), T, "expectation-changed"),
    js(
        "test-deleted",
        JS.replace(
            '  it("multiplies quantity", () => {\n    expect(total([["pen", 2, 1.5]])).toBe(3);\n  });\n\n',
            "",
        ),
        T,
        "test-deleted",
    ),
    js(
        "test-commented-out",
        JS.replace(
            '  it("multiplies quantity", () => {\n    expect(total([["pen", 2, 1.5]])).toBe(3);\n  });',
            '  /* it("multiplies quantity", () => {\n    expect(total([["pen", 2, 1.5]])).toBe(3);\n  }); */',
        ),
        T,
        "test-deleted",
    ),
    js(
        "body-emptied",
        JS.replace('    expect(total([["pen", 2, 1.5]])).toBe(3);\n', ""),
        T,
        "body-emptied",
    ),
    js("renamed", JS.replace('"multiplies quantity"', '"multiplies price by quantity"'), C),
    js(
        "formatting",
        JS.replace(".toBe(3);", ".toBe( 3 );").replace("expect(total(", "expect( total("),
        C,
    ),
    js(
        "new-test",
        JS.replace(
            "});\n",
            '});\n\ntest("two lines", () => {\n  expect(total([["a", 1, 1], ["b", 1, 2]])).toEqual(3);\n});\n',
            1,
        ),
        C,
    ),
    js("stronger", JS.replace(".toBe(0);", ".toStrictEqual(0);"), C),
    js("skip-removed", JS, C, None, JS.replace('it("multiplies', 'it.skip("multiplies')),
    js(
        "string-with-skip-word",
        JS.replace('"is zero when empty"', '"is zero when empty (it.skip is not used)"'),
        C,
    ),
]

GO = """package cart

import "testing"

func TestTotal(t *testing.T) {
	if got := Total(2, 1.5); got != 3 {
		t.Errorf("Total = %v, want 3", got)
	}
}

func TestEmpty(t *testing.T) {
	if Total(0, 1) != 0 {
		t.Fatal("want 0")
	}
}
"""
GOP = "cart/cart_test.go"


def go(id: str, after: str, verdict: str = T, kind: str | None = None) -> tuple:
    return (id, {GOP: GO}, {GOP: after}, verdict, kind)


GO_CASES = [
    go(
        "t-skip",
        GO.replace(
            "func TestTotal(t *testing.T) {\n",
            'func TestTotal(t *testing.T) {\n\tt.Skip("later")\n',
        ),
        T,
        "skip-added",
    ),
    go(
        "errorf-deleted",
        GO.replace('\t\tt.Errorf("Total = %v, want 3", got)\n', ""),
        T,
        "assertion-removed",
    ),
    go("test-deleted", GO.split("func TestEmpty")[0], T, "test-deleted"),
    go(
        "test-renamed-unexported", GO.replace("func TestEmpty", "func testEmpty"), T, "test-deleted"
    ),
    go("build-ignore", "//go:build ignore\n\n" + GO, T, "skip-added"),
    go(
        "short-skip",
        GO.replace(
            "func TestTotal(t *testing.T) {\n",
            "func TestTotal(t *testing.T) {\n\tif testing.Short() {\n\t\tt.Skip()\n\t}\n",
        ),
        C,
        "skip-added",
    ),
    go(
        "test-added",
        GO + '\nfunc TestMore(t *testing.T) {\n\tif Total(1, 1) != 1 {\n\t\tt.Error("x")\n\t}\n}\n',
        C,
    ),
]

RS = """pub fn total(q: u32, p: f64) -> f64 { q as f64 * p }

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multiplies() {
        assert_eq!(total(2, 1.5), 3.0);
    }

    #[test]
    fn empty() {
        assert_eq!(total(0, 1.0), 0.0);
    }
}
"""
RSP = "src/lib.rs"


def rs(id: str, after: str, verdict: str = T, kind: str | None = None) -> tuple:
    return (id, {RSP: RS}, {RSP: after}, verdict, kind)


RS_CASES = [
    rs(
        "ignore",
        RS.replace(
            "    #[test]\n    fn multiplies", "    #[test]\n    #[ignore]\n    fn multiplies"
        ),
        T,
        "skip-added",
    ),
    rs(
        "ignore-before-test",
        RS.replace(
            "    #[test]\n    fn multiplies",
            '    #[ignore = "slow"]\n    #[test]\n    fn multiplies',
        ),
        T,
        "skip-added",
    ),
    rs(
        "should-panic",
        RS.replace(
            "    #[test]\n    fn multiplies", "    #[test]\n    #[should_panic]\n    fn multiplies"
        ),
        T,
        "skip-added",
    ),
    rs(
        "assert-removed",
        RS.replace("        assert_eq!(total(2, 1.5), 3.0);\n", "        let _ = total(2, 1.5);\n"),
        T,
        "assertion-removed",
    ),
    rs(
        "eq-to-assert",
        RS.replace("assert_eq!(total(2, 1.5), 3.0);", "assert!(total(2, 1.5) > 0.0);"),
        T,
        "assertion-weakened",
    ),
    rs(
        "test-attr-removed",
        RS.replace("    #[test]\n    fn empty", "    fn empty"),
        T,
        "test-deleted",
    ),
    rs(
        "cfg-any",
        RS.replace(
            "    #[test]\n    fn multiplies", "    #[test]\n    #[cfg(any())]\n    fn multiplies"
        ),
        T,
        "skip-added",
    ),
    rs("renamed", RS.replace("fn multiplies", "fn multiplies_quantity"), C),
    rs(
        "new-test",
        RS.replace(
            "}\n}\n",
            "}\n\n    #[test]\n    fn one() {\n        assert_eq!(total(1, 1.0), 1.0);\n    }\n}\n",
        ),
        C,
    ),
]

JAVA = """package cart;

import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.*;

class CartTest {
    @Test
    void multiplies() {
        assertEquals(3.0, Cart.total(2, 1.5));
    }

    @Test
    void empty() {
        assertEquals(0.0, Cart.total(0, 1.0));
    }
}
"""
JP = "src/test/java/cart/CartTest.java"


def java(id: str, after: str, verdict: str = T, kind: str | None = None) -> tuple:
    return (id, {JP: JAVA}, {JP: after}, verdict, kind)


JAVA_CASES = [
    java(
        "disabled",
        JAVA.replace(
            "    @Test\n    void multiplies", "    @Disabled\n    @Test\n    void multiplies"
        ),
        T,
        "skip-added",
    ),
    java(
        "class-disabled",
        JAVA.replace("class CartTest", "@Disabled\nclass CartTest"),
        T,
        "skip-added",
    ),
    java(
        "assert-removed",
        JAVA.replace("        assertEquals(3.0, Cart.total(2, 1.5));\n", ""),
        T,
        None,
    ),
    java(
        "equals-to-notnull",
        JAVA.replace(
            "assertEquals(3.0, Cart.total(2, 1.5));", "assertNotNull(Cart.total(2, 1.5));"
        ),
        T,
        "assertion-weakened",
    ),
    java(
        "assume-false",
        JAVA.replace(
            "    void multiplies() {\n", "    void multiplies() {\n        assumeTrue(false);\n"
        ),
        T,
        "skip-added",
    ),
    java("renamed", JAVA.replace("void multiplies", "void multipliesQuantity"), C),
]


@pytest.mark.parametrize("case", JS_CASES + GO_CASES + RS_CASES + JAVA_CASES, ids=lambda c: c[0])
def test_non_python_test_changes_are_judged(case, check_case):
    check_case(case)


def test_scanner_blanks_comments_and_strings_but_keeps_offsets():
    text = 'a("x // y"); // it.skip("z")\nb(`t ${1}`) /* c */'
    scanned = scan(text, "js")
    assert len(scanned.code) == len(text)
    assert scanned.code.count("\n") == 1
    assert "it.skip" not in scanned.code and "//" not in scanned.code and "/*" not in scanned.code
    assert scanned.code.startswith('a("')
    assert scanned.text == text


def test_js_describe_path_names_nested_tests():
    tests, _ = js_tests(JS)
    assert [t.ident for t in tests] == ["cart > multiplies quantity", "cart > is zero when empty"]
    assert [len(t.checks) for t in tests] == [1, 1]


def test_go_and_rust_tests_are_found_with_their_assertions():
    go_found, _ = go_tests(GO)
    rust_found, _ = rust_tests(RS)
    assert [(t.name, len(t.checks)) for t in go_found] == [("TestTotal", 1), ("TestEmpty", 1)]
    assert [(t.name, len(t.checks)) for t in rust_found] == [("multiplies", 1), ("empty", 1)]


JS_EACH = """
const { total } = require("./cart");

test.each([
  [[["pen", 2, 1.5]], 3],
  [[], 0],
])("total(%j) is %d", (lines, want) => {
  expect(total(lines)).toBe(want);
});
"""
GO_TABLE = """package cart

import "testing"

func TestTotal(t *testing.T) {
	cases := []struct {
		q    int
		p    float64
		want float64
	}{
		{2, 1.5, 3},
		{0, 1, 0},
	}
	for _, c := range cases {
		if got := Total(c.q, c.p); got != c.want {
			t.Errorf("Total(%d, %v) = %v", c.q, c.p, got)
		}
	}
}
"""
TABLE_CASES = [
    (
        "js-each-row-removed",
        {JSP: JS_EACH},
        {JSP: JS_EACH.replace('  [[["pen", 2, 1.5]], 3],\n', "")},
        T,
        None,
    ),
    (
        "js-each-row-changed",
        {JSP: JS_EACH},
        {JSP: JS_EACH.replace("]], 3]", "]], 1.5]")},
        T,
        "expectation-changed",
    ),
    (
        "js-each-row-added",
        {JSP: JS_EACH},
        {JSP: JS_EACH.replace("  [[], 0],\n", "  [[], 0],\n  [[['a', 1, 1]], 1],\n")},
        C,
    ),
    (
        "go-table-row-removed",
        {GOP: GO_TABLE},
        {GOP: GO_TABLE.replace("\t\t{2, 1.5, 3},\n", "")},
        T,
        None,
    ),
    (
        "go-table-row-changed",
        {GOP: GO_TABLE},
        {GOP: GO_TABLE.replace("{2, 1.5, 3}", "{2, 1.5, 1.5}")},
        T,
        "expectation-changed",
    ),
    (
        "go-table-row-added",
        {GOP: GO_TABLE},
        {GOP: GO_TABLE.replace("\t\t{0, 1, 0},\n", "\t\t{0, 1, 0},\n\t\t{1, 1, 1},\n")},
        C,
    ),
    (
        "rust-test-case-removed",
        {
            RSP: "#[test_case(2, 3.0)]\n#[test_case(0, 0.0)]\nfn total_is(q: u32, want: f64) {\n    assert_eq!(total(q, 1.5), want);\n}\n"
        },
        {
            RSP: "#[test_case(0, 0.0)]\nfn total_is(q: u32, want: f64) {\n    assert_eq!(total(q, 1.5), want);\n}\n"
        },
        T,
        None,
    ),
]


@pytest.mark.parametrize("case", TABLE_CASES, ids=lambda c: c[0])
def test_table_driven_rows_are_compared(case, check_case):
    check_case(case)


FOCUS_CASES = [
    js("test-only", JS.replace('it("is zero', 'test.only("is zero'), T, "focus-added"),
    js("describe-only", JS.replace('describe("cart"', 'describe.only("cart"'), T, "focus-added"),
    js("focus-removed", JS, C, None, JS.replace('it("is zero', 'it.only("is zero')),
    js(
        "only-in-a-string",
        JS.replace('"is zero when empty"', '"is zero when empty (not it.only)"'),
        C,
    ),
    js(
        "pass-to-real-body",
        JS,
        C,
        None,
        JS.replace('    expect(total([["pen", 2, 1.5]])).toBe(3);\n', ""),
    ),
]


@pytest.mark.parametrize("case", FOCUS_CASES, ids=lambda c: c[0])
def test_focus_and_emptied_bodies_in_js(case, check_case):
    check_case(case)
