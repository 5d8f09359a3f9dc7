"""The memory: every state of the worktree, kept in the repository's own object store.

`snapshot` takes whole-tree snapshots (read by `scan`, combined by `trees`, written through
`store` and `pack`, named by `catalog`); `restore` puts one back (its filesystem half is
`staging`); `recorder` is the flight recorder of every changed file (its work queue is
`recqueue`, its reading `recread`, its index `recindex`, its history `rechistory`);
`retention` drops what policy no longer keeps; `lostrefs` keeps branch tips a rewrite would
lose; `leftovers` clears what a process killed midway left (temp files, the lock's record).

May import: ground.
"""
