"""The rules: what one invocation would destroy, disable or validate.

`index` is the face (`check_invocation`, `classify_validator`, `all_rules`, `rule_info`).
One family per module, with its rule ids, reasons and alternatives beside the code that finds
them: `git/` (worktree, history; `git/invocation` reads git's own options), `fs`, `overwrite`
(with `copies`, `editors` and `sedscript`, `extract`), `disk`, `selfdisable` (with
`ownpaths`), `validators/`, `unreadable`. `sequence` reads what earlier commands on the line
saved and linked; `targets` builds the targets of commands that act on named files. `args`
parses options the way git and GNU tools do; `writes` says which paths an invocation writes;
`common` holds the catalogue.

Imports engine.findings and engine.invocation, shell and the ground.
"""
