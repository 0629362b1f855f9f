"""The fake provider's OpenAI Responses API (`POST /responses`, `/v1/responses`), beside its chat
and Anthropic formats in tests/support/fake_provider.py; stdlib only, as that module.

The same deterministic model answers (the request's items are read as the chat history they
mean), in Responses' own shapes: a flat list of output items, `function_call` items with an
`fc_…` id beside the `call_id`, and for a reasoning model (`o…`, `gpt-5…`, `deepseek…`, unless
`reasoning.effort` is `"none"`) a `reasoning` item first. Its `encrypted_content` is given only
when `include` asks for it, and must come back unchanged, right before the calls it led to.

A history that breaks the API's rules is answered 400 with OpenAI's own sentences (the public
threads cited in fccli/wire/responses/format.py; those not on record say so beside them). The
stream cuts its text and arguments in pieces of random sizes (seeded by the answer, so the same
question gives the same bytes).
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from typing import Any

from tests.support.fake_provider import (
    _CUT,
    CREATED,
    FakeProvider,
    _dumps,
    _hid,
    _keep_alive,
    _prompt_tokens,
    _Reply,
    _seed,
    _tokens,
)

PATHS = frozenset({"/responses", "/v1/responses"})
ENCRYPTED = "reasoning.encrypted_content"
_REASONING_MODEL = re.compile(r"^(o\d|gpt-5(?!-chat)|deepseek)")
STREAM_ERROR = (
    'event: error\ndata: {"type": "error", "code": "server_error", "message": "An error '
    'occurred while processing your request.", "param": null, "sequence_number": 999}\n\n'
)
NOT_JSON = (
    "We could not parse the JSON body of your request. (HINT: This likely means you aren't "
    "using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was "
    "sent was not valid JSON.)"
)


def reasons(request: dict[str, Any]) -> bool:
    """A reasoning model, not told to skip it."""
    settings = request.get("reasoning")
    effort = settings.get("effort") if isinstance(settings, dict) else None
    return bool(_REASONING_MODEL.match(str(request.get("model", "")))) and effort != "none"


def _encrypted(reasoning_id: str) -> str:
    """The opaque blob the fake gives a reasoning item, and checks when it comes back."""
    digest = hashlib.sha256(f"enc:{reasoning_id}".encode()).hexdigest()
    return "gAAAAB" + digest * 2


def _items(request: dict[str, Any]) -> list[Any]:
    raw = request.get("input")
    if isinstance(raw, str):
        return [{"role": "user", "content": raw}]
    return raw if isinstance(raw, list) else []


# ---------------------------------------------------------------------------------------------
# the API's rules on a request


def problem(request: dict[str, Any]) -> str | None:
    """The 400 message for a request the API refuses, or None."""
    if "model" not in request:
        return "Missing required parameter: 'model'."
    includes = request.get("include") or []
    if ENCRYPTED in includes and not reasons(request):
        # OpenAI's answer for a model that does not reason (ShishirPatil/gorilla#1148).
        return "Encrypted content is not supported with this model."
    items = _items(request)
    for k, item in enumerate(items):
        if not isinstance(item, dict):
            return f"Invalid type for 'input[{k}]': expected an object, but got {type(item).__name__} instead."
        if item.get("type") == "function_call" and not isinstance(item.get("arguments"), str):
            return f"Invalid type for 'input[{k}].arguments': expected a string, but got an object instead."
    made: set[str] = set()
    answered: set[str] = set()
    for k, item in enumerate(items):
        kind = item.get("type")
        if kind == "function_call":
            made.add(str(item.get("call_id")))
        elif kind == "function_call_output":
            call_id = str(item.get("call_id"))
            if call_id not in made:
                return f"No tool call found for function call output with call_id {call_id}."
            answered.add(call_id)
        elif kind == "reasoning":
            said = _reasoning_problem(items, k, item, request)
            if said is not None:
                return said
        item_id = item.get("id")
        if kind == "function_call" and isinstance(item_id, str) and item_id.startswith("fc_"):
            # The fake's calls of a reasoning answer name their reasoning item: fc_H... / rs_H.
            wanted = "rs_" + item_id[3:27]
            before = _reasoning_before(items, k)
            if _made_with_reasoning(item_id) and before != wanted:
                return (
                    f"Item '{item_id}' of type 'function_call' was provided without its "
                    f"required 'reasoning' item: '{wanted}'."
                )
    for item in items:
        if item.get("type") == "function_call" and str(item.get("call_id")) not in answered:
            return f"No tool output found for function call {item.get('call_id')}."
    return None


def _reasoning_problem(
    items: list[Any], k: int, item: dict[str, Any], request: dict[str, Any]
) -> str | None:
    rid = str(item.get("id"))
    if "encrypted_content" not in item or item["encrypted_content"] is None:
        if request.get("store") is False:
            # OpenAI's answer, with HTTP 404, to a reasoning item it cannot look up
            # (can1357/oh-my-pi#41, anomalyco/opencode#7724).
            return (
                f"Item with id '{rid}' not found. Items are not persisted when `store` is set to "
                "false. Try again with `store` set to true, or remove this item from your input."
            )
        return None
    if item["encrypted_content"] != _encrypted(rid):
        # Wei-Shaw/sub2api#3138 quotes it with the middle elided ("The encrypted content ...
        # could not be verified."): the item's id there is the fake's guess.
        return (
            f"The encrypted content for item {rid} could not be verified. Reason: Encrypted "
            "content could not be decrypted or parsed."
        )
    following = items[k + 1] if k + 1 < len(items) else None
    if not isinstance(following, dict) or following.get("type") == "function_call_output":
        return f"Item '{rid}' of type 'reasoning' was provided without its required following item."
    return None


def _reasoning_before(items: list[Any], k: int) -> str | None:
    """The id of the reasoning item leading the run of calls `items[k]` stands in."""
    j = k - 1
    while j >= 0 and isinstance(items[j], dict) and items[j].get("type") == "function_call":
        j -= 1
    if j >= 0 and isinstance(items[j], dict) and items[j].get("type") == "reasoning":
        return str(items[j].get("id"))
    return None


def _made_with_reasoning(item_id: str) -> bool:
    # The fake marks the calls of a reasoning answer: their id ends in "r".
    return item_id.endswith("r")


def status(message: str) -> int:
    """The HTTP status OpenAI answers `problem()`'s message with: 404 for an item it cannot find."""
    return 404 if message.startswith("Item with id") else 400


