"""Inline interpreter code: what `python -c`, `node -e`, `perl -e`... would do to the machine.

`interpreters.inline_code()` is the face (which interpreter runs which code); `python` reads
Python with `ast`, `textscan` reads the other languages (and unparsable Python) with regular
expressions.

Imports engine.unwrap (option reading), shell and the ground.
"""
