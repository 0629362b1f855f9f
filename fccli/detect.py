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


def detect(doc: Any, name_hint: str | None = None) -> Detected:
    if isinstance(doc, list):
        return _detect_messages(doc, name_hint)
    if not isinstance(doc, dict):
        raise Unrecognised("expected a JSON object (a request or a response) or a messages array")
    if "choices" in doc:
        flavour = _chat_flavour(doc, _choice_messages(doc), name_hint)
        return Detected(flavour, "response", "it has `choices`")
    if isinstance(doc.get("messages"), list):
        messages = doc["messages"]
        chat_sign = _chat_request_sign(doc) or _chat_messages_sign(messages)
        if chat_sign:
            return Detected(_chat_flavour(doc, messages, name_hint), "request", chat_sign)
        return _blocks_format(
            _anthropic_request_sign(doc) or _anthropic_messages_sign(messages),
            _internal_request_sign(doc) or _internal_messages_sign(messages),
            "request",
            name_hint,
        )
    if isinstance(doc.get("content"), list) and "stop_reason" in doc:
        if doc.get("type") == "message":
            return Detected("anthropic", "response", 'it has `"type": "message"`')
        return _blocks_format(
            _anthropic_messages_sign([doc]),
            _internal_messages_sign([doc]) or _internal_usage_sign(doc),
            "response",
            name_hint,
        )
    if doc.get("type") == "error" or "error" in doc:
        raise Unrecognised("this is a provider's error body, not a request or a response")
    raise Unrecognised(
        "neither a request (no `messages`) nor a response (no `choices`, no `content` with `stop_reason`)"
    )


def _detect_messages(messages: list[Any], name_hint: str | None) -> Detected:
    sign = _chat_messages_sign(messages)
    if sign:
        return Detected(_chat_flavour({}, messages, name_hint), "messages", sign)
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
    hinted = "anthropic" if name_hint and ".anthropic." in name_hint else None
    if hinted:
        return Detected(hinted, kind, "content blocks; the file name says anthropic")
    return Detected("internal", kind, "content blocks with nothing Anthropic-only in them")


def _dicts(items: Any) -> list[dict[str, Any]]:
    return [x for x in items if isinstance(x, dict)] if isinstance(items, list) else []


def _blocks(messages: list[Any]) -> list[dict[str, Any]]:
    return [b for m in _dicts(messages) for b in _dicts(m.get("content"))]


def _choice_messages(doc: dict[str, Any]) -> list[Any]:
    return [c.get("message") for c in _dicts(doc.get("choices"))]


def _chat_request_sign(doc: dict[str, Any]) -> str | None:
    if any(t.get("type") == "function" for t in _dicts(doc.get("tools"))):
        return 'its tools are `{"type": "function", ...}`'
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
    if isinstance(doc.get("thinking"), dict):
        return "thinking is an object with a type"
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
