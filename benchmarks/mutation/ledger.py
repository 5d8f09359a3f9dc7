"""The reviewed list of equivalent mutants, the recorded scores, and the last results.

equivalent.toml holds one `[[equivalent]]` table per mutant that no test can kill because it
does not change what the module does, each with a reason a reviewer can check:

    [[equivalent]]
    module = "interlock/config.py"
    function = "_parse_stall"              # the enclosing function, as the tool prints it
    original = "number < 2"                # the mutated text, as the tool prints it
    mutant = "number <= 2"
    occurrence = 1                         # optional: which of identical changes in the function
    reason = "..."

An entry is matched by module, function and text, never by line number (lines move). An
entry that matches no mutant any more is reported as stale; one whose mutant was killed is
reported too (it was not equivalent: delete it).

scores.json holds the recorded score of each module; `--check` fails when a module scores
below its record or below the floor (90%).
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from dataclasses import dataclass
from pathlib import Path

from execute import Outcome
from mutants import Mutant

FLOOR = 90.0


@dataclass(frozen=True)
class Equivalent:
    module: str
    function: str
    original: str
    mutant: str
    occurrence: int | None
    reason: str

    def matches(self, m: Mutant) -> bool:
        return (
            m.module == self.module
            and m.function == self.function
            and m.original == self.original
            and m.replacement == self.mutant
            and (self.occurrence is None or m.occurrence == self.occurrence)
        )


def load_equivalents(path: Path) -> list[Equivalent]:
    if not path.exists():
        return []
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    found: list[Equivalent] = []
    for i, entry in enumerate(data.get("equivalent", []), 1):
        missing = [
            k for k in ("module", "function", "original", "mutant", "reason") if not entry.get(k)
        ]
        if missing:
            raise SystemExit(f"mutation: {path} entry {i}: missing {', '.join(missing)}")
        found.append(
            Equivalent(
                module=entry["module"],
                function=entry["function"],
                original=entry["original"],
                mutant=entry["mutant"],
                occurrence=entry.get("occurrence"),
                reason=" ".join(str(entry["reason"]).split()),
            )
        )
    return found


def equivalent_for(mutant: Mutant, entries: list[Equivalent]) -> Equivalent | None:
    return next((e for e in entries if e.matches(mutant)), None)


@dataclass(frozen=True)
class Score:
    tried: int
    killed: int
    survived: int
    equivalent: int
    capped: int | None = None  # each mutant ran at most this many tests: a lower bound

    @property
    def score(self) -> float:
        judged = self.tried - self.equivalent
        return 100.0 * self.killed / judged if judged else 100.0

    def to_json(self) -> dict[str, float | int]:
        return {
            "tried": self.tried,
            "killed": self.killed,
            "survived": self.survived,
            "equivalent": self.equivalent,
            "score": round(self.score, 1),
            **({"capped": self.capped} if self.capped else {}),
        }


def score_of(
    outcomes: list[Outcome], entries: list[Equivalent], capped: int | None = None
) -> Score:
    """Killed and timed-out mutants count as killed; a listed equivalent that survived counts
    as equivalent; everything else (survived, uncovered, error) counts as survived. `capped`:
    the run gave each mutant at most that many tests (the score is a lower bound)."""
    killed = sum(1 for o in outcomes if o.killed)
    equivalent = sum(
        1 for o in outcomes if not o.killed and equivalent_for(o.mutant, entries) is not None
    )
    survived = len(outcomes) - killed - equivalent
    return Score(len(outcomes), killed, survived, equivalent, capped)


def load_scores(path: Path) -> dict[str, dict[str, float | int]]:
    if not path.exists():
        return {}
    data: dict[str, dict[str, float | int]] = json.loads(path.read_text(encoding="utf-8"))
    return data


def merge_scores(
    recorded: dict[str, dict[str, float | int]], rows: dict[str, Score]
) -> dict[str, dict[str, float | int]]:
    """The record with this run's scores in it; a capped score (a lower bound) never replaces
    a recorded exact one."""
    merged = dict(recorded)
    for module, score in rows.items():
        old = recorded.get(module)
        if score.capped and old is not None and "capped" not in old:
            continue
        merged[module] = score.to_json()
    return merged


def save_scores(path: Path, scores: dict[str, dict[str, float | int]]) -> None:
    path.write_text(json.dumps(dict(sorted(scores.items())), indent=2) + "\n", encoding="utf-8")


def check(module: str, score: Score, recorded: dict[str, float | int] | None) -> str | None:
    """Why this module fails the check, or None."""
    if score.score < FLOOR:
        return f"{module}: {score.score:.1f}% is below the floor of {FLOOR:.0f}%"
    if recorded is not None and round(score.score, 1) < float(recorded["score"]):
        return f"{module}: {score.score:.1f}% is below its recorded {recorded['score']}%"
    return None


def _mutator_version() -> str:
    """Keys change with the mutator, so results of another version cannot be reused."""
    return hashlib.sha256((Path(__file__).parent / "mutants.py").read_bytes()).hexdigest()


def save_results(path: Path, module_source: str, outcomes: list[Outcome]) -> None:
    """The last run's outcome of every mutant of a module (for --survivors and review)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {
        "source": module_source,
        "mutator": _mutator_version(),
        "outcomes": {o.mutant.key: o.status for o in outcomes},
    }
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")


def last_survivors(path: Path, module_source: str) -> set[str] | None:
    """Keys of the mutants that were not killed last time, if the module and the mutator are
    unchanged since."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if data.get("source") != module_source or data.get("mutator") != _mutator_version():
        return None
    return {k for k, status in data["outcomes"].items() if status not in ("killed", "timeout")}
