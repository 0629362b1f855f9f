"""An fc trace as span records: plain data, no OpenTelemetry package needed to build or test it.

    invoke_agent fc                    INTERNAL  the run: provider, model, status
    ├── chat {model}                   CLIENT    step 1: model, tokens, finish reason, stream
    ├── execute_tool {name}            INTERNAL  each call of step 1, by its call id, linked
    ├── execute_tool {name}                      to the chat span that asked for it
    │   └── tools/call {name}          CLIENT    an MCP server ran it (fc run --mcp): the
    │                                            JSON-RPC request, per the conventions' MCP spans
    ├── initialize, tools/list         CLIENT    each MCP server's handshake, before step 1
    └── chat {model}                   CLIENT    step 2 ...

Tool spans are siblings of the chat spans under the agent span, as the conventions' agent
examples draw them: a tool runs after the model's answer, not inside the model call.

Ids are derived from the trace, so exporting it twice gives the same ids and a backend shows one
trace, not two: the trace id hashes the manifest (fixed once the run has closed), each span id
hashes the trace id and the span's place (the step number, the call id).

Times: the manifest's start, each step's start (`started_at`) and duration, each tool run's
duration. Steps without a start are laid out in order from the run's start: step, its tools
side by side (they run concurrently), next step.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any, Literal
from urllib.parse import urlsplit

from fccli.core.controls import well_formed
from fccli.core.errors import FcError
from fccli.core.jsonio import read_json
from fccli.core.manifest import ErrorRecord
from fccli.core.models import Request, Response, ToolResultBlock, ToolSpec, ToolUseBlock, Usage
from fccli.cost.money import as_number
from fccli.cost.price import StepCost
from fccli.cost.trace import price_trace
from fccli.export import genai
from fccli.i18n import Msg
from fccli.trace.mcp_log import Exchange, message
from fccli.trace.reader import Step, Trace
from fccli.wire.registry import FORMATS, get_format

AttrValue = str | int | float | bool | list[str]
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


@dataclass
class SpanRecord:
    span_id: bytes
    parent_id: bytes | None
    name: str
    kind: Literal["internal", "client"]
    start_ns: int
    end_ns: int
    attributes: dict[str, AttrValue] = field(default_factory=dict)
    error: str | None = None
    """Set when the operation failed: the span's status is ERROR with this message."""
    links: list[bytes] = field(default_factory=list)
    """Span ids in the same trace this span relates to (a tool run: the chat span that asked)."""


@dataclass
class TraceRecord:
    trace_id: bytes
    spans: list[SpanRecord]
    notes: list[str] = field(default_factory=list)
    """What of the fc trace could not be exported, said rather than left out in silence."""


def build(trace: Trace, *, content: bool) -> TraceRecord:
    return _Builder(trace, content).build()


# ---------------------------------------------------------------------------------------------
# ids


