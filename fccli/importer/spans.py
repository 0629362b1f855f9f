"""GenAI spans into conversations: each exporter's attribute names read.

A model call is a span that carries one of these (tried in this order; the first that holds
the messages wins, and the source is named after it):

- the conventions' JSON attributes `gen_ai.input.messages` / `gen_ai.output.messages`
  (`gen_ai.system_instructions`, `gen_ai.tool.definitions`): fc's own export, OpenLLMetry
  0.4x and later, the official opentelemetry-instrumentation-openai-v2 with
  `OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental`;
- OpenLLMetry's indexed attributes `gen_ai.prompt.N.*` / `gen_ai.completion.N.*`
  (`llm.request.functions.N.*`): OpenLLMetry (traceloop) before its move to the above;
- OpenInference's `llm.input_messages.N.message.*` / `llm.output_messages.N.message.*`
  (`llm.tools.N.tool.json_schema`): Arize's instrumentations, the OpenAI Agents SDK's
  spans through openinference-instrumentation-openai-agents;
- Logfire's `request_data` / `response_data` (the request body and the answer's message);
- the older conventions' span events: `gen_ai.content.prompt` / `gen_ai.content.completion`
  (`gen_ai.prompt` / `gen_ai.completion` JSON), or one event per message
  (`gen_ai.user.message`, `gen_ai.choice`...).

A tool run is a span with `gen_ai.operation.name = execute_tool` (or OpenInference's TOOL kind,
OpenLLMetry's `traceloop.span.kind = tool`). Calls are grouped into conversations by trace id; a
call whose history continues another trace's last call (an agent that opens no span of its
own gives each call a trace) joins that conversation.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from typing import Any

from fccli.core.models import (
    Message,
    Request,
    Response,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
)
from fccli.i18n import Msg
from fccli.importer.messages import (
    STOP_REASONS,
    Read,
    fill_call_ids,
    internal_messages,
    loads,
    parts_of_chat,
    text_of,
    tool_specs,
)
from fccli.importer.model import Call, Conversation, Run, Span

_NOT_CALLS = frozenset(
    {"execute_tool", "invoke_agent", "create_agent", "embeddings", "invoke_workflow"}
)
_INDEXED = re.compile(r"(gen_ai\.(?:prompt|completion)|llm\.request\.functions)\.(\d+)\.(.+)")
_OPENINFERENCE = re.compile(r"llm\.(input_messages|output_messages|tools)\.(\d+)\.(.+)")
_JSON = (
    "gen_ai.input.messages",
    "gen_ai.output.messages",
    "gen_ai.system_instructions",
    "gen_ai.tool.definitions",
)
"""The conventions' attributes that hold JSON: one that is not is read without."""
_CONTENT = re.compile(r"gen_ai\.(?:prompt|completion)\.\d+\.content")
"""OpenLLMetry's message text: plain text, or a list of content parts as JSON (`[{...`)."""


def conversations(spans: list[Span]) -> list[Conversation]:
    """Read the spans' model calls and tool runs, grouped into conversations in the order the
    file holds them."""
    by_trace: dict[str, list[Span]] = defaultdict(list)
    for span in spans:
        by_trace[span.trace_id].append(span)
    found: list[Conversation] = []
    for trace_id, members in by_trace.items():
        conversation = _conversation(trace_id, sorted(members, key=lambda s: s.start_ns))
        if conversation.calls:
            found.append(conversation)
    return _joined(found)


# ---------------------------------------------------------------------------------------------
# one trace


def _conversation(trace_id: str, spans: list[Span]) -> Conversation:
    out = Conversation(source="", key=trace_id)
    sources: list[str] = []
    unreadable: list[Msg] = []
    for span in spans:
        attributes = span.attributes
        operation = attributes.get("gen_ai.operation.name")
        if "mcp.method.name" in attributes:
            continue  # fc's MCP spans: the JSON-RPC under a tool run, said by its tool span
        if operation == "invoke_agent" and span.parent_id == "":
            _root(out, span)
        if _is_tool(span):
            out.runs.append(_run(span))
            continue
        if operation in _NOT_CALLS or not _is_call(span):
            continue
        call, source = _call(span, len(out.calls) + 1, out.notes)
        unreadable += _unreadable(span, len(out.calls) + 1)
        sources.append(source)
        out.calls.append(call)
        out.provider = out.provider or call.provider
    if out.calls:
        out.started_ns = out.started_ns or min(c.start_ns for c in out.calls)
        out.finished_ns = max(out.finished_ns, *(c.end_ns for c in out.calls))
    out.source = ", ".join(dict.fromkeys(sources))
    if len(unreadable) == 1:
        out.notes.append(unreadable[0])
    elif unreadable:
        out.notes.append(
            Msg(
                "{first}; {n} more attribute(s) in this trace are not JSON either",
                first=unreadable[0],
                n=len(unreadable) - 1,
            )
        )
    return out


