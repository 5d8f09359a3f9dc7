"""The mutation tool's hook into processes that tests start (trace mode only).

When MUTATION_TRACE_DIR is set, trace the scope modules in this process and write the lines
that ran, under the test that started it (MUTATION_TEST_ID), when it exits. Otherwise do
nothing: in mutant runs this file is not on the path at all.
"""

from __future__ import annotations

import os

if os.environ.get("MUTATION_TRACE_DIR") and os.environ.get("MUTATION_TEST_ID"):
    import atexit

    from mutation_trace import Recorder, targets_from_env

    _recorder = Recorder(targets_from_env())
    _recorder.context = os.environ["MUTATION_TEST_ID"]
    _recorder.start()
    _out = os.path.join(
        os.environ["MUTATION_TRACE_DIR"], f"proc-{os.getpid()}-{os.urandom(4).hex()}.json"
    )
    atexit.register(lambda: _recorder.dump(_out))
