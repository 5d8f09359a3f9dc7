"""File searches besides find, read into the same `Search` (engine/findexpr.py): `fd`, whose
`-x`/`-X` run a command on what it finds, and `git ls-files`, whose output is piped to
`xargs rm`. Also which command feeds a pipeline element (`find ... | grep -v x | xargs rm`).

A search is a superset of what the tool selects: what it leaves out by default (fd skips
hidden and ignored files, git ls-files `-x` patterns) only narrows it, so it is not read.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from interlock.engine.findexpr import Node, Search, find_search
from interlock.engine.invocation import Invocation
from interlock.engine.unwrap import OptSpec, Unwrap, lit, parse_options, program_name
from interlock.shell.model import Redirect, Word

FD_NAMES = ("fd", "fdfind")
_FD = OptSpec(
    "dteESojc",
    {
        "max-depth",
        "min-depth",
        "exact-depth",
        "type",
        "extension",
        "exclude",
        "size",
        "changed-within",
        "changed-before",
        "change-newer-than",
        "change-older-than",
        "owner",
        "threads",
        "max-results",
        "color",
        "base-directory",
        "path-separator",
        "search-path",
        "ignore-file",
        "format",
        "batch-size",
        "max-buffer-time",
        "exec",
        "exec-batch",
    },
)
_FD_MARKS = ("{}", "{/}", "{//}", "{.}", "{/.}")
_FD_TYPES = {"f": "f", "file": "f", "d": "d", "directory": "d", "l": "l", "symlink": "l"}
# Filters a list of paths goes through unchanged or narrowed on its way to xargs.
_NARROWING = frozenset(("grep", "egrep", "fgrep", "rg", "sort", "uniq", "head", "tail", "cat"))
_TRANSFORMING = frozenset(("-o", "--only-matching", "-c", "--count", "-n", "--line-number"))


def _fd_exec(words: tuple[Word, ...], i: int) -> tuple[tuple[Word, ...], int]:
    """The command of `-x CMD... [;]` from words[i]: (its words, index after it)."""
    end = i
    while end < len(words) and lit(words[end]) != ";":
        end += 1
    return words[i:end], end + 1


def _fd_read(
    words: tuple[Word, ...],
) -> tuple[list[tuple[str, str | None]], list[Word], list[tuple[str, tuple[Word, ...]]]]:
    """(options, operands, exec commands) of `fd ARGS`; exec entries are (name, words)."""
    options: list[tuple[str, str | None]] = []
    operands: list[Word] = []
    execs: list[tuple[str, tuple[Word, ...]]] = []
    i = 1
    while i < len(words):
        value = lit(words[i])
        if value in ("-x", "--exec", "-X", "--exec-batch"):
            command, i = _fd_exec(words, i + 1)
            execs.append((value, command))
            continue
        if value == "--":
            operands += list(words[i + 1 :])
            break
        if value is not None and value.startswith("-") and value != "-":
            parsed = parse_options(words[i : i + 2], 0, _FD)
            if parsed is None:
                options.append((value, None))
                i += 1
                continue
            opts, used = parsed
            options += list(opts.items)
            i += max(used, 1)
            continue
        operands.append(words[i])
        i += 1
    return options, operands, execs


def _fd_expr(options: list[tuple[str, str | None]], pattern: str | None) -> Node | None:
    names = {name for name, _ in options}
    if names & {"-p", "--full-path", "-L", "--follow", "--format", "--base-directory"}:
        return None  # matched on the absolute path, through links, or printed otherwise
    flags = "".join(
        f
        for f, opts in (
            ("g", "-g --glob"),
            ("F", "-F --fixed-strings"),
            ("s", "-s --case-sensitive"),
        )
        if names & set(opts.split())
    )
    parts: list[Node] = []
    if pattern:
        parts.append(Node("test", kind=f"fd:{flags}", arg=pattern))
    exts = [v for n, v in options if n in ("-e", "--extension")]
    if any(v is None for v in exts):
        return None
    if exts:
        tests = [Node("test", kind="iname", arg=f"*.{(v or '').lstrip('.')}") for v in exts]
        parts.append(_any(tests))
    types = [v for n, v in options if n in ("-t", "--type")]
    if types:
        known = [_FD_TYPES.get(v or "") for v in types]
        tests = [
            Node("test", kind="type", arg=k) if k else Node("test", kind="unknown") for k in known
        ]
        parts.append(_any(tests))
    parts.append(Node("target"))
    node = parts[0]
    for part in parts[1:]:
        node = Node("and", (node, part))
    return node


def _any(tests: list[Node]) -> Node:
    node = tests[0]
    for test in tests[1:]:
        node = Node("or", (node, test))
    return node


def _depth(options: list[tuple[str, str | None]], *names: str) -> int | None:
    values = [v for n, v in options if n in names]
    if not values:
        return None
    value = values[-1] or ""
    return int(value) if value.isdigit() else None


def fd_search(words: tuple[Word, ...], base: str | None, subtree: bool = False) -> Search | None:
    """What `fd ARGS` selects (for its -x/-X command, or the paths it prints)."""
    options, operands, _ = _fd_read(words)
    values = [w.literal() for w in operands]
    if any(v is None for v in values) or any(w.has_glob for w in operands[1:]):
        return None
    pattern, starts = (values[0], values[1:]) if values else (None, [])
    roots = tuple(v or "." for v in starts) or (".",)
    expr = _fd_expr(options, pattern)
    exact = _depth(options, "--exact-depth")
    maxdepth = exact if exact is not None else _depth(options, "-d", "--max-depth")
    mindepth = max(1, exact or _depth(options, "--min-depth") or 1)
    hidden = any(n in ("-H", "--hidden", "-u", "--unrestricted") for n, _ in options)
    return Search(
        roots, base, expr, subtree, False, None, mindepth, maxdepth, tool="fd", dot_git=hidden
    )


def fd_spawn(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    """`fd PATTERN -x rm` and `-X`: the command runs on every match, which fd appends unless
    the command places it (`{}`; `{/}` and the like make the path something else)."""
    _, operands, execs = _fd_read(words)
    if not execs:
        return None
    search = fd_search(words, None)
    roots = search.starts if search is not None else None
    children = []
    for name, command in execs:
        if not command:
            continue
        marks = [w for w in command if any(m in (w.literal() or "") for m in _FD_MARKS)]
        whole = all(w.literal() == "{}" for w in marks)
        children.append(
            Unwrap(
                "exec",
                f"{program_name(lit(words[0]) or 'fd')} {name}",
                rest=command,
                extra_args=True,
                arg_roots=roots,
                arg_search=search if whole or search is None else replace(search, expr=None),
                masks=None if name in ("-X", "--exec-batch") else "fd -x ignores the status",
            )
        )
    return Unwrap("spawn", "fd", children=tuple(children)) if children else None


def _lsfiles_kinds(names: set[str]) -> frozenset[str] | None:
    kinds: set[str] = set()
    others = bool(names & {"-o", "--others"})
    ignored = bool(names & {"-i", "--ignored"})
    excluded = bool(names & {"--exclude-standard", "-x", "--exclude", "-X", "--exclude-from"})
    if others:
        kinds |= {"ignored"} if ignored else {"untracked"} | (set() if excluded else {"ignored"})
    if names & {"-m", "--modified", "-c", "--cached", "-s", "--stage", "-u", "--unmerged"} or not (
        others or names & {"-d", "--deleted", "-k", "--killed"}
    ):
        kinds.add("unstaged")
    if names & {"-k", "--killed"}:
        return None
    return frozenset(kinds)


def lsfiles_search(inv: Invocation, args: Sequence[Word], subtree: bool) -> Search | None:
    """What `git ls-files [opts] [-- pathspecs]` lists, relative to its directory."""
    names: set[str] = set()
    specs: list[str] = []
    words = list(args)
    k = 0
    while k < len(words):
        value = words[k].literal()
        if value is None:
            return None
        if value == "--":
            specs += [w.literal() or "" for w in words[k + 1 :]]
            if any(w.literal() is None for w in words[k + 1 :]):
                return None
            break
        if value.startswith("--") or (value.startswith("-") and len(value) == 2):
            names.add(value.split("=", 1)[0])
            if value in ("-x", "--exclude", "-X", "--exclude-from", "--exclude-per-directory"):
                k += 1
        elif value.startswith("-"):
            names |= {f"-{c}" for c in value[1:]}
        else:
            specs.append(value)
        k += 1
    if names & {"--full-name", "--format", "--with-tree", "--recurse-submodules", "--directory"}:
        return None
    if any(s.startswith(":") for s in specs):
        return None  # pathspec magic
    kinds = _lsfiles_kinds(names)
    if kinds is None:
        return None
    tests = [Node("test", kind="path", arg=s.rstrip("/")) for s in specs]
    tests += [Node("test", kind="path", arg=s.rstrip("/") + "/*") for s in specs]
    expr = Node("and", (_any(tests), Node("target"))) if tests else Node("target")
    return Search(("",), inv.cwd, expr, subtree, True, kinds, tool="git ls-files")


def _reads_stdin(redirect: Redirect) -> bool:
    """`< FILE`, `<<< TEXT`, a here-document, `0<&3`, `0>FILE`: stdin is no longer the pipe."""
    return redirect.fd == 0 or (redirect.fd is None and redirect.op.startswith("<"))


def producer(inv: Invocation, earlier: Sequence[Invocation], subtree: bool) -> Search | None:
    """The search whose printed paths reach `inv` (an `xargs` command) through its pipeline:
    `find ... | xargs rm`, `fd -e pyc | xargs rm`, `git ls-files -o | xargs rm`, with filters
    that only narrow the list between. None when xargs reads its list from elsewhere: a
    file (`xargs -a LIST`) or a redirection of its stdin (`xargs rm < LIST`)."""
    if inv.arg_file or any(_reads_stdin(r) for r in inv.redirects):
        return None
    feeding = [e for e in earlier if inv.pipe and e.pipe == inv.pipe]
    for before in reversed(feeding):
        name = before.name
        if name in _NARROWING and not any(w.literal() in _TRANSFORMING for w in before.argv[1:]):
            if name == "cat" and len(before.argv) > 1:
                return None  # cat FILES: the list comes from those files
            continue
        if before.cwd != inv.cwd or before.cwd is None:
            return None  # the paths are read from elsewhere than they were found
        if name in ("find", "gfind"):
            return find_search(before.argv[1:], before.cwd, printing=True, subtree=subtree)
        if name in FD_NAMES and not any(w.literal() in ("-x", "-X") for w in before.argv):
            return fd_search(before.argv, before.cwd, subtree)
        if name == "git" and len(before.argv) > 1 and before.argv[1].literal() == "ls-files":
            return lsfiles_search(before, before.argv[2:], subtree)
        return None
    return None
