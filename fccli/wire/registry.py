"""The wire formats by name, as trace files are suffixed: `deepseek`, `openai`, `anthropic`.

A format here is a wire module plus the provider data it needs (DeepSeek is the chat format
with a dialect). Every reader (convert, diff, check, replay) finds its translator here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from fccli.core.errors import UsageError
from fccli.core.models import Request, Response
from fccli.core.stream import OnDelta
from fccli.wire.anthropic import codec as anthropic
from fccli.wire.chat import codec as chat

DEEPSEEK_DIALECT = chat.ChatDialect(
    name="deepseek",
    # DeepSeek's thinking mode: the switch is a request field, the reasoning a message field,
    # and thinking is on unless turned off (api-docs.deepseek.com, guides/thinking_mode).
    reasoning_field="reasoning_content",
    thinking_param=True,
    thinking_default=True,
    # "In thinking mode tool_choice may only be auto or none" (PROTOCOL.md, DeepSeek specifics).
    thinking_tool_choices=("auto", "none"),
    # Its usage reports the prompt cache in its own fields (guides/kv_cache).
    cache_hit_fields=True,
)


class StreamFolder(Protocol):
    """Assembles a streamed answer from its raw bytes, piece by piece (wire/*_stream.py)."""

    @property
    def bytes_received(self) -> int: ...

    notes: list[str]
    """What a learner should know about the stream (no `[DONE]` after finish_reason, ...)."""

    def feed(self, chunk: bytes) -> None: ...

    def finish(self, cut: str | None = None) -> dict[str, Any]:
        """The answer as a non-streamed call returns it, or StreamCut when it ended early."""
        ...


class WireFormat(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def results_layout(self) -> str:
        """How the results of one turn travel in this format, in a learner's words."""
        ...

    def to_wire_request(self, request: Request) -> dict[str, Any]: ...
    def from_wire_request(self, body: Any) -> Request: ...
    def to_wire_response(self, response: Response) -> dict[str, Any]: ...
    def from_wire_response(self, body: Any) -> Response: ...

    def wire_stop_reason(self, body: Any) -> str | None:
        """The stop reason as the wire says it, for showing side by side."""
        ...

    def request_problem(self, request: Request) -> str | None:
        """A reason the provider would refuse the request, known before sending it."""
        ...

    def stream_folder(self, on_delta: OnDelta | None = None) -> StreamFolder: ...


@dataclass(frozen=True)
class ChatFormat:
    dialect: chat.ChatDialect

    @property
    def name(self) -> str:
        return self.dialect.name

    @property
    def results_layout(self) -> str:
        return 'one role:"tool" message per result'

    def to_wire_request(self, request: Request) -> dict[str, Any]:
        return chat.to_wire_request(request, self.dialect)

    def from_wire_request(self, body: Any) -> Request:
        return chat.from_wire_request(body, self.dialect)

    def to_wire_response(self, response: Response) -> dict[str, Any]:
        return chat.to_wire_response(response, self.dialect)

    def from_wire_response(self, body: Any) -> Response:
        return chat.from_wire_response(body, self.dialect)

    def wire_stop_reason(self, body: Any) -> str | None:
        try:
            value = body["choices"][0]["finish_reason"]
        except (KeyError, IndexError, TypeError):
            return None
        return value if isinstance(value, str) else None

    def request_problem(self, request: Request) -> str | None:
        return chat.tool_choice_problem(request, self.dialect)

    def stream_folder(self, on_delta: OnDelta | None = None) -> StreamFolder:
        from fccli.wire.chat.stream import ChatStreamFolder

        return ChatStreamFolder(self.dialect, on_delta)


@dataclass(frozen=True)
class AnthropicFormat:
    name: str = "anthropic"

    @property
    def results_layout(self) -> str:
        return "all tool_result blocks in one user message"

    def to_wire_request(self, request: Request) -> dict[str, Any]:
        return anthropic.to_wire_request(request)

    def from_wire_request(self, body: Any) -> Request:
        return anthropic.from_wire_request(body)

    def to_wire_response(self, response: Response) -> dict[str, Any]:
        return anthropic.to_wire_response(response)

    def from_wire_response(self, body: Any) -> Response:
        return anthropic.from_wire_response(body)

    def wire_stop_reason(self, body: Any) -> str | None:
        return anthropic.wire_stop_reason(body)

    def request_problem(self, request: Request) -> str | None:
        return anthropic.request_problem(request)

    def stream_folder(self, on_delta: OnDelta | None = None) -> StreamFolder:
        from fccli.wire.anthropic.stream import AnthropicStreamFolder

        return AnthropicStreamFolder(on_delta)


FORMATS: dict[str, WireFormat] = {
    "deepseek": ChatFormat(DEEPSEEK_DIALECT),
    "openai": ChatFormat(chat.OPENAI),
    "anthropic": AnthropicFormat(),
}


def get_format(name: str) -> WireFormat:
    try:
        return FORMATS[name]
    except KeyError:
        raise UsageError(
            f"unknown wire format {name!r}", hint=f"known formats: {', '.join(FORMATS)}"
        ) from None
