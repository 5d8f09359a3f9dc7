from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest

from interlock.cli import run_cli
from interlock.config import (
    SCHEMA,
    Config,
    Key,
    RawSource,
    config_to_json,
    load_config,
    resolve,
    show_value,
    validate_file,
)


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
        ("1", 1),
        ("1.0", 1),
        ("0.0", None),
        ("-1.0", None),
        ('"0"', None),
        ('"1"', 1),
        ('"-1"', None),
        ('" 9 "', 9),
        ('"UNBOUNDED"', None),
        ("inf", None),
        ("-inf", None),
    ],
)
def test_max_turns_accepts_numbers_and_unbounded_words(tmp_path, raw, expected):
    write(tmp_path, ".interlock.toml", f"max_turns = {raw}\n")
    config = load_config(tmp_path, environ={})
    assert config.max_turns == expected
    assert config.sources["max_turns"] == ".interlock.toml"
    assert config.warnings == ()


@pytest.mark.parametrize(
    "raw", ["true", "false", '"lots"', "[1]", "1.5", '"1e9x"', "nan", '""', "{ a = 1 }"]
)
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


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("2", 2),
        ("10", 10),
        ("3.0", 3),
        ('"4"', 4),
        ('" 5 "', 5),
        ('"off"', None),
        ('" None "', None),
        ('""', None),
    ],
)
def test_progress_stall_threshold_accepts_two_or_more(tmp_path, raw, expected):
    write(tmp_path, ".interlock.toml", f"progress_stall_threshold = {raw}\n")
    config = load_config(tmp_path, environ={})
    assert config.progress_stall_threshold == expected
    assert config.warnings == ()


@pytest.mark.parametrize(
    "raw", ["1", "0", "-4", "1.0", "2.5", "true", "false", '"soon"', '"1"', "[3]", "inf"]
)
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


# --- values of the wrong type never crash: they warn and take the default ---


@pytest.mark.parametrize("key", ["mode", "verification_tiers", "safe_state_abort"])
@pytest.mark.parametrize("raw", ["5", "true", '["blocking"]', "{ value = 'off' }", '""'])
def test_a_choice_of_the_wrong_type_warns_and_takes_the_default(tmp_path, key, raw):
    write(tmp_path, ".interlock.toml", f"{key} = {raw}\n")
    config = load_config(tmp_path, environ={})
    assert config.value(key) == "advisory"
    assert config.sources[key] == "default"
    assert any(f"{key} = " in w and "using the default (advisory)" in w for w in config.warnings)


def test_mode_is_trimmed_before_it_is_matched(tmp_path):
    write(tmp_path, ".interlock.toml", 'mode = "  Blocking "\n')
    config = load_config(tmp_path, environ={})
    assert (config.mode, config.warnings) == ("blocking", ())


def test_a_string_list_key_rejects_a_list_with_one_non_string(tmp_path):
    write(tmp_path, ".interlock.toml", 'validators = ["just test", 1]\nprotected = []\n')
    config = load_config(tmp_path, environ={})
    assert config.validators == ()
    assert config.sources["validators"] == "default"
    assert config.protected == ()  # an explicit empty list is a value, not a mistake
    assert config.sources["protected"] == ".interlock.toml"


def test_the_loaded_config_and_its_parts_are_frozen(tmp_path):
    config = load_config(tmp_path, environ={})
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.mode = "off"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        SCHEMA[0].default = "off"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        RawSource("env", {}).name = "x"  # type: ignore[misc]
    assert isinstance(SCHEMA[0], Key) and isinstance(config, Config)


# --- sources: the highest one that sets a key decides it ---


def test_a_bad_value_takes_the_default_not_a_lower_sources_value(tmp_path):
    # A typo for "blocking" must not hand the key to a pyproject.toml that says "off".
    write(tmp_path, ".interlock.toml", 'mode = "blockng"\n')
    write(tmp_path, "pyproject.toml", '[tool.interlock]\nmode = "off"\n')
    config = load_config(tmp_path, environ={})
    assert config.mode == "advisory"
    assert config.sources["mode"] == "default"
    assert config.warnings == (
        ".interlock.toml: mode = 'blockng' is not one of off, advisory, blocking; "
        "using the default (advisory)",
    )


