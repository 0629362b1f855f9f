"""Span records as OTLP: opentelemetry-proto's generated messages, never hand-made shapes.

- protobuf: `ExportTraceServiceRequest.SerializeToString()`, what every backend takes over
  OTLP/HTTP (`application/x-protobuf`);
- OTLP/JSON: the protobuf JSON mapping (lowerCamelCase names, 64-bit integers as strings) with
  the two rules OTLP adds (specification, "OTLP/HTTP", JSON Protobuf Encoding): trace and span
  ids as hex strings, not base64; enums as integers, not names.

opentelemetry-proto is the `otel` extra: this module is imported only once fccli/core/extras.py's
`require_otel` has found it (its absence is said with the install line, exit 2).
"""

from __future__ import annotations

import base64
import json
from typing import Any

from google.protobuf.json_format import MessageToDict, ParseDict, ParseError
from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import (
    AnyValue,
    ArrayValue,
    InstrumentationScope,
    KeyValue,
)
from opentelemetry.proto.resource.v1.resource_pb2 import Resource
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans, Span, Status

from fccli import __version__
from fccli.export.genai import SCHEMA_URL
from fccli.export.spans import AttrValue, SpanRecord, TraceRecord

SERVICE_NAME = "fc"
SCOPE_NAME = "fccli.export"

# OTLP JSON: fields of bytes that hold ids, hex rather than protobuf JSON's base64.
_ID_FIELDS = ("traceId", "spanId", "parentSpanId")


def request_of(traces: list[TraceRecord]) -> ExportTraceServiceRequest:
    """Return one export request holding every span of these traces, under fc's resource and
    scope."""
    resource = Resource(
        attributes=[
            _key_value("service.name", SERVICE_NAME),
            _key_value("service.version", __version__),
        ]
    )
    scope = ScopeSpans(
        scope=InstrumentationScope(name=SCOPE_NAME, version=__version__),
        spans=[_span(t.trace_id, s) for t in traces for s in t.spans],
        schema_url=SCHEMA_URL,
    )
    return ExportTraceServiceRequest(
        resource_spans=[
            ResourceSpans(resource=resource, scope_spans=[scope], schema_url=SCHEMA_URL)
        ]
    )


def protobuf_bytes(traces: list[TraceRecord]) -> bytes:
    return bytes(request_of(traces).SerializeToString(deterministic=True))


def json_dict(traces: list[TraceRecord]) -> dict[str, Any]:
    data: dict[str, Any] = MessageToDict(request_of(traces), use_integers_for_enums=True)
    _hex_ids(data)
    return data


def read_response(body: bytes, content_type: str) -> tuple[int, str]:
    """Read a collector's answer: (spans rejected, its message); (0, "") for an empty body. The
    answer comes in the request's encoding; a body that is neither is not a partial success."""
    if not body.strip():
        return 0, ""
    answer = ExportTraceServiceResponse()
    try:
        if "json" in content_type:
            ParseDict(json.loads(body), answer, ignore_unknown_fields=True)
        else:
            answer.ParseFromString(body)
    except (DecodeError, ParseError, ValueError, TypeError):
        return 0, ""
    return _partial(answer)


def _partial(answer: ExportTraceServiceResponse) -> tuple[int, str]:
    if not answer.HasField("partial_success"):
        return 0, ""
    partial = answer.partial_success
    return int(partial.rejected_spans), partial.error_message


def _span(trace_id: bytes, record: SpanRecord) -> Span:
    kind = Span.SPAN_KIND_CLIENT if record.kind == "client" else Span.SPAN_KIND_INTERNAL
    # A span that did not fail keeps the status UNSET: OK is the application's to claim.
    status = (
        Status(code=Status.STATUS_CODE_ERROR, message=record.error)
        if record.error is not None
        else None
    )
    return Span(
        trace_id=trace_id,
        span_id=record.span_id,
        parent_span_id=record.parent_id or b"",
        name=record.name,
        kind=kind,
        start_time_unix_nano=_fixed64(record.start_ns),
        end_time_unix_nano=_fixed64(max(record.start_ns, record.end_ns)),
        attributes=[_key_value(k, v) for k, v in record.attributes.items()],
        status=status,
        links=[Span.Link(trace_id=trace_id, span_id=link) for link in record.links],
    )


def _key_value(key: str, value: AttrValue) -> KeyValue:
    return KeyValue(key=key, value=_any_value(value))


def _any_value(value: AttrValue) -> AnyValue:
    # bool before int: True is an int in Python, and must stay a boolean attribute.
    if isinstance(value, bool):
        return AnyValue(bool_value=value)
    if isinstance(value, int):
        if not -(2**63) <= value < 2**63:  # a hand-edited trace's count: kept, as text
            return AnyValue(string_value=str(value))
        return AnyValue(int_value=value)
    if isinstance(value, float):
        return AnyValue(double_value=value)
    if isinstance(value, str):
        return AnyValue(string_value=value)
    return AnyValue(array_value=ArrayValue(values=[AnyValue(string_value=v) for v in value]))


def _fixed64(ns: int) -> int:
    """Return a time that OTLP can hold (a hand-edited trace may say year 1 or 9999)."""
    return min(max(ns, 0), 2**64 - 1)


def _hex_ids(node: Any) -> None:
    if isinstance(node, dict):
        for key, value in node.items():
            if key in _ID_FIELDS and isinstance(value, str):
                node[key] = base64.b64decode(value).hex()
            else:
                _hex_ids(value)
    elif isinstance(node, list):
        for item in node:
            _hex_ids(item)
