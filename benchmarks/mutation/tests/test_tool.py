"""The mutation tool's own tests: its mutants really apply, and a known mutant is killed.

.venv/bin/python benchmarks/mutation/run.py --self-test
"""

from __future__ import annotations

import ast
import hashlib
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parents[1]
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE / "inject"))

import ledger  # noqa: E402
from mutants import apply_mutant, find_mutants  # noqa: E402
from mutation_trace import IMPORT, Recorder  # noqa: E402
from selection import import_time_lines, order_tests  # noqa: E402

SAMPLE = textwrap.dedent(
    '''\
    """Docstring: never mutated."""
    from __future__ import annotations

    from typing import TYPE_CHECKING

    if TYPE_CHECKING:
        import os

    LIMIT = 3


    def judge(items: list[int], flag: bool = True) -> bool:
        """Docstring."""
        total = 0
        for item in items:
            if item == 0:
                continue
            if item > LIMIT and not flag:
                break
            total += item * 2
            items.append(-item)
        name = "x" if flag else "y"
        if name in ("a", "b") or name.startswith("z"):
            print(f"{name == 'q'}")
        return any(i < 1 for i in items if i) and total >= 2


    def size(text: str) -> int:
        try:
            return len(text) | 1
        except TypeError:
            return 0
    '''
)


def test_every_operator_makes_mutants_that_parse_change_the_ast_and_keep_the_lines():
    found = find_mutants(SAMPLE, "pkg/sample.py")
    operators = {m.operator for m in found}
    assert operators == {
        "compare",
        "boundary",
        "boolop",
        "bool",
        "number",
        "not",
        "condition",
        "statement",
        "call",
        "loopctl",
        "return",
        "string",
        "binop",
        "builtin",
    }
    reference = ast.dump(ast.parse(SAMPLE))
    for mutant in found:
        mutated = apply_mutant(SAMPLE, mutant)
        assert ast.dump(ast.parse(mutated)) != reference, mutant.key
        assert len(mutated.splitlines()) == len(SAMPLE.splitlines()), mutant.key
    assert len({m.key for m in found}) == len(found)


def test_docstrings_annotations_type_checking_and_f_strings_are_left_alone():
    found = find_mutants(SAMPLE, "pkg/sample.py")
    lines = {m.line for m in found}
    assert not lines & {1, 2, 6, 7, 13}  # docstrings, __future__, TYPE_CHECKING block
    assert not [m for m in found if m.line == 24 and m.operator in ("compare", "string")]
    assert not [m for m in found if "int" in m.original and m.line == 12]  # annotations


def test_a_mutant_of_an_expression_over_several_lines_keeps_the_line_numbers():
    source = "x = (1 <\n     2)\ny = 3\n"
    (flip,) = [m for m in find_mutants(source, "m.py") if m.operator == "compare"]
    mutated = apply_mutant(source, flip)
    assert mutated.splitlines()[2] == "y = 3"
    assert eval(compile(mutated + "\nresult = x", "m", "exec"), {}) is None  # noqa: S307
    namespace: dict[str, object] = {}
    exec(mutated, namespace)  # noqa: S102
    assert namespace["x"] is False


def test_text_before_the_node_is_counted_in_bytes_as_ast_columns_are():
    source = 'label = "été" ; ok = 1 == 1\n'
    (flip,) = [m for m in find_mutants(source, "m.py") if m.operator == "compare"]
    assert apply_mutant(source, flip) == 'label = "été" ; ok = (1 != 1)\n'


def test_keys_name_a_mutant_without_its_line_so_they_survive_edits_above():
    before = {m.key: m.line for m in find_mutants(SAMPLE, "pkg/sample.py")}
    after = {m.key: m.line for m in find_mutants("import sys\n\n" + SAMPLE, "pkg/sample.py")}
    assert before.keys() == after.keys()
    assert all(after[k] == before[k] + 2 for k in before)


def test_a_constant_is_named_by_the_expression_around_it():
    found = find_mutants(SAMPLE, "pkg/sample.py")
    shown = {(m.original, m.replacement) for m in found if m.operator in ("number", "builtin")}
    assert ("total >= 2", "total >= 3") in shown
    assert ("item * 2", "item * 3") in shown
    assert ("LIMIT = 3", "LIMIT = 4") in shown  # at module level: the statement
    assert any(o.startswith("any(") and r.startswith("all(") for o, r in shown)


