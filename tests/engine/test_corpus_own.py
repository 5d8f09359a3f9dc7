"""The corpus of our own cases (tests/corpus/{block,warn,allow,bypass,edge}/*.toml): each is
judged by text alone in blocking mode, and must be a command bash itself accepts."""

from __future__ import annotations

import subprocess
import tomllib
from pathlib import Path

import pytest

from interlock.engine.check import evaluate

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
FOLDERS = ("block", "warn", "allow", "bypass", "edge")
VERDICTS = ("block", "warn", "allow")


def load_cases() -> list[tuple[str, dict[str, object]]]:
    cases = []
    for folder in FOLDERS:
        for path in sorted((CORPUS / folder).glob("*.toml")):
            data = tomllib.loads(path.read_text(encoding="utf-8"))
            for n, case in enumerate(data.get("case", []), 1):
                cases.append((f"{folder}/{path.stem}#{n}", case))
    return cases


CASES = load_cases()


def test_every_case_is_well_formed():
    assert CASES, "no corpus cases found"
    for case_id, case in CASES:
        assert isinstance(case.get("command"), str) and case["command"].strip(), case_id
        assert case.get("expected") in VERDICTS, case_id
        assert isinstance(case.get("why"), str) and case["why"].strip(), case_id
        unknown = set(case) - {"command", "expected", "kind", "rule", "why", "bash_n"}
        assert not unknown, f"{case_id}: unknown fields {unknown}"


@pytest.mark.parametrize(("case_id", "case"), CASES, ids=[c[0] for c in CASES])
def test_case_gets_its_expected_verdict(case_id, case):
    result = evaluate(case["command"], "/", mode="blocking", assume_dirty=True).result
    kinds = {f.kind for f in result.findings}
    rules = {f.rule for f in result.findings}
    assert result.verdict == case["expected"], f"{case_id}: {case['why']}\n{result.to_json()}"
    if case["expected"] == "allow":
        assert not result.findings, f"{case_id}: allowed, but with findings {rules}"
    if "kind" in case:
        assert case["kind"] in kinds, f"{case_id}: no {case['kind']} finding in {kinds}"
    if "rule" in case:
        assert case["rule"] in rules, f"{case_id}: no {case['rule']} finding in {rules}"


@pytest.mark.parametrize(("case_id", "case"), CASES, ids=[c[0] for c in CASES])
def test_case_is_a_command_bash_accepts(case_id, case):
    if case.get("bash_n") is False:
        pytest.skip(f"{case_id}: bash rejects it on purpose ({case['why']})")
    proc = subprocess.run(
        ["bash", "-n", "-c", case["command"]], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, f"{case_id}: bash -n says {proc.stderr.strip()}"
