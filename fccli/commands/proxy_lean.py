"""fc proxy's server process: once `fc proxy` has read its options (proxy.py), the process
becomes `python -m fccli.commands.proxy_lean` (the same pid, so the same signals, exit codes
and terminal), which serves without typer and click: modules it would hold for as long as the
proxy runs (docs/performance.md). The options travel in the environment, never in the argument
list, where any user of the machine could read a key in a URL (`ps`)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from fccli.commands.entry import console, guarded

OPTIONS = "FC_PROXY_OPTIONS"
"""The environment variable that hands the options over: JSON, taken out at once (the journal's
process, started later, does not inherit it)."""


def hand_over(options: dict[str, Any]) -> None:
    """Become the lean process serving `options` (JSON-able), in the language chosen; return
    only where it cannot: not on POSIX, not fc's own process or streams (the in-process tests),
    or the exec failing (the proxy is then served here)."""
    from fccli.commands import entry

    if not entry.whole_process or os.name != "posix":
        return
    if sys.stdout is not sys.__stdout__ or sys.stderr is not sys.__stderr__:
        return
    from fccli import i18n

    env = dict(os.environ, **{OPTIONS: json.dumps({"lang": i18n.language(), **options})})
    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            stream.flush()
    try:
        os.execve(sys.executable, [sys.executable, "-m", __name__], env)
    except OSError:
        return


def serve(given: dict[str, Any]) -> None:
    """Serve `given`, the options as `hand_over` takes them."""
    # imported as it runs: `fc proxy --help` stays without the server stack (start-up)
    from fccli.proxy.start import ProxyOptions, serve

    given = dict(given)
    out, origins = given.pop("out"), given.pop("allow_origins")
    serve(
        ProxyOptions(out=None if out is None else Path(out), allow_origins=tuple(origins), **given)
    )


def _handed_over() -> None:
    from fccli import i18n

    given = json.loads(os.environ.pop(OPTIONS))
    i18n.set_language(given.pop("lang"))
    serve(given)


if __name__ == "__main__":
    console(lambda: guarded(_handed_over))
