"""The chat format as the registry lists it: one WireFormat per dialect (wire/base.py).

The providers' 400 sentences are the ones collected in PROTOCOL.md ("What providers answer when
the history is wrong"); those not in that table name their source beside them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from fccli.core.models import Request, Response
from fccli.core.stream import OnDelta
from fccli.i18n import N_, Msg
from fccli.wire.base import (
    Refusal,
    StreamFolder,
    WireFormat,
    marker_read_notes,
    marker_written_notes,
)
from fccli.wire.chat import codec
from fccli.wire.chat.dialects import ChatDialect
from fccli.wire.chat.stream import ChatStreamFolder
from fccli.wire.chat.view import chat_choice, chat_turn
from fccli.wire.routes import ROUTES, SDK_BASE_URLS
from fccli.wire.view import Choice, OfferedTool, Places, Turn, message_turns, offered_at

_PROVIDERS = Msg("OpenAI and DeepSeek")
_COMPATIBLE = Msg("OpenAI-compatible servers")
NO_RESULT = N_(
    "An assistant message with 'tool_calls' must be followed by tool messages responding to "
    "each 'tool_call_id'. The following tool_call_ids did not have response messages: {ids}"
)
_BAD_ARGUMENTS = N_(
    "messages.{n}.tool_calls.{k}.function.arguments: arguments must be a valid JSON object string"
)
INVALID_SCHEMA: Refusal = ("OpenAI", N_("Invalid schema for function '{name}': {detail}"))
"""Strict mode's refusal (ash-project/ash_ai#155: OpenAI's wording; DeepSeek's beta is not on
record)."""

REFUSALS: dict[str, Refusal] = {
    "FC101": (_PROVIDERS, NO_RESULT),
    "FC102": (
        _PROVIDERS,
        N_("Messages with role 'tool' must be a response to a preceding message with 'tool_calls'"),
    ),
    "FC105": (_PROVIDERS, NO_RESULT),
    # agno-agi/agno#5116 (two tool messages for one id)
    "FC106": (
        "OpenAI",
        N_(
            "Invalid parameter: Duplicate value for 'tool_call_id' of '{ids}', "
            "in messages[{first}] and messages[{n}]."
        ),
    ),
    "FC108": (_COMPATIBLE, _BAD_ARGUMENTS),
    "FC109": (_COMPATIBLE, _BAD_ARGUMENTS),
    "FC115": INVALID_SCHEMA,
}

DEEPSEEK_REFUSALS: dict[str, Refusal] = {
    "FC112": (
        "DeepSeek",
        N_("The `reasoning_content` in the thinking mode must be passed back to the API."),
    ),
    "FC113": (
        "DeepSeek",
        N_(
            "Failed to deserialize the JSON body into the target type: messages[{n}]: "
            "invalid type: {found}, expected a string"
        ),
    ),
    # osaurus-ai/osaurus#1940, deepseek-ai/DeepSeek-V3#1376
    "FC114": ("DeepSeek", N_("Thinking mode does not support this tool_choice")),
}


MISTRAL_REFUSALS: dict[str, Refusal] = {
    # langchain-ai/langchain#24668, jackmpcollins/magentic#276, nearai/ironclaw#1241: HTTP 400
    # from api.mistral.ai for an id another provider made.
    "FC107": (
        "Mistral",
        N_("Tool call id was {ids} but must be a-z, A-Z, 0-9, with a length of 9."),
    ),
}
MISTRAL_ID_RULE = N_("exactly 9 letters or digits")
"""What Mistral's ids must be, in a learner's words (FC107)."""


class ChatFormat(WireFormat):
    """The chat format in one dialect (a plain class, cheaper to create than a dataclass:
    start-up); the registry makes one per dialect and nothing changes it."""

    def __init__(
        self,
        dialect: ChatDialect,
        own_refusals: Mapping[str, Refusal] | None = None,
        id_rule: str = "",
    ) -> None:
        self.dialect = dialect
        self.own_refusals: Mapping[str, Refusal] = own_refusals or {}
        """The dialect's own 400 sentences, beside the chat format's."""
        self.reasoning_field = dialect.reasoning_field
        self.thinking_tool_choices = dialect.thinking_tool_choices
        self.json_word_modes = dialect.json_word_modes
        self.id_pattern = dialect.id_pattern
        self.id_rule = id_rule

    family = "chat"
    appends_messages = True
    stop_field = "finish_reason"
    places = Places(
        stop="$.choices[0].finish_reason",
        answer="$.choices[0].message",
        prompt=("$.tools",),
        json_mode="$.response_format",
    )
    arguments_as_text = True
    system_in_history = True
    placement = "own_messages"
    duplicate_quote = "result"
    results_layout = Msg('one role:"tool" message per result')
    # OpenAI's SDKs put /v1 in the base URL, DeepSeek documents it without; DeepSeek's strict
    # mode is a beta under /beta (api-docs.deepseek.com, guides/function_calling).
    routes = ROUTES["openai"]
    sdk_base_url = SDK_BASE_URLS["openai"]

    @property
    def name(self) -> str:
        return self.dialect.name

    @property
    def holder(self) -> str:
        return f"{self.name} chat"

    @property
    def refusals(self) -> Mapping[str, Refusal]:
        return {**REFUSALS, **dict(self.own_refusals)}

    def read_turns(
        self, messages: list[Any], root: str, start: int, before: list[Turn]
    ) -> list[Turn]:
        return message_turns(messages, root, start, chat_turn)

    def offered_tools(self, doc: dict[str, Any]) -> list[OfferedTool]:
        return offered_at(doc, "parameters", "function")

    def tool_choice(self, doc: dict[str, Any]) -> Choice | None:
        return chat_choice(doc)

    def to_wire_request(self, request: Request) -> dict[str, Any]:
        return codec.to_wire_request(request, self.dialect)

    def from_wire_request(self, body: Any) -> Request:
        return codec.from_wire_request(body, self.dialect)

    def to_wire_response(self, response: Response) -> dict[str, Any]:
        return codec.to_wire_response(response, self.dialect)

    def from_wire_response(self, body: Any) -> Response:
        return codec.from_wire_response(body, self.dialect)

    def request_problem(self, request: Request) -> str | None:
        return codec.tool_choice_problem(request, self.dialect)

    def stream_folder(self, on_delta: OnDelta | None = None) -> StreamFolder:
        return ChatStreamFolder(self.dialect, on_delta)

    def thinking_on(self, body: dict[str, Any]) -> bool:
        if not self.dialect.thinking_param:
            return False
        thinking = body.get("thinking")
        kind = thinking.get("type") if isinstance(thinking, dict) else None
        # DeepSeek: on unless turned off (api-docs.deepseek.com, guides/thinking_mode).
        return kind == "enabled" or (kind != "disabled" and self.dialect.thinking_default)

    def read_notes(self, messages: Any, base: str) -> list[str]:
        return marker_read_notes(
            messages, base, codec.ERROR_MARKER, "content", lambda m: m.get("role") == "tool"
        )

    def written_notes(self, request: Request) -> list[str]:
        how = Msg("is_error has no place in chat: marked in the text")
        return marker_written_notes(request, codec.ERROR_MARKER, how)

    def output_warnings(self, messages: Any, base: str) -> list[str]:
        """Warn of call ids the dialect's provider refuses (Mistral: 9 letters or digits; fc
        check's FC107): ids another provider made, kept by the translation."""
        pattern = self.dialect.id_pattern
        refusal = self.refusals.get("FC107")
        if pattern is None or refusal is None:
            return []
        out: list[str] = []
        for i, message in enumerate(messages if isinstance(messages, list) else []):
            if not isinstance(message, dict):
                continue
            calls = message.get("tool_calls")
            ids = (
                [c.get("id") for c in calls if isinstance(c, dict)]
                if isinstance(calls, list)
                else []
            )
            for call_id in ids:
                if isinstance(call_id, str) and not re.fullmatch(pattern, call_id):
                    out.append(
                        Msg(
                            "{base}[{i}]: call id {id} is one {who} refuses (HTTP 400: {said}): rewrite it, the same way in its tool message",
                            base=base,
                            i=i,
                            id=call_id,
                            who=refusal[0],
                            said=Msg.__new__(Msg, refusal[1], ids=call_id),
                        )
                    )
        return out


def deepseek_format() -> ChatFormat:
    """DeepSeek's chat format: the chat codec with DeepSeek's dialect and 400 sentences."""
    from fccli.wire.chat.dialects import DEEPSEEK

    return ChatFormat(DEEPSEEK, DEEPSEEK_REFUSALS)


def mistral_format() -> ChatFormat:
    """Mistral's chat format: the chat codec with Mistral's dialect, 400 sentence and id rule."""
    from fccli.wire.chat.dialects import MISTRAL

    return ChatFormat(MISTRAL, MISTRAL_REFUSALS, MISTRAL_ID_RULE)


def openai_format() -> ChatFormat:
    """OpenAI's chat format, the plain dialect."""
    from fccli.wire.chat.dialects import OPENAI

    return ChatFormat(OPENAI)
