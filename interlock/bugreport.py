"""Bug reports: anything that is not an InterlockError is a bug; write one report file."""

from __future__ import annotations

import datetime
import platform
import sys
import traceback

from interlock import __version__
from interlock.state import user_dir


def report_bug(exc: BaseException) -> str:
    """Write versions, platform, argv and the traceback to a file; return its path."""
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S-%f")
    try:
        reports = user_dir() / "reports"
        reports.mkdir(parents=True, exist_ok=True)
        path = reports / f"crash-{stamp}.txt"
        path.write_text(
            f"interlock {__version__}\npython {sys.version}\nplatform {platform.platform()}\n"
            f"argv {sys.argv!r}\n\n" + "".join(traceback.format_exception(exc))
        )
        return str(path)
    except OSError:
        detail = "".join(traceback.format_exception_only(exc)).strip()
        return f"(could not write a report: {detail})"