def test_equivalent_entries_match_by_function_and_text_and_occurrence(tmp_path):
    (tmp_path / "eq.toml").write_text(
        textwrap.dedent(
            """\
            [[equivalent]]
            module = "pkg/sample.py"
            function = "judge"
            original = "item > LIMIT"
            mutant = "item >= LIMIT"
            reason = "LIMIT is never reached"
            """
        )
    )
    (entry,) = ledger.load_equivalents(tmp_path / "eq.toml")
    found = find_mutants("import sys\n" + SAMPLE, "pkg/sample.py")
    matched = [m for m in found if entry.matches(m)]
    assert [(m.operator, m.line) for m in matched] == [("boundary", 19)]
    (tmp_path / "eq.toml").write_text('[[equivalent]]\nmodule = "m"\nfunction = "f"\n')
    with pytest.raises(SystemExit, match="missing original, mutant, reason"):
        ledger.load_equivalents(tmp_path / "eq.toml")


def test_the_score_leaves_listed_survivors_out_and_counts_timeouts_as_kills():
    from execute import Outcome

    found = find_mutants(SAMPLE, "pkg/sample.py")[:4]
    entry = ledger.Equivalent(
        "pkg/sample.py", found[3].function, found[3].original, found[3].replacement, None, "reason"
    )
    statuses = ["killed", "timeout", "survived", "survived"]
    outcomes = [Outcome(m, s, 1, 0.1) for m, s in zip(found, statuses, strict=True)]
    score = ledger.score_of(outcomes, [entry])
    assert (score.tried, score.killed, score.survived, score.equivalent) == (4, 2, 1, 1)
    assert round(score.score, 1) == 66.7
    assert ledger.check("m", score, None) == "m: 66.7% is below the floor of 90%"
    perfect = ledger.Score(10, 9, 0, 1)
    assert ledger.check("m", perfect, {"score": 100.0}) is None
    assert "below its recorded 100.0%" in str(
        ledger.check("m", ledger.Score(20, 19, 1, 0), {"score": 100.0})
    )


def test_a_capped_lower_bound_never_replaces_an_exact_record_but_updates_a_capped_one():
    exact = {"tried": 10, "killed": 10, "survived": 0, "equivalent": 0, "score": 100.0}
    capped = ledger.Score(10, 7, 3, 0, capped=200)
    recorded = {"a.py": exact, "b.py": {**exact, "capped": 200}}
    merged = ledger.merge_scores(recorded, {"a.py": capped, "b.py": capped, "c.py": capped})
    assert merged["a.py"] == exact
    assert merged["b.py"] == merged["c.py"] == {**capped.to_json()}
    assert merged["c.py"]["capped"] == 200 and merged["c.py"]["score"] == 70.0
    uncapped = ledger.Score(10, 9, 1, 0)
    assert ledger.merge_scores(recorded, {"b.py": uncapped})["b.py"] == uncapped.to_json()
    assert "capped" not in uncapped.to_json()


def test_module_level_code_is_import_time_and_function_bodies_are_not():
    early = import_time_lines(SAMPLE)
    assert {9, 12, 28}.issubset(early)  # LIMIT, the def lines
    assert not {14, 16, 25, 29, 30}.intersection(early)


def test_the_modules_own_tests_run_first_then_its_folders_then_the_quickest():
    tests = {
        "tests/test_architecture.py::a",
        "tests/memory/test_snapshot.py::b",
        "tests/memory/test_restore.py::c",
        "tests/memory/test_restore.py::d",
    }
    durations = {"tests/memory/test_restore.py::c": 2.0, "tests/memory/test_restore.py::d": 0.1}
    assert order_tests("interlock/memory/restore.py", tests, durations) == [
        "tests/memory/test_restore.py::d",
        "tests/memory/test_restore.py::c",
        "tests/memory/test_snapshot.py::b",
        "tests/test_architecture.py::a",
    ]


