"""Checking one request body (or a bare messages array) of a known format.

The rules (rules/) read a lenient view of the document, so a broken history is reported, never
a crash. Beside them, fc's own reader for the format (the wire module's from_wire_request, or
the internal model) reads the document too: what it refuses becomes FC100, unless a rule has
already said it about the same place.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from pydantic import TypeAdapter, ValidationError

from fccli.check.findings import Finding, finding
from fccli.check.history import History, history_field, read_history
from fccli.check.rules import ALL
from fccli.core.errors import ConversionError, FcError, UsageError
from fccli.core.jsonio import json_path
from fccli.core.models import Message, Request
from fccli.wire.registry import format_names, get_format

MAX_READER_FINDINGS = 5


@dataclass
class Checked:
    findings: list[Finding]
    history: History


def check_request(request_doc: Any, fmt: str) -> list[Finding]:
    """The findings for a request body of format `fmt` (internal, deepseek, openai, anthropic),
    or for a bare messages array. Raises UsageError for an unknown format and ConversionError
    (exit 2) for a document that is not a request at all."""
    return inspect(request_doc, fmt).findings


def check_outgoing(request: Request, wire_body: dict[str, Any], fmt: str) -> list[Finding]:
    """The engine's check before sending: the wire body as it will go, and the internal request
    it was made from. Only errors matter there: one is a bug in fc, and nothing is sent.

    FC110 (arguments failing the schema, answered as fine) is only a warning here: the engine
    validated each call with the tool's own pydantic model, the authority for fc's tools, which
    accepts what JSON Schema read strictly may not (the string "3" for an integer).
    """
    findings = [_demoted(f) for f in check_request(wire_body, fmt)]
    said = {f.rule for f in findings}
    # The wire hides some internal mistakes (results split over two user messages are two tool
    # messages in chat, which is fine there); fc's own form must still be right.
    findings += [
        f.in_file("internal")
        for f in check_request(request.to_json_dict(), "internal")
        if f.rule not in said
    ]
    return findings


def _demoted(f: Finding) -> Finding:
    if f.rule != "FC110":
        return f
    return replace(
        f,
        severity="warning",
        message=f.message + " (fc's executor validated it with the tool's own model)",
    )


def inspect(request_doc: Any, fmt: str) -> Checked:
    if fmt not in format_names():
        raise UsageError(f"unknown format {fmt!r}", hint=f"formats: {', '.join(format_names())}")
    key = history_field(fmt)
    if isinstance(request_doc, list):
        doc, root = {key: request_doc}, "$"
    elif isinstance(request_doc, dict) and isinstance(request_doc.get(key), (list, str)):
        doc, root = request_doc, f"$.{key}"
    else:
        raise ConversionError(
            f"not a request: expected an object with a `{key}` array, or a messages array"
        )
    history = read_history(doc, fmt, root)
    findings = [f for rule in ALL for f in rule(history)]
    findings += [f for f in _reader(request_doc, fmt) if not _said(f, findings)]
    return Checked(sorted(findings, key=_order), history)


def _reader(request_doc: Any, fmt: str) -> list[Finding]:
    """What fc's reader for the format refuses in the document."""
    bare = isinstance(request_doc, list)
    try:
        if fmt == "internal":
            if bare:
                TypeAdapter(list[Message]).validate_python(request_doc)
            else:
                Request.model_validate(request_doc)
        else:
            # A bare messages array gets a stand-in model name: only the messages are read.
            wire = get_format(fmt)
            wire.from_wire_request(
                {"model": "-", wire.history_field: request_doc} if bare else request_doc
            )
    except ValidationError as e:
        return [
            _refused(fmt, err["msg"], json_path(tuple(err["loc"])))
            for err in e.errors()[:MAX_READER_FINDINGS]
        ]
    except ConversionError as e:
        path = e.json_path or "$"
        if bare and path.startswith("$.messages"):
            path = "$" + path[len("$.messages") :]
        return [_refused(fmt, e.problem, path)]
    except (FcError, ValueError, TypeError, KeyError, AttributeError, RecursionError) as e:
        # The translators are meant to raise ConversionError only; a document that trips one
        # is reported, not a crash of the linter.
        return [_refused(fmt, f"{type(e).__name__}: {e}", "$")]
    return []


def _refused(fmt: str, problem: str, path: str) -> Finding:
    return finding(
        "FC100",
        fmt,
        path,
        f"fc's {fmt} reader refuses this: {problem} (the other rules read around it)",
    )


_MESSAGE = re.compile(r"\$(\.messages|\.input)?\[\d+\]")


def _said(refused: Finding, findings: list[Finding]) -> bool:
    """A rule already speaks of this place (or of a part of it): FC100 would repeat it."""
    for f in findings:
        if _MESSAGE.fullmatch(f.path):
            continue  # a whole message: the refused part may be another problem in it
        if refused.path == f.path or refused.path.startswith((f.path + ".", f.path + "[")):
            return True
        if f.path.startswith((refused.path + ".", refused.path + "[")):
            return True
    return False


def _order(f: Finding) -> tuple[Any, ...]:
    """Findings in the order of the document: `$.messages[10]` after `$.messages[9]`."""
    parts = re.split(r"(\d+)", f.path)
    return (tuple(int(p) if p.isdigit() else p for p in parts), f.rule)
