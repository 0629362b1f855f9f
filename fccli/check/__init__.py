"""`fc check`: a linter for the mistakes providers answer with a 400, and the harness mistakes
they never see, found before anything is sent.

    check_request(doc, fmt)              one request body (or messages array) of a format
    check_trace(path)                    a trace directory: every request file, both forms agreeing
    check_outgoing(request, wire, fmt)   the engine's own check before it sends

The rules live in rules/, a module per concern, over a lenient view of the document
(history.py); findings.py holds the catalogue (RULES) and the provider messages.

The names are imported when first asked for: `fc run` checks each request it sends with
lint.py, and must not pay for the trace checker (traces.py, agreement.py) at every start.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fccli.check.findings import RULES, Finding
    from fccli.check.lint import check_outgoing, check_request
    from fccli.check.traces import check_trace

__all__ = ["RULES", "Finding", "check_outgoing", "check_request", "check_trace"]

_MODULE = {
    "RULES": "findings",
    "Finding": "findings",
    "check_outgoing": "lint",
    "check_request": "lint",
    "check_trace": "traces",
}


def __getattr__(name: str) -> Any:
    if name not in _MODULE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f"{__name__}.{_MODULE[name]}"), name)
