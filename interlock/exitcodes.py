"""The exit-code contract of every interlock command.

| code | name        | meaning                                                        |
|------|-------------|----------------------------------------------------------------|
| 0    | OK          | done / command allowed                                         |
| 1    | ERROR       | user-fixable error: bad config, not a git repo                 |
| 2    | USAGE       | bad flags or arguments (click's own code)                      |
| 3    | BUG         | unexpected exception; a report file was written                |
| 126  | BLOCKED     | interlock refused to run a command (bash: found, not executed) |
| 130  | INTERRUPTED | Ctrl-C                                                          |

The shell wrapper passes through the real command's status when it runs it.
"""

from __future__ import annotations

OK = 0
ERROR = 1
USAGE = 2
BUG = 3
BLOCKED = 126
INTERRUPTED = 130
