"""Runs: the shell wrapper, the journal of attempts and outcomes, green points.

`outcome` reads a validator's output (counts, failing tests, "no tests ran") with the
parsers in `runners/`, one module per ecosystem.

May import: engine, memory, audit, client, ground.
"""
