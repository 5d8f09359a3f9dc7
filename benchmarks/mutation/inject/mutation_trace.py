"""Records which lines of the scope modules run, and under which test (trace mode only).

Loaded by the mutation tool's pytest plugin (in-process tests) and by its sitecustomize
(processes the tests start, such as `python -m interlock`). Stdlib only: it runs inside the
code under test. Python 3.11 has no sys.monitoring, so this is a sys.settrace tracer whose
global function declines every frame outside the scope modules (the cost is one set lookup
per call elsewhere).

A line that runs while its module is being imported is recorded under "<import>": module-level
code (tables, defaults, closures built by a factory at import) affects every test that uses the
module, whichever test happened to import it first.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from types import FrameType
from typing import Any

IMPORT = "<import>"


class Recorder:
    def __init__(self, targets: set[str]) -> None:
        self.targets = targets
        self.context = IMPORT
        self.hits: dict[str, dict[str, set[int]]] = {}
        self.importing: dict[str, int] = {}

    def start(self) -> None:
        threading.settrace(self._global)
        sys.settrace(self._global)

    def stop(self) -> None:
        sys.settrace(None)
        threading.settrace(None)  # type: ignore[arg-type]

    def _global(self, frame: FrameType, event: str, arg: Any) -> Any:
        filename = frame.f_code.co_filename
        if filename not in self.targets:
            return None
        if frame.f_code.co_name == "<module>":
            self.importing[filename] = self.importing.get(filename, 0) + 1
            return self._module
        return self._local

    def _record(self, frame: FrameType) -> None:
        filename = frame.f_code.co_filename
        context = IMPORT if self.importing.get(filename) else self.context
        self.hits.setdefault(context, {}).setdefault(filename, set()).add(frame.f_lineno)

    def _local(self, frame: FrameType, event: str, arg: Any) -> Any:
        if event == "line":
            self._record(frame)
        return self._local

    def _module(self, frame: FrameType, event: str, arg: Any) -> Any:
        if event == "line":
            self._record(frame)
        elif event == "return":
            self.importing[frame.f_code.co_filename] -= 1
        return self._module

    def dump(self, path: str, extra: dict[str, Any] | None = None) -> None:
        data = {
            "hits": {
                ctx: {f: sorted(lines) for f, lines in files.items()}
                for ctx, files in self.hits.items()
            },
            **(extra or {}),
        }
        tmp = f"{path}.tmp"
        with open(tmp, "w", encoding="utf-8") as handle:
            json.dump(data, handle)
        os.replace(tmp, path)


def targets_from_env() -> set[str]:
    return set(json.loads(os.environ.get("MUTATION_TARGETS", "[]")))