def test_a_bad_environment_value_takes_the_default_not_the_files(tmp_path):
    write(tmp_path, ".interlock.toml", 'mode = "off"\n')
    config = load_config(tmp_path, environ={"INTERLOCK_MODE": "loud"})
    assert (config.mode, config.sources["mode"]) == ("advisory", "default")
    assert any(w.startswith("env: mode = 'loud'") for w in config.warnings)


def test_the_environment_is_named_env_and_an_empty_variable_is_no_source(tmp_path):
    write(tmp_path, ".interlock.toml", 'mode = "off"\n')
    config = load_config(tmp_path, environ={"INTERLOCK_MODE": "Blocking"})
    assert (config.mode, config.sources["mode"]) == ("blocking", "env")
    config = load_config(tmp_path, environ={"INTERLOCK_MODE": ""})
    assert (config.mode, config.sources["mode"]) == ("off", ".interlock.toml")
    assert config.warnings == ()


def test_an_option_set_to_none_is_no_source(tmp_path):
    write(tmp_path, ".interlock.toml", 'mode = "blocking"\n')
    config = load_config(tmp_path, {"mode": None}, environ={})
    assert (config.mode, config.sources["mode"]) == ("blocking", ".interlock.toml")


def test_config_files_names_the_files_read_highest_first(tmp_path):
    assert load_config(tmp_path, environ={}).files == ()
    write(tmp_path, "pyproject.toml", '[project]\nname = "x"\n')
    assert load_config(tmp_path, environ={}).files == ()  # no [tool.interlock] table
    write(tmp_path, "pyproject.toml", "[tool.interlock]\n")
    assert load_config(tmp_path, environ={}).files == ("pyproject.toml [tool.interlock]",)
    write(tmp_path, ".interlock.toml", "")
    config = load_config(tmp_path, {"mode": "off"}, environ={"INTERLOCK_MODE": "off"})
    assert config.files == (".interlock.toml", "pyproject.toml [tool.interlock]")


def test_resolve_of_no_sources_is_the_defaults_and_keeps_given_warnings():
    config = resolve([], ["earlier problem"])
    assert config.warnings == ("earlier problem",)
    assert all(config.value(k.name) == k.default for k in SCHEMA)
    assert config.files == ()


def test_a_tool_interlock_that_is_not_a_table_gives_the_defaults_and_a_warning(tmp_path):
    write(tmp_path, "pyproject.toml", '[tool]\ninterlock = "blocking"\n')
    config = load_config(tmp_path, environ={})
    assert config.mode == "advisory"
    assert config.files == ()
    assert config.warnings == (
        f"{tmp_path / 'pyproject.toml'}: [tool.interlock] is not a table; "
        "using the guarded defaults",
    )
    errors = validate_file(tmp_path / "pyproject.toml", ("tool", "interlock"))
    assert [str(e) for e in errors] == [
        f"{tmp_path / 'pyproject.toml'}: [tool.interlock] is not a table"
    ]


def test_a_tool_key_that_is_not_a_table_holds_no_interlock_table(tmp_path):
    write(tmp_path, "pyproject.toml", "tool = 5\n")
    config = load_config(tmp_path, environ={})
    assert (config.files, config.warnings) == ((), ())
    assert validate_file(tmp_path / "pyproject.toml", ("tool", "interlock")) == []


def test_unknown_key_warning_suggests_the_closest_key(tmp_path):
    write(tmp_path, ".interlock.toml", "max_turn = 5\nzzz = 1\n")
    config = load_config(tmp_path, environ={})
    assert config.max_turns == 200
    assert config.warnings == (
        ".interlock.toml: unknown key 'max_turn' ignored (did you mean 'max_turns'?)",
        ".interlock.toml: unknown key 'zzz' ignored",
    )


def test_a_table_of_known_keys_is_told_to_move_up_one_level(tmp_path):
    """`[interlock]` above the settings of .interlock.toml (they belong at its top level)."""
    write(
        tmp_path, ".interlock.toml", '[interlock]\nmode = "blocking"\nzzz = 1\n[other]\nzzz = 1\n'
    )
    config = load_config(tmp_path, environ={})
    assert config.mode == "advisory"
    assert config.warnings == (
        ".interlock.toml: unknown key 'interlock' ignored (a table: its keys belong one level"
        " up, without the [interlock] line)",
        ".interlock.toml: unknown key 'other' ignored",
    )
    path = tmp_path / ".interlock.toml"
    assert [str(e) for e in validate_file(path)] == [
        f"{path}: interlock: unknown key, ignored (a table: its keys belong one level up,"
        " without the [interlock] line)",
        f"{path}: other: unknown key, ignored",
    ]


