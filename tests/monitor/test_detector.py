"""The stuck detector's parts: failure text normalised and excerpted, records read from JSON
(unknown is never a stuck signal; a wrong type is an error naming the field), the settings'
precedence, and `interlock monitor classify` on bad input."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from interlock.cli import run_cli
from interlock.config import load_config
from interlock.monitor.errortext import excerpt, first_line, normalise
from interlock.monitor.settings import from_config, from_raw, override
from interlock.monitor.stuck import RUNNING, STUCK_ENVIRONMENT, classify
from interlock.monitor.trace import Record, TraceError, record_from_json, trace_from_json


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("worker pid 4121 died", "worker pid <n> died"),
        ("1 failed, 3 passed in 0.12s", "1 failed, 3 passed in <dur>"),
        ("took 250 ms", "took <dur>"),
        ("at 2026-11-30T10:01:02.5Z", "at <time>"),
        ("at 10:01:02", "at <time>"),
        ("stamp 1764494462.25", "stamp <time>"),
        ("<Pool object at 0x7f3ac9e1d0>", "<Pool object at 0x<addr>>"),
        ("job 3f2a9c1e-0b7d-4c55-9e2f-1a2b3c4d5e6f lost", "job <uuid> lost"),
        ("open /tmp/tmpab12cd/x.db failed", "open <tmp> failed"),
        ("in /private/var/folders/x1/T/y.txt", "in <tmp>"),
        ("in pytest-of-ci/pytest-7/test_x0/f.txt", "in <tmp>"),
        ("  a \t  b  \n\n c ", "a b\nc"),
        ("assert 2 == 1", "assert 2 == 1"),
        ('File "app.py", line 12', 'File "app.py", line 12'),
        ("port 9200 refused", "port 9200 refused"),
    ],
)
def test_normalise_masks_what_varies_and_keeps_what_tells_failures_apart(text, masked):
    assert normalise(text) == masked


@given(st.text(max_size=300))
def test_normalise_is_idempotent(text):
    once = normalise(text)
    assert normalise(once) == once


def test_excerpt_picks_the_failure_lines_of_a_pytest_tail():
    tail = (
        "....F\n=== FAILURES ===\n___ test_mul ___\n    def test_mul():\n"
        ">       assert mul(2, 3) == 6\nE       assert 5 == 6\n"
        "=== short test summary info ===\n"
        "FAILED tests/test_calc.py::test_mul - assert 5 == 6\n1 failed, 4 passed in 0.03s\n"
    )
    assert excerpt(tail) == "E assert 5 == 6\nFAILED tests/test_calc.py::test_mul - assert 5 == 6"
    assert first_line(excerpt(tail)) == "E assert 5 == 6"


def test_excerpt_of_output_without_failure_lines_is_its_end():
    assert excerpt("one\ntwo\n\nthree in 1.5s\n") == "one\ntwo\nthree in <dur>"
    assert excerpt(None) == "" and excerpt("") == ""


def test_a_record_with_missing_fields_reads_as_unknown():
    record = record_from_json({})
    assert record == Record()
    assert not record.failed and record.patch_distance is None


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ("exit", "1", "records[0].exit: expected a whole number"),
        ("exit", 1.5, "records[0].exit: expected a whole number"),
        ("patch_distance", True, "records[0].patch_distance: expected a number"),
        ("patch_distance", float("nan"), "records[0].patch_distance: expected a number"),
        ("failing", "tests/a.py::t", "records[0].failing: expected a list of test ids"),
        ("failing", [1], "records[0].failing: expected a list of test ids"),
        ("tool_calls", -1, "records[0].tool_calls: expected a count >= 0"),
        ("metrics", [1], "records[0].metrics: expected an object"),
        ("metrics", {"left": "x"}, "records[0].metrics.left: expected a number"),
        ("experiment", "yes", "records[0].experiment: expected true or false"),
        ("config", [], "records[0].config: expected an object"),
        ("last_call", 5, "records[0].last_call: expected a string"),
    ],
)
def test_a_field_of_the_wrong_type_is_an_error_naming_it(field, value, said):
    with pytest.raises(TraceError) as caught:
        trace_from_json({"records": [{field: value}]})
    assert str(caught.value).startswith(said)


@pytest.mark.parametrize(
    ("trace", "said"),
    [
        ([], "a trace is an object"),
        ({"records": {}}, "records: expected a list"),
        ({"records": [], "config": [1]}, "config: expected an object"),
        ({"records": [3]}, "records[0]: expected an object"),
    ],
)
def test_a_trace_of_the_wrong_shape_is_an_error(trace, said):
    with pytest.raises(TraceError, match=said.replace("[", r"\[").replace("]", r"\]")):
        trace_from_json(trace)


def test_settings_come_from_the_defaults_then_the_run_config_then_each_step():
    defaults = from_config(load_config(None, environ={}))
    assert (defaults.repeat_threshold, defaults.flat_attempts) == (3, None)
    assert (defaults.min_patch_distance, defaults.monotone_metric) == (0.1, None)
    assert (defaults.experiment_cap, defaults.tool_error_ratio) == (2, 0.5)
    assert defaults.flat_for(None) == 3 and defaults.flat_for(61) == 4 and defaults.flat_for(60) == 3
    run, warnings = from_raw({"repeat_threshold": 5, "flat_attempts": "x", "colour": "red"})
    assert run.repeat_threshold == 5 and run.flat_attempts is None
    assert any("flat_attempts" in w for w in warnings)
    assert any("unknown key 'colour'" in w for w in warnings)
    seen: list[str] = []
    step = override(run, {"repeat_threshold": 2, "mode": "off", "min_patch_distance": 7}, "s2", seen.append)
    assert step.repeat_threshold == 2 and step.min_patch_distance == 0.1
    assert step.flat_for(999) == 4
    assert any("'mode' is not a setting of the stuck detector" in w for w in seen)
    assert any("min_patch_distance = 7 is not a number from 0 to 1" in w for w in seen)


def test_a_bad_per_step_value_is_reported_and_keeps_the_value_in_force():
    failing = {"last_call": "make", "last_error": "boom", "exit": 2, "patch_distance": 0}
    records = [record_from_json(failing), record_from_json({**failing, "config": {"repeat_threshold": 0}})]
    seen: list[str] = []
    run, _ = from_raw({"repeat_threshold": 2})
    assert classify(records, run, seen.append).status == STUCK_ENVIRONMENT
    assert seen == ["records[1].config: repeat_threshold = 0 is not an integer >= 2; the value in force stays"]


def test_the_verdict_is_not_latched(tmp_path):
    same = {"last_call": "make", "last_error": "boom", "exit": 2, "patch_distance": 0}
    records = [record_from_json(same)] * 3
    run, _ = from_raw({})
    assert classify(records, run).status == STUCK_ENVIRONMENT
    records.append(record_from_json({"last_call": "make", "exit": 0, "patch_distance": 0.5}))
    assert classify(records, run).status == RUNNING


def test_labels_name_the_records_in_the_reason():
    same = {"last_call": "make", "last_error": "boom", "exit": 2, "patch_distance": 0}
    records = [record_from_json(same)] * 3
    run, _ = from_raw({})
    verdict = classify(records, run, labels=["#7", "#9", "#12"])
    assert "(#7..#12)" in verdict.reason and verdict.evidence == (0, 1, 2)


def test_classify_reads_stdin_and_prints_a_line_per_trace_without_json(monkeypatch, cap_out):
    import io

    lines = [
        {"name": "a", "records": [], "config": {}},
        {"records": [{"exit": 1, "failing": ["t"], "patch_distance": 1}] * 3},
    ]
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(json.dumps(x) for x in lines) + "\n\n"))
    assert run_cli(["monitor", "classify", "-"]) == 0
    assert cap_out[0].getvalue().splitlines() == [
        "a: running: no attempts yet",
        "stuck_search: 3 materially different attempts (#1..#3) left the same 1 failing test(s): t",
    ]


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ("{not json", "line 1 is not JSON"),
        ("", "holds no trace"),
        ('{"records": [{"exit": "x"}]}', "records[0].exit: expected a whole number"),
        ('{"records": []}\n{"records": 5}', ":2: records: expected a list"),
    ],
)
def test_classify_names_what_is_wrong_with_its_input_and_exits_1(tmp_path, cap_out, content, said):
    path = tmp_path / "t.json"
    path.write_text(content)
    assert run_cli(["monitor", "classify", "--json", str(path)]) == 1
    assert said in cap_out[1].getvalue()
    assert cap_out[1].getvalue().startswith("interlock: error:")


def test_classify_of_a_missing_file_is_a_usage_error(tmp_path, cap_out):
    assert run_cli(["monitor", "classify", str(tmp_path / "nope.json")]) == 1
    assert "cannot read" in cap_out[1].getvalue()
