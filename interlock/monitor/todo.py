"""The objectives board: what a run (its harness, its agent, or a person) set out to do, and
what is still open. Its outstanding items feed the handoff and the `max_turns` stop notice; an
item closed is a progress event (the outstanding count went down; adding items is planning).

One board per worktree, kept across runs (`<git-dir>/interlock/todo.json`, written atomically
under `todo.lock`): objectives outlive the agent session that set them. Each item records the
run it was added and closed in, and whether a person added it (from outside any run): a
person's new objective is new information, which allows a second recovery of a stuck step.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from interlock.errors import InterlockError
from interlock.git import RepoLocation
from interlock.state import atomic_write, file_lock, repo_state_dir

BOARD_FILE = "todo.json"
LOCK_FILE = "todo.lock"
MAX_TEXT = 500  # characters of one objective


@dataclass(frozen=True)
class Item:
    """One objective: `#3 migrate the CSV reader (open)`."""

    id: int
    text: str
    added: float
    run: str | None  # the run it was added in
    person: bool  # added by a person, outside any run
    done: float | None = None
    done_run: str | None = None

    @property
    def is_open(self) -> bool:
        return self.done is None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "text": self.text,
            "added": self.added,
            "run": self.run,
            "person": self.person,
            "done": self.done,
            "done_run": self.done_run,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Item:
        return cls(
            id=int(data["id"]),
            text=str(data["text"]),
            added=float(data.get("added") or 0),
            run=data.get("run"),
            person=bool(data.get("person")),
            done=data.get("done"),
            done_run=data.get("done_run"),
        )


def _path(loc: RepoLocation) -> Path:
    return repo_state_dir(loc) / BOARD_FILE


def read_board(loc: RepoLocation) -> list[Item]:
    """Every item, in the order added. A board that cannot be read is an error naming the
    file (it is kept as it is: nothing is rewritten over it)."""
    path = _path(loc)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return [Item.from_json(x) for x in data.get("items", [])]
    except FileNotFoundError:
        return []
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise InterlockError(
            f"the objectives board {path} cannot be read ({exc})",
            hint=f"move it aside (mv {path} {path}.bad); interlock starts a new one",
        ) from exc


def _write(loc: RepoLocation, items: list[Item]) -> None:
    data = {"items": [i.to_json() for i in items]}
    atomic_write(_path(loc), (json.dumps(data, indent=1) + "\n").encode(), 0o600)


def outstanding(loc: RepoLocation) -> list[Item]:
    return [i for i in read_board(loc) if i.is_open]


def add(loc: RepoLocation, text: str, run: str | None, person: bool) -> Item:
    text = " ".join(text.split())
    if not text:
        raise InterlockError(
            "an objective needs some text", hint='interlock todo add "fix the parser"'
        )
    if len(text) > MAX_TEXT:
        raise InterlockError(f"an objective is at most {MAX_TEXT} characters ({len(text)} given)")
    with file_lock(repo_state_dir(loc) / LOCK_FILE):
        items = read_board(loc)
        item = Item(max((i.id for i in items), default=0) + 1, text, time.time(), run, person)
        _write(loc, [*items, item])
    return item


def _pick(items: list[Item], which: str) -> Item:
    key = which.strip().lstrip("#")
    if key.isdigit():
        found = [i for i in items if i.id == int(key)]
    else:
        found = [i for i in items if i.is_open and i.text.lower().startswith(key.lower())]
    if len(found) == 1:
        return found[0]
    if not found:
        raise InterlockError(f"no open objective {which!r}", hint="see them: interlock todo list")
    shown = ", ".join(f"#{i.id} {i.text[:30]}" for i in found[:4])
    raise InterlockError(f"{which!r} names several objectives ({shown})", hint="give its number")


def close(loc: RepoLocation, which: str, run: str | None) -> tuple[Item, bool]:
    """Mark an objective done (by number, or the start of its text); (item, was open)."""
    with file_lock(repo_state_dir(loc) / LOCK_FILE):
        items = read_board(loc)
        item = _pick(items, which)
        if not item.is_open:
            return item, False
        done = Item(**{**item.to_json(), "done": time.time(), "done_run": run})
        _write(loc, [done if i.id == item.id else i for i in items])
    return done, True
