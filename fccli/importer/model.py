"""What an imported file holds, once read: conversations of model calls and tool runs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fccli.core.models import Request, Response


@dataclass
class Span:
    """One span of an OTLP file, as plain values (ids in hex, attributes as Python values)."""

    trace_id: str
    span_id: str
    parent_id: str
    name: str
    start_ns: int
    end_ns: int
    attributes: dict[str, Any]
    events: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    error: str | None = None
    """The status message of a span whose status is ERROR ("" when it has none)."""
    scope: str = ""
    """The instrumentation scope that wrote it (`opentelemetry.instrumentation.openai.v1`)."""


@dataclass
class Call:
    """One model call: the request and answer as far as the source carries them."""

    start_ns: int = 0
    end_ns: int = 0
    request: Request | None = None
    response: Response | None = None
    wire_stop_reason: str | None = None
    provider: str | None = None
    error: str | None = None
    error_kind: str | None = None
    stream: bool | None = None


@dataclass
class Run:
    """One tool run, as a tool span or a log's result says it."""

    call_id: str | None
    name: str
    arguments: Any = None
    result: str | None = None
    is_error: bool = False
    error: str | None = None
    duration_ms: float | None = None
    start_ns: int = 0


@dataclass
class Conversation:
    """The calls of one agent's run, in order, and what the source could not say."""

    source: str
    """The exporter that wrote it, in words (`OpenLLMetry (gen_ai.prompt.N)`)."""
    key: str
    """Its id in the source: the trace id, llm's conversation id."""
    calls: list[Call] = field(default_factory=list)
    runs: list[Run] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    provider: str | None = None
    """The provider as OpenTelemetry names it (`openai`, `gcp.gemini`)."""
    wire_format: str | None = None
    """The wire format the source names (fc's own export), if it does."""
    status: str | None = None
    started_ns: int = 0
    finished_ns: int = 0
    extra: dict[str, Any] = field(default_factory=dict)
