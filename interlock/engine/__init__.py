"""The command engine: from a parsed command line to findings and a verdict.

`check.evaluate()` is the path every door takes (analyse, apply tree facts, apply the mode);
`analysis.analyse()` is its pure part (no I/O; tree facts it needs, such as git aliases, come
from the caller). Its parts: `walk` (every command a line would run, through `wrappers`,
`launchers`, `spawners`, `datacode`, `unwrap` and `inline/` interpreter code, following the
shell state in `shellstate`: cwd, a `cd` that may fail, `set -e`, and the variables the line
assigns in `shellvars`), `hidden` (code another command runs that the line or the tree
defines: git aliases and programs, files written and run, process substitutions, trap
bodies), `rules/` (what one invocation destroys, disables or
validates), `exitflow` (can a validator's failure reach the exit status?), `unknowncode`,
`literal`, `findings`, `verdict`, and the tree side of a discard: `facts` (one `git status`,
git aliases, the daemon's pid), `precision` (does it really destroy unsaved work?) and
`treepaths` (where a path really is: symlinks, temp dirs, archive members, the size cap).

May import: shell, ground.
"""
