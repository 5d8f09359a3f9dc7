"""`interlock config show|validate|path`."""

from __future__ import annotations

import json
from pathlib import Path

from interlock import constants, exitcodes, output
from interlock.config import SCHEMA, Config, load_config, show_value, validate_file
from interlock.git import discover


def _root(cwd: str | None) -> Path | None:
    loc = discover(cwd)
    return loc.worktree if loc else None


def show(cwd: str | None, as_json: bool) -> int:
    root = _root(cwd)
    config = load_config(root)
    if as_json:
        output.write_json(
            {
                "root": str(root) if root else None,
                "values": {
                    k.name: {
                        "value": list(v) if isinstance(v := config.value(k.name), tuple) else v,
                        "source": config.sources[k.name],
                    }
                    for k in SCHEMA
                },
                "files": list(config.files),
                "warnings": list(config.warnings),
                "live_runs_frozen": frozen_notes(cwd, config),
            }
        )
        return exitcodes.OK
    for warning in config.warnings:
        output.warn(warning)
    width = max(len(k.name) for k in SCHEMA)
    for key in SCHEMA:
        value = show_value(config.value(key.name), key)
        output.write_out(f"{key.name.ljust(width)}  {value}  ({config.sources[key.name]})")
    read = ", ".join(config.files) if config.files else "no config file (.interlock.toml)"
    if not config.files and root is not None and (root / constants.CONFIG_FILE).exists():
        read = "no usable config file: see the warning above (guarded defaults)"
    output.write_out(f"{'read from'.ljust(width)}  {read}")
    for line in frozen_notes(cwd, config):
        output.write_out(line)
    return exitcodes.OK


def frozen_notes(cwd: str | None, config: Config) -> list[str]:
    """One note per live run that still applies other values than the file's (a run keeps the
    config of its baseline, DESIGN.md), naming each value it keeps."""
    from interlock.run.inforce import frozen_elsewhere

    loc = discover(cwd)
    if loc is None:
        return []
    notes = []
    for run, keys in frozen_elsewhere(loc, config):
        kept = ", ".join(f"{k} = {_json_value(run.config[k])}" for k in keys)
        notes.append(
            f"note: the live run {run.id} keeps the config of its baseline ({kept}); the file's "
            "values apply to the next run (end this one: interlock run end, or restart the agent)"
        )
    return notes


def _json_value(value: object) -> str:
    return "unbounded/off" if value is None else json.dumps(value)


def validate(cwd: str | None) -> int:
    root = _root(cwd)
    if root is None:
        output.write_out("interlock: no repository here; nothing to validate")
        return exitcodes.OK
    errors = validate_file(root / constants.CONFIG_FILE) + validate_file(
        root / constants.PYPROJECT, ("tool", "interlock")
    )
    for problem in errors:
        output.error(str(problem))
    if errors:
        return exitcodes.ERROR
    output.write_out("interlock: config is valid")
    return exitcodes.OK


def path(cwd: str | None) -> int:
    root = _root(cwd)
    if root is None:
        output.error("not inside a git worktree", "run this inside a repository")
        return exitcodes.ERROR
    output.write_out(str(root / constants.CONFIG_FILE))
    return exitcodes.OK
