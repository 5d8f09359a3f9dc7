"""Metrics are commands interlock runs on the tree (never numbers the agent reports): the last
number a command prints; a failing, silent or slow one gives no value."""

from __future__ import annotations

import pytest

from interlock.monitor import metrics


@pytest.mark.parametrize(
    ("text", "value"),
    [("42\n", 42.0), ("left: 3 of 10\n", 10.0), ("-1.5e2", -150.0), ("none\n", None), ("", None)],
)
def test_a_metric_is_the_last_number_printed(text, value):
    assert metrics.last_number(text) == value


def test_declared_metrics_are_measured_in_the_tree_and_problems_named(tmp_path, monkeypatch):
    (tmp_path / "a.txt").write_text("TODO\nTODO\nok\n")
    monkeypatch.setattr(metrics, "METRIC_SECONDS", 0.5)
    values, problems = metrics.measure(
        {
            "todo": "grep -c TODO a.txt",
            "noisy": "echo 99 >&2; echo 7",
            "broken": "exit 3",
            "silent": "true",
            "slow": "sleep 5; echo 1",
        },
        str(tmp_path),
    )
    assert values == {"todo": 2.0, "noisy": 7.0}
    assert problems == {
        "broken": "exit status 3",
        "silent": "printed no number",
        "slow": "did not finish within 0.5 s",
    }


def test_the_metrics_of_one_attempt_share_one_time_budget(tmp_path, monkeypatch):
    monkeypatch.setattr(metrics, "METRICS_SECONDS", 0.3)
    values, problems = metrics.measure({"a": "sleep 1; echo 1", "b": "echo 2"}, str(tmp_path))
    assert values == {} and problems["a"].startswith("did not finish")
    assert problems["b"].startswith("not measured: the metrics took 0.3 s already")