def test_the_tracer_records_lines_per_test_and_import_time_apart(tmp_path):
    module = tmp_path / "traced_sample.py"
    module.write_text("def f(x):\n    if x:\n        return 1\n    return 2\n\nTABLE = f(0)\n")
    recorder = Recorder({str(module)})
    sys.path.insert(0, str(tmp_path))
    recorder.start()
    try:
        import traced_sample  # type: ignore[import-not-found]

        recorder.context = "tests/test_x.py::test_one"
        traced_sample.f(1)
    finally:
        recorder.stop()
        sys.path.remove(str(tmp_path))
    assert recorder.hits[IMPORT][str(module)] == {1, 2, 4, 6}
    assert recorder.hits["tests/test_x.py::test_one"][str(module)] == {2, 3}


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _config_mutant(function: str, original: str, replacement: str) -> str:
    """The id of the one mutant of interlock/config.py in function whose texts contain these."""
    source = (ROOT / "interlock/config.py").read_text()
    (found,) = [
        m
        for m in find_mutants(source, "interlock/config.py")
        if m.function == function and original in m.original and replacement in m.replacement
    ]
    return found.id


def test_known_mutants_are_applied_in_a_copy_and_killed_and_a_weak_test_lets_one_survive():
    closure = _config_mutant("_choice.parse", "value not in options", "value in options")
    low = _config_mutant(
        "<module>", "'max_turns', 200,", "'max_turns', 199,"
    )  # same size as the next one: no stale .pyc
    high = _config_mutant("<module>", "'max_turns', 200,", "'max_turns', 201,")
    before = _digest(ROOT / "interlock/config.py")
    run = [sys.executable, str(HERE / "run.py"), "interlock/config.py", "--no-nice", "--jobs", "1"]
    strong = subprocess.run(
        [*run, "--tests", "tests/test_config.py", "--mutant", closure, low, high],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert strong.returncode == 0, strong.stdout + strong.stderr
    for ident in (closure, low, high):
        assert re.search(rf"\] killed +{ident} ", strong.stdout), strong.stdout
    weak = subprocess.run(
        [*run, "--tests", "tests/test_config.py::test_mode_is_case_insensitive", "--mutant", low],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert re.search(rf"\] survived +{low} ", weak.stdout), weak.stdout
    assert "SURVIVED interlock/config.py:" in weak.stdout
    assert _digest(ROOT / "interlock/config.py") == before


def test_an_interrupted_run_removes_its_copies_and_never_touches_the_worktree():
    before = _digest(ROOT / "interlock/config.py")
    proc = subprocess.Popen(
        [
            sys.executable,
            str(HERE / "run.py"),
            "interlock/config.py",
            "--no-nice",
            "--jobs",
            "1",
            "--tests",
            "tests/test_config.py",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert proc.stdout is not None
    workdir = None
    deadline = time.monotonic() + 120
    for line in proc.stdout:
        found = re.search(r"working in (\S+)", line)
        workdir = Path(found.group(1)) if found else workdir
        if "] " in line or time.monotonic() > deadline:  # a mutant has run: one is in flight
            break
    os.kill(proc.pid, signal.SIGTERM)
    rest = proc.communicate(timeout=60)[0]
    assert proc.returncode == 130, rest
    assert workdir is not None and not workdir.exists()
    assert _digest(ROOT / "interlock/config.py") == before


def test_a_timeout_is_run_once_more_with_twice_the_time_before_it_counts(tmp_path):
    """A deadline run out on a loaded machine is no kill: the mutant runs again, with twice
    the time; only a second timeout counts (as a kill: a loop that never ends)."""
    from execute import Job, Workers

    module = "interlock/config.py"
    source = (ROOT / module).read_text(encoding="utf-8")
    mutant = find_mutants(source, module)[0]
    (tmp_path / "interlock").mkdir()
    (tmp_path / module).write_text(source, encoding="utf-8")
    for second, expected in (
        ("survived", "survived"),
        ("killed", "killed"),
        ("timeout", "timeout"),
    ):
        workers = Workers([tmp_path], {module: source})
        calls: list[float] = []

        def fake(copy, select, files, budget, keep_output, second=second, calls=calls):
            calls.append(budget)
            return ("timeout", "slow") if len(calls) == 1 else (second, "")

        workers._pytest = fake  # type: ignore[method-assign]
        outcome = workers.run(Job(mutant, ["tests/test_config.py::x"], 40.0))
        assert (outcome.status, calls) == (expected, [40.0, 80.0])
        assert (tmp_path / module).read_text(encoding="utf-8") == source
    workers = Workers([tmp_path], {module: source})
    workers._pytest = lambda *a: ("killed", "")  # type: ignore[method-assign]
    assert workers.run(Job(mutant, ["t"], 40.0)).status == "killed"