# --- validate_file: the strict check ---


def test_validate_file_reports_an_unknown_key_and_goes_on(tmp_path):
    write(tmp_path, ".interlock.toml", 'mdoe = "off"\nmax_turns = "lots"\nmode = "blocking"\n')
    errors = [str(e) for e in validate_file(tmp_path / ".interlock.toml")]
    path = tmp_path / ".interlock.toml"
    assert errors == [
        f"{path}: mdoe: unknown key, ignored (did you mean 'mode'?)",
        f"{path}: max_turns: expected a positive integer or 'unbounded', found 'lots'",
    ]


def test_validate_file_names_the_key_path_inside_pyproject(tmp_path):
    write(tmp_path, "pyproject.toml", "[tool.interlock]\nmax_turns = true\n")
    errors = [str(e) for e in validate_file(tmp_path / "pyproject.toml", ("tool", "interlock"))]
    assert errors == [
        f"{tmp_path / 'pyproject.toml'}: tool.interlock.max_turns: expected a positive integer "
        "or 'unbounded' (a boolean is not a number), found True"
    ]


def test_validate_file_of_a_missing_file_or_table_finds_nothing(tmp_path):
    assert validate_file(tmp_path / ".interlock.toml") == []
    write(tmp_path, "pyproject.toml", '[project]\nname = "x"\n')
    assert validate_file(tmp_path / "pyproject.toml", ("tool", "interlock")) == []


def test_validate_file_reports_a_file_it_cannot_use(tmp_path):
    write(tmp_path, ".interlock.toml", "mode = [unclosed\n")
    (errors,) = validate_file(tmp_path / ".interlock.toml")
    assert str(errors).startswith(f"{tmp_path / '.interlock.toml'}: cannot be used: ")
    (tmp_path / ".interlock.toml").unlink()
    (tmp_path / ".interlock.toml").mkdir()
    (errors,) = validate_file(tmp_path / ".interlock.toml")
    assert "cannot be used" in str(errors) and "Is a directory" in str(errors)


def test_a_stall_threshold_given_as_a_boolean_says_so(tmp_path):
    write(tmp_path, ".interlock.toml", "progress_stall_threshold = true\n")
    (error,) = validate_file(tmp_path / ".interlock.toml")
    assert "expected an integer >= 2 (a boolean is not a number), found True" in str(error)


# --- display ---


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (None, "unbounded/off"),
        ((), "(none)"),
        (("a", "b c"), "a, b c"),
        (200, "200"),
        ("advisory", "advisory"),
    ],
)
def test_show_value_prints_each_kind_of_value(value, shown):
    assert show_value(value) == shown


def shown_table(text: str) -> dict[str, str]:
    """`config show` lines as {key: rest of the line}."""
    rows = {}
    for line in text.splitlines():
        name, _, rest = line.partition("  ")
        rows[name.strip()] = rest.strip()
    return rows


def test_config_show_prints_every_value_and_its_source(git_repo, cap_out):
    write(
        git_repo,
        ".interlock.toml",
        'mode = "blocking"\nmax_turns = 7\nvalidators = ["just test", "make check"]\n'
        "protected = []\n",
    )
    write(git_repo, "pyproject.toml", "[tool.interlock]\nprogress_stall_threshold = 4\n")
    assert run_cli(["config", "show", "--cwd", str(git_repo)]) == 0
    assert shown_table(cap_out[0].getvalue()) == {
        "mode": "blocking  (.interlock.toml)",
        "verification_tiers": "advisory  (default)",
        "progress_stall_threshold": "4  (pyproject.toml [tool.interlock])",
        "safe_state_abort": "advisory  (default)",
        "max_turns": "7  (.interlock.toml)",
        "validators": "just test, make check  (.interlock.toml)",
        "protected": "(none)  (.interlock.toml)",
        "recorder_max_file_size": "67108864  (default)",
        "recorder_keep_days": "7.0  (default)",
        "recorder_max_bytes": "1073741824  (default)",
        "discards": "by-owner  (default)",
        "repeat_threshold": "3  (default)",
        "flat_attempts": "3 (4 for validators slower than 60 s)  (default)",
        "min_patch_distance": "0.1  (default)",
        "monotone_metric": "none  (default)",
        "experiment_cap": "2  (default)",
        "tool_error_ratio": "0.5  (default)",
        "metrics": "(none)  (default)",
        "read from": ".interlock.toml, pyproject.toml [tool.interlock]",
    }
    assert cap_out[1].getvalue() == ""


