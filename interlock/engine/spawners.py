"""Commands that run other commands given as their arguments: xargs, find -exec, parallel,
and git's rebase -x, submodule foreach and bisect run. See wrappers.py for the Unwrap kinds.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from interlock.engine.findexpr import find_layout, find_search, starts_from_file
from interlock.engine.invocation import Invocation
from interlock.engine.rules.args import parse_args
from interlock.engine.rules.git.invocation import GLOBAL_OPTS, parse_git
from interlock.engine.searchers import fd_spawn
from interlock.engine.unwrap import (
    RUNTIME_CODE,
    STDIN_SHELLS,
    OptSpec,
    Script,
    Unwrap,
    command_name,
    could_be_option,
    join_script,
    lit,
    parse_options,
    script_from,
    template,
)
from interlock.shell.model import Word

# GNU xargs: -i, -e and -l take only an attached value (`-i{}`, `-iF`, `-eEOF`, `-l5`).
_XARGS = OptSpec(
    "InPdEsLa",
    {"max-args", "max-procs", "delimiter", "max-chars", "arg-file", "process-slot-var"},
    attached="iel",
    flags=(
        "null",
        "eof",
        "replace",
        "max-lines",
        "interactive",
        "open-tty",
        "no-run-if-empty",
        "show-limits",
        "verbose",
        "exit",
        "help",
        "version",
    ),
)
_FIND_EXEC = ("-exec", "-execdir", "-ok", "-okdir")
# find primaries that take one argument (`-newerXY` too), and -fprintf, which takes two.
_FIND_ONE_ARG = frozenset(
    "-name -iname -path -ipath -wholename -iwholename -regex -iregex -type -xtype -newer "
    "-anewer -cnewer -mtime -atime -ctime -mmin -amin -cmin -used -size -perm -user -group "
    "-uid -gid -inum -links -samefile -lname -ilname -fstype -context -maxdepth -mindepth "
    "-regextype -files0-from -printf -fprint -fprint0 -fls".split()
)
# GNU parallel (Getopt::Long, unique abbreviations): the options that take a value, and its
# flags, so that `-P 4`, `--nice 10` or `--max-pr 4` never leave their value as the command.
_PARALLEL = OptSpec(
    "jSNnIdaELlCPsJU",
    (
        "jobs max-procs sshlogin sshloginfile slf max-args maxargs max-replace-args colsep "
        "col-sep delimiter arg-file joblog jl results result res tmpdir tempdir timeout retries "
        "delay ssh-delay sshdelay eof env halt halt-on-error memfree memsuspend load workdir "
        "work-dir wd basefile bf return transfer-file transferfile tf trc tagstring tag-string "
        "ctagstring profile max-lines max-chars ssh termseq nice header semaphorename id "
        "semaphoretimeout st block block-size blocksize block-timeout bt limit rpl arg-sep "
        "argsep arg-file-sep argfilesep trim recstart recend sql sqlmaster sqlworker "
        "sqlandworker shard bin group-by groupby filter extensionreplace er basenamereplace bnr "
        "dirnamereplace dnr basenameextensionreplace bner seqreplace slotreplace "
        "linkinputsource xapplyinputsource minversion min-version template tmpl parens "
        "rsync-opts compress-program decompress-program use-compress-program "
        "use-decompress-program"
    ).split(),
    flags=(
        "null quote q verbose version help interactive exit semaphore fg bg wait pipe "
        "spreadstdin pipepart pipe-part cat fifo tee dry-run dryrun dr shuf plus xapply link "
        "csv files output-as-files resume resume-failed retry-failed silent nonall onall "
        "filter-hosts transfer cleanup compress tty noswap number-of-cpus number-of-cores "
        "number-of-sockets number-of-threads shellquote will-cite citation bibtex gnu embed "
        "hostgroups regexp remove-rec-sep rrs round-robin round skip-first-line show-limits "
        "keep-order no-keep-order group ungroup line-buffer lb tmux tmuxpane tag ctag bar "
        "progress eta recordenv record-env session plain shebang shebang-wrap replace fast "
        "colour-failed color-failed"
    ).split(),
)
_PARALLEL_SEPARATORS = (":::", "::::", ":::+", "::::+")
_PARALLEL_MARKS = ("{}", "{.}", "{/}", "{//}", "{/.}", "{#}", "{%}", "{1}", "{2}", "{3}")
_FIND_MASKS = "find ignores the exit status of `{} ... ;`"


RUNTIME_ARG = "$RUNTIME_ARG"  # stands for an argument xargs, find or parallel fill in


def with_placeholders(words: tuple[Word, ...], marks: tuple[str, ...]) -> tuple[Word, ...]:
    """Words where xargs/find/parallel put their input (`{}`, `-I X`) are not literal: the
    input lands there, so `sh -c '{}'` runs input as code and `rm {}` removes unknown paths."""
    out: list[Word] = []
    for word in words:
        value = word.literal()
        if value is not None and any(mark in value for mark in marks):
            text = word.text
            for mark in marks:  # `xargs -I{}` inside the code keeps its own placeholder
                text = re.sub(r"(?<!-I)" + re.escape(mark), RUNTIME_ARG, text)
            out.append(Word(text, None, word.has_glob, word.substitutions))
        else:
            out.append(word)
    return tuple(out)


def _find_placeholders(command: list[Word]) -> list[Word]:
    """find's `{}` in a command that runs code (`sh -c {}`, `sh -c 'rm {}'`, `python -c`)
    splices a file name into that code; elsewhere it stays a run-time path operand, which the
    file rules read with find's start paths."""
    head = command_name(command[0]) or ""
    runs_code = (
        head in STDIN_SHELLS
        or head in ("eval", "perl", "ruby", "node", "php")
        or (head.startswith("python"))
    )
    return list(with_placeholders(tuple(command), ("{}",))) if runs_code else command


