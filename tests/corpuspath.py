"""Where the shared example corpus lives: `../shared/corpus` next to the checkout when it is
there (the freshest copy), else the copy kept in tests/corpus/shared so that a clean clone
(CI) still judges every case."""

from __future__ import annotations

from pathlib import Path

_HERE = Path(__file__).resolve().parent
_SIBLING = _HERE.parents[1] / "shared" / "corpus"
_VENDORED = _HERE / "corpus" / "shared"


def corpus_dir() -> Path:
    return _SIBLING if (_SIBLING / "commands.jsonl").exists() else _VENDORED