def _unreadable(span: Span, number: int) -> list[Msg]:
    """Say each message attribute of a model call's span that is not JSON, as it was read."""
    found = [(key, Msg("read without it")) for key in _JSON if _not_json(span.attributes.get(key))]
    found += [
        (key, Msg("read as text"))
        for key, value in span.attributes.items()
        if _CONTENT.fullmatch(key) and str(value).lstrip().startswith("[{") and _not_json(value)
    ]
    return [
        Msg(
            "{where}: span {span}'s {attribute} is not JSON ({how})",
            where=Msg("step {step}", step=number),
            span=f"{span.name} ({span.span_id})",
            attribute=key,
            how=how,
        )
        for key, how in found
    ]


def _not_json(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        json.loads(value)
    except (ValueError, RecursionError):
        return True
    return False


def _root(out: Conversation, span: Span) -> None:
    """Read an agent span's run: fc's own export says its wire format and status."""
    attributes = span.attributes
    fmt = attributes.get("fc.wire_format")
    out.wire_format = fmt if isinstance(fmt, str) else None
    status = attributes.get("fc.trace.status")
    out.status = status if isinstance(status, str) else None
    out.started_ns, out.finished_ns = span.start_ns, span.end_ns
    if span.error is not None:
        out.extra["error"] = (attributes.get("error.type"), span.error)
    provider = attributes.get("gen_ai.provider.name")
    if isinstance(provider, str):
        out.provider = provider


def _is_tool(span: Span) -> bool:
    attributes = span.attributes
    return (
        attributes.get("gen_ai.operation.name") == "execute_tool"
        or attributes.get("openinference.span.kind") == "TOOL"
        or attributes.get("traceloop.span.kind") == "tool"
    )


def _is_call(span: Span) -> bool:
    attributes = span.attributes
    if attributes.get("gen_ai.operation.name") in ("chat", "text_completion", "generate_content"):
        return True
    if attributes.get("openinference.span.kind") == "LLM":
        return True
    return (
        "request_data" in attributes
        or any(k.startswith(("gen_ai.prompt.", "gen_ai.completion.")) for k in attributes)
        or any(name.startswith("gen_ai.") for name, _ in span.events)
    )


# ---------------------------------------------------------------------------------------------
# a model call


def _call(span: Span, number: int, notes: list[str]) -> tuple[Call, str]:
    attributes = span.attributes
    where = str(Msg("step {step}", step=number))
    source, history, output, system, tools = _content(span)
    read = internal_messages(history, where) if history is not None else Read()
    notes += read.notes
    system_text = system if system is not None else read.system
    model = _first_str(
        attributes, "gen_ai.request.model", "llm.model_name", "gen_ai.response.model"
    )
    call = Call(start_ns=span.start_ns, end_ns=max(span.start_ns, span.end_ns))
    call.provider = _first_str(attributes, "gen_ai.provider.name", "gen_ai.system", "llm.provider")
    if history is None:
        notes.append(
            Msg(
                "{where}: the span carries no request messages (the exporter recorded no content:"
                " turn content capture on)",
                where=where,
            )
        )
    else:
        stream = attributes.get("gen_ai.request.stream", attributes.get("gen_ai.is_streaming"))
        call.stream = stream if isinstance(stream, bool) else None
        max_tokens = attributes.get("gen_ai.request.max_tokens")
        call.request = Request(
            model=model or "",
            system=system_text or None,
            messages=read.messages,
            tools=tool_specs(tools),
            max_tokens=max_tokens if isinstance(max_tokens, int) and max_tokens > 0 else None,
            stream=True if call.stream else None,
        )
    finish = _finish_reason(attributes, output)
    call.wire_stop_reason = finish
    if output is not None:
        answer = internal_messages(output, where)
        notes += answer.notes
        content = [b for m in answer.messages if m.role == "assistant" for b in m.content]
        calls = any(isinstance(b, ToolUseBlock) for b in content)
        stop = STOP_REASONS.get(finish or "", "end_turn")
        if calls and stop == "end_turn":
            stop = "tool_use"
        call.response = Response(
            id=_first_str(attributes, "gen_ai.response.id"),
            model=_first_str(attributes, "gen_ai.response.model", "llm.model_name"),
            content=content,
            stop_reason=stop,
            usage=_usage(attributes),
        )
    elif span.error is None:
        notes.append(Msg("{where}: the span carries no answer", where=where))
    if span.error is not None:
        kind = attributes.get("error.type")
        call.error_kind = str(kind) if kind is not None else "error"
        call.error = span.error or call.error_kind
    return call, source


def _content(span: Span) -> tuple[str, Any, Any, str | None, Any]:
    """Return (the source's name, the history, the answer's messages, the system text, the tool
    definitions), in the parts shape; None for what the span does not carry."""
    attributes = span.attributes
    if "gen_ai.input.messages" in attributes or "gen_ai.output.messages" in attributes:
        system = loads(attributes.get("gen_ai.system_instructions"))
        return (
            _name(span, "gen_ai.input.messages"),
            _maybe(loads(attributes.get("gen_ai.input.messages"))),
            _maybe(loads(attributes.get("gen_ai.output.messages"))),
            text_of(system) if system else None,
            loads(attributes.get("gen_ai.tool.definitions")),
        )
    indexed = _indexed(attributes, _INDEXED)
    if indexed.get("gen_ai.prompt") or indexed.get("gen_ai.completion"):
        prompt = [_indexed_message(m) for m in indexed.get("gen_ai.prompt", [])]
        completion = [_indexed_message(m) for m in indexed.get("gen_ai.completion", [])]
        tools = [
            {**f, "parameters": loads(f.get("parameters"))}
            for f in indexed.get("llm.request.functions", [])
        ]
        return (
            "OpenLLMetry (gen_ai.prompt.N)",
            [p for m in prompt if (p := parts_of_chat(m))] if prompt else None,
            [p for m in completion if (p := parts_of_chat(m))] if completion else None,
            None,
            tools,
        )
    inference = _indexed(attributes, _OPENINFERENCE)
    if inference.get("input_messages") or inference.get("output_messages"):
        tools = [loads(t.get("tool", {}).get("json_schema")) for t in inference.get("tools", [])]
        return (
            "OpenInference (llm.input_messages)",
            _openinference(inference.get("input_messages")),
            _openinference(inference.get("output_messages")),
            None,
            tools,
        )
    if "request_data" in attributes:
        request = loads(attributes.get("request_data"))
        response = loads(attributes.get("response_data"))
        history = request.get("messages") if isinstance(request, dict) else None
        message = response.get("message") if isinstance(response, dict) else None
        if message is None and isinstance(response, dict) and response.get("choices"):
            first = response["choices"][0]
            message = first.get("message") if isinstance(first, dict) else None
        return (
            "Logfire (request_data)",
            [p for m in history if (p := parts_of_chat(m))] if isinstance(history, list) else None,
            [p] if (p := parts_of_chat(message)) else None,
            None,
            request.get("tools") if isinstance(request, dict) else None,
        )
    return _events(span)


def _name(span: Span, attribute: str) -> str:
    """Name a span's writer by its instrumentation scope, with the attribute it was read by."""
    scope = span.scope
    if scope.startswith("fccli"):
        return "fc export otel"
    if scope.startswith("opentelemetry.util.genai") or "_v2" in scope:
        writer = "OpenTelemetry's official instrumentation"
    elif scope.startswith("opentelemetry.instrumentation."):
        writer = "OpenLLMetry"
    elif scope.startswith("logfire"):
        writer = "Logfire"
    else:
        writer = scope or "?"
    return f"{writer} ({attribute})"


def _maybe(value: Any) -> Any:
    return value if isinstance(value, list) else None


def _indexed(
    attributes: dict[str, Any], pattern: re.Pattern[str]
) -> dict[str, list[dict[str, Any]]]:
    """Gather flattened attributes (`gen_ai.prompt.0.role`) into lists of nested dicts."""
    found: dict[str, dict[int, dict[str, Any]]] = defaultdict(dict)
    for key, value in attributes.items():
        match = pattern.fullmatch(key)
        if match is None:
            continue
        group, index, rest = match.group(1), int(match.group(2)), match.group(3)
        if index > 10_000:
            continue
        holder = found[group].setdefault(index, {})
        path = rest.split(".")
        for part in path[:-1]:
            child = holder.get(part)
            if not isinstance(child, dict):
                child = holder[part] = {}
            holder = child
        holder[path[-1]] = value
    return {g: [items[i] for i in sorted(items)] for g, items in found.items()}


def _listed(node: Any) -> list[Any]:
    """Return a flattened list (`{"0": {...}, "1": {...}}`) as a list, in index order."""
    if not isinstance(node, dict):
        return []
    keys = sorted((k for k in node if k.isdigit()), key=int)
    return [node[k] for k in keys]


def _indexed_message(node: dict[str, Any]) -> dict[str, Any]:
    """Return OpenLLMetry's indexed message as a chat message."""
    message: dict[str, Any] = {"role": node.get("role"), "content": node.get("content")}
    content = loads(node.get("content")) if isinstance(node.get("content"), str) else None
    if isinstance(content, list):  # a list of content parts, recorded as JSON
        message["content"] = content
    calls = [
        {"id": c.get("id"), "function": {"name": c.get("name"), "arguments": c.get("arguments")}}
        for c in _listed(node.get("tool_calls"))
        if isinstance(c, dict)
    ]
    if isinstance(node.get("function_call"), dict):
        calls.append({"function": node["function_call"]})
    if calls:
        message["tool_calls"] = calls
    if node.get("tool_call_id") is not None:
        message["tool_call_id"] = node["tool_call_id"]
    if node.get("finish_reason") is not None:
        message["finish_reason"] = node["finish_reason"]
    return message


def _openinference(items: Any) -> list[dict[str, Any]] | None:
    if not items:
        return None
    out = []
    for item in items:
        node = item.get("message") if isinstance(item, dict) else None
        if not isinstance(node, dict):
            continue
        content = node.get("content")
        if content is None and node.get("contents"):
            content = [
                {"text": c.get("message_content", {}).get("text")}
                for c in _listed(node.get("contents"))
                if isinstance(c, dict)
            ]
        message: dict[str, Any] = {"role": node.get("role"), "content": content}
        calls = []
        for c in _listed(node.get("tool_calls")):
            call = c.get("tool_call") if isinstance(c, dict) else None
            if isinstance(call, dict):
                function = call.get("function") if isinstance(call.get("function"), dict) else {}
                calls.append({"id": call.get("id"), "function": function})
        if calls:
            message["tool_calls"] = calls
        if node.get("tool_call_id") is not None:
            message["tool_call_id"] = node["tool_call_id"]
        if (parts := parts_of_chat(message)) is not None:
            out.append(parts)
    return out


_EVENT_ROLES = {
    "gen_ai.system.message": "system",
    "gen_ai.user.message": "user",
    "gen_ai.assistant.message": "assistant",
    "gen_ai.tool.message": "tool",
}


def _events(span: Span) -> tuple[str, Any, Any, str | None, Any]:
    """Read the older conventions' span events."""
    history: list[Any] = []
    output: list[Any] = []
    for name, attributes in span.events:
        if name == "gen_ai.content.prompt":
            prompt = loads(attributes.get("gen_ai.prompt"))
            history += [p for m in prompt or [] if (p := parts_of_chat(m))]
        elif name == "gen_ai.content.completion":
            completion = loads(attributes.get("gen_ai.completion"))
            output += [p for m in completion or [] if (p := parts_of_chat(m))]
        elif name in _EVENT_ROLES:
            message = {k: loads(v) if k == "tool_calls" else v for k, v in attributes.items()}
            message.setdefault("role", _EVENT_ROLES[name])
            if (parts := parts_of_chat(message)) is not None:
                history.append(parts)
        elif name == "gen_ai.choice":
            message = loads(attributes.get("message"))
            if not isinstance(message, dict):
                message = {"role": "assistant", "content": attributes.get("content")}
                calls = loads(attributes.get("tool_calls"))
                if isinstance(calls, list):
                    message["tool_calls"] = calls
            message.setdefault("role", "assistant")
            if (parts := parts_of_chat(message)) is not None:
                reason = attributes.get("finish_reason")
                if isinstance(reason, str):
                    parts["finish_reason"] = reason
                output.append(parts)
    return (
        "span events (gen_ai.*.message)",
        history or None,
        output or None,
        None,
        None,
    )


def _finish_reason(attributes: dict[str, Any], output: Any) -> str | None:
    reasons = attributes.get("gen_ai.response.finish_reasons")
    if isinstance(reasons, list) and reasons and isinstance(reasons[0], str):
        return reasons[0]
    for item in output if isinstance(output, list) else []:
        if isinstance(item, dict) and isinstance(item.get("finish_reason"), str):
            return str(item["finish_reason"])
    return None


def _usage(attributes: dict[str, Any]) -> Usage | None:
    def count(*names: str) -> int | None:
        for name in names:
            value = attributes.get(name)
            if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
                return value
        return None

    usage = Usage(
        input_tokens=count(
            "gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens", "llm.token_count.prompt"
        ),
        output_tokens=count(
            "gen_ai.usage.output_tokens",
            "gen_ai.usage.completion_tokens",
            "llm.token_count.completion",
        ),
        reasoning_tokens=count(
            "gen_ai.usage.reasoning.output_tokens",
            "llm.token_count.completion_details.reasoning",
        ),
        cache_read_tokens=count(
            "gen_ai.usage.cache_read.input_tokens",
            "gen_ai.usage.cache_read_input_tokens",
            "llm.token_count.prompt_details.cache_read",
        ),
        cache_write_tokens=count(
            "gen_ai.usage.cache_creation.input_tokens",
            "gen_ai.usage.cache_write.input_tokens",
            "llm.token_count.prompt_details.cache_write",
        ),
    )
    return usage if usage.model_dump(exclude_none=True) else None


def _first_str(attributes: dict[str, Any], *names: str) -> str | None:
    for name in names:
        value = attributes.get(name)
        if isinstance(value, str) and value:
            return value
    return None


# ---------------------------------------------------------------------------------------------
# a tool run


def _run(span: Span) -> Run:
    attributes = span.attributes
    name = _first_str(attributes, "gen_ai.tool.name", "tool.name", "traceloop.entity.name")
    arguments = attributes.get("gen_ai.tool.call.arguments", attributes.get("input.value"))
    parsed = loads(arguments)
    result = attributes.get("gen_ai.tool.call.result", attributes.get("output.value"))
    run = Run(
        call_id=_first_str(attributes, "gen_ai.tool.call.id", "tool_call.id"),
        name=name or span.name.removeprefix("execute_tool ").strip() or "?",
        arguments=parsed if isinstance(parsed, dict) else arguments,
        result=result if isinstance(result, str) or result is None else text_of(result),
        duration_ms=max(0, span.end_ns - span.start_ns) / 1_000_000,
        start_ns=span.start_ns,
    )
    if span.error is not None:
        run.is_error = True
        run.error = span.error or _first_str(attributes, "error.type") or "tool_error"
    return run


# ---------------------------------------------------------------------------------------------
# conversations spread over traces


def _joined(found: list[Conversation]) -> list[Conversation]:
    """Join a conversation to an earlier one when its first call's history continues that one's
    last call (its history, then its answer)."""
    kept: list[Conversation] = []
    for conversation in sorted(found, key=lambda c: c.started_ns):
        before = next((k for k in kept if _continues(k.calls[-1], conversation.calls[0])), None)
        if before is None:
            kept.append(conversation)
            continue
        before.calls += conversation.calls
        before.runs += conversation.runs
        before.notes += conversation.notes
        before.finished_ns = max(before.finished_ns, conversation.finished_ns)
        if conversation.source not in before.source.split(", "):
            before.source += ", " + conversation.source
    return [c for c in found if any(c is k for k in kept)]


def _continues(last: Call, first: Call) -> bool:
    if last.request is None or last.response is None or first.request is None:
        return False
    said = [*last.request.messages, Message(role="assistant", content=last.response.content)]
    history = first.request.messages
    if len(history) <= len(said):
        return False
    return [_gist(m) for m in said] == [_gist(m) for m in history[: len(said)]]


def _gist(message: Message) -> tuple[Any, ...]:
    """What two records of one message share, whoever wrote them: its role, text and calls."""
    texts = "".join(b.text for b in message.content if isinstance(b, TextBlock)).strip()
    calls = tuple((b.id, b.name) for b in message.content if isinstance(b, ToolUseBlock)) + tuple(
        b.tool_use_id for b in message.content if isinstance(b, ToolResultBlock)
    )
    return message.role, texts, calls


def fill_ids(conversation: Conversation) -> None:
    """Give calls and results without ids their own, and say so."""
    for number, call in enumerate(conversation.calls, start=1):
        missing = False
        history: list[Message] = []
        if call.request is not None:
            history = call.request.messages
            missing = fill_call_ids(history)
        if call.response is not None:
            answer = Message(role="assistant", content=call.response.content)
            missing = fill_call_ids([answer], len(history)) or missing
        if missing:
            conversation.notes.append(
                Msg(
                    "step {step}: a tool call or result without an id: fc gave it one",
                    step=number,
                )
            )
