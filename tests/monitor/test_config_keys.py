"""The monitor's config keys, read through interlock.config like every key: their values,
the junk each one refuses (the default with a warning), how `config show` prints them, and
the round trip through a run's frozen config."""

from __future__ import annotations

import pytest

from interlock.config import (
    SCHEMA_BY_NAME,
    config_from_json,
    config_to_json,
    load_config,
    show_value,
    validate_file,
)


def _load(tmp_path, text: str):
    (tmp_path / ".interlock.toml").write_text(text)
    return load_config(tmp_path, environ={})


@pytest.mark.parametrize(
    ("line", "key", "value"),
    [
        ("repeat_threshold = 2", "repeat_threshold", 2),
        ("repeat_threshold = 7.0", "repeat_threshold", 7),
        ('repeat_threshold = " 4 "', "repeat_threshold", 4),
        ("flat_attempts = 2", "flat_attempts", 2),
        ("flat_attempts = 5", "flat_attempts", 5),
        ("min_patch_distance = 0", "min_patch_distance", 0.0),
        ("min_patch_distance = 1", "min_patch_distance", 1.0),
        ("min_patch_distance = 0.25", "min_patch_distance", 0.25),
        ('monotone_metric = " remaining "', "monotone_metric", "remaining"),
        ('monotone_metric = "none"', "monotone_metric", None),
        ('monotone_metric = "OFF"', "monotone_metric", None),
        ('monotone_metric = ""', "monotone_metric", None),
        ("experiment_cap = 0", "experiment_cap", 0),
        ("experiment_cap = 9", "experiment_cap", 9),
        ("tool_error_ratio = 1", "tool_error_ratio", 1.0),
        ("tool_error_ratio = 0.01", "tool_error_ratio", 0.01),
        ('metrics = { left = "grep -c x f" }', "metrics", {"left": "grep -c x f"}),
        ('metrics = { " left " = "wc -l f" }', "metrics", {"left": "wc -l f"}),
        ("metrics = {}", "metrics", {}),
    ],
)
def test_the_monitors_keys_take_their_values(tmp_path, line, key, value):
    config = _load(tmp_path, line + "\n")
    assert config.value(key) == value
    assert config.sources[key] == ".interlock.toml" and config.warnings == ()


@pytest.mark.parametrize(
    ("line", "key", "expected"),
    [
        ("repeat_threshold = 1", "repeat_threshold", "an integer >= 2"),
        ("repeat_threshold = true", "repeat_threshold", "a boolean is not a number"),
        ('repeat_threshold = "many"', "repeat_threshold", "an integer >= 2"),
        ("repeat_threshold = 2.5", "repeat_threshold", "an integer >= 2"),
        ("flat_attempts = 1", "flat_attempts", "an integer >= 2"),
        ("flat_attempts = false", "flat_attempts", "a boolean"),
        ("min_patch_distance = 1.01", "min_patch_distance", "a number from 0 to 1"),
        ("min_patch_distance = -0.1", "min_patch_distance", "a number from 0 to 1"),
        ('min_patch_distance = "0.1"', "min_patch_distance", "a number from 0 to 1"),
        ("min_patch_distance = true", "min_patch_distance", "a number from 0 to 1"),
        ("min_patch_distance = nan", "min_patch_distance", "a number from 0 to 1"),
        ("monotone_metric = 3", "monotone_metric", "the name of a metric"),
        ("experiment_cap = -1", "experiment_cap", "an integer >= 0"),
        ("tool_error_ratio = 0", "tool_error_ratio", "a number above 0 and at most 1"),
        ("tool_error_ratio = 2", "tool_error_ratio", "a number from 0 to 1"),
        ('metrics = "grep x"', "metrics", "a table of name"),
        ("metrics = { left = 3 }", "metrics", "('left' is not)"),
        ('metrics = { left = "  " }', "metrics", "('left' is not)"),
    ],
)
def test_junk_takes_the_default_with_a_warning(tmp_path, line, key, expected):
    config = _load(tmp_path, line + "\n")
    assert config.value(key) == SCHEMA_BY_NAME[key].default
    assert config.sources[key] == "default"
    assert any(key in w and expected in w for w in config.warnings), config.warnings
    assert [str(e) for e in validate_file(tmp_path / ".interlock.toml")] != []


def test_a_runs_frozen_config_reads_back_the_same_values_without_warnings(tmp_path):
    config = _load(
        tmp_path,
        'monotone_metric = "left"\nflat_attempts = 4\nmin_patch_distance = 0.2\n'
        'metrics = { left = "echo 3" }\n',
    )
    again = config_from_json(config_to_json(config), "run r-1 baseline")
    for key in ("monotone_metric", "flat_attempts", "min_patch_distance", "metrics"):
        assert again.value(key) == config.value(key)
    defaults = config_from_json(config_to_json(load_config(None, environ={})), "run r-2")
    assert defaults.warnings == ()  # a None (off, unbounded, auto) is written as a word it reads
    assert defaults.flat_attempts is None and defaults.progress_stall_threshold is None
    assert defaults.max_turns == 200


def test_show_value_says_what_none_means_for_each_key():
    assert show_value(None, SCHEMA_BY_NAME["flat_attempts"]) == (
        "3 (4 for validators slower than 60 s)"
    )
    assert show_value(None, SCHEMA_BY_NAME["monotone_metric"]) == "none"
    assert show_value(None, SCHEMA_BY_NAME["max_turns"]) == "unbounded/off"
    assert show_value(None) == "unbounded/off"
    assert show_value({"a": "x", "b": "y"}) == "a = 'x', b = 'y'"
    assert show_value({}) == "(none)"