def trace_id_of(manifest: dict[str, Any]) -> bytes:
    canonical = json.dumps(manifest, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    digest = hashlib.sha256(b"fc-trace\0" + canonical.encode("utf-8", "surrogatepass"))
    return _nonzero(digest.digest()[:16])


def span_id_of(trace_id: bytes, place: str) -> bytes:
    digest = hashlib.sha256(trace_id + b"\0" + place.encode("utf-8", "surrogatepass"))
    return _nonzero(digest.digest()[:8])


def _well_formed(span: SpanRecord) -> SpanRecord:
    """Make every text of `span` one UTF-8 can carry (a lone surrogate becomes U+FFFD)."""
    span.name = well_formed(span.name)
    if span.error is not None:
        span.error = well_formed(span.error)
    for key, value in span.attributes.items():
        if isinstance(value, str):
            span.attributes[key] = well_formed(value)
        elif isinstance(value, list):
            span.attributes[key] = [well_formed(v) for v in value]
    return span


def _nonzero(digest: bytes) -> bytes:
    # An all-zero id is invalid in OTLP; a hash gives one with odds of 2^-64, but never mind odds.
    return digest if any(digest) else b"\x01" + digest[1:]


# ---------------------------------------------------------------------------------------------
# times


def iso_ns(value: Any) -> int | None:
    """Return an ISO 8601 time from the manifest as Unix nanoseconds; None when absent or not a
    time."""
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    if moment.tzinfo is None:  # fc writes UTC with its offset; a hand-written time is taken as UTC
        moment = moment.replace(tzinfo=timezone.utc)
    return (moment - _EPOCH) // timedelta(microseconds=1) * 1000


def ms_ns(value: Any) -> int:
    """Return a duration in milliseconds from the manifest as nanoseconds (0 when absent)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        return 0
    return round(value * 1_000_000)


# ---------------------------------------------------------------------------------------------
# the tree


class _Builder:
    def __init__(self, trace: Trace, content: bool) -> None:
        self.trace = trace
        self.manifest = trace.record
        self.content = content
        self.trace_id = trace_id_of(trace.manifest)
        self.root_id = span_id_of(self.trace_id, "run")
        self.notes: list[str] = []
        self.error = trace.record.error or ErrorRecord()
        self.provider = genai.provider_name(self.manifest.provider)
        self.cost = price_trace(self.manifest)

    def build(self) -> TraceRecord:
        start = iso_ns(self.manifest.started_at)
        if start is None:
            start = 0
            self.notes.append(Msg("the manifest has no start time: the spans start at 1970-01-01"))
        cursor = start
        spans: list[SpanRecord] = []
        results = self.trace.results()
        served = self.trace.mcp_exchanges()
        for step in self.trace.steps:
            chat = self._chat_span(step, cursor)
            spans.append(chat)
            cursor = max(cursor, chat.end_ns)
            for run in step.tool_runs():
                tool = self._tool_span(step, run, chat, results)
                if tool is not None:
                    spans.append(tool)
                    cursor = max(cursor, tool.end_ns)
                    exchange = served.get(str(run.get("id")))
                    if exchange is not None:
                        spans.append(self._mcp_span(exchange, tool))
            for note in step.notes:
                self.notes.append(Msg("step {step}: {message}", step=step.number, message=note))
        # The servers' handshake came before the first step: the run's span begins with it.
        handshakes = self._mcp_session_spans()
        spans += handshakes
        first = min([start, *(span.start_ns for span in handshakes if span.start_ns)])
        spans.insert(0, self._root_span(first, cursor))
        return TraceRecord(self.trace_id, [_well_formed(span) for span in spans], self.notes)

    # -- the run --------------------------------------------------------------------------

    def _root_span(self, start: int, last_end: int) -> SpanRecord:
        m = self.manifest
        end = iso_ns(m.finished_at)
        if end is None and ms_ns(m.duration_ms):
            end = start + ms_ns(m.duration_ms)
        attributes: dict[str, AttrValue] = {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": genai.AGENT_NAME,
            "gen_ai.provider.name": self.provider,
        }
        _put(attributes, "gen_ai.request.model", m.model)
        _put(attributes, "fc.trace.status", m.status)
        _put(attributes, "fc.wire_format", self.trace.wire_format)
        _put(attributes, "fc.version", m.fc_version)
        if self.cost.priced:
            attributes[genai.COST] = as_number(self.cost.usd)
            if self.cost.saved_usd is not None:
                attributes[genai.COST_SAVED] = as_number(self.cost.saved_usd)
            _put(attributes, genai.COST_BASIS, self.cost.basis)
        _put(attributes, genai.COST_MODEL, self.cost.priced_as if self.cost.steps else None)
        if self.content:
            first = self._first_request()
            if first is not None:
                attributes["gen_ai.input.messages"] = genai.as_json(
                    genai.input_messages(first.messages)
                )
            last = self._last_response()
            if last is not None:
                attributes["gen_ai.output.messages"] = genai.as_json(genai.output_messages(last))
        span = SpanRecord(
            self.root_id,
            None,
            f"invoke_agent {genai.AGENT_NAME}",
            "internal",
            start,
            max(end or last_end, last_end),
            attributes,
        )
        status = m.status
        if status in ("error", "interrupted"):
            kind = self.error.kind or str(status)
            attributes["error.type"] = kind
            span.error = self._status_message(kind, self.error.message)
        return span

    def _first_request(self) -> Request | None:
        return next((s.request for s in self.trace.steps if s.request is not None), None)

    def _last_response(self) -> Response | None:
        responses = [s.response for s in self.trace.steps if s.response is not None]
        return responses[-1] if responses else None

    # -- a step ---------------------------------------------------------------------------

    def _chat_span(self, step: Step, cursor: int) -> SpanRecord:
        record = step.record or {}
        request, response = step.request, step.response
        model = (request.model if request else None) or self.manifest.model or ""
        start = iso_ns(record.get("started_at")) or cursor
        failed = self.error.step == step.number and self.manifest.status == "error"
        duration = ms_ns(record.get("duration_ms"))
        if not duration and failed:  # no answer was read: the attempts say how long it took
            duration = _attempts_ns(self.error.to_json_dict().get("attempts"))
        attributes: dict[str, AttrValue] = {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": self.provider,
        }
        _put(attributes, "gen_ai.request.model", model or None)
        self._server(attributes)
        if request is not None:
            if request.stream:
                attributes["gen_ai.request.stream"] = True
            _put(attributes, "gen_ai.request.max_tokens", request.max_tokens)
        stream = record.get("stream")
        if isinstance(stream, dict) and isinstance(stream.get("first_byte_ms"), int | float):
            attributes["gen_ai.response.time_to_first_chunk"] = stream["first_byte_ms"] / 1000
        if response is not None:
            _put(attributes, "gen_ai.response.model", response.model)
            _put(attributes, "gen_ai.response.id", response.id)
            reason = _str(record.get("wire_stop_reason")) or response.stop_reason
            attributes["gen_ai.response.finish_reasons"] = [reason]
            self._usage(attributes, step, response)
            self._cost(attributes, step)
        attributes["fc.step"] = step.number
        if self.content:
            self._chat_content(attributes, request, response)
        span = SpanRecord(
            span_id_of(self.trace_id, f"step:{step.number}"),
            self.root_id,
            f"chat {model}".rstrip(),
            "client",
            start,
            start + duration,
            attributes,
        )
        if failed:
            status = self.error.http_status
            kind = str(status) if status is not None else self.error.kind
            attributes["error.type"] = kind or "_OTHER"
            span.error = self._status_message(kind or "error", self.error.message)
        elif response is None:
            self.notes.append(
                Msg("step {step}: no answer could be read; its span has none", step=step.number)
            )
        return span

    def _server(self, attributes: dict[str, AttrValue]) -> None:
        url = self.manifest.base_url
        if url is None:
            return  # the demo model answers in-process: no server
        try:
            parts = urlsplit(url)
            port = parts.port
        except ValueError:
            return
        if parts.hostname:
            attributes["server.address"] = parts.hostname
            default = {"https": 443, "http": 80}.get(parts.scheme)
            _put(attributes, "server.port", port or default)

    def _usage(self, attributes: dict[str, AttrValue], step: Step, response: Response) -> None:
        usage = response.usage
        if usage is None:
            return
        if (usage.cache_read_tokens, usage.cache_write_tokens) == (None, None):
            usage = self._with_wire_cache(usage, step)
        # The conventions count cached tokens in the input, as fc's usage does (Anthropic's too).
        _put(attributes, "gen_ai.usage.input_tokens", usage.input_tokens)
        _put(attributes, "gen_ai.usage.output_tokens", usage.output_tokens)
        _put(attributes, "gen_ai.usage.reasoning.output_tokens", usage.reasoning_tokens)
        _put(attributes, "gen_ai.usage.cache_read.input_tokens", usage.cache_read_tokens)
        _put(attributes, "gen_ai.usage.cache_creation.input_tokens", usage.cache_write_tokens)

    def _cost(self, attributes: dict[str, AttrValue], step: Step) -> None:
        """Put what the step cost (fc's own attributes: the conventions have none yet)."""
        price = self.cost.steps.get(step.number)
        if isinstance(price, StepCost):
            attributes[genai.COST] = as_number(price.usd)
            if price.saved_usd is not None:
                attributes[genai.COST_SAVED] = as_number(price.saved_usd)
            attributes[genai.COST_MODEL] = price.model
        elif price is not None:
            attributes[genai.COST_UNKNOWN] = str(price.why)

    def _with_wire_cache(self, usage: Usage, step: Step) -> Usage:
        """Return `usage` with the cache counts of the step's wire answer, read by its format (a
        trace written before fc's usage carried them)."""
        wire = _wire_usage(step, self.trace.wire_format)
        if wire is None or (wire.cache_read_tokens, wire.cache_write_tokens) == (None, None):
            return usage
        # The codec counts the cache in the input, as fc's usage does: Anthropic's wire input
        # leaves it out, and so did the usage of such an old trace.
        update = {
            "cache_read_tokens": wire.cache_read_tokens,
            "cache_write_tokens": wire.cache_write_tokens,
        }
        if wire.input_tokens is not None:
            update["input_tokens"] = wire.input_tokens
        return usage.model_copy(update=update)

    def _chat_content(
        self, attributes: dict[str, AttrValue], request: Request | None, response: Response | None
    ) -> None:
        if request is not None:
            attributes["gen_ai.input.messages"] = genai.as_json(
                genai.input_messages(request.messages)
            )
            if request.system:
                attributes["gen_ai.system_instructions"] = genai.as_json(
                    genai.system_instructions(request.system)
                )
            if request.tools:
                attributes["gen_ai.tool.definitions"] = genai.as_json(
                    genai.tool_definitions(request.tools)
                )
        if response is not None:
            attributes["gen_ai.output.messages"] = genai.as_json(genai.output_messages(response))

    # -- a tool run -----------------------------------------------------------------------

    def _tool_span(
        self,
        step: Step,
        run: dict[str, Any],
        chat: SpanRecord,
        results: dict[str, ToolResultBlock],
    ) -> SpanRecord | None:
        call_id, name = _str(run.get("id")), _str(run.get("name"))
        if call_id is None or name is None:
            self.notes.append(
                Msg("step {step}: a tool run without an id or name is left out", step=step.number)
            )
            return None
        call = _call(step.response, call_id)
        attributes: dict[str, AttrValue] = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": name,
            "gen_ai.tool.call.id": call_id,
            "gen_ai.tool.type": "function",
        }
        _put(attributes, "gen_ai.tool.description", _description(step.request, name))
        attributes["fc.step"] = step.number
        result = results.get(call_id)
        if self.content:
            if call is not None:
                attributes["gen_ai.tool.call.arguments"] = genai.call_arguments(call)
            elif isinstance(run.get("arguments"), dict):
                attributes["gen_ai.tool.call.arguments"] = genai.as_json(run["arguments"])
            if result is not None and not result.is_error:
                attributes["gen_ai.tool.call.result"] = result.content
        start = chat.end_ns
        span = SpanRecord(
            span_id_of(self.trace_id, f"tool:{step.number}:{call_id}"),
            self.root_id,
            f"execute_tool {name}",
            "internal",
            start,
            start + ms_ns(run.get("duration_ms")),
            attributes,
            links=[chat.span_id],
        )
        if run.get("is_error") is True or (result is not None and result.is_error):
            kind = _str(run.get("error_kind")) or "tool_error"
            attributes["error.type"] = kind
            message = (
                run.get("error") if run.get("error") is not None else (result and result.content)
            )
            span.error = self._status_message(kind, message)
        return span

    def _mcp_session_spans(self) -> list[SpanRecord]:
        """The requests of each MCP session that served no model's call (`initialize`,
        `tools/list`; every request of `fc mcp record`), under the run's span, timed by the
        log."""
        out = []
        for log in self.trace.mcp_logs():
            answers = {
                json.dumps(message(e).get("id")): e
                for e in log.entries
                if e.get("dir") == "received"
            }
            for entry in log.entries:
                body = message(entry)
                method = body.get("method")
                if entry.get("dir") != "sent" or "id" not in body:
                    continue
                if method == "tools/call" and entry.get("call") is not None:
                    continue  # inside the execute_tool span of its call (_mcp_span)
                params = body.get("params")
                tool = params.get("name") if isinstance(params, dict) else None
                answer = answers.get(json.dumps(body["id"]))
                start = iso_ns(entry.get("at")) or 0
                end = iso_ns(answer.get("at")) if answer is not None else None
                attributes: dict[str, AttrValue] = {
                    "mcp.method.name": str(method),
                    "jsonrpc.request.id": str(body["id"]),
                    "fc.mcp.server": log.server,
                }
                if isinstance(tool, str):
                    attributes["gen_ai.tool.name"] = tool
                span = SpanRecord(
                    span_id_of(self.trace_id, f"mcp:{log.server}:{entry.get('n')}"),
                    self.root_id,
                    f"{method} {tool}" if isinstance(tool, str) else str(method),
                    "client",
                    start,
                    max(start, end or start),
                    attributes,
                )
                if answer is None or "error" in message(answer):
                    kind = "no_answer" if answer is None else "jsonrpc_error"
                    attributes["error.type"] = span.error = kind
                out.append(span)
        return out

    def _mcp_span(self, exchange: Exchange, tool: SpanRecord) -> SpanRecord:
        """The tools/call that ran a call on an MCP server, inside its execute_tool span: the
        conventions' MCP client span (`{mcp.method.name} {target}`)."""
        server = next(
            (s for s in self.manifest.mcp_servers or [] if s.get("name") == exchange.server), {}
        )
        attributes: dict[str, AttrValue] = {
            "mcp.method.name": "tools/call",
            "jsonrpc.request.id": str(exchange.request_id),
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": exchange.tool or "",
            "network.transport": "pipe" if server.get("transport") == "stdio" else "tcp",
            "fc.mcp.server": exchange.server,
        }
        _put(attributes, "mcp.session.id", _str(server.get("session_id")))
        _put(attributes, "mcp.protocol.version", _str(server.get("protocol_version")))
        sent = iso_ns(exchange.request.get("at"))
        came = iso_ns(exchange.response.get("at")) if exchange.response is not None else None
        start = max(tool.start_ns, sent) if sent is not None else tool.start_ns
        end = min(tool.end_ns, came) if came is not None else tool.end_ns
        span = SpanRecord(
            span_id_of(self.trace_id, f"mcp:{exchange.server}:{exchange.call}"),
            tool.span_id,
            f"tools/call {exchange.tool}",
            "client",
            start,
            max(start, end),
        )
        span.attributes = attributes
        error = exchange.error()
        if exchange.response is None:
            attributes["error.type"] = "no_answer"
            span.error = "no_answer"
        elif error is not None:
            attributes["error.type"] = str(error.get("code"))
            attributes["rpc.response.status_code"] = str(error.get("code"))
            span.error = self._status_message(str(error.get("code")), error.get("message"))
        elif exchange.is_error:
            attributes["error.type"] = "tool_error"
            span.error = "tool_error"
        return span

    def _status_message(self, kind: str, message: Any) -> str:
        """Return a span's status message: the error's words only with --content (they may quote
        what was sent), else its kind."""
        if self.content and isinstance(message, str) and message:
            return message.splitlines()[0]
        return kind


def _wire_usage(step: Step, wire_format: str | None) -> Usage | None:
    """Return the usage of the step's wire answer, read by its format; None when unreadable."""
    path = step.files.get("wire_response")
    if path is None or wire_format is None or wire_format not in FORMATS:
        return None
    try:
        return get_format(wire_format).from_wire_response(read_json(path)).usage
    except FcError:
        return None


def _attempts_ns(attempts: Any) -> int:
    if not isinstance(attempts, list):
        return 0
    total = 0
    for a in attempts:
        if isinstance(a, dict):
            total += ms_ns(a.get("duration_ms"))
            waited = a.get("waited_s")
            total += ms_ns(waited * 1000) if isinstance(waited, int | float) else 0
    return total


def _call(response: Response | None, call_id: str) -> ToolUseBlock | None:
    return next((c for c in response.tool_uses() if c.id == call_id), None) if response else None


def _description(request: Request | None, name: str) -> str | None:
    tools: list[ToolSpec] = request.tools if request else []
    return next((t.description for t in tools if t.name == name), None)


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _put(attributes: dict[str, AttrValue], key: str, value: AttrValue | None) -> None:
    if value is not None:
        attributes[key] = value
