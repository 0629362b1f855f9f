"""The Anthropic Messages format as the registry lists it (wire/base.py).

The providers' 400 sentences are the ones collected in PROTOCOL.md ("What providers answer when
the history is wrong"); those not in that table name their source beside them.
"""

from __future__ import annotations

from typing import Any

from fccli.core.models import Request
from fccli.core.stream import OnDelta
from fccli.i18n import N_, Msg
from fccli.wire.anthropic import ID_PATTERN, codec
from fccli.wire.anthropic.stream import AnthropicStreamFolder
from fccli.wire.base import Refusal, StreamFolder, WireFormat
from fccli.wire.routes import ROUTES, SDK_BASE_URLS
from fccli.wire.view import Places

_WHO = "Anthropic"
NO_RESULT = N_(
    "messages.{n}: `tool_use` ids were found without `tool_result` blocks immediately after: "
    "{ids}. Each `tool_use` block must have a corresponding `tool_result` block in the next message."
)

REFUSALS: dict[str, Refusal] = {
    "FC101": (_WHO, NO_RESULT),
    "FC102": (
        _WHO,
        N_(
            "messages.{n}.content.{k}: unexpected `tool_use_id` found in `tool_result` "
            "blocks: {ids}. Each `tool_result` block must have a corresponding "
            "`tool_use` block in the previous message."
        ),
    ),
    "FC103": (
        _WHO,
        N_("the following `tool_use` ids were not found in `tool_result` blocks: {ids}"),
    ),
    "FC104": (_WHO, NO_RESULT),
    # anthropics/claude-code#20901, #21083
    "FC106": (_WHO, N_("messages.{n}.content.{k}: `tool_use` ids must be unique")),
    # CommandCodeAI/command-code#323, tailcallhq/forgecode#1142
    "FC107": (
        _WHO,
        N_("messages.{n}.content.{k}.{field}: String should match pattern '^[a-zA-Z0-9_-]+$'"),
    ),
    # anthropics/claude-code#6696, anthropics/anthropic-sdk-typescript#648
    "FC109": (
        _WHO,
        N_("messages.{n}.content.{k}.tool_use.input: Input should be a valid dictionary"),
    ),
    # mastra-ai/mastra#7507
    "FC114": (_WHO, N_("Thinking may not be enabled when tool_choice forces tool use.")),
    # anthropics/claude-code#10687
    "FC117": (_WHO, N_("tools: Tool names must be unique.")),
    # JohnnyZ93/oai-compatible-copilot#217
    "FC121": (_WHO, N_("messages.{n}.content.{k}.thinking.signature: Field required")),
}


ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    529: "overloaded_error",
}
"""The error `type` per HTTP status (docs.claude.com, API "Errors"); any other 5xx is `api_error`."""


class AnthropicFormat(WireFormat):
    name = codec.NAME
    codec = codec
    family = "blocks"
    appends_messages = True
    holder = "anthropic"
    stop_field = "stop_reason"
    places = Places(stop="$.stop_reason", answer="$.content")
    id_pattern = ID_PATTERN
    results_layout = Msg("all tool_result blocks in one user message")
    # Forcing a tool with thinking on is refused (REFUSALS["FC114"]).
    thinking_tool_choices = ("auto", "none")
    signed_thinking = True
    model_prefixes = ("claude",)
    routes = ROUTES["anthropic"]
    sdk_base_url = SDK_BASE_URLS["anthropic"]

    refusals = REFUSALS

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        default = "api_error" if status >= 500 else "invalid_request_error"
        kind = ERROR_TYPES.get(status, default)
        return {"type": "error", "error": {"type": kind, "message": message}}

    def request_problem(self, request: Request) -> str | None:
        return codec.request_problem(request)

    def stream_folder(self, on_delta: OnDelta | None = None) -> StreamFolder:
        return AnthropicStreamFolder(on_delta)

    def thinking_on(self, body: dict[str, Any]) -> bool:
        thinking = body.get("thinking")
        return isinstance(thinking, dict) and thinking.get("type") in ("enabled", "adaptive")

    def added_note(self, key: str, value: Any) -> str | None:
        if key == "max_tokens":
            return Msg(
                "set to {value} (Anthropic requires max_tokens; the source sets none)", value=value
            )
        if key == "tool_choice":
            return Msg(
                "set to {value} (Anthropic says 'one call at a time' inside tool_choice; auto is what no choice means)",
                value=value,
            )
        return None

    def output_warnings(self, messages: Any, base: str) -> list[str]:
        """Warn of a thinking block without its signature (reasoning from another provider has none;
        fc check's FC121)."""
        out: list[str] = []
        for i, m in enumerate(messages if isinstance(messages, list) else []):
            content = m.get("content") if isinstance(m, dict) else None
            for j, block in enumerate(content if isinstance(content, list) else []):
                if block.get("type") == "thinking" and not isinstance(block.get("signature"), str):
                    out.append(
                        Msg(
                            "{base}[{i}].content[{j}]: a thinking block without its signature, which Anthropic refuses (HTTP 400: messages.{i}.content.{j}.thinking.signature: Field required)",
                            base=base,
                            i=i,
                            j=j,
                        )
                    )
        return out
