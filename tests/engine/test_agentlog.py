"""How often blocking mode would refuse an agent's own commands: the agent-command sample in
tests/corpus/agentlog (see its build.py for how it was made), judged by text alone and inside
a real repository. Run with `-s` to see the shares and every refused command."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from interlock.engine.check import evaluate

SAMPLE = Path(__file__).resolve().parents[1] / "corpus" / "agentlog" / "commands.jsonl"
IGNORES = "__pycache__/\n*.pyc\nbuild/\ndist/\n*.egg-info/\n.pytest_cache/\nnode_modules/\n"


def load() -> list[dict[str, str]]:
    return [json.loads(line) for line in SAMPLE.read_text().splitlines() if line.strip()]


def tally(cwd: str, assume_dirty: bool) -> tuple[Counter[str], list[tuple[str, str]], int]:
    """(verdicts, refused (rule, command) pairs, lines that had any finding)."""
    verdicts: Counter[str] = Counter()
    refused: list[tuple[str, str]] = []
    flagged = 0
    for case in load():
        result = evaluate(case["cmd"], cwd, mode="blocking", assume_dirty=assume_dirty).result
        verdicts[result.verdict] += 1
        flagged += bool(result.findings)
        if result.verdict == "block":
            refused.append((result.findings[0].rule, case["cmd"]))
    return verdicts, refused, flagged


def report(label: str, verdicts: Counter[str], refused: list, flagged: int) -> None:
    total = sum(verdicts.values())
    print(
        f"\nagent sample ({label}): {total} commands, {verdicts['block']} refused "
        f"({100 * verdicts['block'] / total:.1f}%), {verdicts['warn']} warned "
        f"({100 * verdicts['warn'] / total:.1f}%); with every finding refused, as before the "
        f"severity split: {flagged} ({100 * flagged / total:.1f}%)"
    )
    for rule, command in refused:
        print(f"  refused [{rule}] {command.splitlines()[0][:110]}")


def test_the_sample_is_several_hundred_commands_of_every_class():
    classes = Counter(case["class"] for case in load())
    assert sum(classes.values()) >= 500
    assert {"explore", "test", "write", "edit", "git", "cleanup"} <= set(classes)


def test_agent_commands_are_rarely_refused_by_text_alone():
    verdicts, refused, flagged = tally("/", assume_dirty=True)
    report("text alone, --assume-dirty", verdicts, refused, flagged)
    total = sum(verdicts.values())
    assert verdicts["block"] <= 0.03 * total
    # reading test output through a pipe is a warning, never a refusal
    assert all(not rule.startswith("validator.") for rule, _ in refused), refused


@pytest.fixture
def agent_repo(git_repo: Path, git) -> Path:
    (git_repo / ".gitignore").write_text(IGNORES)
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "ignores")
    return git_repo


def test_agent_commands_are_rarely_refused_in_a_repository(agent_repo):
    verdicts, refused, flagged = tally(str(agent_repo), assume_dirty=False)
    report("inside a repository", verdicts, refused, flagged)
    assert verdicts["block"] <= 0.01 * sum(verdicts.values())
