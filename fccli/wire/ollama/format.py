"""Ollama's native chat format as the registry lists it (wire/base.py).

Its own layout (family `ollama`): messages as in chat, but a call's arguments are an object,
calls may come without ids, a result names its tool (`tool_name`) and is paired by it, and the
stream is NDJSON. Ollama checks little of a history: it renders the messages through the
model's template, and refuses only what its JSON decoder cannot read (its sentences below,
each with where it was seen).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fccli.core.models import Request, ThinkingBlock, ToolUseBlock
from fccli.core.stream import OnDelta
from fccli.i18n import N_, Msg
from fccli.wire.base import Detected, Kind, Refusal, StreamFolder, WireFormat
from fccli.wire.ollama import codec
from fccli.wire.ollama.stream import OllamaStreamFolder
from fccli.wire.ollama.view import native_turn, pair_results
from fccli.wire.routes import ROUTES, SDK_BASE_URLS
from fccli.wire.view import Choice, OfferedTool, Places, Turn, message_turns, offered_at

_WHO = "Ollama"

REFUSALS: dict[str, Refusal] = {
    # aliasrobotics/cai#76 (HTTP 400 from /api/chat): the arguments sent as a JSON string, as
    # the OpenAI-compatible format has them; langchain-ai/langchain#34790 the same for an array.
    "FC109": (
        _WHO,
        N_(
            "json: cannot unmarshal string into Go struct field "
            "ChatRequest.messages.tool_calls.function.arguments of type "
            "api.ToolCallFunctionArguments"
        ),
    ),
}


class OllamaFormat(WireFormat):
    name = codec.NAME
    codec = codec
    family = "ollama"
    holder = "ollama native"
    stop_field = "done_reason"
    places = Places(
        stop="$.done_reason",
        answer="$.message",
        prompt=("$.tools",),
        json_mode="$.format",
    )
    system_in_history = True
    placement = "own_messages"
    duplicate_quote = "result"
    results_layout = Msg('one role:"tool" message per result, naming its tool_name')
    routes = ROUTES["ollama-native"]
    # server/routes.go, streamResponse: the stream's content type.
    stream_media_type = "application/x-ndjson"
    # The ollama Python client reads its server's address from OLLAMA_HOST (ollama/_client.py).
    sdk_base_url = SDK_BASE_URLS["ollama-native"]
    # No strict mode: a tool has no `strict` for FC115 to check.
    rules_without_place = ("FC115",)
    setting_names: Mapping[str, str] = {
        "thinking": "think",
        "effort": "think",
        "response_format": "format",
    }
    refusals = REFUSALS

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        # server/routes.go answers every error as {"error": "..."} (gin.H{"error": ...}).
        return {"error": message}

    def invented(self, call_id: str) -> bool:
        return codec.is_invented(call_id)

    def read_turns(
        self, messages: list[Any], root: str, start: int, before: list[Turn]
    ) -> list[Turn]:
        new = message_turns(messages, root, start, native_turn)
        pair_results(before + new)
        return new

    def offered_tools(self, doc: dict[str, Any]) -> list[OfferedTool]:
        return offered_at(doc, "parameters", "function")

    def tool_choice(self, doc: dict[str, Any]) -> Choice | None:
        return None  # the format has none

    def stream_folder(self, on_delta: OnDelta | None = None) -> StreamFolder:
        return OllamaStreamFolder(on_delta)

    def request_problem(self, request: Request) -> str | None:
        if request.tool_choice is not None and request.tool_choice.type == "required":
            return Msg(
                "Ollama's /api/chat has no tool_choice: nothing makes the model call a tool "
                "(--tool-choice NAME offers that tool alone, none offers no tool)"
            )
        return None

    def detect(self, doc: Any, name_hint: str | None) -> Detected | None:
        if isinstance(doc, dict) and isinstance(doc.get("message"), dict) and "done" in doc:
            return Detected(
                self.name, "response", Msg("it has `message` and `done` (Ollama's answer)")
            )
        messages = doc.get("messages") if isinstance(doc, dict) else doc
        if not isinstance(messages, list):
            return None
        kind: Kind = "request" if isinstance(doc, dict) else "messages"
        sign = _native_sign(messages)
        if sign is None and isinstance(doc, dict):
            sign = next(
                (
                    Msg("it has `{key}` (a setting of Ollama's /api/chat)", key=key)
                    for key in ("options", "think", "keep_alive")
                    if key in doc
                ),
                None,
            )
        if sign is None and name_hint is not None and f".{self.name}." in str(name_hint):
            sign = Msg("its name says {name}", name=self.name)
        return Detected(self.name, kind, sign) if sign is not None else None

    def thinking_on(self, body: dict[str, Any]) -> bool:
        think = body.get("think")
        return think is True or isinstance(think, str)

    def read_notes(self, messages: Any, base: str) -> list[str]:
        """Calls without ids (older Ollama): fc made the ids up; results paired by tool_name."""
        out: list[str] = []
        for i, message in enumerate(messages if isinstance(messages, list) else []):
            if not isinstance(message, dict):
                continue
            calls = message.get("tool_calls")
            for k, call in enumerate(calls if isinstance(calls, list) else []):
                if isinstance(call, dict) and not call.get("id"):
                    out.append(
                        Msg(
                            "{base}[{i}].tool_calls[{k}]: no id: fc gives it one starting {prefix}, which is never sent to Ollama",
                            base=base,
                            i=i,
                            k=k,
                            prefix=codec.INVENTED_PREFIX,
                        )
                    )
            if message.get("role") == "tool" and "tool_call_id" not in message:
                out.append(
                    Msg(
                        "{base}[{i}]: a result without tool_call_id: paired with its call by tool_name and order",
                        base=base,
                        i=i,
                    )
                )
        return out

    def written_notes(self, request: Request) -> list[str]:
        notes: list[str] = []
        choice = request.tool_choice
        if choice is not None and choice.type == "none" and request.tools:
            notes.append(Msg("tool_choice none: Ollama has no tool_choice, so no tool is offered"))
        if choice is not None and choice.type == "tool":
            notes.append(
                Msg(
                    "tool_choice {name}: Ollama has no tool_choice, so {name} is offered alone (nothing forces the call)",
                    name=choice.name,
                )
            )
        for m, message in enumerate(request.messages):
            for block in message.content:
                if isinstance(block, ToolUseBlock) and codec.is_invented(block.id):
                    notes.append(
                        Msg(
                            "$.messages[{m}]: call id {id} is one fc invented for a call Ollama sent without one: not sent",
                            m=m,
                            id=block.id,
                        )
                    )
                if isinstance(block, ThinkingBlock) and block.signature is not None:
                    notes.append(
                        Msg(
                            "$.messages[{m}]: a thinking block's signature is another provider's: Ollama has no place for it",
                            m=m,
                        )
                    )
        return notes


def _native_sign(messages: list[Any]) -> str | None:
    """What only Ollama's native messages have: a call's arguments as an object, a result
    naming its tool (`tool_name`)."""
    for message in messages:
        if not isinstance(message, dict):
            continue
        if message.get("role") == "tool" and "tool_name" in message:
            return Msg("a tool message has `tool_name` (Ollama's native pairing)")
        calls = message.get("tool_calls")
        for call in calls if isinstance(calls, list) else []:
            function = call.get("function") if isinstance(call, dict) else None
            if isinstance(function, dict) and isinstance(function.get("arguments"), dict):
                return Msg("a call's arguments are an object (Ollama's native /api/chat)")
    return None
