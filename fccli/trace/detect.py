"""Which format a JSON document is in, read from its content (not its file name).

Chat (DeepSeek, OpenAI) is easy to tell: `choices`, `tool_calls`, `role: "tool"`, tools of
`type: "function"`. Anthropic and fc's internal format are near twins (fc's blocks were modelled
on Anthropic's), so they are told apart by the fields only one of them has; when a document
has none of those (a bare question), both read it the same, and the file name, when given,
breaks the tie, else it is taken as internal.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Kind = Literal["request", "response", "messages"]


@dataclass(frozen=True)
class Detected:
    format: str
    """internal, deepseek, openai or anthropic"""
    kind: Kind
    reason: str
    """What gave it away, for a learner (and for `--format` when it guessed wrong)."""


class Unrecognised(ValueError):
    """Not a request, a response or a messages array of any format fc knows."""


class TraceManifest(Unrecognised):
    """A trace's manifest.json: not a request or a response, but the trace's own record."""


def is_manifest(doc: Any) -> bool:
    """A trace's manifest.json (fccli/trace/writer.py writes `schema_version`, `fc_version`, `steps`...)."""
    return (
        isinstance(doc, dict)
        and "schema_version" in doc
        and ("fc_version" in doc or isinstance(doc.get("steps"), list))
        and not isinstance(doc.get("messages"), list)
        and "choices" not in doc
    )


def error_body(doc: Any) -> str | None:
    """The provider's own sentence when `doc` is a provider's error body (`{"error": {...}}` of
    OpenAI and DeepSeek, Anthropic's `{"type": "error", "error": {...}}`); "" for an error body
    that says nothing; None when `doc` is not an error body."""
    if not isinstance(doc, dict) or is_manifest(doc):
        return None
    if any(k in doc for k in ("choices", "messages", "content", "stop_reason")):
        return None
    error = doc.get("error")
    if not (doc.get("type") == "error" or isinstance(error, (dict, str))):
        return None  # a manifest's `"error": null` is no error body
    candidates = [error.get("message") if isinstance(error, dict) else error]
    candidates += [doc.get("message"), doc.get("detail")]
    for value in candidates:
        if isinstance(value, str) and value.strip():
            return " ".join(value.split())
    kind = error.get("type") if isinstance(error, dict) else None
    return kind if isinstance(kind, str) else ""


def detect(doc: Any, name_hint: str | None = None) -> Detected:
    if isinstance(doc, list):
        return _detect_messages(doc, name_hint)
    if not isinstance(doc, dict):
        raise Unrecognised("expected a JSON object (a request or a response) or a messages array")
    if "choices" in doc:
        if any("delta" in c and "message" not in c for c in _dicts(doc.get("choices"))):
            raise Unrecognised(
                "this is one chunk of a stream (`choices[0].delta`), not a whole response"
            )
        flavour = _chat_flavour(doc, _choice_messages(doc), name_hint)
        return Detected(flavour, "response", "it has `choices`")
    if isinstance(doc.get("messages"), list):
        return _detect_request(doc, doc["messages"], name_hint)
    if isinstance(doc.get("content"), list) and "stop_reason" in doc:
        if doc.get("type") == "message":
            return Detected("anthropic", "response", 'it has `"type": "message"`')
        return _blocks_format(
            _anthropic_response_sign(doc) or _anthropic_messages_sign([doc]),
            _internal_messages_sign([doc]) or _internal_usage_sign(doc),
            "response",
            name_hint,
        )
    if doc.get("type") in _ANTHROPIC_STREAM_EVENTS:
        raise Unrecognised(
            f"this is one event of an Anthropic stream (`{doc['type']}`), not a whole response"
        )
    if is_manifest(doc):
        raise TraceManifest("this is a trace's manifest; give a request or response file")
    said = error_body(doc)
    if said is not None:
        raise Unrecognised(
            "this is a provider's error body, not a request or a response"
            + (f": {said}" if said else "")
        )
    raise Unrecognised(
        "neither a request (no `messages`) nor a response (no `choices`, no `content` with `stop_reason`)"
    )


