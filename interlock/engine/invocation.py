"""An Invocation: one command that a command line would really run, found by `walk()`.

`git status` inside `sudo timeout 5 bash -c 'cd sub && git status'` is one invocation whose
argv is (git, status), cwd `sub`, via (sudo, timeout, bash -c).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property

from interlock.engine.findexpr import Search
from interlock.engine.unwrap import program_name
from interlock.shell.model import Node, Redirect, SimpleCommand, Word

_TILDE_PATH = re.compile(r"^~[A-Za-z0-9._-]*/[^$`'\"\\*?\[\]]*$")


@dataclass(frozen=True)
class Invocation:
    """One effective command.

    argv: the words of the effective command after wrappers (sudo, env, timeout, nohup, ...)
      and leading assignments/redirects are stripped; argv[0] may be an absolute path or a
      non-literal word (literal() is None) - rules must treat that as unknown, never as safe.
    assignments: `NAME=value` words that apply to it (from the command line and from `env`).
    redirects: its redirections (for writes to .git/hooks and the like).
    source: the simple command in the parsed text this came from (outermost).
    cwd: directory relative to where the command line starts ('' = there; may be absolute,
      may contain '..'); None when unknowable (`cd "$X"`).
    via: wrappers and trampolines passed through, outermost first, e.g. ('sudo', 'bash -c').
    extra_args: True when more arguments are appended at run time that we cannot see
      (`xargs rm`, `find -exec rm {} +`); rules must treat those targets as unknown.
    arg_roots: where such run-time arguments come from, when known: the start paths of
      `find` for `-exec`/`-execdir`/`-ok` (relative to cwd), None when unknown (xargs).
    arg_search: the search that chooses them, when a `find -exec` or `fd -x` runs it
      (engine.findexpr), with its directory.
    arg_file: the run-time arguments are read from a file (`xargs -a LIST`, `--arg-file`),
      not from stdin: no search piped in chooses them.
    degraded: found by a best-effort path (fallback tokenizer, inline interpreter code, an
      eval of a non-literal); the analysis result is then `degraded`.
    alt_cwds: other directories it may run in, because a `cd` before it may have failed
      without stopping the line (`cd build; rm -rf *` runs where the line started if the cd
      fails); rules judge it in each.
    succeeded: the invocations that have surely run and exited 0 before this one starts
      (`git stash && git checkout -- .`: the stash; a `;` gives no such promise unless
      `set -e` is on); engine.sequence reads what they saved.
    pipe: an id shared by the commands of one pipeline (0: none), so a rule can see that
      `cat f | sort > f` reads the file it truncates.
    own_redirects: how many of `redirects` (the last ones) are written on the command itself;
      the others come from an enclosing `{ ...; } > f` or `bash -c '...' > f`.
    stdin: commands whose output its stdin may carry, besides a pipe (engine.linecontext reads
      the commands piped in): `< <(...)`, `<<< "$P"` and `echo "$P" |` (what P carries:
      engine.shellvars); for the pids `xargs kill` is fed.
    clears_env: it starts with an emptied environment (`env -i`, `env -`, `exec -c`,
      `setpriv --reset-env`, a login shell's `sudo -i`, `su -`, `runuser -l`; also behind an
      enclosing `env -i bash -c '...'`): every variable the run was given is unset for it,
      INTERLOCK_* among them; only `assignments` reach it.
    """

    argv: tuple[Word, ...]
    assignments: tuple[Word, ...] = ()
    redirects: tuple[Redirect, ...] = ()
    source: SimpleCommand | None = None
    cwd: str | None = ""
    via: tuple[str, ...] = ()
    extra_args: bool = False
    arg_roots: tuple[str, ...] | None = None
    degraded: bool = False
    arg_search: Search | None = field(default=None, compare=False)
    arg_file: bool = field(default=False, compare=False)
    alt_cwds: tuple[str | None, ...] = field(default=(), compare=False)
    succeeded: tuple[Invocation, ...] = field(default=(), compare=False, repr=False)
    pipe: int = field(default=0, compare=False)
    own_redirects: int = field(default=0, compare=False)
    stdin: tuple[Node, ...] = field(default=(), compare=False, repr=False)
    clears_env: bool = False

    @cached_property
    def name(self) -> str | None:
        """The program's name as the machine resolves it (`/usr/bin/git`, `\\git`, `GIT` and
        `C:/Program Files/Git/bin/git.exe` are all `git`: see unwrap.program_name), or None."""
        if not self.argv:
            return None
        value = self.argv[0].literal()
        if value is None and _TILDE_PATH.match(self.argv[0].text):
            value = self.argv[0].text  # `~/.local/bin/interlock`: a path, whatever $HOME is
        if value is None:
            return None
        return program_name(value.lstrip("\\"))

    def literals(self) -> list[str | None]:
        return [w.literal() for w in self.argv]

    @property
    def text(self) -> str:
        """Display text of the effective command."""
        return " ".join(w.text for w in self.argv)