# ---------------------------------------------------------------------------------------------
# the request as the chat history it means (what tests/support/fake_provider.py's model reads)


def as_chat(request: dict[str, Any]) -> dict[str, Any]:
    """The chat request this Responses request means: an output marked as an error stays marked,
    so the model reads it as fc means it."""
    messages: list[dict[str, Any]] = []
    for item in _items(request):
        if not isinstance(item, dict):
            continue
        kind = item.get("type", "message")
        if kind == "message":
            content = item.get("content")
            if isinstance(content, list):
                content = "".join(
                    str(p.get("text") or p.get("refusal") or "")
                    for p in content
                    if isinstance(p, dict)
                )
            messages.append({"role": item.get("role"), "content": content})
        elif kind == "function_call":
            call = {
                "id": item.get("call_id"),
                "type": "function",
                "function": {"name": item.get("name"), "arguments": item.get("arguments")},
            }
            last = messages[-1] if messages else None
            if last is not None and last.get("role") == "assistant" and "tool_calls" in last:
                last["tool_calls"].append(call)
            else:
                messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        elif kind == "function_call_output":
            output = item.get("output")
            messages.append(
                {
                    "role": "tool",
                    "tool_call_id": item.get("call_id"),
                    "content": output if isinstance(output, str) else json.dumps(output),
                }
            )
    tools = [
        {
            "type": "function",
            "function": {
                "name": t.get("name"),
                "description": t.get("description"),
                "parameters": t.get("parameters"),
            },
        }
        for t in request.get("tools") or []
        if isinstance(t, dict) and t.get("type") == "function"
    ]
    choice = request.get("tool_choice")
    if isinstance(choice, dict) and choice.get("type") == "function":
        choice = {"type": "function", "function": {"name": choice.get("name")}}
    elif isinstance(choice, dict) and choice.get("type") == "allowed_tools":
        choice = choice.get("mode")
    chat: dict[str, Any] = {"model": request.get("model"), "messages": messages, "tools": tools}
    if choice is not None:
        chat["tool_choice"] = choice
    if request.get("parallel_tool_calls") is not None:
        chat["parallel_tool_calls"] = request["parallel_tool_calls"]
    chat["thinking"] = {"type": "enabled" if reasons(request) else "disabled"}
    return chat


