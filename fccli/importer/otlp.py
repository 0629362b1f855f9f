"""OTLP trace data as plain span records: OTLP/JSON read as it is, protobuf through
opentelemetry-proto (the `otel` extra, imported only for a protobuf file).

Both encodings end in the same JSON shape (the protobuf JSON mapping): `resourceSpans`, then
`scopeSpans` (`instrumentationLibrarySpans` in files written before OTLP 0.19), then `spans`.
Names are read in lowerCamelCase and in snake_case, as writers differ; ids in hex (OTLP/JSON)
or base64 (protobuf's own JSON mapping).
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from fccli.core.errors import InputFileError
from fccli.core.extras import require_otel
from fccli.i18n import Msg
from fccli.importer.model import Span

_ERROR = 2  # Status.STATUS_CODE_ERROR


def _get(node: Any, camel: str, snake: str | None = None) -> Any:
    if not isinstance(node, dict):
        return None
    value = node.get(camel)
    if value is None and snake is not None:
        value = node.get(snake)
    return value


def _list(node: Any, camel: str, snake: str | None = None) -> list[Any]:
    value = _get(node, camel, snake)
    return value if isinstance(value, list) else []


def is_otlp(doc: Any) -> bool:
    """Tell whether a JSON document is OTLP trace data (one export request, or a list of them)."""
    docs = doc if isinstance(doc, list) else [doc]
    return bool(docs) and all(
        isinstance(d, dict) and _get(d, "resourceSpans", "resource_spans") is not None for d in docs
    )


def spans_of_json(docs: list[Any], *, hex_ids: bool = True) -> list[Span]:
    """Read every span of these export requests (OTLP/JSON: ids in hex; protobuf's JSON mapping:
    in base64)."""
    out: list[Span] = []
    for doc in docs:
        for resource in _list(doc, "resourceSpans", "resource_spans"):
            scopes = _list(resource, "scopeSpans", "scope_spans") or _list(
                resource, "instrumentationLibrarySpans", "instrumentation_library_spans"
            )
            for scope in scopes:
                holder = _get(scope, "scope") or _get(
                    scope, "instrumentationLibrary", "instrumentation_library"
                )
                name = _get(holder, "name")
                for span in _list(scope, "spans"):
                    if isinstance(span, dict):
                        out.append(_span(span, hex_ids, name if isinstance(name, str) else ""))
    return out


RESOURCE_SPANS_TAG = b"\x0a"
"""How an OTLP protobuf message begins: its field 1 (`resource_spans`), length-delimited;
encoders write fields in their numbers' order, and the request has no other."""
NOT_OTLP = Msg("neither JSON nor an OTLP protobuf message (ExportTraceServiceRequest)")


def spans_of_protobuf(data: bytes, source: str) -> list[Span]:
    """Read the spans of a protobuf export request (`ExportTraceServiceRequest`, or `TracesData`:
    the same fields)."""
    if not data.startswith(RESOURCE_SPANS_TAG):  # no need of the extra to say so
        raise InputFileError(source, NOT_OTLP)
    require_otel(Msg("reading an OTLP protobuf file"))
    from google.protobuf.json_format import MessageToDict
    from google.protobuf.message import DecodeError
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    message = ExportTraceServiceRequest()
    try:
        message.ParseFromString(data)
    except (DecodeError, RuntimeError, ValueError):
        raise InputFileError(source, NOT_OTLP) from None
    return spans_of_json([MessageToDict(message)], hex_ids=False)


def _span(node: dict[str, Any], hex_ids: bool, scope: str) -> Span:
    status = _get(node, "status")
    code = _get(status, "code")
    failed = code in (_ERROR, "STATUS_CODE_ERROR", str(_ERROR))
    message = _get(status, "message")
    events = []
    for event in _list(node, "events"):
        name = _get(event, "name")
        events.append(
            (name if isinstance(name, str) else "", attributes(_list(event, "attributes")))
        )
    return Span(
        trace_id=_id(_get(node, "traceId", "trace_id"), hex_ids),
        span_id=_id(_get(node, "spanId", "span_id"), hex_ids),
        parent_id=_id(_get(node, "parentSpanId", "parent_span_id"), hex_ids),
        name=str(_get(node, "name") or ""),
        start_ns=_int(_get(node, "startTimeUnixNano", "start_time_unix_nano")),
        end_ns=_int(_get(node, "endTimeUnixNano", "end_time_unix_nano")),
        attributes=attributes(_list(node, "attributes")),
        events=events,
        error=(message if isinstance(message, str) else "") if failed else None,
        scope=scope,
    )


def attributes(pairs: list[Any]) -> dict[str, Any]:
    """Read OTLP key-value pairs as a dict of plain values."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key = _get(pair, "key")
        if isinstance(key, str):
            out[key] = value(_get(pair, "value"))
    return out


def value(node: Any) -> Any:
    """Read an OTLP AnyValue: a string, number, boolean, list or dict; None when empty."""
    if not isinstance(node, dict):
        return None
    for camel, snake in (("stringValue", "string_value"), ("boolValue", "bool_value")):
        found = _get(node, camel, snake)
        if found is not None:
            return found
    number = _get(node, "intValue", "int_value")
    if number is not None:
        return _int(number)
    double = _get(node, "doubleValue", "double_value")
    if double is not None:
        try:
            return float(double)
        except (TypeError, ValueError):
            return None
    array = _get(node, "arrayValue", "array_value")
    if array is not None:
        return [value(v) for v in _list(array, "values")]
    kvlist = _get(node, "kvlistValue", "kvlist_value")
    if kvlist is not None:
        return attributes(_list(kvlist, "values"))
    raw = _get(node, "bytesValue", "bytes_value")
    return raw if isinstance(raw, str) else None


def _id(raw: Any, hex_ids: bool) -> str:
    if not isinstance(raw, str) or not raw:
        return ""
    if hex_ids:
        return raw.lower()
    try:
        return base64.b64decode(raw).hex()
    except (binascii.Error, ValueError):
        return raw


def _int(raw: Any) -> int:
    if isinstance(raw, bool):
        return 0
    if isinstance(raw, int):
        return raw
    if isinstance(raw, str) and raw.isdigit() and len(raw) < 30:
        return int(raw)
    if isinstance(raw, float) and raw == raw and abs(raw) < 2**64:
        return int(raw)
    return 0
