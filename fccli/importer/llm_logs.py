"""`llm logs --json` of simonw/llm into conversations.

The output is a JSON array of responses, oldest first, each with its `conversation_id`,
`prompt`, `system`, `response`, token counts, `datetime_utc` and `duration_ms`; since llm 0.26,
its `tools` (name, description, input_schema), `tool_calls` (name, arguments, tool_call_id) and
`tool_results` (the results sent with this prompt: name, output, tool_call_id, exception).
llm keeps no request body: each step's history is rebuilt from the responses before it.
"""

from __future__ import annotations

import json
from collections import defaultdict
from datetime import datetime, timezone
from typing import Any

from fccli.core.models import (
    Message,
    Request,
    Response,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    Usage,
)
from fccli.i18n import Msg
from fccli.importer.messages import STOP_REASONS, loads, tool_specs
from fccli.importer.model import Call, Conversation, Run
from fccli.providers.otel_names import profile_of_model

SOURCE = "llm logs --json"
_KEYS = frozenset({"conversation_id", "prompt", "response", "model"})


def is_llm_logs(doc: Any) -> bool:
    """Tell whether a JSON document is `llm logs --json` output: an array of responses."""
    return (
        isinstance(doc, list)
        and bool(doc)
        and all(isinstance(r, dict) and r.keys() >= _KEYS for r in doc)
    )


def conversations(doc: list[dict[str, Any]]) -> list[Conversation]:
    grouped: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in doc:
        grouped[str(row.get("conversation_id") or row.get("id") or "")].append(row)
    out = [_conversation(key, rows) for key, rows in grouped.items()]
    out.sort(key=lambda c: c.started_ns)
    return out


def _conversation(key: str, rows: list[dict[str, Any]]) -> Conversation:
    rows = sorted(rows, key=lambda r: (str(r.get("datetime_utc") or ""), str(r.get("id") or "")))
    out = Conversation(source=SOURCE, key=key)
    out.provider = _provider(rows)
    history: list[Message] = []
    notes: set[str] = set()
    for number, row in enumerate(rows, start=1):
        turn: list[Any] = []
        for result in row.get("tool_results") or []:
            if isinstance(result, dict):
                exception = result.get("exception")
                turn.append(
                    ToolResultBlock(
                        tool_use_id=str(result.get("tool_call_id") or ""),
                        content=_text(exception if exception else result.get("output")),
                        is_error=bool(exception),
                    )
                )
                _result_of(out.runs, result)
        prompt = row.get("prompt")
        if isinstance(prompt, str) and prompt:
            turn.append(TextBlock(text=prompt))
        if turn:
            history.append(Message(role="user", content=turn))
        start = _ns(row.get("datetime_utc"))
        duration = row.get("duration_ms")
        took = duration if isinstance(duration, int | float) and duration >= 0 else 0
        call = Call(start_ns=start, end_ns=start + int(took * 1_000_000), provider=out.provider)
        data: dict[str, Any] = (
            row["response_json"] if isinstance(row.get("response_json"), dict) else {}
        )
        model = _str(row.get("resolved_model")) or _str(data.get("model")) or _str(row["model"])
        tools = row.get("tools") or []
        system = row.get("system")
        call.request = Request(
            model=model or "",
            system=system if isinstance(system, str) and system else None,
            messages=list(history),
            tools=tool_specs(tools),
        )
        content: list[Any] = []
        reasoning = row.get("reasoning")
        if isinstance(reasoning, str) and reasoning:
            content.append(ThinkingBlock(thinking=reasoning))
        text = row.get("response")
        if isinstance(text, str) and text:
            content.append(TextBlock(text=text))
        for tool_call in row.get("tool_calls") or []:
            if not isinstance(tool_call, dict):
                continue
            arguments = loads(tool_call.get("arguments"))
            call_id = str(tool_call.get("tool_call_id") or "")
            name = str(tool_call.get("name") or "")
            content.append(
                ToolUseBlock(
                    id=call_id,
                    name=name,
                    input=arguments if isinstance(arguments, dict) else {},
                )
            )
            out.runs.append(Run(call_id=call_id or None, name=name, arguments=arguments))
        finish = _str(data.get("finish_reason")) or _str(data.get("stop_reason"))
        calls = any(isinstance(b, ToolUseBlock) for b in content)
        stop = STOP_REASONS.get(finish or "", "tool_use" if calls else "end_turn")
        call.wire_stop_reason = finish
        call.response = Response(
            id=_str(data.get("id")) or _str(row.get("id")),
            model=_str(data.get("model")),
            content=content,
            stop_reason=stop,
            usage=_usage(row),
        )
        history.append(Message(role="assistant", content=content))
        out.calls.append(call)
        if not isinstance(row.get("tool_calls"), list):
            notes.add("tools")
        if number == 1:
            out.started_ns = start
        out.finished_ns = max(out.finished_ns, call.end_ns)
    out.notes.append(
        Msg(
            "llm keeps no request body: each step's history is rebuilt from the responses before it"
        )
    )
    if "tools" in notes:
        out.notes.append(
            Msg("these logs have no tool_calls or tool_results (llm before 0.26): no tool runs")
        )
    return out


def _result_of(runs: list[Run], result: dict[str, Any]) -> None:
    """Put a result on the run of the call it answers."""
    call_id = result.get("tool_call_id")
    run = next((r for r in runs if r.call_id == call_id and r.result is None), None)
    if run is None:
        return
    exception = result.get("exception")
    run.result = _text(result.get("output"))
    if exception:
        run.is_error = True
        run.error = _text(exception)


def _provider(rows: list[dict[str, Any]]) -> str | None:
    """Guess the provider from the model's name: llm's logs do not say which plugin served it."""
    profile = profile_of_model(str(rows[0].get("resolved_model") or rows[0].get("model") or ""))
    return (profile.otel_name or profile.name) if profile is not None else None


def _usage(row: dict[str, Any]) -> Usage | None:
    counts = {
        "input_tokens": row.get("input_tokens"),
        "output_tokens": row.get("output_tokens"),
    }
    details = loads(row.get("token_details"))
    if isinstance(details, dict):
        cached = details.get("prompt_tokens_details")
        if isinstance(cached, dict):
            counts["cache_read_tokens"] = cached.get("cached_tokens")
        elif isinstance(details.get("cache_read_input_tokens"), int):
            counts["cache_read_tokens"] = details["cache_read_input_tokens"]
    kept = {k: v for k, v in counts.items() if isinstance(v, int) and not isinstance(v, bool)}
    return Usage(**kept) if kept else None


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    return json.dumps(value, ensure_ascii=False)


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _ns(value: Any) -> int:
    if not isinstance(value, str):
        return 0
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return 0
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    return int(moment.timestamp() * 1_000_000) * 1000
