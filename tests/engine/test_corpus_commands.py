"""Every case of the shared command corpus judged as `interlock check --json --assume-dirty
--mode blocking` would judge it (one process for all, like --batch)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from interlock.engine.check import evaluate

LOCAL = Path(__file__).parents[1] / "corpus" / "commands.jsonl"
KIND = {"masked": "masked-validator"}


def load(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def cases(corpus: Path) -> list[dict]:
    return load(corpus / "commands.jsonl") + load(LOCAL)


def judge(cmd: str) -> dict:
    return evaluate(cmd, "/", mode="blocking", assume_dirty=True).result.to_json()


@pytest.mark.corpus_cases("case", cases, ids=lambda c: c["cmd"][:60])
def test_corpus_case_gets_expected_kinds(case):
    result = judge(case["cmd"])
    kinds = {f["kind"] for f in result["findings"]}
    expect = set(case["expect"])
    flagged = {KIND.get(e, e) for e in expect if e not in ("safe", "slow", "fast")}
    assert flagged <= kinds, result
    if "safe" in expect:
        assert not result["findings"] and not result["validators"], result
    for tier in ("slow", "fast"):
        if tier in expect:
            assert not result["findings"], result
            assert any(v["tier"] == tier and not v["masked"] for v in result["validators"]), result
    # `masked` asks for a masked-validator finding: blocking mode refuses the forged ones
    # (`|| true`, `-k 'not x'`... see engine/verdict.py) and warns on those whose status is only
    # hidden (`| tail`, `; echo done`); discards and self-disable are always refused.
    if flagged - {"masked-validator"}:
        assert result["would_block"] and result["verdict"] == "block"
    elif flagged:
        assert result["verdict"] in ("warn", "block")
        assert result["would_block"] == (result["verdict"] == "block")
    if not flagged:
        assert result["verdict"] == "allow"


def test_corpus_is_not_empty(corpus_dir):
    assert len(cases(corpus_dir)) >= 190
