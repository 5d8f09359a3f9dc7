"""The configuration resolver: the single source of truth for every key.

Every reader calls `load_config()` and reads the frozen `Config` it returns; defaults live only
in `SCHEMA`. Sources, highest first: an explicit override (a CLI flag), the environment
(`INTERLOCK_MODE`), `.interlock.toml` at the worktree root, `[tool.interlock]` in
pyproject.toml, the default.

The highest source that sets a key decides it. A value that cannot be used falls back to that
key's default with a visible warning, never to a lower source's value (a typo for "blocking" in
.interlock.toml must not hand the key to a pyproject.toml that says "off"); a file that cannot
be read or parsed yields the defaults plus a warning. The defaults are the guarded side
(advisory guard on, bounded turns), so a broken file never means "everything off".
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field

from interlock import constants
from interlock.errors import ConfigError

# Every `interlock check` imports this module: what only some calls need (tomllib when a config
# file exists, difflib for a misspelt key) is imported where it is used.
TYPE_CHECKING = False  # not `typing`: importing it costs milliseconds on every command
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from pathlib import Path
    from typing import Any

MODES = ("off", "advisory", "blocking")
TIER_MODES = ("off", "advisory", "blocking")
SAFE_STATE_MODES = ("off", "advisory", "auto")
DISCARD_POLICIES = ("by-owner", "refuse")
UNBOUNDED_WORDS = frozenset(
    {"unbounded", "none", "infinite", "infinity", "unlimited", "no limit", "nolimit", "inf"}
)

# flat_attempts when the config leaves it unset: FLAT_ATTEMPTS, or FLAT_ATTEMPTS_SLOW when the
# validator took longer than SLOW_VALIDATOR_SECONDS (a slow check earns one more attempt).
FLAT_ATTEMPTS = 3
FLAT_ATTEMPTS_SLOW = 4
SLOW_VALIDATOR_SECONDS = 60.0

DEFAULT_PROTECTED = (
    "tests/**",
    "test/**",
    "**/tests/**",
    "**/test/**",
    "**/test_*.py",
    "**/*_test.py",
    "**/*_test.go",
    "**/*.test.[jt]s",
    "**/*.test.[jt]sx",
    "**/*.spec.[jt]s",
    "**/*.spec.[jt]sx",
    "**/conftest.py",
    "pytest.ini",
    "tox.ini",
    "noxfile.py",
    "setup.cfg",
    "pyproject.toml",
    "package.json",
    "Makefile",
    "makefile",
    "GNUmakefile",
    "jest.config.*",
    "vitest.config.*",
    "Cargo.toml",
    "go.mod",
    ".github/workflows/**",
    ".gitlab-ci.yml",
    ".ci/**",
)


class _Invalid(ValueError):
    """A raw value that does not fit the key; the message says what was expected."""


def _choice(options: tuple[str, ...]) -> Callable[[Any], Any]:
    def parse(raw: Any) -> str:
        if not isinstance(raw, str):  # `mode = 5` or `mode = true`: warn, never crash
            raise _Invalid(f"one of {', '.join(options)}")
        value = raw.strip().lower()
        if value not in options:
            raise _Invalid(f"one of {', '.join(options)}")
        return value

    return parse


def _parse_max_turns(raw: Any) -> int | None:
    """Positive int passes; 0, negatives and the 'unbounded' words mean unbounded (None)."""
    if isinstance(raw, bool):
        raise _Invalid("a positive integer or 'unbounded' (a boolean is not a number)")
    if isinstance(raw, int):
        return raw if raw > 0 else None
    if isinstance(raw, float) and (raw.is_integer() or math.isinf(raw)):
        # TOML's `inf` is the number for "unbounded"; `nan` is junk.
        return int(raw) if 0 < raw < math.inf else None
    if isinstance(raw, str):
        text = raw.strip().lower()
        if text in UNBOUNDED_WORDS:
            return None
        try:
            number = int(text)
        except ValueError:
            raise _Invalid("a positive integer or 'unbounded'") from None
        return number if number > 0 else None
    raise _Invalid("a positive integer or 'unbounded'")


def _parse_stall(raw: Any) -> int | None:
    """An integer >= 2 (a whole float too); 'off', 'none' or '' mean off (None)."""
    if isinstance(raw, bool):
        raise _Invalid("an integer >= 2 (a boolean is not a number)")
    number: int | None = None
    if isinstance(raw, int):
        number = raw
    elif isinstance(raw, float) and raw.is_integer():
        number = int(raw)
    elif isinstance(raw, str):
        text = raw.strip().lower()
        if text in ("off", "none", ""):
            return None
        try:
            number = int(text)
        except ValueError:
            pass
    if number is None or number < 2:
        raise _Invalid("an integer >= 2, or absent for off")
    return number


_SIZE_UNITS = {"": 1, "b": 1, "k": 1 << 10, "kb": 1000, "kib": 1 << 10, "m": 1 << 20}
_SIZE_UNITS |= {"mb": 1000**2, "mib": 1 << 20, "g": 1 << 30, "gb": 1000**3, "gib": 1 << 30}


def _parse_size(raw: Any) -> int:
    """A size in bytes: a positive integer, or a string such as "64 MiB", "500kb", "2G"."""
    if isinstance(raw, bool):
        raise _Invalid('a size such as 67108864 or "64 MiB" (a boolean is not a size)')
    if isinstance(raw, int) and raw > 0:
        return raw
    if isinstance(raw, str):
        text = raw.strip().lower().replace(" ", "")
        digits = text.rstrip("abcdefghijklmnopqrstuvwxyz")
        unit = text[len(digits) :]
        try:
            number = float(digits)
        except ValueError:
            number = -1.0
        if unit in _SIZE_UNITS and number > 0:
            return max(1, int(number * _SIZE_UNITS[unit]))
    raise _Invalid('a positive size such as 67108864 or "64 MiB"')


def _parse_days(raw: Any) -> float:
    if isinstance(raw, bool) or not isinstance(raw, int | float) or raw <= 0:
        raise _Invalid("a positive number of days")
    return float(raw)


def _parse_count(low: int, what: str) -> Callable[[Any], int]:
    """A whole number >= low (a whole float too, `3.0`; never a boolean)."""

    def parse(raw: Any) -> int:
        if isinstance(raw, bool):
            raise _Invalid(f"{what} (a boolean is not a number)")
        if isinstance(raw, float) and raw.is_integer():
            raw = int(raw)
        if isinstance(raw, str):
            try:
                raw = int(raw.strip())
            except ValueError:
                pass
        if not isinstance(raw, int) or raw < low:
            raise _Invalid(what)
        return raw

    return parse


def _parse_flat(raw: Any) -> int | None:
    """flat_attempts: an integer >= 2; absent (None) means FLAT_ATTEMPTS, or
    FLAT_ATTEMPTS_SLOW for a validator slower than SLOW_VALIDATOR_SECONDS."""
    if raw is None:
        return None
    return _parse_count(2, "an integer >= 2")(raw)


def _parse_fraction(raw: Any) -> float:
    """A number from 0 to 1 (`0.1`, `1`); a boolean, a string or nan is junk."""
    if isinstance(raw, bool) or not isinstance(raw, int | float) or not 0 <= raw <= 1:
        raise _Invalid("a number from 0 to 1")
    return float(raw)


def _parse_ratio(raw: Any) -> float:
    """tool_error_ratio: a share of calls above 0 and at most 1."""
    if _parse_fraction(raw) == 0:
        raise _Invalid("a number above 0 and at most 1")
    return float(raw)


def _parse_metric_name(raw: Any) -> str | None:
    """monotone_metric: the name of a metric; absent, "none" or "" mean none (None)."""
    if raw is None:
        return None
    if not isinstance(raw, str):
        raise _Invalid("the name of a metric (a string), or none")
    name = raw.strip()
    return None if name.lower() in ("", "none", "off") else name


def _parse_metrics(raw: Any) -> Mapping[str, str]:
    """metrics: a table of name = "shell command printing a number"."""
    if not isinstance(raw, dict):
        raise _Invalid('a table of name = "command printing a number"')
    for name, command in raw.items():
        if not isinstance(command, str) or not command.strip() or not str(name).strip():
            raise _Invalid(f'a table of name = "command printing a number" ({name!r} is not)')
    return {str(k).strip(): str(v) for k, v in raw.items()}


def _parse_str_list(raw: Any) -> tuple[str, ...]:
    if isinstance(raw, str):
        return (raw,)
    if isinstance(raw, list) and all(isinstance(x, str) for x in raw):
        return tuple(raw)
    raise _Invalid("a list of strings")


@dataclass(frozen=True)
class Key:
    """One configuration key: its default, how a raw value is checked, and what it means."""

    name: str
    default: Any
    parse: Callable[[Any], Any]
    help: str
    none: str = "unbounded/off"  # how a value of None is shown


SCHEMA: tuple[Key, ...] = (
    Key("mode", "advisory", _choice(MODES), "off | advisory | blocking"),
    Key(
        "verification_tiers",
        "advisory",
        _choice(TIER_MODES),
        "off | advisory | blocking (per-run message ceiling 1 / 2 / 3)",
    ),
    Key(
        "progress_stall_threshold",
        None,
        _parse_stall,
        "barren turns before a stall notice; absent means off; an integer >= 2",
    ),
    Key("safe_state_abort", "advisory", _choice(SAFE_STATE_MODES), "off | advisory | auto"),
    Key("max_turns", 200, _parse_max_turns, "a positive integer, or unbounded"),
    Key("validators", (), _parse_str_list, "commands that are the project's full suite"),
    Key("protected", DEFAULT_PROTECTED, _parse_str_list, "globs of validator definitions"),
    Key(
        "recorder_max_file_size",
        64 << 20,
        _parse_size,
        'files larger than this are not recorded by the flight recorder (bytes, or "64 MiB")',
    ),
    Key(
        "recorder_keep_days",
        7.0,
        _parse_days,
        "recorder history older than this many days is pruned (the newest version of a file "
        "still in the tree is kept)",
    ),
    Key(
        "recorder_max_bytes",
        1 << 30,
        _parse_size,
        'recorder history beyond this much content is pruned, oldest first (bytes, or "1 GiB")',
    ),
    Key(
        "discards",
        "by-owner",
        _choice(DISCARD_POLICIES),
        "by-owner (inside a run: the run's own work is snapshotted, then discarded) | refuse "
        "(every discard is refused in blocking mode, warned in advisory mode)",
    ),
    # The run monitor's stuck detector (interlock.monitor.stuck).
    Key(
        "repeat_threshold",
        3,
        _parse_count(2, "an integer >= 2"),
        "identical failures in a row (same call, same error, no edit) that mean the "
        "environment, not the code, is stuck",
    ),
    Key(
        "flat_attempts",
        None,
        _parse_flat,
        f"materially different attempts that leave the same failing set before the run is "
        f"stuck; absent means {FLAT_ATTEMPTS} ({FLAT_ATTEMPTS_SLOW} for validators slower "
        f"than {SLOW_VALIDATOR_SECONDS:g} s)",
        f"{FLAT_ATTEMPTS} ({FLAT_ATTEMPTS_SLOW} for validators slower than "
        f"{SLOW_VALIDATOR_SECONDS:g} s)",
    ),
    Key(
        "min_patch_distance",
        0.1,
        _parse_fraction,
        "how much the patch must change (0-1) for an attempt to count as a new one",
    ),
    Key(
        "monotone_metric",
        None,
        _parse_metric_name,
        "a metric (from `metrics`) whose strict decrease means progress despite a flat "
        "failing set; absent means none",
        "none",
    ),
    Key(
        "experiment_cap",
        2,
        _parse_count(0, "an integer >= 0"),
        "experiment attempts a run may mark that the stuck detector does not count",
    ),
    Key(
        "tool_error_ratio",
        0.5,
        _parse_ratio,
        "share of failed tool calls (0-1] that makes an attempt tool-error dominated",
    ),
    Key(
        "metrics",
        {},
        _parse_metrics,
        "commands interlock runs on the tree at each attempt, each printing a number: "
        '{ todo_left = "grep -rc TODO src | ..." }',
    ),
)
SCHEMA_BY_NAME: Mapping[str, Key] = {k.name: k for k in SCHEMA}
ENV_KEYS = {"mode": constants.ENV_MODE}


@dataclass(frozen=True)
class Config:
    """The effective configuration; `sources[key]` says where each value came from, and
    `files` names the config files that were read ('.interlock.toml', 'pyproject.toml
    [tool.interlock]'), highest priority first."""

    mode: str
    verification_tiers: str
    progress_stall_threshold: int | None
    safe_state_abort: str
    max_turns: int | None
    validators: tuple[str, ...]
    protected: tuple[str, ...]
    recorder_max_file_size: int
    recorder_keep_days: float
    recorder_max_bytes: int
    discards: str
    repeat_threshold: int
    flat_attempts: int | None
    min_patch_distance: float
    monotone_metric: str | None
    experiment_cap: int
    tool_error_ratio: float
    metrics: Mapping[str, str]
    sources: Mapping[str, str] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()
    files: tuple[str, ...] = ()

    def value(self, name: str) -> Any:
        return getattr(self, name)


@dataclass(frozen=True)
class RawSource:
    """A table of raw values and the name to show for it ('.interlock.toml', 'env', ...);
    `path` is the config file it was read from (None for the environment and options)."""

    name: str
    values: Mapping[str, Any]
    path: Path | None = None


def _read_toml(path: Path, table: tuple[str, ...]) -> tuple[RawSource | None, list[str]]:
    """Read one config file; problems become warnings, never exceptions."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, []
    except (OSError, UnicodeDecodeError) as exc:
        return None, [f"{path}: cannot be read ({exc}); using the guarded defaults"]
    import tomllib  # only when the file exists

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return None, [f"{path}: not valid TOML ({exc}); using the guarded defaults"]
    data = _table(data, table)
    if data is None:
        return None, []
    if not isinstance(data, dict):
        return None, [f"{path}: [{'.'.join(table)}] is not a table; using the guarded defaults"]
    name = path.name if not table else f"{path.name} [{'.'.join(table)}]"
    return RawSource(name, data, path), []


def _table(data: Any, table: tuple[str, ...]) -> Any:
    """The value at the dotted table path; None when a level is missing (or is not a table
    on the way down: `tool = 5` holds no [tool.interlock])."""
    for part in table:
        if not isinstance(data, dict) or part not in data:
            return None
        data = data[part]
    return data


def file_sources(root: Path | None) -> tuple[list[RawSource], list[str]]:
    """The config files of a worktree, highest priority first, and read warnings."""
    if root is None:
        return [], []
    sources: list[RawSource] = []
    warnings: list[str] = []
    for path, table in (
        (root / constants.CONFIG_FILE, ()),
        (root / constants.PYPROJECT, ("tool", "interlock")),
    ):
        source, problems = _read_toml(path, table)
        warnings.extend(problems)
        if source is not None:
            sources.append(source)
    return sources, warnings


def env_source(environ: Mapping[str, str] | None = None) -> RawSource | None:
    env = os.environ if environ is None else environ
    values = {key: env[var] for key, var in ENV_KEYS.items() if env.get(var)}
    return RawSource("env", values) if values else None


def resolve(sources: list[RawSource], warnings: list[str] | None = None) -> Config:
    """Merge sources (highest priority first) through the schema."""
    notes = list(warnings or [])
    values: dict[str, Any] = {}
    origin: dict[str, str] = {}
    for source in sources:
        for raw_key in source.values:
            if raw_key not in SCHEMA_BY_NAME:
                hint = _suggest(raw_key, source.values[raw_key])
                notes.append(f"{source.name}: unknown key {raw_key!r} ignored{hint}")
    for key in SCHEMA:
        values[key.name], origin[key.name] = key.default, "default"
        setter = next((s for s in sources if key.name in s.values), None)
        if setter is None:
            continue
        raw = setter.values[key.name]
        try:
            values[key.name], origin[key.name] = key.parse(raw), setter.name
        except _Invalid as exc:
            notes.append(
                f"{setter.name}: {key.name} = {raw!r} is not {exc}; "
                f"using the default ({show_value(key.default, key)})"
            )
    return Config(
        **values,
        sources=origin,
        warnings=tuple(notes),
        files=tuple(s.name for s in sources if s.path is not None),
    )


def load_config(
    root: Path | None,
    overrides: Mapping[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
) -> Config:
    """The effective config for a worktree root (None outside a repository)."""
    sources: list[RawSource] = []
    if overrides:
        sources.append(RawSource("--option", {k: v for k, v in overrides.items() if v is not None}))
    env = env_source(environ)
    if env is not None:
        sources.append(env)
    found, warnings = file_sources(root)
    sources.extend(found)
    return resolve(sources, warnings)


def config_to_json(config: Config) -> dict[str, Any]:
    """Every key's effective value as JSON that `config_from_json` reads back to the same
    values: how a run keeps the config resolved at its baseline."""
    from collections.abc import Mapping  # at run time here; typing-only at module level

    data: dict[str, Any] = {}
    for key in SCHEMA:
        value = config.value(key.name)
        if isinstance(value, tuple):
            value = list(value)
        if isinstance(value, Mapping):
            value = dict(value)
        if value is None:
            value = _none_word(key)
        data[key.name] = value
    return data


def _none_word(key: Key) -> str | None:
    """How a key's None is written so that the key reads it back as None: None itself when
    the key takes it, else the first word it reads as None ('unbounded' for max_turns, 'off'
    for progress_stall_threshold)."""
    for word in (None, "unbounded", "off"):
        try:
            if key.parse(word) is None:
                return word
        except (_Invalid, TypeError, ValueError):
            continue
    return None


def config_from_json(data: Mapping[str, Any], name: str) -> Config:
    """The config stored by `config_to_json`, every value attributed to `name` (e.g.
    "run r-12 baseline"); keys it lacks (added since) take their defaults."""
    return resolve([RawSource(name, {k: v for k, v in data.items() if k in SCHEMA_BY_NAME})])


def validate_file(path: Path, table: tuple[str, ...] = ()) -> list[ConfigError]:
    """Strict check for `interlock config validate`: every problem as a ConfigError."""
    import tomllib

    errors: list[ConfigError] = []
    try:
        data: Any = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        return [ConfigError(f"{path}: cannot be used: {exc}")]
    data = _table(data, table)
    if data is None:
        return []
    if not isinstance(data, dict):
        return [ConfigError(f"{path}: [{'.'.join(table)}] is not a table")]
    prefix = ".".join(table)
    for raw_key, raw in data.items():
        key_path = f"{prefix}.{raw_key}" if prefix else raw_key
        key = SCHEMA_BY_NAME.get(raw_key)
        if key is None:
            errors.append(
                ConfigError(f"{path}: {key_path}: unknown key, ignored{_suggest(raw_key, raw)}")
            )
            continue
        try:
            key.parse(raw)
        except _Invalid as exc:
            errors.append(ConfigError(f"{path}: {key_path}: expected {exc}, found {raw!r}"))
    return errors


def show_value(value: Any, key: Key | None = None) -> str:
    """How `config show` and the warnings print a value (of `key`, which says what None
    means for it)."""
    from collections.abc import Mapping  # at run time here; typing-only at module level

    if value is None:
        return key.none if key is not None else "unbounded/off"
    if isinstance(value, tuple):
        return ", ".join(value) if value else "(none)"
    if isinstance(value, Mapping):
        return ", ".join(f"{k} = {v!r}" for k, v in value.items()) if value else "(none)"
    return str(value)


def _suggest(raw_key: str, raw: object) -> str:
    """' (did you mean 'mode'?)' for a near miss of a known key; for a table of known keys
    (`[interlock]` written above them), where they belong; else ''."""
    import difflib  # only for an unknown key

    if isinstance(raw, dict) and any(name in SCHEMA_BY_NAME for name in raw):
        return f" (a table: its keys belong one level up, without the [{raw_key}] line)"

    close = difflib.get_close_matches(raw_key, list(SCHEMA_BY_NAME))
    return f" (did you mean {close[0]!r}?)" if close else ""