# ---------------------------------------------------------------------------------------------
# the answer


def response(request: dict[str, Any], reply: _Reply, cached: int = 0) -> dict[str, Any]:
    seed = _seed(request)
    base = _hid(seed, "resp", 24)
    thinking = reasons(request)
    output: list[dict[str, Any]] = []
    if thinking:
        rid = f"rs_{base}"
        settings = request.get("reasoning")
        summary = isinstance(settings, dict) and settings.get("summary") is not None
        reasoning: dict[str, Any] = {
            "id": rid,
            "type": "reasoning",
            "summary": [{"type": "summary_text", "text": reply.reasoning}] if summary else [],
        }
        if ENCRYPTED in (request.get("include") or []):
            reasoning["encrypted_content"] = _encrypted(rid)
        output.append(reasoning)
    if reply.text and not reply.calls:
        output.append(
            {
                "id": f"msg_{base}",
                "type": "message",
                "status": "completed",
                "content": [{"type": "output_text", "annotations": [], "text": reply.text}],
                "role": "assistant",
            }
        )
    for i, call in enumerate(reply.calls):
        # A reasoning answer's calls end in "r": the fake then wants their reasoning item back.
        item_id = f"fc_{base}{i:02d}{'r' if thinking else 'p'}"
        output.append(
            {
                "id": item_id,
                "type": "function_call",
                "status": "completed",
                "arguments": call.arguments,
                "call_id": f"call_{_hid(seed, f'call{i}')}",
                "name": call.name,
            }
        )
    chat = as_chat(request)
    prompt = _prompt_tokens(chat)
    reasoning_tokens = _tokens(reply.reasoning) if thinking else 0
    written = _tokens(reply.text) + sum(_tokens(c.arguments) for c in reply.calls)
    settings = request.get("reasoning")
    return {
        "id": f"resp_{base}",
        "object": "response",
        "created_at": CREATED,
        "status": "completed",
        "background": False,
        "error": None,
        "incomplete_details": None,
        "instructions": request.get("instructions"),
        "max_output_tokens": request.get("max_output_tokens"),
        "model": request.get("model"),
        "output": output,
        "parallel_tool_calls": request.get("parallel_tool_calls", True),
        "previous_response_id": None,
        "reasoning": {
            "effort": (settings or {}).get("effort", "medium") if thinking else None,
            "summary": (settings or {}).get("summary") if thinking else None,
        },
        "store": request.get("store", True),
        "temperature": 1.0,
        "text": {"format": {"type": "text"}},
        "tool_choice": request.get("tool_choice", "auto"),
        "tools": request.get("tools") or [],
        "top_p": 1.0,
        "truncation": "disabled",
        "usage": {
            "input_tokens": prompt,
            "input_tokens_details": {"cached_tokens": cached, "cache_write_tokens": 0},
            "output_tokens": written + reasoning_tokens,
            "output_tokens_details": {"reasoning_tokens": reasoning_tokens},
            "total_tokens": prompt + written + reasoning_tokens,
        },
        "user": None,
        "metadata": {},
    }


