"""The NL2Bash corpus (12,607 real one-liners): no crash, almost nothing unparsed.

Run with `-s` to see the counts, the median parse+walk time and the unparsed lines.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

import pytest

from interlock.engine.exitflow import validator_masking
from interlock.engine.walk import is_degraded, walk
from interlock.shell.parse import parse

MAX_UNPARSED = 0.003  # 0.3 % of the lines


@pytest.fixture(scope="module")
def corpus_lines(corpus_dir: Path) -> list[str]:
    corpus = corpus_dir / "nl2bash.txt"
    if not corpus.exists():
        pytest.skip(f"corpus not found at {corpus}")
    # A literal `\n` in a line is part of the command: split on real newlines only.
    return [line for line in corpus.read_text(encoding="utf-8").split("\n") if line.strip()]


def test_nl2bash_parses_without_crash_and_almost_nothing_is_unparsed(corpus_lines):
    lines = corpus_lines
    unparsed: list[str] = []
    degraded = 0
    timings: list[float] = []
    for line in lines:
        started = time.perf_counter()
        result = parse(line)
        invocations = walk(result)
        timings.append(time.perf_counter() - started)
        if result.status == "unparsed":
            unparsed.append(line)
        elif is_degraded(result, invocations):
            degraded += 1
    median_ms = statistics.median(timings) * 1000
    print(
        f"\nnl2bash: {len(lines)} lines, {len(unparsed)} unparsed, {degraded} degraded, "
        f"median parse+walk {median_ms:.3f} ms"
    )
    for line in unparsed:
        print(f"  unparsed: {line}")
    assert len(lines) > 12_000
    assert len(unparsed) <= MAX_UNPARSED * len(lines)


def test_nl2bash_exit_flow_never_raises(corpus_lines):
    for line in corpus_lines:
        validator_masking(parse(line), lambda inv: inv.name in ("make", "grep", "find"))
