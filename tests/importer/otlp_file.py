"""Finished OpenTelemetry SDK spans written as an OTLP file, as an exporter would write them:
OTLP/JSON (the JSON Protobuf Encoding, ids in hex) or protobuf (`ExportTraceServiceRequest`).

The tests' own writer: the SDK's OTLP exporters send over the network, and the file exporter of
the collector is not a Python package. Built from opentelemetry-proto's messages, so the bytes
are what any OTLP writer produces for these spans.
"""

from __future__ import annotations

import base64
import json
from typing import Any

from google.protobuf.json_format import MessageToDict, ParseDict
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest


def _value(value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, list | tuple):
        return {"arrayValue": {"values": [_value(v) for v in value]}}
    return {"stringValue": str(value)}


def _attributes(attributes: Any) -> list[dict[str, Any]]:
    return [{"key": k, "value": _value(v)} for k, v in (attributes or {}).items()]


def _span(span: Any, ids: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "traceId": ids(span.context.trace_id.to_bytes(16, "big")),
        "spanId": ids(span.context.span_id.to_bytes(8, "big")),
        "name": span.name,
        "kind": span.kind.value + 1,  # the SDK's INTERNAL is 0, OTLP's is 1
        "startTimeUnixNano": str(span.start_time),
        "endTimeUnixNano": str(span.end_time),
        "attributes": _attributes(span.attributes),
        "events": [
            {
                "name": e.name,
                "timeUnixNano": str(e.timestamp),
                "attributes": _attributes(e.attributes),
            }
            for e in span.events
        ],
        "status": {"code": span.status.status_code.value},
    }
    if span.status.description:
        out["status"]["message"] = span.status.description
    if span.parent is not None:
        out["parentSpanId"] = ids(span.parent.span_id.to_bytes(8, "big"))
    return out


def _request(spans: list[Any], ids: Any) -> dict[str, Any]:
    scopes: dict[str, list[Any]] = {}
    for span in spans:
        scopes.setdefault(span.instrumentation_scope.name, []).append(span)
    return {
        "resourceSpans": [
            {
                "resource": {"attributes": _attributes(spans[0].resource.attributes)},
                "scopeSpans": [
                    {"scope": {"name": name}, "spans": [_span(s, ids) for s in members]}
                    for name, members in scopes.items()
                ],
            }
        ]
    }


def otlp_json(spans: list[Any]) -> bytes:
    """Return the spans as one line of OTLP/JSON."""
    return json.dumps(_request(spans, bytes.hex)).encode() + b"\n"


def otlp_protobuf(spans: list[Any]) -> bytes:
    """Return the spans as a serialized ExportTraceServiceRequest."""
    message = ParseDict(
        _request(spans, lambda b: base64.b64encode(b).decode()), ExportTraceServiceRequest()
    )
    assert MessageToDict(message)["resourceSpans"]  # what was built is what is sent
    return bytes(message.SerializeToString())
