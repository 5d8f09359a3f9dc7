"""Copying, moving, linking or downloading onto a file: cp, mv, install, ln -f, rsync, dd of=,
curl -o/-O, wget -O/-N (part of the overwrite family, see `overwrite`).

The destination may be new, so each finding carries `Targets.creates` (no discard by text
alone; in a tree, only an existing destination with unsaved work counts) and `Targets.into`
(the names written inside a destination that is a directory). Options that never replace a
file (`-n`, `--no-clobber`, `-i`, `--backup`, `--ignore-existing`, `wget -nc`) make no
finding; `cp /dev/null f` and `dd if=/dev/null of=f` empty the file (`overwrite.truncate`).
Writes to devices are the disk family's.
"""

from __future__ import annotations

import posixpath
import re

from interlock.engine.findings import Finding
from interlock.engine.invocation import Invocation
from interlock.engine.rules.args import Args, literal_or_text, parse_args, spec
from interlock.engine.rules.common import catalog, make_finding, rule
from interlock.engine.rules.fs import is_device
from interlock.engine.rules.targets import basename_of, file_targets
from interlock.shell.model import Word

COPY = rule(
    "overwrite.copy",
    "discard",
    "cp, mv, install, ln -f, rsync or dd writes over a file",
    "copying, moving or linking onto an existing file replaces it: what it held exists "
    "nowhere else",
    "copy to a new name, or keep the old file: cp --backup=numbered SRC DEST, mv -b, "
    "cp -n (never overwrite)",
    ("cp template.py src/app.py", "mv draft.md README.md", "ln -sf ../shared.cfg app.cfg"),
    ("cp -n a.py b.py", "mv -i a b", "cp --backup=numbered a b", "ln -s target new-link"),
    judged="a new destination is fine, so only in a repository: an existing destination (or "
    "the same name inside a destination directory) with unsaved work; never by text alone",
)
DOWNLOAD = rule(
    "overwrite.download",
    "discard",
    "curl -o/-O or wget -O/-N writes a download over a file",
    "the download replaces the file whole: what it held exists nowhere else",
    "download to a new name (curl -o FILE.new URL) and compare before moving it into place",
    ("curl -fsSL -o install.sh https://example.com/install.sh", "wget -O setup.py URL"),
    ("curl -s https://example.com", "wget https://example.com/x.tar.gz", "curl -o /dev/null URL"),
    judged="a new file is fine, so only in a repository: an existing file with unsaved work",
)

_GNU_FILE_SPEC = {
    "cp": spec(
        short_value="tS",
        long_value="target-directory suffix",
        long_flags=(
            "archive attributes-only backup copy-contents dereference force interactive link "
            "no-clobber no-dereference no-target-directory one-file-system parents preserve "
            "no-preserve recursive reflink remove-destination sparse strip-trailing-slashes "
            "symbolic-link update verbose help version"
        ),
    ),
    "mv": spec(
        short_value="tS",
        long_value="target-directory suffix",
        long_flags=(
            "backup force interactive no-clobber no-copy strip-trailing-slashes "
            "no-target-directory update verbose exchange help version"
        ),
    ),
    "install": spec(
        short_value="gmoStC",
        long_value="group mode owner suffix target-directory strip-program",
        long_flags="backup compare directory preserve-timestamps strip no-target-directory",
    ),
    "ln": spec(
        short_value="tS",
        long_value="target-directory suffix",
        long_flags=(
            "backup directory force interactive logical no-dereference no-target-directory "
            "physical relative symbolic verbose help version"
        ),
    ),
    "rsync": spec(
        short_value="eTfBM",
        long_value=(
            "rsh exclude include filter temp-dir exclude-from include-from files-from "
            "link-dest compare-dest copy-dest backup-dir suffix chmod chown timeout port "
            "password-file log-file partial-dir max-size min-size bwlimit out-format info debug"
        ),
    ),
}
# Options that keep an existing destination (never replaced, or kept as a backup).
_KEEPS = {
    "cp": ("-n", "--no-clobber", "-i", "--interactive", "-b", "--backup", "--attributes-only"),
    "mv": ("-n", "--no-clobber", "-i", "--interactive", "-b", "--backup", "--exchange"),
    "install": ("-b", "--backup", "-d", "--directory"),
    "ln": ("-b", "--backup", "-i", "--interactive"),
    "rsync": ("-b", "--backup", "--ignore-existing", "-n", "--dry-run", "--list-only"),
}
_CURL = spec(
    short_value="AbcCdDeEFHKmoQrtTuUwxXyYzP",
    long_value=(
        "output output-dir url header data data-raw data-binary data-urlencode form user "
        "user-agent referer cookie cookie-jar config max-time connect-timeout retry request "
        "proxy cacert cert key write-out range upload-file dump-header continue-at"
    ),
    long_flags="remote-name remote-name-all remote-header-name no-clobber create-dirs",
)
_WGET = spec(
    short_value="OoaPtTweiUQlARDIXB",
    long_value=(
        "output-document output-file append-output directory-prefix tries timeout wait execute "
        "input-file user-agent quota level accept reject domains include-directories "
        "exclude-directories base header user password post-data post-file"
    ),
    long_flags="no-clobber timestamping continue",
)
_URL = r"^[a-zA-Z][a-zA-Z0-9+.-]*://"


