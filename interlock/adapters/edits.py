"""File edits an agent is about to make, as the file's content before and after.

Claude Code's Write/Edit/MultiEdit, Gemini CLI's write_file/replace and Codex's apply_patch
all come down to: this path, its content now, its content once the edit lands (None: the
file is deleted). `after()` computes that without touching the file, so the audit can
judge the edit before it lands. An edit whose result cannot be computed (its old text is
not in the file, a notebook cell) raises `Unknown`: its target is still fed to the recorder.
"""

from __future__ import annotations

from dataclasses import dataclass, field


class Unknown(ValueError):
    """The edit's result cannot be computed from its description."""


@dataclass(frozen=True)
class Replace:
    """Replace `old` by `new` (every occurrence when `everywhere`)."""

    old: str
    new: str
    everywhere: bool = False


@dataclass
class FileEdit:
    """One file's edit: `write` (the whole new content), `replaces` (in order), `delete`,
    or only a target (`opaque`: a notebook cell, a patch we cannot apply)."""

    path: str
    write: str | None = None
    replaces: list[Replace] = field(default_factory=list)
    hunks: list[list[str]] = field(default_factory=list)  # apply_patch update hunks
    delete: bool = False
    opaque: bool = False
    move_to: str | None = None

    def after(self, before: bytes | None) -> bytes | None:
        """The file's content once the edit lands (None: gone); Unknown when not computable."""
        if self.delete:
            return None
        if self.opaque:
            raise Unknown(f"{self.path}: interlock cannot compute this edit's result")
        if self.write is not None:
            return self.write.encode("utf-8")
        if before is None:
            raise Unknown(f"{self.path} does not exist")
        text = before.decode("utf-8", "surrogateescape")
        for step in self.replaces:
            text = _replace(text, step, self.path)
        for hunk in self.hunks:
            text = _apply_hunk(text, hunk, self.path)
        return text.encode("utf-8", "surrogateescape")


def _replace(text: str, step: Replace, path: str) -> str:
    if step.old == "":
        if text:
            raise Unknown(f"{path}: an empty old text only fills an empty file")
        return step.new
    count = text.count(step.old)
    if count == 0:
        raise Unknown(f"{path}: the text to replace is not in the file")
    if count > 1 and not step.everywhere:
        raise Unknown(f"{path}: the text to replace is in the file {count} times")
    return (
        text.replace(step.old, step.new) if step.everywhere else text.replace(step.old, step.new, 1)
    )


def _apply_hunk(text: str, hunk: list[str], path: str) -> str:
    """One apply_patch hunk: lines starting ' ' (context), '-' (removed), '+' (added)."""
    old = [line[1:] for line in hunk if line[:1] in (" ", "-")]
    new = [line[1:] for line in hunk if line[:1] in (" ", "+")]
    lines = text.split("\n")
    if not old:
        return (
            "\n".join(lines[:-1] + new + lines[-1:]) if lines[-1] == "" else text + "\n".join(new)
        )
    for start in range(len(lines) - len(old) + 1):
        if lines[start : start + len(old)] == old:
            return "\n".join(lines[:start] + new + lines[start + len(old) :])
    stripped = [o.rstrip() for o in old]
    for start in range(len(lines) - len(old) + 1):
        if [x.rstrip() for x in lines[start : start + len(old)]] == stripped:
            return "\n".join(lines[:start] + new + lines[start + len(old) :])
    raise Unknown(f"{path}: a hunk of the patch does not match the file")


def parse_apply_patch(text: str, cwd: str) -> list[FileEdit]:
    """Codex's apply_patch text (`*** Begin Patch` ... `*** End Patch`) as file edits."""
    import os

    edits: list[FileEdit] = []
    current: FileEdit | None = None
    hunk: list[str] = []

    def close_hunk() -> None:
        nonlocal hunk
        if current is not None and hunk:
            current.hunks.append(hunk)
        hunk = []

    for line in text.splitlines():
        header = _header(line)
        if header is not None:
            close_hunk()
            verb, target = header
            if verb == "End":
                break
            if verb == "Move":
                if current is not None:
                    current.move_to = os.path.join(cwd, target)
                continue
            current = FileEdit(os.path.join(cwd, target))
            current.delete = verb == "Delete"
            if verb == "Add":
                current.write = ""
            edits.append(current)
        elif current is None:
            continue
        elif current.write is not None and line.startswith("+"):
            current.write += line[1:] + "\n"
        elif line.startswith("@@"):
            close_hunk()
        elif line[:1] in (" ", "-", "+"):
            hunk.append(line)
        elif line == "*** End of File":
            continue
    close_hunk()
    return edits


def _header(line: str) -> tuple[str, str] | None:
    for verb, prefix in (
        ("Add", "*** Add File: "),
        ("Update", "*** Update File: "),
        ("Delete", "*** Delete File: "),
        ("Move", "*** Move to: "),
    ):
        if line.startswith(prefix):
            return verb, line[len(prefix) :].strip()
    if line.strip() == "*** End Patch":
        return "End", ""
    return None
