"""Run CLI commands on hostile inputs inside one bounded child process (used by test_bounds).

Usage: python -m tests.robustness.hostile MEMORY_BYTES CASES_JSON. Each case is an argv list
for `expressivity.cli.main`; prints one JSON line per case: exit code, stderr tail, and
whether a traceback or RecursionError escaped.
"""

from __future__ import annotations

import contextlib
import io
import json
import resource
import sys


def main() -> None:
    limit = int(sys.argv[1])
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    from expressivity.cli import main as cli

    for argv in json.loads(sys.argv[2]):
        out, err = io.StringIO(), io.StringIO()
        escaped = ""
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = cli(argv)
            except SystemExit as exc:
                rc = exc.code if isinstance(exc.code, int) else 1
            except BaseException as exc:  # what escaped is the finding
                rc, escaped = -1, f"{type(exc).__name__}: {exc}"[:300]
        print(json.dumps({"rc": rc, "out": out.getvalue()[:200_000], "err": err.getvalue()[:60000],
                          "escaped": escaped}), flush=True)


if __name__ == "__main__":
    main()
