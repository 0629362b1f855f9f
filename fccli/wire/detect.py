"""Which format a JSON document is in, read from its content (not its file name).

Chat (DeepSeek, OpenAI) is easy to tell: `choices`, `tool_calls`, `role: "tool"`, tools of
`type: "function"`. Anthropic and fc's internal format are near twins (fc's blocks were modelled
on Anthropic's), so they are told apart by the fields only one of them has; when a document
has none of those (a bare question), both read it the same, and the file name, when given,
breaks the tie, else it is taken as internal.

The formats' names and what betrays each (a dialect's reasoning field and model names, the
blocks format's model names) come from the registry; a format of its own layout recognises
itself (WireFormat.detect), asked before the two families are told apart.
"""

from __future__ import annotations

from typing import Any

from fccli.i18n import Msg
from fccli.wire.base import Detected, Kind
from fccli.wire.chat.format import ChatFormat
from fccli.wire.registry import FORMATS, INTERNAL, family, hinted_format

__all__ = ["Detected", "TraceManifest", "Unrecognised", "detect", "error_body", "is_manifest"]


def _chat_formats() -> list[ChatFormat]:
    return [f for f in FORMATS.values() if isinstance(f, ChatFormat)]


def _blocks_name() -> str:
    """Return the wire format whose blocks fc's internal format was modelled on."""
    return next(name for name, f in FORMATS.items() if f.family == "blocks")


class Unrecognised(ValueError):
    """Not a request, a response or a messages array of any format fc knows.

    Its message is a Msg, and `str()` gives it back as one: a caller that passes `str(e)` on
    (as the problem of an InputFileError) keeps it sayable in the chosen language."""

    def __str__(self) -> str:
        message = self.args[0] if len(self.args) == 1 else ""
        return message if isinstance(message, Msg) else super().__str__()


class TraceManifest(Unrecognised):
    """A trace's manifest.json: not a request or a response, but the trace's own record."""


def is_manifest(doc: Any) -> bool:
    """Return whether `doc` is a trace's manifest.json (`schema_version`, `fc_version`, `steps`...)."""
    return (
        isinstance(doc, dict)
        and "schema_version" in doc
        and ("fc_version" in doc or isinstance(doc.get("steps"), list))
        and not isinstance(doc.get("messages"), list)
        and "choices" not in doc
    )


