"""pytest plugin of the mutation tool (`-p mutation_plugin`).

Trace mode (MUTATION_TRACE_DIR set): record, per test, the lines of the scope modules it runs
(in this process and, through sitecustomize, in the processes it starts), each test's duration
and outcome; one JSON file per process (xdist workers write their own).

Select mode (MUTATION_SELECT set to a JSON file holding a list of test ids): run only those
tests, in that order, so the tests most likely to kill a mutant run first and `-x` stops early.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from typing import Any

import pytest

_TRACE_DIR = os.environ.get("MUTATION_TRACE_DIR")
_recorder: Any = None
_durations: dict[str, float] = {}
_failed: set[str] = set()

if _TRACE_DIR:
    from mutation_trace import Recorder, targets_from_env

    _recorder = Recorder(targets_from_env())
    _recorder.start()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    if _recorder is None:
        yield
        return
    _recorder.context = item.nodeid
    os.environ["MUTATION_TEST_ID"] = item.nodeid
    started = time.perf_counter()
    try:
        yield
    finally:
        _durations[item.nodeid] = time.perf_counter() - started
        _recorder.context = "<between>"
        os.environ.pop("MUTATION_TEST_ID", None)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if _recorder is not None and report.failed:
        _failed.add(report.nodeid)


def pytest_sessionfinish(session: pytest.Session) -> None:
    if _recorder is None or _TRACE_DIR is None:
        return
    _recorder.stop()
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    _recorder.dump(
        os.path.join(_TRACE_DIR, f"pytest-{worker}-{os.getpid()}.json"),
        {"durations": _durations, "failed": sorted(_failed)},
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    path = os.environ.get("MUTATION_SELECT")
    if not path:
        return
    with open(path, encoding="utf-8") as handle:
        order = {nodeid: i for i, nodeid in enumerate(json.load(handle))}
    chosen = sorted((it for it in items if it.nodeid in order), key=lambda it: order[it.nodeid])
    dropped = [it for it in items if it.nodeid not in order]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
    items[:] = chosen
