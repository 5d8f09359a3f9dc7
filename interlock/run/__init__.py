"""Runs: the shell wrapper, the journal of attempts and outcomes, green points.

A run is one agent session in one worktree, with a baseline snapshot and the config resolved
at that baseline (`session`). `wrapper` is the door (`shell/interlock-sh`): it parses bash's
invocation forms, asks `link` for a verdict (the warm daemon, else inline through the run
monitor's desk, which calls `gate`), runs real bash (`child`), and reports how it ended.
`wrapper` and `link` are a unit of their own in the map (a door, above the monitor). `gate` is what both the daemon and the inline path
do for one command: judge it with the run's config, sort a discard by whose work it destroys
(`discards`), hold a repeated side effect (`effects`), journal the attempt (`records`); then,
after it ran, read its outcome (`outcome`, with the
parsers in `runners/`, one module per ecosystem), decide a green point (`green`) and the tier
nudges (`tiers`).

May import: engine, memory, audit, client, ground.
"""
