"""Where paths really are, for precision: through symlinks (`physical`), in a temp dir
(`is_temp_path`), where a git pathspec reaches (`pathspec_target`), what an archive would
write (`archive_members`), and which files are too large for the recorder to keep
(`too_large`).
"""

from __future__ import annotations

import os

from interlock.engine.rules.fs import is_temp_path as _is_temp_text

_SIZE_SCAN_LIMIT = 2000  # files looked at under one lost directory for the size cap
_ARCHIVE_READ_MAX = 64 << 20  # archives larger than this are not listed (members unknown)


def is_temp_path(path: str) -> bool:
    """An absolute path inside a temp directory (/tmp, /var/tmp, $TMPDIR, the system's)."""
    norm = os.path.normpath(path)
    if _is_temp_text(norm) and norm not in ("/tmp", "/var/tmp", "/dev/shm"):
        return True
    import tempfile  # here, with tarfile and zipfile below: only a discard's judgement needs them

    roots = [os.path.normpath(tempfile.gettempdir())]
    if os.environ.get("TMPDIR"):
        roots.append(os.path.normpath(os.environ["TMPDIR"]))
    return any(norm != root and norm.startswith(root + "/") for root in roots)


def physical(base: str, target: str, follows: bool = False) -> str:
    """Where `target` (relative to `base`) really is: every directory link on the way is
    resolved, and the last component too when the command writes through it or the path
    ends in `/` (`rm -rf link/` deletes what the link points to)."""
    joined = os.path.join(base, os.path.expanduser(target))
    if follows or target.endswith("/"):
        return os.path.realpath(joined)
    head, tail = os.path.split(joined)
    if tail in ("", ".", ".."):
        return os.path.realpath(joined)
    return os.path.join(os.path.realpath(head), tail)


def pathspec_target(spec: str, base: str, root: str) -> str:
    """Where a git pathspec reaches, as an absolute path (which may hold a glob): from `base`
    (the command's directory), or from the worktree `root` with the `:/` and `:(top)` magic.
    Magic that interlock does not follow (`:!x` and `:(exclude)x` spare paths, `:(icase)x`,
    `:(attr:...)x`) is read as the whole tree: what it spares is not known from the text."""
    if not spec.startswith(":"):
        return os.path.normpath(os.path.join(base, os.path.expanduser(spec)))
    if spec.startswith(":("):
        magic, closed, rest = spec[2:].partition(")")
        words = {word.strip() for word in magic.split(",")}
        if not closed or not words <= {"top", "glob", "literal"}:
            return root
        return os.path.normpath(os.path.join(root if "top" in words else base, rest))
    short = spec[1:]
    signs = short[: len(short) - len(short.lstrip("/!^"))]
    rest = short[len(signs) :].removeprefix(":")
    if signs.strip("/"):
        return root  # `:!x`, `:^x`: an exclusion
    return os.path.normpath(os.path.join(root if signs else base, rest))


def existing_ancestor(path: str) -> str:
    while not os.path.exists(path) and path not in ("/", ""):
        path = os.path.dirname(path)
    return path or "/"


def too_large(path: str, cap: int) -> list[str]:
    """The files at or under `path` larger than `cap` bytes (a bounded look under dirs)."""
    try:
        if os.path.isfile(path) and not os.path.islink(path):
            return [path] if os.path.getsize(path) > cap else []
    except OSError:
        return []
    found: list[str] = []
    seen = 0
    for root, _dirs, files in os.walk(path):
        for name in files:
            seen += 1
            full = os.path.join(root, name)
            try:
                if not os.path.islink(full) and os.path.getsize(full) > cap:
                    found.append(full)
            except OSError:
                continue
            if seen >= _SIZE_SCAN_LIMIT:
                return found
    return found


def archive_members(path: str, strip: int = 0) -> list[str] | None:
    """The files a tar or zip archive would write (after `strip` leading components), or None
    when it cannot be read cheaply (too large, another format, damaged)."""
    import tarfile
    import zipfile

    try:
        if os.path.getsize(path) > _ARCHIVE_READ_MAX:
            return None
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as archive:
                names = [n for n in archive.namelist() if not n.endswith("/")]
        elif tarfile.is_tarfile(path):
            with tarfile.open(path) as archive:
                names = [m.name for m in archive.getmembers() if not m.isdir()]
        else:
            return None
    except (OSError, EOFError, ValueError, tarfile.TarError, zipfile.BadZipFile):
        return None
    members: list[str] = []
    for name in names:
        parts = [p for p in name.split("/") if p not in ("", ".")]
        if ".." not in parts and parts[strip:]:  # tar and unzip refuse `..` members
            members.append("/".join(parts[strip:]))
    return members
