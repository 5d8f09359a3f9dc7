"""Shell variables the walker follows through a command line, so that a target named through
one is known: `F=notes.md; rm $F`, `DISK=/dev/sda; dd of=$DISK`, `for f in a b; do rm $f;
done`, `sh -c 'rm "$1"' _ notes.md`.

Only what the line itself assigns, as a literal, is known (`Vars.values`), and the environment
variables the judge is sent (SEEN_ENV: `$TMPDIR` as the checking shell holds it, unset or
empty expanding to nothing); any other variable from the environment, or one whose value is
built at run time, stays unknown, and so does every word that expands it (rules read such
words as unknown targets, never as safe ones), whatever its name. Of an unknown value two
things are kept: that it is a fresh temp dir (`T=$(mktemp -d)`: `Vars.temps`, shown to the
rules as `$(mktemp -d)`), and which commands' output it may hold (`P=$(pgrep x)`:
`Vars.carried`, handed to the words as `Word.carried`). A value is
only trusted when nothing the walker does not follow may have changed it since: a command
that may assign variables in ways we do not read (`read`, `source`, an `eval` of unknown text,
a call of a function defined on the line, a command whose name is unknown, `${X:=v}`,
arithmetic) forgets them; branches that disagree, an assignment that may not have run (after
`||`, late in an `&&` chain) and loop bodies that may run again forget them too. A new shell
(`bash -c`) sees only what it surely inherits: the assignments on its own command line and,
when no wrapper stands between (`sudo` and `env -i` clear the environment), exported variables.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType

from interlock.shell.lex import scan_word
from interlock.shell.model import Node, Redirect, Word

# Names bash sets itself, or that change under the line's feet: never resolved.
_DYNAMIC = frozenset(
    "RANDOM SRANDOM SECONDS LINENO BASHPID EPOCHSECONDS EPOCHREALTIME PWD OLDPWD PPID UID "
    "EUID HISTCMD FUNCNAME PIPESTATUS OPTIND OPTARG REPLY MAPFILE BASH_REMATCH BASH_COMMAND "
    "BASH_SUBSHELL BASH_LINENO BASH_SOURCE SHLVL COLUMNS LINES IFS".split()
)
_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_ASSIGNMENT = re.compile(rf"^({_NAME})(\+?)=(.*)$", re.S)
_PLAIN = re.compile(r"^[A-Za-z0-9_@%+=:,./-]+$")  # shown as is; anything else is quoted
_SPLIT = " \t\n"
_GLOB = "*?["
MAX_LOOP_VALUES = 8  # a literal `for` list longer than this is walked once, its variable unknown
_DECLARERS = frozenset(("export", "declare", "typeset", "local", "readonly"))
# Builtins that assign the variables they name (or REPLY/MAPFILE/OPTARG).
_READERS = frozenset(("read", "mapfile", "readarray", "getopts", "let", "printf", "wait"))
EMPTY_MAP: Mapping[str, str | None] = MappingProxyType({})
EMPTY_ENV: Mapping[str, str] = MappingProxyType({})
EMPTY_CARRIED: Mapping[str, tuple[Node, ...]] = MappingProxyType({})
_ASSIGNMENTS = itertools.count(1)  # numbers Vars.fresh
# What a variable holding a fresh temp dir (`Vars.temps`) is written as for the rules.
_MKTEMP_MARK = "$(mktemp -d)"
# Environment variables the judge sees as the line's shell does: the client of a check sends
# them along (daemon.hotwhere.CHECK_ENV), so set or unset, their value is known. Any other
# variable from the environment is unknown, whatever its name says (`$tmp` may be unset, and
# `rm -rf "$tmp"/*` then is `rm -rf /*`).
SEEN_ENV = ("TMPDIR",)


@dataclass(frozen=True)
class Vars:
    """What the line knows of its shell's variables at one point.

    values: variables assigned on the line: their literal value, or None when it is unknown.
    exported: names the line exported (a new shell inherits them).
    params: the positional parameters `$1...` (None: unknown, as on the outer line); `open`:
      more are appended at run time (`xargs sh -c '...' _`), so `$@` and later ones are unknown.
    functions: functions defined on the line, by name, with their text (a call may assign).
    blind: inside code built from words with unknown parts (`bash -c "$X; ..."`), where a `$`
      left in the text may be the outer shell's: nothing is resolved or recorded.
    temps: names among `values` whose unknown value is a temp dir (`T=$(mktemp -d)`);
      fresh: by name, which assignment made it one (a number), so that a trap can tell the
      same temp dir from one assigned again (trap_prelude).
    wild: the line may have assigned any variable by now (`eval "$X"`, `source f`, `$CMD`).
    carried: by name, the commands whose output the variable may hold (`P=$(pgrep x)`,
      `for p in $(pgrep x)`, `pgrep x | while read p`): its value is unknown, but a rule can
      judge what it may be (rules.daemonkill: pids of interlock's daemon).
    seen: environment variables whose value in the line's shell the judge knows (SEEN_ENV);
      environ: those of them that are set, with their values (an unset one expands to
      nothing). Once the line may have assigned one, `values` (or `wild`) says what it holds.

    No variable is a temp dir by its name: `$TMPDIR` is what the environment holds, `$tmp`
    unknown unless the line assigned it.
    """

    values: Mapping[str, str | None] = field(default_factory=lambda: EMPTY_MAP)
    exported: frozenset[str] = frozenset()
    params: tuple[str | None, ...] | None = None
    open: bool = False
    functions: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    blind: bool = False
    temps: frozenset[str] = frozenset()
    wild: bool = False
    seen: frozenset[str] = frozenset()
    environ: Mapping[str, str] = field(default_factory=lambda: EMPTY_ENV)
    carried: Mapping[str, tuple[Node, ...]] = field(default_factory=lambda: EMPTY_CARRIED)
    fresh: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def empty(self) -> bool:
        return self.blind or (
            not self.values and self.params is None and not self.wild and not self.seen
        )

    def value(self, name: str) -> str | None:
        if name in _DYNAMIC:
            return None
        if name in self.values or self.wild or name not in self.seen:
            return self.values.get(name)
        return self.environ.get(name, "")

    def is_set(self, name: str) -> bool | None:
        """Whether the variable is set (`${X-d}`), None when unknown."""
        if self.value(name) is None:
            return None
        return name in self.values or name in self.environ

    def assign(
        self,
        name: str,
        value: str | None,
        export: bool = False,
        temp: bool = False,
        carried: tuple[Node, ...] = (),
    ) -> Vars:
        """`temp`: the value, unknown, is a temp dir (`$(mktemp -d)`, `"$TMPDIR/x"`);
        `carried`: the commands whose output it holds (see the class)."""
        if self.blind:
            return self
        values = dict(self.values)
        values[name] = value
        exported = self.exported | {name} if export else self.exported
        temps = self.temps | {name} if temp and value is None else self.temps - {name}
        held = dict(self.carried)
        held.pop(name, None)
        if carried and value is None:
            held[name] = carried
        fresh = dict(self.fresh)
        if name in temps:
            fresh[name] = next(_ASSIGNMENTS)
        return replace(
            self,
            values=MappingProxyType(values),
            exported=exported,
            temps=temps,
            carried=MappingProxyType(held),
            fresh=MappingProxyType(fresh),
        )

    def carry(self, names: Iterable[str], nodes: tuple[Node, ...]) -> Vars:
        """The named variables (unknown now) may also hold what `nodes` print."""
        if self.blind or not nodes:
            return self
        held = dict(self.carried)
        for name in names:
            held[name] = _union(held.get(name, ()), nodes)
        return replace(self, carried=MappingProxyType(held))

    def forget(self, names: Iterable[str] | None = None) -> Vars:
        """Every variable (names None: any name may have been assigned) or the named ones
        become unknown."""
        if names is None:
            unknown = MappingProxyType(dict.fromkeys(self.values))
            return replace(self, values=unknown, params=None, temps=frozenset(), wild=True)
        names = [
            n
            for n in names
            if self.values.get(n) is not None or n not in self.values or n in self.temps
        ]
        if not names:
            return self
        values = dict(self.values)
        values.update(dict.fromkeys(names))
        return replace(self, values=MappingProxyType(values), temps=self.temps - set(names))

    def forget_assigned_in(self, text: str) -> Vars:
        """Forget each variable that `text` may assign (it names it other than as an
        expansion: `F=`, `read F`, `(( F++ ))`): the known ones, those of the environment
        included."""
        named = self.seen - self.values.keys()
        return self.forget([n for n in [*self.values, *sorted(named)] if _may_assign(n, text)])


def _union(*groups: tuple[Node, ...]) -> tuple[Node, ...]:
    seen: dict[int, Node] = {}
    for group in groups:
        for node in group:
            seen.setdefault(id(node), node)
    return tuple(seen.values())


def carried_by(word: Word, v: Vars) -> tuple[Node, ...]:
    """The commands whose output `word` may hold: its own substitutions, and what the
    variables it expands carry (`Q=$P`)."""
    names = re.findall(rf"\$\{{?({_NAME})", word.text)
    return _union(word.substitutions, word.carried, *(v.carried.get(n, ()) for n in names))


def _is_temp(text: str) -> bool:
    from interlock.engine.rules.fs import is_temp_path  # the rules import the walker

    return is_temp_path(text)


def _may_assign(name: str, text: str) -> bool:
    return re.search(rf"(?<![\w$]){name}(?!\w)", text.replace("${" + name, "")) is not None


BLIND = Vars(blind=True)


def from_environment(environ: Mapping[str, str]) -> Vars:
    """What a line knows before it runs: the environment variables the judge sees."""
    known = {n: environ[n] for n in SEEN_ENV if n in environ}
    return Vars(seen=frozenset(SEEN_ENV), environ=MappingProxyType(known))


def merge(ends: Sequence[Vars]) -> Vars:
    """The variables after branches that end in `ends`: a value all agree on, else unknown."""
    first = ends[0]
    if all(e is first for e in ends[1:]):
        return first
    values: dict[str, str | None] = {}
    for name in {n for e in ends for n in e.values}:
        seen = {e.values.get(name, "\0unset") for e in ends}
        values[name] = seen.pop() if len(seen) == 1 else None
    if any(e.blind for e in ends):
        return BLIND
    params = first.params if all(e.params == first.params for e in ends) else None
    exported = frozenset().union(*(e.exported for e in ends))
    functions = {k: v for e in ends for k, v in e.functions.items()}
    temps = frozenset.intersection(*(e.temps for e in ends))
    fresh = {
        n: s
        for n in temps
        if (s := first.fresh.get(n)) is not None and all(e.fresh.get(n) == s for e in ends)
    }
    wild = any(e.wild for e in ends)
    carried: dict[str, tuple[Node, ...]] = {}
    for e in ends:
        for name, nodes in e.carried.items():
            carried[name] = _union(carried.get(name, ()), nodes)
    return Vars(
        MappingProxyType(values),
        exported,
        params,
        first.open,
        MappingProxyType(functions),
        temps=temps,
        wild=wild,
        seen=first.seen,
        environ=first.environ,
        carried=MappingProxyType(carried),
        fresh=MappingProxyType(fresh),
    )


def for_new_shell(
    outer: Vars, assignments: Sequence[Word], args: Sequence[Word] | None, inherit: bool
) -> Vars:
    """What a new shell (`bash -c CODE ARG0 ARGS...`) knows: its environment's assignments,
    exported variables when nothing between may clear the environment, and its arguments."""
    if outer.blind:
        return outer
    values: dict[str, str | None] = {}
    temps: set[str] = set()
    seen: frozenset[str] = frozenset()
    carried: dict[str, tuple[Node, ...]] = {}
    if inherit:
        # a variable of the environment stays exported when the line assigns it
        passed = outer.exported | outer.environ.keys()
        values = {n: outer.values[n] for n in passed if n in outer.values}
        temps = {n for n in outer.temps if n in values}
        seen = frozenset() if outer.wild else outer.seen
        # a name the line assigned without exporting it may have been exported before
        carried = dict(outer.carried)
    for word in assignments:
        match = _ASSIGNMENT.match(word.literal() or "")
        if match is not None:
            values[match.group(1)] = None if match.group(2) else match.group(3)
            temps.discard(match.group(1))
            if not match.group(2):
                carried.pop(match.group(1), None)
        elif (m := re.match(rf"^({_NAME})(\+?)=(.*)$", word.text, re.S)) is not None:
            values[m.group(1)] = None
            if held := carried_by(word, outer):
                carried[m.group(1)] = _union(carried.get(m.group(1), ()), held)
            if not m.group(2) and _is_temp(m.group(3)):
                temps.add(m.group(1))
            else:
                temps.discard(m.group(1))
    params = None if args is None else tuple(w.literal() for w in args[1:])
    return Vars(
        MappingProxyType(values),
        frozenset(values),
        params,
        temps=frozenset(temps),
        seen=seen,
        environ=outer.environ if seen else EMPTY_ENV,
        carried=MappingProxyType(carried),
    )


# -- expanding words ----------------------------------------------------------------------


def _reference(text: str, i: int) -> tuple[str, int] | None:
    """The parameter `$NAME`, `${NAME}`, `$1`, `${10}`, `$@`, `$*`, `$#` at text[i] (a `$`)."""
    rest = text[i + 1 :]
    if not rest:
        return None
    if rest[0] in "@*#" or rest[0].isdigit():
        return rest[0], i + 2
    if rest[0] == "{":
        match = re.match(rf"^\{{({_NAME}|\d+|[@*#])\}}", rest)
        return (match.group(1), i + 1 + match.end()) if match else None
    match = re.match(_NAME, rest)
    return (match.group(0), i + 1 + match.end()) if match else None


def _expansion(text: str, i: int, v: Vars) -> tuple[str, str | list[str] | None, int] | None:
    """The parameter expansion at text[i] (a `$`): the parameter, its value (None: unknown)
    and where it ends; also `${NAME-WORD}` / `${NAME:-WORD}` with WORD plain text (the
    parameter then is "": the value is not NAME's own)."""
    found = _reference(text, i)
    if found is not None:
        return found[0], _lookup(found[0], v), found[1]
    match = re.match(rf"\$\{{({_NAME})(:?)-([^}}$`'\"\\]*)\}}", text[i:])
    if match is None:
        return None
    name, colon, default = match.groups()
    end = i + match.end()
    is_set, value = v.is_set(name), v.value(name)
    if is_set is None or value is None:
        return "", None, end
    return "", default if not is_set or (colon and not value) else value, end


def _lookup(ref: str, v: Vars) -> str | list[str] | None:
    """A known value: a string, or for `$@`/`$*` the list of parameters; None: unknown."""
    if ref in "@*":
        if v.params is None or v.open or any(p is None for p in v.params):
            return None
        return [p or "" for p in v.params]
    if ref == "#":
        return None if v.params is None or v.open else str(len(v.params))
    if ref.isdigit():
        index = int(ref)
        if index == 0 or v.params is None or index > len(v.params):
            return None if v.params is None or v.open or index == 0 else ""
        return v.params[index - 1]
    return v.value(ref)


def _shown(value: str) -> str:
    """The value as source text that means exactly it (quoted unless plain)."""
    if _PLAIN.match(value):
        return value
    return "'" + value.replace("'", "'\\''") + "'"


def _in_double(value: str) -> str:
    return re.sub(r'([\\"$`])', r"\\\1", value)


def _fields(value: str | list[str], star: bool) -> list[str]:
    if isinstance(value, list):
        return [" ".join(value)] if star else value
    return [value]


def _word_of(text: str, substitutions: tuple[object, ...] = ()) -> Word | None:
    scan = scan_word(text, 0)
    if scan.end != len(text) or scan.incomplete:
        return None
    return Word(text, scan.value, scan.has_glob, substitutions)  # type: ignore[arg-type]


def _split_whole(value: str | list[str]) -> list[Word]:
    """An unquoted expansion that is the whole word: split into fields, each globbed."""
    pieces = value if isinstance(value, list) else [value]
    fields = [f for piece in pieces for f in piece.split()]
    words = []
    for f in fields:
        glob = any(c in f for c in _GLOB)
        words.append(Word(f if glob else _shown(f), f, glob))
    return words


def expand_word(word: Word, v: Vars, split: bool = True) -> list[Word] | None:
    """The words `word` becomes with the known variables put in, or None to keep it as it is
    (nothing known in it, or a form not followed: `$(...)`, `${X:-y}`, an unquoted value that
    would split inside a larger word). split=False reads it as an assignment's value. A
    variable of unknown value that carries commands (`"${pids[@]}"`) gives them to the words
    (Word.carried)."""
    got = _expanded(word, v, split)
    if not v.carried or "$" not in word.text:
        return got
    names = re.findall(rf"\$\{{?[#!]?({_NAME})", word.text)
    held = _union(*(v.carried.get(n, ()) for n in names if v.value(n) is None))
    if not held:
        return got
    return [replace(w, carried=_union(w.carried, held)) for w in (got or [word])]


def _expanded(word: Word, v: Vars, split: bool) -> list[Word] | None:
    text = word.text
    if word.literal() is not None or "$" not in text or "$(" in text or "`" in text:
        return None
    out: list[str] = []
    quoted, changed, i, n = False, False, 0, len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            out.append(text[i : i + 2])
            i += 2
            continue
        if c == '"':
            quoted = not quoted
        elif c == "'" and not quoted:
            end = text.find("'", i + 1)
            if end < 0:
                return None
            out.append(text[i : end + 1])
            i = end + 1
            continue
        elif c == "$" and text.startswith("$'", i) and not quoted:
            return None  # ANSI-C quoting: left to the word's own reading
        elif c == "$" and (found := _expansion(text, i, v)) is not None:
            ref, value, end = found
            if value is None and ref in v.temps:
                # `T=$(mktemp -d); rm -rf "$T"`: a fresh temp dir, whatever its name; rules
                # read `$(mktemp ...)` as one (not `"$T"/..`, which leaves it)
                out.append(_MKTEMP_MARK)
                changed = True
                i = end
                continue
            if value is None:
                out.append(text[i:end])
                i = end
                continue
            whole = i == 0 and end == n
            if quoted:
                if isinstance(value, list) and ref == "@" and len(value) != 1:
                    if text not in ('"$@"', '"${@}"'):
                        return None  # `"x$@"` makes several words with the text around
                    return [Word(_shown(p), p) for p in value]
                out.append(_in_double(_fields(value, True)[0]))
            elif split and whole and v.value("IFS") is None and "IFS" not in v.values:
                return _split_whole(value)
            else:
                joined = _fields(value, True)[0]
                if split and (any(ch in joined for ch in _SPLIT + _GLOB) or "IFS" in v.values):
                    return None
                out.append(_shown(joined) if joined else "''")
            changed = True
            i = end
            continue
        out.append(c)
        i += 1
    if not changed:
        return None
    made = _word_of("".join(out), word.substitutions)
    return None if made is None else [made]


def expand_words(words: Sequence[Word], v: Vars) -> tuple[Word, ...]:
    if v.empty and v.params is None:
        return tuple(words)
    out: list[Word] = []
    for word in words:
        got = expand_word(word, v)
        out.extend([word] if got is None else got)
    return tuple(out)


def expand_redirect(redirect: Redirect, v: Vars) -> Redirect:
    """A redirection target (`> $F`) with known variables put in; an unquoted heredoc body too."""
    if redirect.heredoc is not None:
        if redirect.heredoc_quoted or "$" not in redirect.heredoc:
            return redirect
        body = re.sub(
            rf"\$(?:({_NAME})|\{{({_NAME})\}})",
            lambda m: v.value(m.group(1) or m.group(2)) or m.group(0),
            redirect.heredoc,
        )
        return replace(redirect, heredoc=body)
    if redirect.target is None:
        return redirect
    got = expand_word(redirect.target, v)
    return redirect if got is None or len(got) != 1 else replace(redirect, target=got[0])


def expand_assignment(word: Word, v: Vars) -> Word:
    """`G=$F.bak` with F known: `G=notes.md.bak` (no splitting in an assignment)."""
    match = re.match(rf"^({_NAME}\+?=)(.*)$", word.text, re.S)
    if match is None or word.literal() is not None:
        return word
    got = expand_word(Word(match.group(2), None), v, split=False)
    if got is None or len(got) != 1:
        return word
    made = _word_of(match.group(1) + got[0].text, word.substitutions)
    return word if made is None else made


# -- what commands do to them -------------------------------------------------------------


def assigned(words: Sequence[Word], v: Vars, export: bool = False) -> Vars:
    """After `F=x G=$F` (an assignment-only command) or `export F=x`."""
    for word in words:
        text = word.literal()
        match = _ASSIGNMENT.match(text or "")
        if match is None:
            found = re.match(rf"^({_NAME})", word.text)
            if found is not None and "=" in word.text:
                plain = re.match(rf"^{_NAME}=(.*)$", word.text, re.S)
                temp = plain is not None and _is_temp(plain.group(1))
                v = v.assign(found.group(1), None, export, temp, carried_by(word, v))
            continue
        name, append, text_value = match.groups()
        before = v.value(name)
        value = text_value if not append else None if before is None else before + text_value
        v = v.assign(name, value, export)
    return v


def _declared(words: Sequence[Word], v: Vars, name: str) -> Vars:
    flags = "".join((w.literal() or "")[1:] for w in words if (w.literal() or "")[:1] in "-+")
    operands = [w for w in words if (w.literal() or "x")[:1] not in "-+"]
    if "n" in flags or any(w.literal() is None and "=" not in w.text for w in operands):
        return v.forget()  # a name reference (-n), or names known only at run time
    if any(c in flags for c in "aAilu"):  # arrays, integers, case changes: values transformed
        named = [(m.group(0), w) for w in operands if (m := re.match(_NAME, w.text))]
        v = v.forget([n for n, _ in named])
        for n, w in named:  # `declare -a pids=($(pgrep x))`: what they may hold
            v = v.carry([n], carried_by(w, v))
        return v
    export = name == "export" or "x" in flags
    plain = [w for w in operands if "=" not in w.text]
    if export:
        v = replace(v, exported=v.exported | {w.literal() or "" for w in plain})
    return assigned([w for w in operands if "=" in w.text], v, export)


def after_command(name: str | None, argv: Sequence[Word], v: Vars) -> Vars:
    """The variables after a command that runs in this shell (a builtin, a function call)."""
    if name is None:
        return v.forget() if argv else v  # `$CMD ...` may be `read`, `eval` or `source`
    args = argv[1:]
    if name in _DECLARERS:
        return _declared(args, v, name)
    if name == "unset":
        return v.forget([w.literal() or "" for w in args])
    if name in _READERS:
        if name == "printf" and not any(w.literal() == "-v" for w in args):
            return v
        return v.forget_assigned_in(" ".join(w.text for w in args))
    if name in ("source", ".", "eval"):
        return v.forget()
    if name == "shift" and v.params is not None:
        count = args[0].literal() if args else "1"
        if count is None or not count.isdigit():
            return replace(v, params=None)
        return replace(v, params=v.params[int(count) :])
    if name == "set":
        words = [w.literal() for w in args]
        if "--" in words:
            rest = args[words.index("--") + 1 :]
            return replace(v, params=tuple(w.literal() for w in rest), open=False)
        if words and words[0] is not None and words[0][:1] not in "-+":
            return replace(v, params=tuple(w.literal() for w in args), open=False)
        return v
    if name in v.functions:
        return v.forget_assigned_in(v.functions[name])
    return v


def after_reading(name: str | None, argv: Sequence[Word], v: Vars, fed: tuple[Node, ...]) -> Vars:
    """`read p` (mapfile, readarray) fed by `fed` (engine.walk): the names it reads into may
    hold what those commands print (`pgrep x | while read p; do kill $p; done`)."""
    if name not in ("read", "mapfile", "readarray") or not fed:
        return v
    names = [w.literal() or "" for w in argv[1:]]
    default = "REPLY" if name == "read" else "MAPFILE"
    return v.carry([n for n in names if re.fullmatch(_NAME, n)] or [default], fed)


def trap_prelude(body: str, at_trap: Vars, at_end: Vars) -> str:
    """Assignments to read a trap's body with (it runs later, in this shell, with the
    variables as they are then): a variable that holds the same fresh temp dir from the
    trap to the end of the line is one (`T=$(mktemp -d)`); an environment variable the line
    may have assigned is unknown (`N=$(:)`), not what the environment held."""
    lines = []
    for name in sorted(set(at_end.values) | at_end.seen):
        if not uses(name, body):
            continue
        stamp = at_trap.fresh.get(name)
        if name in at_trap.temps and name in at_end.temps and stamp == at_end.fresh.get(name):
            lines.append(f"{name}=$(mktemp -d)")
        elif name in at_end.seen and (
            name in at_end.values or name in at_trap.values or at_end.wild or at_trap.wild
        ):
            lines.append(f"{name}=$(:)")
    return "".join(line + "; " for line in lines)


def forget_in_word(word: Word, v: Vars) -> Vars:
    """`${F:=x}`, `${F=x}` and arithmetic (`$((F=1))`, `$((F++))`) in a word may assign."""
    text = word.text
    if v.empty or "$" not in text:
        return v
    names = re.findall(rf"\$\{{({_NAME}):?=", text)
    if "$((" in text or "$[" in text:
        return v.forget_assigned_in(text)
    return v.forget(names) if names else v


def loop_values(variable: str | None, words: Sequence[Word], v: Vars) -> list[str] | None:
    """The values a `for` loop's variable takes, when every one is literal (and few)."""
    if variable is None:
        return None
    if not words:  # `for f; do`: the positional parameters
        got = _lookup("@", v)
        return got if isinstance(got, list) and len(got) <= MAX_LOOP_VALUES else None
    expanded = expand_words(words, v)
    values = [w.literal() for w in expanded]
    if any(x is None for x in values) or any(w.has_glob for w in expanded):
        return None
    return [x or "" for x in values] if len(values) <= MAX_LOOP_VALUES else None


def loop_variable(text: str) -> str | None:
    """The variable of `for NAME in ...` / `for NAME; do` / `select NAME in ...`."""
    match = re.match(rf"^\s*(?:for|select)\s+({_NAME})\b", text)
    return match.group(1) if match else None


def uses(name: str, text: str) -> bool:
    """Whether `text` expands the variable (`$f`, `${f}`, `${f%.py}`)."""
    return re.search(rf"\$(?:{name}(?!\w)|\{{[#!]?{name}(?!\w))", text) is not None