def error_body(doc: Any) -> str | None:
    """Return the provider's own sentence when `doc` is a provider's error body (`{"error": {...}}`
    of OpenAI and DeepSeek, Anthropic's `{"type": "error", "error": {...}}`); "" for an error body
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
    if isinstance(doc, (list, dict)):
        for fmt in FORMATS.values():
            claimed = fmt.detect(doc, name_hint)
            if claimed is not None:
                return claimed
    if isinstance(doc, list):
        return _detect_messages(doc, name_hint)
    if not isinstance(doc, dict):
        raise Unrecognised(
            Msg("expected a JSON object (a request or a response) or a messages array")
        )
    if "choices" in doc:
        if any("delta" in c and "message" not in c for c in _dicts(doc.get("choices"))):
            raise Unrecognised(
                Msg("this is one chunk of a stream (`choices[0].delta`), not a whole response")
            )
        flavour = _chat_flavour(doc, _choice_messages(doc), name_hint)
        return Detected(flavour, "response", Msg("it has `choices`"))
    if isinstance(doc.get("messages"), list):
        return _detect_request(doc, doc["messages"], name_hint)
    if isinstance(doc.get("content"), list) and "stop_reason" in doc:
        if doc.get("type") == "message":
            return Detected(_blocks_name(), "response", Msg('it has `"type": "message"`'))
        return _blocks_format(
            _anthropic_response_sign(doc) or _anthropic_messages_sign([doc]),
            _internal_messages_sign([doc]) or _internal_usage_sign(doc),
            "response",
            name_hint,
        )
    if doc.get("type") in _ANTHROPIC_STREAM_EVENTS:
        raise Unrecognised(
            Msg(
                "this is one event of an Anthropic stream (`{type}`), not a whole response",
                type=doc["type"],
            )
        )
    if is_manifest(doc):
        raise TraceManifest(Msg("this is a trace's manifest; give a request or response file"))
    error = error_body(doc)
    if error is not None:
        raise Unrecognised(
            Msg("this is a provider's error body, not a request or a response: {said}", said=error)
            if error
            else Msg("this is a provider's error body, not a request or a response")
        )
    raise Unrecognised(
        Msg(
            "neither a request (no `messages`) nor a response (no `choices`, no `content` with `stop_reason`)"
        )
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
    "frequency_penalty",
    "presence_penalty",
    "logprobs",
    "top_logprobs",
    "seed",
    "n",
)
"""Request fields of the chat format that neither Anthropic nor the internal format has."""
_ANTHROPIC_ONLY_KEYS = ("stop_sequences", "top_k", "output_config")


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
    switch = next((f for f in _chat_formats() if f.dialect.thinking_param), None)
    if isinstance(thinking, dict) and "max_tokens" not in doc and switch is not None:
        # DeepSeek's switch has Anthropic's shape, but Anthropic requires max_tokens.
        return (
            switch.name,
            Msg(
                'thinking is `{{"type": ...}}` and there is no max_tokens ({format}\'s switch)',
                format=switch.name,
            ),
        )
    hinted = hinted_format(name_hint)
    if hinted is not None:
        return hinted, _named(hinted)
    blocks = _blocks_name()
    if model.startswith(FORMATS[blocks].model_prefixes):
        return blocks, Msg("nothing else tells; the model is a {format} model", format=blocks)
    only_strings = all(isinstance(m.get("content"), str) for m in _dicts(messages))
    for chat in _chat_formats():
        if (
            only_strings
            and chat.dialect.model_prefixes
            and model.startswith(chat.dialect.model_prefixes)
        ):
            return chat.name, Msg(
                "plain-string messages, and the model is a {format} model", format=chat.name
            )
    return None


def _detect_messages(messages: list[Any], name_hint: str | None) -> Detected:
    if not all(isinstance(m, dict) and "role" in m for m in messages):
        raise Unrecognised(Msg("a JSON array, but not of messages (objects with a `role`)"))
    sign = _chat_messages_sign(messages)
    if sign:
        return Detected(_chat_flavour({}, messages, name_hint), "messages", sign)
    hinted = hinted_format(name_hint)
    if hinted is not None and family(hinted) == "chat":
        return Detected(hinted, "messages", _named(hinted))
    return _blocks_format(
        _anthropic_messages_sign(messages), _internal_messages_sign(messages), "messages", name_hint
    )


def _blocks_format(
    anthropic_sign: str | None, internal_sign: str | None, kind: Kind, name_hint: str | None
) -> Detected:
    blocks = _blocks_name()
    if anthropic_sign and not internal_sign:
        return Detected(blocks, kind, anthropic_sign)
    if internal_sign and not anthropic_sign:
        return Detected(INTERNAL, kind, internal_sign)
    hinted = hinted_format(name_hint)
    if hinted is not None and family(hinted) == "blocks":
        return Detected(hinted, kind, _named(hinted))
    return Detected(INTERNAL, kind, Msg("nothing Anthropic- or chat-only in it"))


def _named(hinted: str) -> Msg:
    return Msg("nothing in it tells; the file name says {hinted}", hinted=hinted)


def _dicts(items: Any) -> list[dict[str, Any]]:
    return [x for x in items if isinstance(x, dict)] if isinstance(items, list) else []


def _blocks(messages: list[Any]) -> list[dict[str, Any]]:
    return [b for m in _dicts(messages) for b in _dicts(m.get("content"))]


def _choice_messages(doc: dict[str, Any]) -> list[Any]:
    return [c.get("message") for c in _dicts(doc.get("choices"))]


def _chat_request_sign(doc: dict[str, Any]) -> str | None:
    if any(t.get("type") == "function" for t in _dicts(doc.get("tools"))):
        return Msg('its tools are `{"type": "function", ...}`')
    for key in _CHAT_ONLY_KEYS:
        if key in doc:
            return Msg("it has `{key}`, a chat-completions field", key=key)
    # fc's internal format keeps JSON mode under the same name; chat's messages are strings.
    messages = _dicts(doc.get("messages"))
    if (
        "response_format" in doc
        and messages
        and all(isinstance(m.get("content"), str) for m in messages)
    ):
        return Msg("it has `response_format` and messages of plain text")
    choice = doc.get("tool_choice")
    if choice == "required" or (isinstance(choice, dict) and "function" in choice):
        return Msg("its tool_choice is in the chat shape")
    return None


def _chat_messages_sign(messages: list[Any]) -> str | None:
    for m in _dicts(messages):
        if m.get("role") in ("tool", "system", "developer"):
            return Msg('a message has `"role": "{role}"`', role=m["role"])
        if "tool_calls" in m or "tool_call_id" in m:
            return Msg("a message has `tool_calls`")
        for chat in _chat_formats():
            field = chat.dialect.reasoning_field
            if field and field in m:
                return Msg("a message has `{field}`", field=field)
    return None


def _chat_flavour(doc: dict[str, Any], messages: list[Any], name_hint: str | None) -> str:
    """Return the chat dialect `doc` is in: one with a sign of its own fields (DeepSeek:
    reasoning and a thinking switch), else the one the file name says, else the plain form."""
    model = doc.get("model")
    hinted = hinted_format(name_hint)
    chats = _chat_formats()
    for chat in chats:
        dialect = chat.dialect
        if (
            isinstance(model, str)
            and dialect.model_prefixes
            and model.startswith(dialect.model_prefixes)
        ):
            return chat.name
        if dialect.thinking_param and "thinking" in doc:
            return chat.name
        field = dialect.reasoning_field
        if field and any(field in m for m in _dicts(messages)):
            return chat.name
    if hinted is not None and family(hinted) == "chat":
        return hinted
    plain = [
        c.name for c in chats if c.dialect.reasoning_field is None and not c.dialect.model_prefixes
    ]
    return plain[0] if plain else chats[-1].name


def _anthropic_request_sign(doc: dict[str, Any]) -> str | None:
    choice = doc.get("tool_choice")
    if isinstance(choice, dict) and (
        choice.get("type") == "any" or "disable_parallel_tool_use" in choice
    ):
        return Msg("its tool_choice is in Anthropic's shape")
    thinking = doc.get("thinking")
    if isinstance(thinking, dict) and (
        "budget_tokens" in thinking or thinking.get("type") == "adaptive"
    ):
        # Only a budget (or adaptive) is Anthropic's own: DeepSeek's switch is
        # `{"type": "enabled" | "disabled"}` too.
        return Msg("thinking has Anthropic's budget_tokens")
    for key in _ANTHROPIC_ONLY_KEYS:
        if key in doc:
            return Msg("it has `{key}`, an Anthropic field", key=key)
    if isinstance(doc.get("system"), list):
        return Msg("the system prompt is an array of blocks")
    return None


def _anthropic_messages_sign(messages: list[Any]) -> str | None:
    for block in _blocks(messages):
        kind = block.get("type")
        if kind == "tool_result" and (
            "is_error" not in block or not isinstance(block.get("content"), str)
        ):
            return Msg("a tool_result without fc's `is_error` field, or with blocks as content")
        if kind in ("redacted_thinking", "image", "document", "server_tool_use"):
            return Msg("a `{kind}` block", kind=kind)
    return None


def _anthropic_response_sign(doc: dict[str, Any]) -> str | None:
    if "stop_sequence" in doc:
        return Msg("it has `stop_sequence`, as every Anthropic message does")
    usage = doc.get("usage")
    if isinstance(usage, dict) and any(k.startswith("cache_") for k in usage):
        return Msg("its usage counts Anthropic's cache tokens")
    return None


def _internal_request_sign(doc: dict[str, Any]) -> str | None:
    if isinstance(doc.get("thinking"), bool):
        return Msg("thinking is true or false")
    if "parallel_tool_calls" in doc:
        return Msg("it has `parallel_tool_calls` beside content blocks")
    if "response_format" in doc:
        return Msg("it has `response_format` beside content blocks")
    choice = doc.get("tool_choice")
    if isinstance(choice, dict) and choice.get("type") == "required":
        return Msg('its tool_choice is `{"type": "required"}`')
    return None


def _internal_messages_sign(messages: list[Any]) -> str | None:
    for block in _blocks(messages):
        if block.get("type") == "tool_result" and block.get("is_error") is False:
            return Msg("a tool_result says `is_error: false`, as fc's internal format writes it")
        if block.get("type") == "tool_use" and "raw_arguments" in block:
            return Msg("a tool_use keeps `raw_arguments`")
        if block.get("type") == "provider_block":
            return Msg("a `provider_block` (a provider's block fc keeps verbatim)")
    return None


def _internal_usage_sign(doc: dict[str, Any]) -> str | None:
    usage = doc.get("usage")
    if isinstance(usage, dict) and "reasoning_tokens" in usage:
        return Msg("its usage counts `reasoning_tokens`")
    return None