_ANTHROPIC_STREAM_EVENTS = (
    "message_start",
    "message_delta",
    "message_stop",
    "content_block_start",
    "content_block_delta",
    "content_block_stop",
    "ping",
)
_CHAT_ONLY_KEYS = (
    "max_completion_tokens",
    "stream_options",
    "response_format",
    "frequency_penalty",
    "presence_penalty",
    "logprobs",
    "top_logprobs",
    "seed",
    "n",
)
"""Request fields of the chat format that neither Anthropic nor the internal format has."""
_ANTHROPIC_ONLY_KEYS = ("stop_sequences", "top_k")


def _detect_request(doc: dict[str, Any], messages: list[Any], name_hint: str | None) -> Detected:
    chat_sign = _chat_request_sign(doc) or _chat_messages_sign(messages)
    if chat_sign:
        return Detected(_chat_flavour(doc, messages, name_hint), "request", chat_sign)
    anthropic_sign = _anthropic_request_sign(doc) or _anthropic_messages_sign(messages)
    internal_sign = _internal_request_sign(doc) or _internal_messages_sign(messages)
    if not (anthropic_sign or internal_sign):
        # Nothing in the messages tells: a bare question reads the same in every format.
        # The request's other fields, the model's name and the file name still may.
        quiet = _quiet_request_sign(doc, messages, name_hint)
        if quiet is not None:
            return Detected(quiet[0], "request", quiet[1])
    return _blocks_format(anthropic_sign, internal_sign, "request", name_hint)


def _quiet_request_sign(
    doc: dict[str, Any], messages: list[Any], name_hint: str | None
) -> tuple[str, str] | None:
    """(format, reason) for a request whose messages carry no sign of any format."""
    model = doc["model"] if isinstance(doc.get("model"), str) else ""
    thinking = doc.get("thinking")
    if isinstance(thinking, dict) and "max_tokens" not in doc:
        # DeepSeek's switch has Anthropic's shape, but Anthropic requires max_tokens.
        return (
            "deepseek",
            'thinking is `{"type": ...}` and there is no max_tokens (DeepSeek\'s switch)',
        )
    hinted = _hinted_format(name_hint)
    if hinted is not None:
        return hinted, f"nothing in it tells; the file name says {hinted}"
    if model.startswith("claude"):
        return "anthropic", "nothing else tells; the model is a Claude model"
    only_strings = all(isinstance(m.get("content"), str) for m in _dicts(messages))
    if only_strings and model.startswith("deepseek"):
        return "deepseek", "plain-string messages, and the model is a DeepSeek model"
    return None


def _hinted_format(name_hint: str | None) -> str | None:
    if not name_hint:
        return None
    for name in ("deepseek", "openai", "anthropic"):
        if f".{name}." in name_hint:
            return name
    return None


def _detect_messages(messages: list[Any], name_hint: str | None) -> Detected:
    if not all(isinstance(m, dict) and "role" in m for m in messages):
        raise Unrecognised("a JSON array, but not of messages (objects with a `role`)")
    sign = _chat_messages_sign(messages)
    if sign:
        return Detected(_chat_flavour({}, messages, name_hint), "messages", sign)
    hinted = _hinted_format(name_hint)
    if hinted in ("deepseek", "openai"):
        return Detected(hinted, "messages", f"nothing in it tells; the file name says {hinted}")
    return _blocks_format(
        _anthropic_messages_sign(messages), _internal_messages_sign(messages), "messages", name_hint
    )


def _blocks_format(
    anthropic_sign: str | None, internal_sign: str | None, kind: Kind, name_hint: str | None
) -> Detected:
    if anthropic_sign and not internal_sign:
        return Detected("anthropic", kind, anthropic_sign)
    if internal_sign and not anthropic_sign:
        return Detected("internal", kind, internal_sign)
    if _hinted_format(name_hint) == "anthropic":
        return Detected("anthropic", kind, "nothing in it tells; the file name says anthropic")
    return Detected("internal", kind, "nothing Anthropic- or chat-only in it")


def _dicts(items: Any) -> list[dict[str, Any]]:
    return [x for x in items if isinstance(x, dict)] if isinstance(items, list) else []


def _blocks(messages: list[Any]) -> list[dict[str, Any]]:
    return [b for m in _dicts(messages) for b in _dicts(m.get("content"))]


def _choice_messages(doc: dict[str, Any]) -> list[Any]:
    return [c.get("message") for c in _dicts(doc.get("choices"))]


