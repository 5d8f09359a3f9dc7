from __future__ import annotations

from pathlib import Path

import pytest

from interlock.cli import run_cli
from interlock.config import load_config, validate_file


def write(root: Path, name: str, text: str) -> None:
    (root / name).write_text(text)


def test_defaults_apply_outside_a_repository():
    config = load_config(None, environ={})
    assert config.mode == "advisory"
    assert config.verification_tiers == "advisory"
    assert config.safe_state_abort == "advisory"
    assert config.progress_stall_threshold is None
    assert config.max_turns == 200
    assert config.validators == ()
    assert "**/conftest.py" in config.protected
    assert set(config.sources.values()) == {"default"}
    assert config.warnings == ()


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("7", 7),
        ("0", None),
        ("-3", None),
        ('"unbounded"', None),
        ('"none"', None),
        ('"infinite"', None),
        ('"Infinity"', None),
        ('"unlimited"', None),
        ('"no limit"', None),
        ('"12"', 12),
        ("40.0", 40),
    ],
)
def test_max_turns_accepts_numbers_and_unbounded_words(tmp_path, raw, expected):
    write(tmp_path, ".interlock.toml", f"max_turns = {raw}\n")
    config = load_config(tmp_path, environ={})
    assert config.max_turns == expected
    assert config.sources["max_turns"] == ".interlock.toml"
    assert config.warnings == ()


@pytest.mark.parametrize("raw", ["true", "false", '"lots"', "[1]", "1.5", '"1e9x"'])
def test_max_turns_junk_or_bool_falls_back_to_default_with_warning(tmp_path, raw):
    write(tmp_path, ".interlock.toml", f"max_turns = {raw}\n")
    config = load_config(tmp_path, environ={})
    assert config.max_turns == 200
    assert config.sources["max_turns"] == "default"
    assert any("max_turns" in w for w in config.warnings)


def test_unset_max_turns_is_the_bounded_default(tmp_path):
    write(tmp_path, ".interlock.toml", 'mode = "blocking"\n')
    config = load_config(tmp_path, environ={})
    assert config.max_turns == 200


def test_malformed_file_gives_guarded_defaults_and_a_warning(tmp_path):
    write(tmp_path, ".interlock.toml", 'mode = "off"\nmax_turns = [unclosed\n')
    config = load_config(tmp_path, environ={})
    assert config.mode == "advisory"  # never "everything off" because the file is broken
    assert config.max_turns == 200
    assert any("not valid TOML" in w for w in config.warnings)


def test_unreadable_file_gives_guarded_defaults_and_a_warning(tmp_path):
    (tmp_path / ".interlock.toml").mkdir()  # a directory where the file should be
    config = load_config(tmp_path, environ={})
    assert config.mode == "advisory"
    assert any("cannot be read" in w for w in config.warnings)


def test_invalid_mode_falls_back_with_warning_naming_the_choices(tmp_path):
    write(tmp_path, ".interlock.toml", 'mode = "blockng"\n')
    config = load_config(tmp_path, environ={})
    assert config.mode == "advisory"
    assert any("one of off, advisory, blocking" in w for w in config.warnings)


def test_mode_is_case_insensitive(tmp_path):
    write(tmp_path, ".interlock.toml", 'mode = "Blocking"\n')
    assert load_config(tmp_path, environ={}).mode == "blocking"


@pytest.mark.parametrize(("raw", "expected"), [("2", 2), ("10", 10), ('"off"', None)])
def test_progress_stall_threshold_accepts_two_or_more(tmp_path, raw, expected):
    write(tmp_path, ".interlock.toml", f"progress_stall_threshold = {raw}\n")
    config = load_config(tmp_path, environ={})
    assert config.progress_stall_threshold == expected
    assert config.warnings == ()


@pytest.mark.parametrize("raw", ["1", "0", "true", '"soon"'])
def test_progress_stall_threshold_below_two_is_rejected(tmp_path, raw):
    write(tmp_path, ".interlock.toml", f"progress_stall_threshold = {raw}\n")
    config = load_config(tmp_path, environ={})
    assert config.progress_stall_threshold is None
    assert any("progress_stall_threshold" in w for w in config.warnings)


