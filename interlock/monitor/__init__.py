"""The run monitor: watches a run from interlock's own records (the journal of commands and
outcomes, the snapshots), never from the agent's account of itself, and says when the run is
stuck, stalled or over budget; steps back once, then stops with a handoff.

The face is `desk`: what a door does before and after each command of a run (`begin`,
`complete`, `turn`), called by the daemon, the wrapper's inline path and the agent adapters.
Its parts: `stuck` (the stuck detector, a pure function of the attempts and the settings,
with `trace` and `settings`), `errortext` (normalised failure excerpts), `attempts` (an
attempt record derived from a finished validator run: patch distance, tool calls, metrics),
`state` (the per-run counters), `progress` (stall and budget), `recovery`, `world` (the
environment checks), `safestate`, `handoff`, `todo`, `control` (pause and stop), `report`
(what `interlock status` shows).

May import: run, engine, memory, audit, client, ground.
"""
