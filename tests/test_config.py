from __future__ import annotations

import pytest

from interlock.config import load_config, resolve, RawSource


def test_defaults_apply_outside_a_repository():
    config = load_config(None, environ={})
    assert config.mode == "advisory"
    assert config.max_turns == 200
    assert config.sources["mode"] == "default"