def _chat_request_sign(doc: dict[str, Any]) -> str | None:
    if any(t.get("type") == "function" for t in _dicts(doc.get("tools"))):
        return 'its tools are `{"type": "function", ...}`'
    for key in _CHAT_ONLY_KEYS:
        if key in doc:
            return f"it has `{key}`, a chat-completions field"
    choice = doc.get("tool_choice")
    if choice == "required" or (isinstance(choice, dict) and "function" in choice):
        return "its tool_choice is in the chat shape"
    return None


def _chat_messages_sign(messages: list[Any]) -> str | None:
    for m in _dicts(messages):
        if m.get("role") in ("tool", "system", "developer"):
            return f'a message has `"role": "{m["role"]}"`'
        if "tool_calls" in m or "tool_call_id" in m:
            return "a message has `tool_calls`"
        if "reasoning_content" in m:
            return "a message has `reasoning_content`"
    return None


def _chat_flavour(doc: dict[str, Any], messages: list[Any], name_hint: str | None) -> str:
    """DeepSeek's chat is OpenAI's plus reasoning; without a sign of either, the file name
    decides, else OpenAI (the plain form)."""
    model = doc.get("model")
    if isinstance(model, str) and model.startswith("deepseek"):
        return "deepseek"
    if "thinking" in doc or any("reasoning_content" in m for m in _dicts(messages)):
        return "deepseek"
    if name_hint and ".deepseek." in name_hint:
        return "deepseek"
    return "openai"


def _anthropic_request_sign(doc: dict[str, Any]) -> str | None:
    choice = doc.get("tool_choice")
    if isinstance(choice, dict) and (
        choice.get("type") == "any" or "disable_parallel_tool_use" in choice
    ):
        return "its tool_choice is in Anthropic's shape"
    thinking = doc.get("thinking")
    if isinstance(thinking, dict) and (
        "budget_tokens" in thinking or thinking.get("type") == "adaptive"
    ):
        # Only a budget (or adaptive) is Anthropic's own: DeepSeek's switch is
        # `{"type": "enabled" | "disabled"}` too.
        return "thinking has Anthropic's budget_tokens"
    for key in _ANTHROPIC_ONLY_KEYS:
        if key in doc:
            return f"it has `{key}`, an Anthropic field"
    if isinstance(doc.get("system"), list):
        return "the system prompt is an array of blocks"
    return None


def _anthropic_messages_sign(messages: list[Any]) -> str | None:
    for block in _blocks(messages):
        kind = block.get("type")
        if kind == "tool_result" and (
            "is_error" not in block or not isinstance(block.get("content"), str)
        ):
            return "a tool_result without fc's `is_error` field, or with blocks as content"
        if kind in ("redacted_thinking", "image", "document", "server_tool_use"):
            return f"a `{kind}` block"
    return None


def _anthropic_response_sign(doc: dict[str, Any]) -> str | None:
    if "stop_sequence" in doc:
        return "it has `stop_sequence`, as every Anthropic message does"
    usage = doc.get("usage")
    if isinstance(usage, dict) and any(k.startswith("cache_") for k in usage):
        return "its usage counts Anthropic's cache tokens"
    return None


def _internal_request_sign(doc: dict[str, Any]) -> str | None:
    if isinstance(doc.get("thinking"), bool):
        return "thinking is true or false"
    if "parallel_tool_calls" in doc:
        return "it has `parallel_tool_calls` beside content blocks"
    choice = doc.get("tool_choice")
    if isinstance(choice, dict) and choice.get("type") == "required":
        return 'its tool_choice is `{"type": "required"}`'
    return None


def _internal_messages_sign(messages: list[Any]) -> str | None:
    for block in _blocks(messages):
        if block.get("type") == "tool_result" and block.get("is_error") is False:
            return "a tool_result says `is_error: false`, as fc's internal format writes it"
        if block.get("type") == "tool_use" and "raw_arguments" in block:
            return "a tool_use keeps `raw_arguments`"
    return None


def _internal_usage_sign(doc: dict[str, Any]) -> str | None:
    usage = doc.get("usage")
    if isinstance(usage, dict) and "reasoning_tokens" in usage:
        return "its usage counts `reasoning_tokens`"
    return None
