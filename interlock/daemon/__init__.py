"""The per-worktree daemon: the process that keeps the engine and the memory warm.

`process` is its whole life (pid file and lock, socket, idle exit); `server` is the socket
protocol and its safety; `ops` the request handlers; `watcher` and `dirtyset` follow the
tree; `warmfacts` keeps the tree facts fresh.

`hotclient` (the minimal client of every hot door, with its parts `hotwhere` and `hotlife`)
and `client` (its wrapper for the full CLI) are the other end of the socket, run by the doors
in their own (short) processes: stdlib only, and they may import only the ground. They are a
unit of their own in the map (docs/architecture.md), below every door.

May import: adapters, hooks, monitor, run, engine, memory, audit, shell, ground.
"""
