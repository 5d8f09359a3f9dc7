"""The stuck detector on recorded traces: every trace of the shared corpus
(`../shared/corpus/stuck/traces.jsonl`) and of our own (tests/corpus/stuck/*.jsonl, one per
boundary of the rules) classifies as expected, in-process and through
`interlock monitor classify --json`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from interlock.cli import run_cli
from interlock.monitor.settings import from_raw
from interlock.monitor.stuck import classify
from interlock.monitor.trace import trace_from_json

OWN = Path(__file__).resolve().parents[1] / "corpus" / "stuck"
STATUSES = ("running", "stuck_environment", "stuck_search")


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def shared_cases(corpus_dir: Path) -> list[pytest.param]:
    return [pytest.param(t, id=t["name"]) for t in _lines(corpus_dir / "stuck" / "traces.jsonl")]


def own_cases() -> list[pytest.param]:
    return [
        pytest.param(t, id=f"{path.stem}/{t['name']}")
        for path in sorted(OWN.glob("*.jsonl"))
        for t in _lines(path)
    ]


def _verdict(trace: dict) -> str:
    records, config = trace_from_json(trace)
    settings, _ = from_raw(config)
    return classify(records, settings).status


@pytest.mark.corpus_cases("trace", shared_cases)
def test_every_shared_trace_classifies_as_expected(trace):
    assert _verdict(trace) == trace["expect"], trace["why"]


@pytest.mark.parametrize("trace", own_cases())
def test_every_trace_of_our_own_classifies_as_expected(trace):
    assert _verdict(trace) == trace["expect"], trace["why"]


def test_our_traces_are_well_formed_and_cover_every_status():
    traces = [p.values[0] for p in own_cases()]
    assert len(traces) >= 40
    names = [t["name"] for t in traces]
    assert len(names) == len(set(names)), "trace names repeat"
    for trace in traces:
        assert set(trace) == {"name", "category", "records", "config", "expect", "why"}
        assert trace["expect"] in STATUSES and trace["why"].strip()
    assert {t["expect"] for t in traces} == set(STATUSES)


def test_the_command_line_prints_the_status_and_reason_of_each_trace(corpus_dir, cap_out):
    path = corpus_dir / "stuck" / "traces.jsonl"
    assert run_cli(["monitor", "classify", "--json", str(path)]) == 0
    printed = [json.loads(line) for line in cap_out[0].getvalue().splitlines()]
    expected = [t["expect"] for t in _lines(path)]
    assert [p["status"] for p in printed] == expected
    assert all(set(p) == {"status", "reason"} and p["reason"] for p in printed)


def test_one_trace_file_gives_one_json_object(tmp_path, cap_out):
    trace = _lines(OWN / "boundaries.jsonl")[0]
    path = tmp_path / "trace.json"
    path.write_text(json.dumps({"records": trace["records"], "config": trace["config"]}, indent=2))
    assert run_cli(["monitor", "classify", "--json", str(path)]) == 0
    assert json.loads(cap_out[0].getvalue()) == {
        "status": "stuck_environment",
        "reason": "the last 3 counted records (s1..s3) failed the same way: "
        "`pytest -q tests/test_db.py`, exit 1, the same error, with no edit between",
    }
