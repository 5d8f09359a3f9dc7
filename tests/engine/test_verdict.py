"""interlock.engine.verdict: the named outcomes (unparsed, internal error) and the decision in
each mode, pinned through `analyse` where the engine reaches them (issue 14)."""

from __future__ import annotations

from dataclasses import FrozenInstanceError

import pytest

from interlock.engine.analysis import analyse
from interlock.engine.check import evaluate
from interlock.engine.findings import Finding
from interlock.engine.verdict import decide, internal_error_finding, unparsed_finding


def _unclosed(length: int) -> str:
    """A line of exactly `length` characters that no parser can read (an unclosed quote)."""
    return 'echo "' + "x" * (length - 6)


def test_an_unreadable_line_is_its_own_finding_and_says_why():
    analysis = analyse('echo "unterminated')
    (finding,) = analysis.findings
    assert (finding.kind, finding.rule, finding.severity) == ("unparsed", "parse.unparsed", "block")
    assert finding.text == 'echo "unterminated'
    assert finding.reason == (
        "interlock could not read this command line (unclosed quote or substitution), "
        "so it cannot tell what it would do"
    )


def test_a_line_of_120_characters_is_shown_whole_and_a_longer_one_is_cut_to_120():
    whole = _unclosed(120)
    assert analyse(whole).findings[0].text == whole
    longer = _unclosed(121)
    shown = analyse(longer).findings[0].text
    assert shown == longer[:117] + "..." and len(shown) == 120


def test_an_unparsed_finding_without_an_error_says_unknown_syntax():
    assert "(unknown syntax)" in unparsed_finding("x", None).reason
    assert "(unclosed quote)" in unparsed_finding("x", "unclosed quote").reason


def test_an_internal_error_names_its_report_and_is_cut_like_any_command():
    finding = internal_error_finding("y" * 121, "/tmp/crash.txt")
    assert finding.rule == "interlock.internal-error" and finding.severity == "block"
    assert finding.text == "y" * 117 + "..."
    assert internal_error_finding("y" * 120, "r").text == "y" * 120
    assert (
        finding.reason == "interlock failed while analysing this command (report: /tmp/crash.txt)"
    )


def _finding(rule: str) -> Finding:
    return analyse({"block": "git reset --hard", "warn": "pytest | tail"}[rule]).findings[0]


def test_each_mode_decides_as_documented():
    block, warn = _finding("block"), _finding("warn")
    assert (block.severity, warn.severity) == ("block", "warn")
    assert decide((), "blocking") == ("allow", False)
    assert decide((block,), "blocking") == ("block", True)
    assert decide((warn,), "blocking") == ("warn", False)
    assert decide((warn, block), "blocking") == ("block", True)
    assert decide((block,), "advisory") == ("warn", True)
    assert decide((warn,), "advisory") == ("warn", False)
    assert decide((block,), "off") == ("allow", True)


def test_a_checks_json_carries_the_config_notes_only_when_there_are_some(git_repo):
    data = evaluate("pytest | tail", cwd=str(git_repo)).result.to_json()
    assert "notes" not in data
    (git_repo / ".interlock.toml").write_text("mode = [broken\n")
    result = evaluate("pytest | tail", cwd=str(git_repo)).result
    assert result.notes and result.to_json()["notes"] == list(result.notes)


def test_a_decided_verdict_and_its_validator_reports_cannot_be_changed(git_repo):
    result = evaluate("pytest | tail", cwd=str(git_repo)).result
    with pytest.raises(FrozenInstanceError):
        result.verdict = "allow"  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        result.validators[0].masked = False  # type: ignore[misc]