def test_config_show_says_when_no_config_file_was_read(git_repo, cap_out):
    assert run_cli(["config", "show", "--cwd", str(git_repo)]) == 0
    rows = shown_table(cap_out[0].getvalue())
    assert rows["read from"] == "no config file (.interlock.toml)"
    assert rows["progress_stall_threshold"] == "unbounded/off  (default)"
    assert rows["max_turns"] == "200  (default)"


def test_config_show_does_not_call_a_malformed_file_absent(git_repo, cap_out):
    write(git_repo, ".interlock.toml", "mode = \n")
    assert run_cli(["config", "show", "--cwd", str(git_repo)]) == 0
    rows = shown_table(cap_out[0].getvalue())
    assert rows["read from"] == "no usable config file: see the warning above (guarded defaults)"
    assert "not valid TOML" in cap_out[1].getvalue()


def test_config_show_json_lists_the_files_read_and_unbounded_as_null(git_repo, cap_out):
    write(git_repo, ".interlock.toml", 'max_turns = "unlimited"\nvalidators = "make check"\n')
    assert run_cli(["config", "show", "--json", "--cwd", str(git_repo)]) == 0
    data = json.loads(cap_out[0].getvalue())
    assert data["root"] == str(git_repo)
    assert data["files"] == [".interlock.toml"]
    assert data["values"]["max_turns"] == {"value": None, "source": ".interlock.toml"}
    assert data["values"]["validators"] == {"value": ["make check"], "source": ".interlock.toml"}
    assert data["warnings"] == []


def test_interlock_config_show_warns_about_a_wrong_type_and_runs_on(git_repo, interlock):
    write(git_repo, ".interlock.toml", "mode = 5\nmax_turns = 0\n")
    result = interlock(git_repo, "config", "show")
    assert result.returncode == 0
    assert result.stderr == (
        "interlock: warning: .interlock.toml: mode = 5 is not one of off, advisory, blocking; "
        "using the default (advisory)\n"
    )
    rows = shown_table(result.stdout)
    assert rows["mode"] == "advisory  (default)"
    assert rows["max_turns"] == "unbounded/off  (.interlock.toml)"


def test_interlock_config_validate_lists_every_problem_of_both_files(git_repo, interlock):
    write(git_repo, ".interlock.toml", "mode = 5\nmdoe = 1\n")
    write(git_repo, "pyproject.toml", "[tool]\ninterlock = 3\n")
    result = interlock(git_repo, "config", "validate")
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        f"interlock: error: {git_repo / '.interlock.toml'}: mode: expected one of off, "
        "advisory, blocking, found 5",
        f"interlock: error: {git_repo / '.interlock.toml'}: mdoe: unknown key, ignored "
        "(did you mean 'mode'?)",
        f"interlock: error: {git_repo / 'pyproject.toml'}: [tool.interlock] is not a table",
    ]
    assert result.stdout == ""


def test_interlock_config_validate_passes_a_good_file_and_no_file(git_repo, interlock):
    result = interlock(git_repo, "config", "validate")
    assert (result.returncode, result.stdout) == (0, "interlock: config is valid\n")
    write(git_repo, "pyproject.toml", '[tool.interlock]\nmode = "blocking"\nmax_turns = 1\n')
    result = interlock(git_repo, "config", "validate")
    assert (result.returncode, result.stderr) == (0, "")