def _dest_and_sources(args: Args) -> tuple[Word | None, list[Word]]:
    """(destination, sources): `-t DIR` or the last operand."""
    target = args.last("-t", "--target-directory")
    operands = list(args.operands())
    if target is not None:
        return target.word or Word(target.value or "", target.value), operands
    if len(operands) < 2:
        return None, operands
    return operands[-1], operands[:-1]


def _file_copy(name: str, inv: Invocation) -> list[Finding]:
    args = parse_args(inv.argv[1:], _GNU_FILE_SPEC[name])
    if args.has("--help", "--version", *_KEEPS[name]) or _update_none(args):
        return []
    if name == "ln" and not args.has("-f", "--force"):
        return []  # without --force ln refuses to replace anything
    if name == "rsync" and any((w.literal() or "").startswith("--del") for w in inv.argv):
        return []  # rsync --delete is fs.rsync-delete
    dest, sources = _dest_and_sources(args)
    if name == "ln" and dest is None and len(sources) == 1:
        base = basename_of(sources[0])  # `ln -sf /x/tool`: a link named tool, here
        dest, sources = (Word(base, base), []) if base else (None, sources)
    if dest is None or _is_remote(name, dest):
        return []
    if name == "mv" and _swallows(dest):
        # `mv notes.md /dev/null`: as root the file replaces the device and the next write to
        # /dev/null empties it; else mv fails. What it moves is lost: judged as rm -r of it.
        moved = file_targets(tuple(sources), inv.cwd, single=False)
        return [] if moved is None else [make_finding(catalog()["fs.rm-recursive"], inv, moved)]
    if is_device(dest):
        return []
    if name in ("cp", "install", "ln") and [literal_or_text(s) for s in sources] == ["/dev/null"]:
        # cp/install copy nothing into it; ln -sf makes it a link to nothing
        targets = file_targets((dest,), inv.cwd, follows=True)
        truncate = catalog()["overwrite.truncate"]
        return [] if targets is None else [make_finding(truncate, inv, targets)]
    names = tuple(basename_of(s) or "" for s in sources)
    recursive = args.has("-r", "-R", "--recursive", "-a", "--archive") or name == "rsync"
    no_dir = args.has("-T", "--no-target-directory")
    known = all(names) and not no_dir
    targets = file_targets(
        (dest,),
        inv.cwd,
        creates=True,
        single=not recursive and known,
        follows=name in ("cp", "install") and not args.has("--remove-destination"),
        into=names if known else (),
    )
    return [] if targets is None else [make_finding(COPY, inv, targets)]


def _swallows(dest: Word) -> bool:
    """A destination under /dev that is no directory to move into (/dev/null, /dev/zero, a
    terminal, a disk); /dev/shm and the like are directories."""
    text = posixpath.normpath(literal_or_text(dest).replace('"', "").replace("'", ""))
    parts = text.split("/")
    return text.startswith("/dev/") and parts[2] not in ("shm", "mqueue", "pts", "fd", "hugepages")


