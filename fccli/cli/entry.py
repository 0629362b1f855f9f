"""The `fc` console script: the one place where FcError becomes an exit code.

Kept import-light: `fc --version` answers before typer is even imported, and nothing of fccli
beyond the typer app is imported before typer runs (the error tree only when something is raised).
No `from __future__ import annotations` here: this module is on every path, `fc --version` too.
`python benchmarks/startup.py` measures what this buys.
"""

import os
import sys


def main() -> None:
    args = sys.argv[1:]
    if args in (["--version"], ["-V"]):
        from fccli import __version__

        print(f"fc {__version__}")
        return
    from fccli.cli.app import app

    try:
        app(prog_name="fc")
    except KeyboardInterrupt:
        _print_error("interrupted")
        sys.exit(130)
    except Exception as e:
        from fccli.core.errors import FcError  # not before: `fc --help` never needs it

        if os.environ.get("FC_DEBUG") == "1":
            raise
        if isinstance(e, FcError):
            _print_error(str(e))
            sys.exit(e.exit_code)
        # a bug in fc: one line, unless asked for the traceback
        _print_error(f"internal error: {type(e).__name__}: {e}")
        _print_error("this is a bug in fc; FC_DEBUG=1 shows the traceback")
        sys.exit(1)


def _print_error(text: str) -> None:
    lines = text.splitlines() or [""]
    print(f"fc: error: {lines[0]}", file=sys.stderr)
    for line in lines[1:]:
        print(f"  {line}", file=sys.stderr)
