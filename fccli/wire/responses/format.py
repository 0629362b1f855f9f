"""The OpenAI Responses format as the registry lists it (wire/base.py).

A layout of its own (family `items`): calls, results, reasoning and messages are the items of one
flat list, paired by `call_id` wherever they stand. The 400 sentences are OpenAI's, as quoted in
the public threads named beside each (all with `"param": "input"`).
"""

from __future__ import annotations

from typing import Any

from fccli.core.models import Request
from fccli.core.stream import OnDelta
from fccli.i18n import N_, Msg
from fccli.wire.base import (
    Detected,
    Refusal,
    StreamFolder,
    WireFormat,
    marker_read_notes,
    marker_written_notes,
)
from fccli.wire.responses import codec
from fccli.wire.responses.stream import ResponsesStreamFolder
from fccli.wire.responses.view import item_turns, items_choice, reasoning_problems
from fccli.wire.routes import ROUTES, SDK_BASE_URLS
from fccli.wire.view import Call, Choice, OfferedTool, Places, Problem, Turn, offered_at

_WHO = "OpenAI Responses"

REFUSALS: dict[str, Refusal] = {
    # router-for-me/CLIProxyAPI#2368, openai/codex#620
    "FC101": (_WHO, N_("No tool output found for function call {ids}.")),
    # continuedev/continue#10092, microsoft/vscode#320060
    "FC102": (_WHO, N_("No tool call found for function call output with call_id {ids}.")),
    # cline/cline#12242, mastra-ai/mastra#8738, continuedev/continue#10018
    "FC123": (
        _WHO,
        N_(
            "Item '{ids}' of type 'function_call' was provided without its required "
            "'reasoning' item: '{reasoning}'."
        ),
    ),
    # vercel/ai#7099
    "FC124": (
        _WHO,
        N_("Item '{ids}' of type 'reasoning' was provided without its required following item."),
    ),
}


class ResponsesFormat(WireFormat):
    name = codec.NAME
    codec = codec
    family = "items"
    holder = "openai responses"
    stop_field = "status"
    places = Places(
        stop="$.status",
        answer="$.output",
        prompt=("$.instructions", "$.tools"),
        system="$.instructions",
    )
    arguments_as_text = True
    placement = "after_call"
    # Items are grouped into turns across their boundaries: read whole every time.
    appends_turns = False
    results_layout = Msg("one function_call_output item per result, paired by call_id")
    # Reasoning goes back as the item it came in, encrypted; none is made for another's thinking.
    signed_thinking = True
    history_field = "input"
    routes = ROUTES["responses"]
    sdk_base_url = SDK_BASE_URLS["responses"]

    refusals = REFUSALS

    def read_turns(
        self, messages: list[Any], root: str, start: int, before: list[Turn]
    ) -> list[Turn]:
        return item_turns(messages, root)

    def offered_tools(self, doc: dict[str, Any]) -> list[OfferedTool]:
        return offered_at(doc, "parameters")

    def tool_choice(self, doc: dict[str, Any]) -> Choice | None:
        return items_choice(doc)

    def layout_problems(
        self, doc: dict[str, Any], root: str, calls: list[Call], thinking: bool
    ) -> list[Problem]:
        return list(reasoning_problems(doc, root, calls, thinking))

    def wire_stop_reason(self, body: Any) -> str | None:
        """Return the status, with the reason when incomplete: the closest the wire has to a stop
        reason."""
        if not isinstance(body, dict) or not isinstance(body.get("status"), str):
            return None
        details = body.get("incomplete_details")
        reason = details.get("reason") if isinstance(details, dict) else None
        return f"{body['status']} ({reason})" if isinstance(reason, str) else body["status"]

    def stream_folder(self, on_delta: OnDelta | None = None) -> StreamFolder:
        return ResponsesStreamFolder(on_delta)

    def detect(self, doc: Any, name_hint: str | None) -> Detected | None:
        if not isinstance(doc, dict) or "messages" in doc or "choices" in doc:
            return None
        if doc.get("object") == "response":
            return Detected(self.name, "response", Msg('it has `"object": "response"`'))
        if isinstance(doc.get("output"), list) and isinstance(doc.get("status"), str):
            return Detected(self.name, "response", Msg("it has `output` items and a `status`"))
        if "model" in doc and isinstance(doc.get("input"), (list, str)):
            return Detected(self.name, "request", Msg("it has `input` (the Responses history)"))
        return None

    def thinking_on(self, body: dict[str, Any]) -> bool:
        reasoning = body.get("reasoning")
        effort = reasoning.get("effort") if isinstance(reasoning, dict) else None
        if effort == "none":
            return False
        model = body.get("model")
        return effort is not None or (
            isinstance(model, str) and codec.REASONING_MODELS.match(model) is not None
        )

    def added_note(self, key: str, value: Any) -> str | None:
        if key == "store":
            return Msg(
                "set to {value}: fc keeps no state at OpenAI, so every request carries the whole history",
                value=value,
            )
        if key == "include":
            return Msg(
                "set to {value}: with store false, a reasoning model's reasoning comes back encrypted, to be sent again with the calls it led to",
                value=value,
            )
        if key == "strict":
            return Msg("set to {value} (an omitted strict means strict on this API)", value=value)
        return None

    def read_notes(self, messages: Any, base: str) -> list[str]:
        return marker_read_notes(
            messages,
            base,
            codec.ERROR_MARKER,
            "output",
            lambda item: item.get("type") == "function_call_output",
        )

    def written_notes(self, request: Request) -> list[str]:
        how = Msg("is_error has no field in Responses: marked in the function_call_output")
        return marker_written_notes(request, codec.ERROR_MARKER, how)

    def output_warnings(self, messages: Any, base: str) -> list[str]:
        return []
