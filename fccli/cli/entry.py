"""The `fc` console script: the one place where FcError becomes an exit code.

Kept import-light: `fc --version` answers before typer is even imported.
"""

from __future__ import annotations

import os
import sys


def main() -> None:
    args = sys.argv[1:]
    if args in (["--version"], ["-V"]):
        from fccli import __version__

        print(f"fc {__version__}")
        return
    from fccli.cli.app import app
    from fccli.core.errors import FcError

    try:
        app(prog_name="fc")
    except FcError as e:
        if os.environ.get("FC_DEBUG") == "1":
            raise
        _print_error(str(e))
        sys.exit(e.exit_code)
    except KeyboardInterrupt:
        _print_error("interrupted")
        sys.exit(130)
    except Exception as e:  # a bug in fc: one line, unless asked for the traceback
        if os.environ.get("FC_DEBUG") == "1":
            raise
        _print_error(f"internal error: {type(e).__name__}: {e}")
        _print_error("this is a bug in fc; FC_DEBUG=1 shows the traceback")
        sys.exit(1)


def _print_error(text: str) -> None:
    lines = text.splitlines() or [""]
    print(f"fc: error: {lines[0]}", file=sys.stderr)
    for line in lines[1:]:
        print(f"  {line}", file=sys.stderr)
