"""Plain functions behind each CLI command; each returns an exit code (click stays in cli/).

May import: daemon, adapters, hooks, wrapper, monitor, run, engine, memory, audit, shell, client, ground.
"""
