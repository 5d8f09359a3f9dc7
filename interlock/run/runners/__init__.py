"""Test-runner output formats, one module per ecosystem: `python` (pytest, unittest),
`native` (go test, cargo test), `javascript` (jest, vitest, mocha). Each parser reads an
`Output` (cleaned lines, exit status) into a `Tally` (`tally`), or None when the output is not
in its format; `run.outcome` chooses the parsers and turns the Tally into an Outcome.
"""