def _update_none(args: Args) -> bool:
    update = args.last("--update")
    return update is not None and (update.value or "").startswith("none")


def _is_remote(name: str, dest: Word) -> bool:
    text = literal_or_text(dest)
    return name == "rsync" and (":" in text.split("/", 1)[0] or "://" in text)


def _dd(inv: Invocation) -> list[Finding]:
    values: dict[str, Word] = {}
    for word in inv.argv[1:]:
        key, eq, value = literal_or_text(word).partition("=")
        if eq:
            values[key] = Word(value, value if word.literal() is not None else None)
    out = values.get("of")
    if out is None or is_device(out):
        return []
    conv = literal_or_text(values.get("conv", Word("", "")))
    oflag = literal_or_text(values.get("oflag", Word("", "")))
    if "append" in oflag and "notrunc" in conv:
        return []
    source = values.get("if")
    count = values.get("count")
    emptied = "notrunc" not in conv and (
        (source is not None and source.literal() == "/dev/null")
        or (count is not None and count.literal() == "0")
    )
    targets = file_targets((out,), inv.cwd, creates=not emptied, follows=True)
    if targets is None:
        return []
    return [make_finding(catalog()["overwrite.truncate"] if emptied else COPY, inv, targets)]


def _url_name(word: Word) -> str | None:
    value = word.literal()
    if value is None or not re.match(_URL, value):
        return None
    path = value.split("://", 1)[1].split("?", 1)[0].split("#", 1)[0]
    name = path.rsplit("/", 1)[-1] if "/" in path else ""
    return name or None


def _download(
    inv: Invocation, outputs: list[Word], urls: list[Word], directory: str | None
) -> list[Finding]:
    names = [n for n in (_url_name(u) for u in urls) if n]
    words = [w for w in outputs if w.literal() != "-"] + [Word(n, n) for n in names]
    if directory:
        words = [_prefixed(directory, w) for w in words]
    targets = file_targets(words, inv.cwd, creates=True, follows=True)
    return [] if targets is None else [make_finding(DOWNLOAD, inv, targets)]


def _prefixed(directory: str, word: Word) -> Word:
    value = word.literal()
    if value is None or value.startswith("/") or value == "-":
        return word
    path = f"{directory.rstrip('/')}/{value}"
    return Word(path, path)


def _curl(inv: Invocation) -> list[Finding]:
    args = parse_args(inv.argv[1:], _CURL)
    if args.has("--no-clobber", "-C", "--continue-at", "-J", "--remote-header-name"):
        return []
    outputs = [o.word or Word(o.value or "", o.value) for o in args.values("-o", "--output")]
    remote = args.has("-O", "--remote-name", "--remote-name-all")
    urls = list(args.operands()) + [o.word for o in args.values("--url") if o.word]
    directory = args.last("--output-dir")
    where = directory.value if directory is not None else None
    return _download(inv, outputs, urls if remote else [], where)


def _wget(inv: Invocation) -> list[Finding]:
    args = parse_args(inv.argv[1:], _WGET)
    if args.has("--no-clobber", "-c", "--continue") or any(w.literal() == "-nc" for w in inv.argv):
        return []
    documents = args.values("-O", "--output-document")
    outputs = [o.word or Word(o.value or "", o.value) for o in documents]
    if outputs:
        return _download(inv, outputs, [], None)
    if not args.has("-N", "--timestamping"):
        return []  # wget keeps an existing file and saves the download as NAME.1
    prefix = args.last("-P", "--directory-prefix")
    return _download(inv, [], list(args.operands()), prefix.value if prefix else None)


def check_copies(inv: Invocation) -> list[Finding]:
    """Findings for cp, mv, install, ln, rsync, dd, curl and wget writing over files."""
    name = inv.name
    if name in _GNU_FILE_SPEC:
        return _file_copy(name, inv)
    if name == "dd":
        return _dd(inv)
    if name == "curl":
        return _curl(inv)
    if name == "wget":
        return _wget(inv)
    return []