def test_safe_state_and_tiers_validate_their_choices(tmp_path):
    write(tmp_path, ".interlock.toml", 'safe_state_abort = "auto"\nverification_tiers = "loud"\n')
    config = load_config(tmp_path, environ={})
    assert config.safe_state_abort == "auto"
    assert config.verification_tiers == "advisory"
    assert any("verification_tiers" in w for w in config.warnings)


def test_validators_and_protected_take_string_lists(tmp_path):
    write(tmp_path, ".interlock.toml", 'validators = ["just test"]\nprotected = "spec/**"\n')
    config = load_config(tmp_path, environ={})
    assert config.validators == ("just test",)
    assert config.protected == ("spec/**",)


def test_validators_of_wrong_type_fall_back(tmp_path):
    write(tmp_path, ".interlock.toml", "validators = [1, 2]\n")
    config = load_config(tmp_path, environ={})
    assert config.validators == ()
    assert any("list of strings" in w for w in config.warnings)


def test_pyproject_tool_table_is_read_when_no_interlock_toml(tmp_path):
    write(tmp_path, "pyproject.toml", '[project]\nname="x"\n[tool.interlock]\nmode = "blocking"\n')
    config = load_config(tmp_path, environ={})
    assert config.mode == "blocking"
    assert config.sources["mode"] == "pyproject.toml [tool.interlock]"


def test_interlock_toml_wins_over_pyproject(tmp_path):
    write(tmp_path, "pyproject.toml", '[tool.interlock]\nmode = "off"\nmax_turns = 5\n')
    write(tmp_path, ".interlock.toml", 'mode = "blocking"\n')
    config = load_config(tmp_path, environ={})
    assert config.mode == "blocking"
    assert config.max_turns == 5
    assert config.sources["max_turns"] == "pyproject.toml [tool.interlock]"


def test_env_and_override_take_priority_in_that_order(tmp_path):
    write(tmp_path, ".interlock.toml", 'mode = "off"\n')
    assert load_config(tmp_path, environ={"INTERLOCK_MODE": "blocking"}).mode == "blocking"
    config = load_config(tmp_path, {"mode": "advisory"}, environ={"INTERLOCK_MODE": "blocking"})
    assert config.mode == "advisory"
    assert config.sources["mode"] == "--option"


def test_unknown_key_warns_but_does_not_fail(tmp_path):
    write(tmp_path, ".interlock.toml", 'mdoe = "off"\n')
    config = load_config(tmp_path, environ={})
    assert config.mode == "advisory"
    assert any("unknown key 'mdoe'" in w for w in config.warnings)


def test_validate_file_names_file_key_expected_and_found(tmp_path):
    write(tmp_path, ".interlock.toml", "max_turns = true\n")
    errors = validate_file(tmp_path / ".interlock.toml")
    assert len(errors) == 1
    text = str(errors[0])
    assert ".interlock.toml" in text and "max_turns" in text and "found True" in text


def test_config_show_prints_value_and_source(git_repo, cap_out):
    write(git_repo, ".interlock.toml", "max_turns = 0\n")
    assert run_cli(["config", "show", "--cwd", str(git_repo)]) == 0
    out = cap_out[0].getvalue()
    assert "max_turns" in out and "unbounded" in out and ".interlock.toml" in out
    assert "mode" in out and "(default)" in out


def test_config_show_json_has_values_sources_and_warnings(git_repo, cap_out):
    import json

    write(git_repo, ".interlock.toml", "max_turns = true\n")
    assert run_cli(["config", "show", "--json", "--cwd", str(git_repo)]) == 0
    data = json.loads(cap_out[0].getvalue())
    assert data["values"]["max_turns"] == {"value": 200, "source": "default"}
    assert data["warnings"]


def test_config_validate_exits_one_on_bad_value(git_repo, cap_out):
    write(git_repo, ".interlock.toml", 'mode = "loud"\n')
    assert run_cli(["config", "validate", "--cwd", str(git_repo)]) == 1
    assert "mode" in cap_out[1].getvalue()
    write(git_repo, ".interlock.toml", 'mode = "blocking"\n')
    assert run_cli(["config", "validate", "--cwd", str(git_repo)]) == 0