def test_importing_the_config_resolver_imports_neither_typing_nor_pathlib():
    # every command reads the config: its annotations' imports stay behind TYPE_CHECKING
    root = Path(__file__).resolve().parents[1]
    code = (
        f"import sys; sys.path.insert(0, {str(root)!r}); from interlock import config\n"
        "print(config.load_config(None, environ={}).mode)\n"
        "print([m for m in ('typing', 'pathlib') if m in sys.modules])"
    )
    proc = subprocess.run(
        [sys.executable, "-I", "-S", "-c", code], capture_output=True, text=True, check=True
    )
    # the same defaults as here, where the tests have imported typing long ago
    assert proc.stdout == f"{load_config(None, environ={}).mode}\n[]\n"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("3", 3),
        ("1", 1),
        ('"3"', 3),
        ('"3b"', 3),
        ('"3 B"', 3),
        ('"3k"', 3 * 1024),
        ('"3kb"', 3000),
        ('"3 KiB"', 3 * 1024),
        ('"3m"', 3 << 20),
        ('"3MB"', 3_000_000),
        ('"3 mib"', 3 << 20),
        ('"3g"', 3 << 30),
        ('"3gb"', 3_000_000_000),
        ('"3GiB"', 3 << 30),
        ('"1.5k"', 1536),
        ('"0.001"', 1),  # a positive size never rounds down to nothing
    ],
)
def test_a_size_takes_every_unit_in_bytes_decimal_and_binary(tmp_path, raw, expected):
    write(tmp_path, ".interlock.toml", f"recorder_max_file_size = {raw}\n")
    config = load_config(tmp_path, environ={})
    assert (config.recorder_max_file_size, config.warnings) == (expected, ())
    assert config.sources["recorder_max_file_size"] == ".interlock.toml"


@pytest.mark.parametrize("raw", ["0", "-3", '"-3k"', '"0kb"', '"3 parsecs"', '"k"', "true", "3.5"])
def test_a_size_that_is_not_positive_or_has_no_known_unit_takes_the_default(tmp_path, raw):
    write(tmp_path, ".interlock.toml", f"recorder_max_bytes = {raw}\n")
    config = load_config(tmp_path, environ={})
    assert config.recorder_max_bytes == 1 << 30
    assert config.sources["recorder_max_bytes"] == "default"
    assert [w for w in config.warnings if "recorder_max_bytes" in w]


@pytest.mark.parametrize(("raw", "expected"), [("1", 1.0), ("0.5", 0.5), ("30", 30.0)])
def test_recorder_keep_days_takes_any_positive_number_as_a_float(tmp_path, raw, expected):
    write(tmp_path, ".interlock.toml", f"recorder_keep_days = {raw}\n")
    config = load_config(tmp_path, environ={})
    assert (config.recorder_keep_days, config.warnings) == (expected, ())
    assert isinstance(config.recorder_keep_days, float)


@pytest.mark.parametrize("raw", ["0", "-1", "0.0", '"7"', "true", "[7]"])
def test_recorder_keep_days_that_is_not_a_positive_number_takes_the_default(tmp_path, raw):
    write(tmp_path, ".interlock.toml", f"recorder_keep_days = {raw}\n")
    config = load_config(tmp_path, environ={})
    assert (config.recorder_keep_days, config.sources["recorder_keep_days"]) == (7.0, "default")
    assert config.warnings == (
        f".interlock.toml: recorder_keep_days = {load_raw(raw)!r} is not a positive number of "
        "days; using the default (7.0)",
    )


def load_raw(raw: str):
    import tomllib

    return tomllib.loads(f"x = {raw}")["x"]


def test_a_run_stores_a_key_that_takes_none_as_null_and_its_tables_as_copies(tmp_path):
    write(tmp_path, ".interlock.toml", 'max_turns = 0\n[metrics]\ntodo = "grep -c TODO x"\n')
    config = load_config(tmp_path, environ={})
    data = config_to_json(config)
    # None itself where the key reads it back as None, else the first word that it reads so
    assert (data["monotone_metric"], data["flat_attempts"]) == (None, None)
    assert (data["max_turns"], data["progress_stall_threshold"]) == ("unbounded", "off")
    json.dumps(data)
    # the stored form is the run's to change (merged with a stricter live run's): never the
    # config's own tables
    data["metrics"]["rm"] = "rm -rf /"
    assert dict(config.metrics) == {"todo": "grep -c TODO x"}