def _xargs(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    parsed = parse_options(words, 1, _XARGS)
    if parsed is None or parsed[1] >= len(words):
        return None
    opts, i = parsed
    marks = [v or "{}" for name, v in opts.items if name in ("-I", "-i", "--replace")]
    rest = with_placeholders(words[i:], tuple(marks)) if marks else words[i:]
    from_file = opts.has("-a", "--arg-file")  # `xargs -a LIST`: the arguments are not stdin's
    return Unwrap("exec", "xargs", rest=rest, extra_args=True, arg_file=from_file)


def _find_roots(words: tuple[Word, ...]) -> tuple[tuple[str, ...] | None, int]:
    literals = [lit(w) for w in words[1:]]
    first, end, _ = find_layout(literals)
    starts = words[1 + first : 1 + end]
    roots: tuple[str, ...] | None = (".",)
    if starts_from_file(literals[end:]):  # `-files0-from LIST`: the start paths are LIST's
        roots = None
    elif starts:
        named = [None if w.has_glob else lit(w) for w in starts]
        known = tuple(r for r in named if r is not None)
        roots = known if len(known) == len(named) else None
    return roots, 1 + end


def _exec_end(words: tuple[Word, ...], i: int) -> int:
    """The index of the `;` or `+` ending the command of `-exec` that starts at words[i]."""
    while i < len(words):
        v = lit(words[i])
        if v == ";" or (v == "+" and lit(words[i - 1]) == "{}"):
            break
        i += 1
    return i


def _hides_action(words: tuple[Word, ...], start: int) -> bool:
    """A word only known at run time where find may read a primary (`find . -name x $A`,
    `find . $A rm -rf src \\;`: a start path only if what follows is one too) can be -exec
    or -delete: a later `;`, `+` or `{}` that no literal -exec takes shows it."""
    unknown = False
    k = 1
    while k < len(words):
        v = lit(words[k])
        if v is None:
            if k >= start:
                return True
            unknown = True
        elif unknown and v in (";", "+", "{}"):
            return True
        elif k >= start and v in _FIND_EXEC:
            k = _exec_end(words, k + 1)
        elif k >= start and (v in _FIND_ONE_ARG or v.startswith("-newer")):
            k += 1
        elif k >= start and v == "-fprintf":
            k += 2
        k += 1
    return False


def _find(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    arg_roots, i = _find_roots(words)
    children: list[Unwrap] = []
    if _hides_action(words, i):
        unknown = Script(RUNTIME_CODE, "find", degraded=True)
        children.append(Unwrap("script", "find", scripts=(unknown,)))
    while i < len(words):
        action = lit(words[i])
        i += 1
        if action not in _FIND_EXEC:
            continue
        end = _exec_end(words, i)
        command = list(words[i:end])
        plus = end < len(words) and lit(words[end]) == "+"
        i = end + 1
        if command:
            command = _find_placeholders(command)
            masks = None if plus else _FIND_MASKS.format(action)
            search = find_search(words[1:], None, target=len(children))
            children.append(
                Unwrap(
                    "exec",
                    f"find {action}",
                    rest=tuple(command),
                    extra_args=True,
                    arg_roots=arg_roots,
                    arg_search=search,
                    masks=masks,
                )
            )
    return Unwrap("spawn", "find", children=tuple(children)) if children else None


def _parallel(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    parsed = parse_options(words, 1, _PARALLEL)
    if parsed is None:
        return None
    opts, i = parsed
    cwd = opts.directory("--wd", "--workdir")  # `--wd DIR`: the jobs run there
    end = next((k for k in range(i, len(words)) if lit(words[k]) in _PARALLEL_SEPARATORS), None)
    command = with_placeholders(words[i : len(words) if end is None else end], _PARALLEL_MARKS)
    if command:
        found = join_script(command, "parallel")
        return Unwrap("script", "parallel", scripts=found.scripts, extra_args=True, cwd=cwd)
    if end is None:  # commands come from stdin
        unknown = Script("$STDIN_COMMANDS", "parallel", degraded=True)
        return Unwrap("script", "parallel", scripts=(unknown,))
    scripts: list[Script] = []
    from_files = False  # `:::: FILE`: the commands are the lines of FILE
    for word in words[end:]:
        if (v := lit(word)) in _PARALLEL_SEPARATORS:
            from_files = v in ("::::", "::::+")
        elif from_files:
            scripts.append(Script(RUNTIME_CODE, "parallel", degraded=True))
        else:
            scripts.extend(script_from(word, "parallel").scripts)
    return Unwrap("script", "parallel", scripts=tuple(scripts), cwd=cwd) if scripts else None


def _git(words: tuple[Word, ...], stdin: str | None) -> Unwrap | None:
    """git runs these at the top of its work tree: where that is from here is unknown when
    the line points git at another directory (`git -C DIR`, `--work-tree`, `--git-dir`) or a
    word only known at run time stands where a global option may (`git $OPTS rebase -x`).
    The subcommand is read as the git rules read it (rules/git/invocation.py): after every
    global option, past such a word, and through the aliases the line defines."""
    call = parse_git(Invocation(words))
    if call is None:
        return None
    args = call.args
    child: Unwrap | None = None
    if call.sub == "rebase":
        child = _rebase_exec(args)
    elif call.sub == "submodule":
        child = _submodule_foreach(args)
    elif call.sub == "bisect" and len(args) > 1 and lit(args[0]) == "run":
        masks = "`git bisect run` reads its exit status as good or bad"
        child = Unwrap("exec", "git bisect run", rest=args[1:], masks=masks)
    if child is None:
        return None
    rest = parse_args(words[1:], GLOBAL_OPTS).rest
    elsewhere = call.elsewhere or call.cwd != "" or (bool(rest) and lit(rest[0]) is None)
    return Unwrap("spawn", "git", children=(replace(child, cwd=None) if elsewhere else child,))


def _submodule_foreach(args: tuple[Word, ...]) -> Unwrap | None:
    """`git submodule [-q] foreach [--recursive] [-q] CMD...`."""
    k = 0
    while k < len(args) and lit(args[k]) in ("-q", "--quiet"):
        k += 1
    if k >= len(args) or lit(args[k]) != "foreach":
        return None
    k += 1
    while k < len(args) and lit(args[k]) in ("--recursive", "-q", "--quiet"):
        k += 1
    return join_script(args[k:], "git submodule foreach") if k < len(args) else None


_REBASE_VIA = "git rebase -x"
_REBASE_VALUES = ("onto", "strategy", "strategy-option")  # long options whose value follows


def _rebase_exec(words: tuple[Word, ...]) -> Unwrap | None:
    """`git rebase -x CMD`, `--exec CMD`, `--exec=CMD`, `--exe CMD` (git reads a unique
    abbreviation), `-ixCMD`, `-ix CMD`. A word only known at run time that may be an option
    (`git rebase "$OPTS"`: `--exec=CMD`) runs unknown code."""
    scripts: list[Script] = []
    k = 0
    while k < len(words):
        word = words[k]
        value = lit(word)
        if value == "--":
            break
        code, after = _rebase_option(template(word) if value is None else value)
        if could_be_option(word):
            code = RUNTIME_CODE
        if after is not None and k + 1 < len(words):
            k += 1
            if after == "exec":
                scripts.extend(script_from(words[k], _REBASE_VIA).scripts)
        elif code is not None:
            scripts.append(Script(code, _REBASE_VIA, degraded=value is None))
        k += 1
    return Unwrap("script", _REBASE_VIA, scripts=tuple(scripts)) if scripts else None


def _rebase_option(text: str) -> tuple[str | None, str | None]:
    """One word of `git rebase`: the code it gives --exec when attached, and what the next
    word is: `exec` (the code), `value` (another option's value) or None."""
    if text.startswith("--"):
        name, eq, value = text[2:].partition("=")
        if len(name) >= 2 and "exec".startswith(name):
            return (value, None) if eq else (None, "exec")
        return None, "value" if name in _REBASE_VALUES and not eq else None
    if not text.startswith("-"):
        return None, None
    letters = text[1:]
    for pos, ch in enumerate(letters):
        rest = letters[pos + 1 :]
        if ch == "x":
            return (rest, None) if rest else (None, "exec")
        if ch in "sX":  # -s STRATEGY, -X OPTION: the rest, or the next word
            return None, None if rest else "value"
        if ch in "SC":  # -S[KEYID], -C<N>: the rest is the value
            break
    return None, None


SPAWNERS: dict[str, Callable[[tuple[Word, ...], str | None], Unwrap | None]] = {
    "xargs": _xargs,
    "find": _find,
    "fd": fd_spawn,
    "fdfind": fd_spawn,
    "parallel": _parallel,
    "git": _git,
    "git-rebase": _git,
    "git-submodule": _git,
    "git-bisect": _git,
}
