"""The stuck detector's settings: the config keys it reads, resolved in the detector's order.

Precedence: the defaults (`interlock.config.SCHEMA`, the only place they live), then the run
config (the config frozen at the run's baseline, or a trace's `config`), then any per-step
`config` carried on a record, from that record on. A per-step value that cannot be used is
ignored with a warning (the value in force stays); a run-config value that cannot be used
takes the key's default, as everywhere in interlock.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from interlock.config import (
    FLAT_ATTEMPTS,
    FLAT_ATTEMPTS_SLOW,
    SCHEMA_BY_NAME,
    SLOW_VALIDATOR_SECONDS,
    Config,
    RawSource,
    resolve,
)

KEYS = (
    "repeat_threshold",
    "flat_attempts",
    "min_patch_distance",
    "monotone_metric",
    "experiment_cap",
    "tool_error_ratio",
)


@dataclass(frozen=True)
class Settings:
    """The detector's thresholds in force at one record (see interlock.config for each)."""

    repeat_threshold: int
    flat_attempts: int | None  # None: FLAT_ATTEMPTS, or FLAT_ATTEMPTS_SLOW for slow validators
    min_patch_distance: float
    monotone_metric: str | None
    experiment_cap: int
    tool_error_ratio: float

    def flat_for(self, seconds: float | None) -> int:
        """flat_attempts for a validator that took `seconds` (None: unknown, not slow)."""
        if self.flat_attempts is not None:
            return self.flat_attempts
        slow = seconds is not None and seconds > SLOW_VALIDATOR_SECONDS
        return FLAT_ATTEMPTS_SLOW if slow else FLAT_ATTEMPTS

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def from_config(config: Config) -> Settings:
    """The settings of a resolved config (a run's frozen config)."""
    return Settings(**{key: config.value(key) for key in KEYS})


def from_raw(raw: Mapping[str, Any], name: str = "trace config") -> tuple[Settings, list[str]]:
    """The settings of a raw run config (a trace's `config`): defaults for what it lacks or
    cannot be used, and the warnings. Keys of the config that are not the detector's are
    read as the resolver reads them (unknown ones are named in a warning)."""
    config = resolve([RawSource(name, dict(raw))])
    return from_config(config), list(config.warnings)


def checked(raw: Mapping[str, Any], where: str, warn: Callable[[str], None]) -> dict[str, Any]:
    """The usable values of a per-step override, parsed; unusable or unknown keys are warned
    about and left out."""
    changes: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in KEYS:
            warn(f"{where}: {key!r} is not a setting of the stuck detector; ignored")
            continue
        try:
            changes[key] = SCHEMA_BY_NAME[key].parse(value)
        except ValueError as exc:  # config._Invalid: the message says what was expected
            warn(f"{where}: {key} = {value!r} is not {exc}; the value in force stays")
    return changes


def override(
    base: Settings, raw: Mapping[str, Any], where: str, warn: Callable[[str], None]
) -> Settings:
    """`base` with a per-step override applied (see `checked`)."""
    changes = checked(raw, where, warn)
    return dataclasses.replace(base, **changes) if changes else base
