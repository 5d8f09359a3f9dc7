"""Agent hook adapters: Claude Code, Codex and Gemini CLI hooks, and the advisory human shell.

An adapter translates an agent's hook event into the calls the shell wrapper makes - the
check, the pre-discard snapshot, the attempt and its outcome, green credit, the
finalization gate (`interlock.run.gate`, `interlock.run.tiers`) - and the answer back into
the agent's documented output. One engine, one journal, one set of messages: no second judge.

- `hot`: the door (`interlock hook AGENT EVENT`, stdlib only, started with `python -I -S`):
  reads the event, asks the warm daemon's `agent` op, else judges inline (`serve`).
- `event`: the agent-neutral event and decision; `claude`, `codex`, `gemini`: each agent's
  input fields and output format; `edits`: file edits as contents (for the audit).
- `serve`: one event, judged (the daemon runs it warm); `shellstep`, `editgate`, `stopgate`,
  `pending`: its parts.
- `settings`, `hookplan`: `interlock integrate` (merge into an agent's settings, remove
  exactly); `humanshell` (the daemon's `advise` op) and `shellhelper` (the shell's
  co-process): the advisory shell for people (`shell/interlock.bash`, `.zsh`).

Each shell command goes through the run monitor's desk (`interlock.monitor.desk`), as the
wrapper's does: a stopped run's commands refused, the monitor's messages after each one.
`interlock.run.link` (the wrapper's unit) gives the inline path its installed packages.

May import: wrapper, monitor, run, engine, memory, audit, client, ground.
"""
