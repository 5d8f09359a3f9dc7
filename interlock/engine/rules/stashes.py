"""Stash entries made on the line (for `sequence` and `saves`): `git stash [push|save]` moves
the unsaved work into a new entry, stash@{0}; a later `git stash drop`, `git stash clear` on
the same line destroys it (a discard of that work, judged by the tree facts), `git stash pop`
and `git stash branch` bring it back into the tree (so a later discard of it counts again),
`git stash apply` keeps it, but a drop of the entry an apply that surely succeeded just put
back in the tree (`git stash && git stash apply && git stash drop`, a pop in two steps) loses
nothing.

A pop that conflicts keeps the entry (git says so and leaves it in the list), so a pop alone
is never a discard, and a drop after a pop that may have failed (`git stash pop || git stash
drop`, `git pull; git stash pop; git stash drop`) may destroy the entry the pop kept. Entries are followed by what *may* have run (`;` and `||` too): a push
that may have run may have taken the work, and a drop that may have run may destroy it. A
push that finds nothing to stash makes no entry; then a drop reaches the entry below it, which
`precision` judges when the tree holds none of the work the push would have taken.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from interlock.engine.invocation import Invocation
from interlock.engine.rules.git.invocation import GitCall, parse_git

# Subcommands that take the top entry (or the one named) off the stack.
_TAKES = frozenset(("drop", "pop", "branch"))
_LOOKS = frozenset(("list", "show", "apply", "create", "store"))


def stash_op(call: GitCall) -> tuple[str, int | None] | None:
    """What a `git stash` call does to the stack: (`push`|`drop`|`pop`|`branch`|`clear`,
    the entry index it names; None: unknown), or None when it leaves the stack alone."""
    if call.sub != "stash" or call.elsewhere:
        return None
    words = [w.literal() for w in call.args]
    first = words[0] if words else None
    if first is None and words:
        return "clear", None  # `git stash $OP`: any of them
    if first in (None, "push", "save") or (first or "").startswith("-"):
        return "push", None
    if first in _LOOKS:
        return None
    if first == "clear":
        return "clear", None
    if first not in _TAKES:
        return None
    operands = [w for w in words[1:] if w is None or not w.startswith("-")]
    if first == "branch":
        operands = operands[1:]  # the branch name
    if not operands:
        return first, 0
    return first, _index(operands[0])


def _index(word: str | None) -> int | None:
    """`stash@{2}` or `2` -> 2; anything else (a commit, `$X`): None."""
    if word is None:
        return None
    match = re.fullmatch(r"(?:(?:refs/)?stash@\{(\d+)\}|(\d+))", word)
    return int(match.group(1) or match.group(2)) if match else None


def line_stack(earlier: Sequence[Invocation], done: set[int] | None = None) -> list[int]:
    """The positions (in `earlier`) of the pushes whose entries may still be in the stash
    after the commands of `earlier` (top last). `done`: ids of the commands that surely
    succeeded; a pop or stash branch not among them may have failed (a conflict), and git
    then keeps the entry."""
    stack: list[int] = []
    for k, before in enumerate(earlier):
        call = parse_git(before)
        op = stash_op(call) if call is not None else None
        if op is None:
            continue
        action, index = op
        if action in ("pop", "branch") and done is not None and id(before) not in done:
            continue  # `git stash pop || git stash drop`: the drop reaches the kept entry
        if action == "push":
            stack.append(k)
        elif action == "clear" or index is None:
            stack = []
        elif index < len(stack):
            del stack[len(stack) - 1 - index]
    return stack


def dropped(inv: Invocation, earlier: Sequence[Invocation]) -> list[int] | None:
    """For a `git stash drop|clear` whose entry may be one the line made: the positions of
    the pushes whose work it may destroy; None when it reaches only older entries."""
    call = parse_git(inv)
    op = stash_op(call) if call is not None else None
    if op is None or op[0] not in ("drop", "clear"):
        return None
    stack = line_stack(earlier, {id(x) for x in inv.succeeded})
    action, index = op
    if action == "clear" or index is None:
        return stack or None
    if index >= len(stack):
        return None
    # a push above it that found nothing made no entry: the drop then reaches a lower one
    return stack[: len(stack) - index]


def taken_back(at: int, earlier: Sequence[Invocation]) -> bool:
    """Whether the entry a push at position `at` made may be gone again (dropped, cleared,
    popped or turned into a branch) by a later command of `earlier`."""
    for before in earlier[at + 1 :]:
        call = parse_git(before)
        op = stash_op(call) if call is not None else None
        if op is not None and op[0] != "push":
            return True
    return False


def _applied_index(call: GitCall) -> int | None:
    """The entry a `git stash apply` call applies (None: not an apply, or not known)."""
    if call.sub != "stash" or call.elsewhere:
        return None
    words = [w.literal() for w in call.args]
    if not words or words[0] != "apply":
        return None
    operands = [w for w in words[1:] if w is None or not w.startswith("-")]
    return 0 if not operands else _index(operands[0])


def reapplied(inv: Invocation, earlier: Sequence[Invocation]) -> bool:
    """Whether `inv`, a `git stash drop`, drops the very entry that an apply just before it
    (only `git stash list|show` between) applied and that surely succeeded: the entry's work
    is back in the tree."""
    call = parse_git(inv)
    op = stash_op(call) if call is not None else None
    if op is None or op[0] != "drop" or op[1] is None:
        return False
    done = {id(x) for x in inv.succeeded}
    for before in reversed(earlier):
        other = parse_git(before)
        if other is None or other.sub != "stash" or other.elsewhere:
            return False  # anything else between may have discarded the applied work again
        index = _applied_index(other)
        if index is not None:
            return index == op[1] and id(before) in done
        if stash_op(other) is not None:
            return False  # the stack changed after any apply
    return False
