"""Hand-made OTLP/JSON files of spans, in the attribute names each project documents: the
shapes of exporters the tests do not install (older OpenLLMetry, OpenInference, Logfire before
it wrote the conventions' attributes, the older conventions' events)."""

from __future__ import annotations

import json
from typing import Any

TRACE = "5b8efff798038103d269b633813fc60c"
START = 1_767_225_600_000_000_000  # 2026-01-01T00:00:00Z


def value(v: Any) -> dict[str, Any]:
    if isinstance(v, bool):
        return {"boolValue": v}
    if isinstance(v, int):
        return {"intValue": str(v)}
    if isinstance(v, list):
        return {"arrayValue": {"values": [value(x) for x in v]}}
    if not isinstance(v, str):
        v = json.dumps(v, ensure_ascii=False)
    return {"stringValue": v}


def span(
    number: int,
    attributes: dict[str, Any],
    *,
    name: str = "chat",
    events: list[tuple[str, dict[str, Any]]] = (),  # type: ignore[assignment]
    error: str | None = None,
    trace: str = TRACE,
    took_ms: int = 100,
) -> dict[str, Any]:
    """A span `number` ms after START, lasting `took_ms`."""
    start = START + number * 1_000_000
    out: dict[str, Any] = {
        "traceId": trace,
        "spanId": f"{number:016x}",
        "name": name,
        "kind": 3,
        "startTimeUnixNano": str(start),
        "endTimeUnixNano": str(start + took_ms * 1_000_000),
        "attributes": [{"key": k, "value": value(v)} for k, v in attributes.items()],
        "events": [
            {"name": n, "attributes": [{"key": k, "value": value(v)} for k, v in a.items()]}
            for n, a in events
        ],
    }
    if error is not None:
        out["status"] = {"code": 2, "message": error}
    return out


def otlp(spans: list[dict[str, Any]], scope: str = "test") -> bytes:
    request = {
        "resourceSpans": [
            {"resource": {}, "scopeSpans": [{"scope": {"name": scope}, "spans": spans}]}
        ]
    }
    return json.dumps(request, ensure_ascii=False).encode()