# ---------------------------------------------------------------------------------------------
# the stream: built from the answer, so it assembles to exactly that


def events(answer: dict[str, Any], fp: FakeProvider) -> list[Any]:
    quirks = fp.stream_quirks
    rng = random.Random(answer["id"])
    numbered: list[Any] = []

    def event(kind: str, **data: Any) -> None:
        numbered.append({"type": kind, **data})

    def pieces(text: str, size: int) -> list[str]:
        out, at = [], 0
        while at < len(text):
            step = rng.randint(1, max(1, 2 * size))
            out.append(text[at : at + step])
            at += step
        return out

    start = {**answer, "status": "in_progress", "output": [], "usage": None}
    event("response.created", response=start)
    event("response.in_progress", response=start)
    calls = [n for n, item in enumerate(answer["output"]) if item["type"] == "function_call"]
    cut_at = calls[0] if calls else len(answer["output"]) - 1
    for n, item in enumerate(answer["output"]):
        kind = item["type"]
        cut_here = n == cut_at
        if kind == "function_call":
            event(
                "response.output_item.added",
                output_index=n,
                item={**item, "arguments": "", "status": "in_progress"},
            )
            parts = pieces(item["arguments"], fp.fragment_size)
            for k, part in enumerate(parts):
                if cut_here and k == max(1, len(parts) // 2):
                    numbered.append(_CUT)
                event(
                    "response.function_call_arguments.delta",
                    item_id=item["id"],
                    output_index=n,
                    delta=part,
                )
            event(
                "response.function_call_arguments.done",
                item_id=item["id"],
                output_index=n,
                name=item["name"],
                arguments=item["arguments"],
            )
        elif kind == "message":
            event(
                "response.output_item.added",
                output_index=n,
                item={**item, "content": [], "status": "in_progress"},
            )
            text = item["content"][0]["text"]
            empty = {"type": "output_text", "annotations": [], "text": ""}
            event(
                "response.content_part.added",
                item_id=item["id"],
                output_index=n,
                content_index=0,
                part=empty,
            )
            parts = pieces(text, fp.text_fragment_size)
            for k, part in enumerate(parts):
                if cut_here and k == max(1, len(parts) // 2):
                    numbered.append(_CUT)
                event(
                    "response.output_text.delta",
                    item_id=item["id"],
                    output_index=n,
                    content_index=0,
                    delta=part,
                    logprobs=[],
                )
            event(
                "response.output_text.done",
                item_id=item["id"],
                output_index=n,
                content_index=0,
                text=text,
                logprobs=[],
            )
        else:  # reasoning: its encrypted content, the added copy cut short (the SDK warns)
            head = dict(item)
            if "encrypted_content" in head:
                head["encrypted_content"] = head["encrypted_content"][:12]
            event("response.output_item.added", output_index=n, item=head)
            for s, part in enumerate(item.get("summary") or []):
                for piece in pieces(part["text"], fp.text_fragment_size):
                    event(
                        "response.reasoning_summary_text.delta",
                        item_id=item["id"],
                        output_index=n,
                        summary_index=s,
                        delta=piece,
                    )
        if cut_here and numbered[-1] is not _CUT and _CUT not in numbered:
            numbered.append(_CUT)
        event("response.output_item.done", output_index=n, item=item)
    if "no_done" not in quirks:
        event("response.completed", response=answer)
    out: list[Any] = []
    sequence = 0
    for obj in numbered:
        if obj is _CUT:
            out.append(obj)
            continue
        obj["sequence_number"] = sequence
        sequence += 1
        out.append(f"event: {obj['type']}\ndata: {_dumps(obj)}\n\n")
    return _keep_alive(out, quirks)
