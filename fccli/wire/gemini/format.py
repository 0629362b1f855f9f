"""The Gemini API format as the registry lists it (wire/base.py).

Its own layout (family `gemini`): calls and results are parts of `contents`, as in the blocks
family, but under other names, results may carry no id, and the model's name is in the URL.
The 400 sentences are Gemini's own, as its API answers them (each with where it was seen).
"""

from __future__ import annotations

import itertools
from typing import Any

from fccli.core.models import Request, ThinkingBlock, ToolUseBlock
from fccli.core.stream import OnDelta
from fccli.i18n import N_, Msg
from fccli.wire.base import Detected, Refusal, StreamFolder, WireFormat
from fccli.wire.gemini import codec
from fccli.wire.gemini.stream import GeminiStreamFolder
from fccli.wire.gemini.view import pair_by_name, parts_choice, parts_tools, parts_turn
from fccli.wire.routes import ROUTES, SDK_BASE_URLS
from fccli.wire.view import Call, Choice, OfferedTool, Places, Problem, Turn, message_turns

_WHO = "Gemini"
# google-gemini/gemini-cli#4217, #5443, #16415: a call turn whose results are missing or more.
COUNT_MISMATCH = N_(
    "Please ensure that the number of function response parts is equal to the number of "
    "function call parts of the function call turn."
)
# google-gemini/gemini-cli (many reports): results with no call turn right before them.
NOT_AFTER_CALL = N_(
    "Please ensure that function response turn comes immediately after a function call turn."
)
# manthanabc/paws#103, csells/dartantic#86: Gemini 3 with a call turn's signature dropped.
NO_SIGNATURE = N_(
    "Function call is missing a thought_signature in functionCall parts. This is required for "
    "tools to work correctly, and missing thought_signature may lead to degraded model "
    "performance. Additional data, function call `default_api:{name}` , position {position}. "
    "Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details."
)

REFUSALS: dict[str, Refusal] = {
    "FC101": (_WHO, COUNT_MISMATCH),
    "FC102": (_WHO, NOT_AFTER_CALL),
    # Results split over two user contents: the first has fewer parts than the turn's calls.
    "FC103": (_WHO, COUNT_MISMATCH),
    "FC121": (_WHO, NO_SIGNATURE),
    # More response parts than calls: the same sentence (the fake provider's gemini_problem).
    "FC126": (_WHO, COUNT_MISMATCH),
}


ERROR_STATUSES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}
"""The RPC status Google's errors name per HTTP status (google.rpc.Code's HTTP mapping)."""


class GeminiFormat(WireFormat):
    name = codec.NAME
    codec = codec
    family = "gemini"
    holder = "gemini"
    stop_field = "finishReason"
    places = Places(
        stop="$.candidates[0].finishReason",
        answer="$.candidates[0].content",
        tool_choice="$.toolConfig",
        prompt=("$.systemInstruction", "$.tools"),
    )
    history_field = "contents"
    results_layout = Msg(
        "all functionResponse parts in one user content, paired by id or by name and order"
    )
    # Thought parts are summaries with no signature of their own: the signature is a field of
    # the part beside them, kept as a provider block (codec.py).
    signed_thinking = False
    model_prefixes = ("gemini",)
    model_in_body = False
    # The model is a segment of the path; the stream is asked for by the path, not the body.
    routes = ROUTES["gemini"]
    # google-genai reads it (google/genai/_base_url.py); the SDK adds the version itself.
    sdk_base_url = SDK_BASE_URLS["gemini"]
    # No strict mode: a declaration has no `strict` for FC115 to check.
    rules_without_place = ("FC115",)

    refusals = REFUSALS

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        # Google's error JSON (ai.google.dev/gemini-api/docs/troubleshooting): the HTTP code,
        # and the RPC status it stands for.
        kind = ERROR_STATUSES.get(status, "UNAVAILABLE" if status >= 500 else "INVALID_ARGUMENT")
        return {"error": {"code": status, "message": message, "status": kind}}

    def layout_problems(
        self, doc: dict[str, Any], root: str, calls: list[Call], thinking: bool
    ) -> list[Problem]:
        return list(extra_responses(doc, root))

    def invented(self, call_id: str) -> bool:
        return codec.is_invented(call_id)

    def read_turns(
        self, messages: list[Any], root: str, start: int, before: list[Turn]
    ) -> list[Turn]:
        new = message_turns(messages, root, start, parts_turn)
        # A result pairs with the turn before it only: the turns read before were paired.
        pair_by_name(before[-1:] + new)
        return new

    def offered_tools(self, doc: dict[str, Any]) -> list[OfferedTool]:
        return parts_tools(doc)

    def tool_choice(self, doc: dict[str, Any]) -> Choice | None:
        return parts_choice(doc)

    def stream_folder(self, on_delta: OnDelta | None = None) -> StreamFolder:
        return GeminiStreamFolder(on_delta)

    def detect(self, doc: Any, name_hint: str | None) -> Detected | None:
        if not isinstance(doc, dict):
            return None
        if isinstance(doc.get("contents"), list):
            return Detected(self.name, "request", Msg("it has `contents` (Gemini's history)"))
        if isinstance(doc.get("candidates"), list):
            return Detected(self.name, "response", Msg("it has `candidates` (Gemini's answer)"))
        return None

    def thinking_on(self, body: dict[str, Any]) -> bool:
        config = body.get("generationConfig")
        thinking = config.get("thinkingConfig") if isinstance(config, dict) else None
        return isinstance(thinking, dict) and thinking.get("thinkingBudget") != 0

    def read_notes(self, messages: Any, base: str) -> list[str]:
        """Calls and results without ids (Gemini 2.x): fc made the ids up, and paired by name."""
        out: list[str] = []
        for i, content in enumerate(messages if isinstance(messages, list) else []):
            parts = content.get("parts") if isinstance(content, dict) else None
            for k, part in enumerate(parts if isinstance(parts, list) else []):
                for key in ("functionCall", "functionResponse"):
                    inner = part.get(key) if isinstance(part, dict) else None
                    if isinstance(inner, dict) and "id" not in inner:
                        out.append(
                            Msg(
                                "{base}[{i}].parts[{k}].{key}: no id (Gemini 2.x): fc gives it one starting {invented_prefix} and pairs results with calls by name and order; that id is never sent back",
                                base=base,
                                i=i,
                                k=k,
                                key=key,
                                invented_prefix=codec.INVENTED_PREFIX,
                            )
                        )
        return out

    def written_notes(self, request: Request) -> list[str]:
        notes: list[str] = []
        if request.model:
            notes.append(
                Msg(
                    "model {model!r}: Gemini names the model in the URL (/v1beta/models/MODEL:generateContent), not the body",
                    model=request.model,
                )
            )
        if request.stream:
            notes.append(
                Msg(
                    "stream: Gemini asks for a stream in the URL (:streamGenerateContent?alt=sse), not the body"
                )
            )
        if request.parallel_tool_calls is not None:
            notes.append(
                Msg(
                    "parallel_tool_calls {parallel_tool_calls}: Gemini has no switch for parallel calls",
                    parallel_tool_calls=request.parallel_tool_calls,
                )
            )
        for m, message in enumerate(request.messages):
            for block in message.content:
                if isinstance(block, ToolUseBlock) and codec.is_invented(block.id):
                    notes.append(
                        Msg(
                            "$.messages[{m}]: call id {id} is one fc invented for a call Gemini sent without one: not sent back",
                            m=m,
                            id=block.id,
                        )
                    )
                if isinstance(block, ThinkingBlock) and block.signature is not None:
                    notes.append(
                        Msg(
                            "$.messages[{m}]: a thinking block's signature is another provider's; Gemini signs its thinking with thoughtSignature parts",
                            m=m,
                        )
                    )
        return notes

    def output_warnings(self, messages: Any, base: str) -> list[str]:
        """Warn of a model turn with calls whose first call has no thoughtSignature (history from
        another provider): Gemini 3 refuses it (fc check's FC121)."""
        out: list[str] = []
        for i, content in enumerate(messages if isinstance(messages, list) else []):
            parts = content.get("parts") if isinstance(content, dict) else None
            calls = [
                (k, p)
                for k, p in enumerate(parts if isinstance(parts, list) else [])
                if isinstance(p, dict) and isinstance(p.get("functionCall"), dict)
            ]
            if calls and codec.SIGNATURE not in calls[0][1]:
                k = calls[0][0]
                out.append(
                    Msg(
                        '{base}[{i}].parts[{k}]: a function call without its thoughtSignature, which Gemini 3 refuses (HTTP 400: Function call is missing a thought_signature in functionCall parts); "skip_thought_signature_validator" is the documented stand-in for history made elsewhere',
                        base=base,
                        i=i,
                        k=k,
                    )
                )
        return out


def _parts_with(content: Any, key: str) -> list[dict[str, Any]]:
    parts = content.get("parts") if isinstance(content, dict) else None
    return [
        p[key]
        for p in (parts if isinstance(parts, list) else [])
        if isinstance(p, dict) and isinstance(p.get(key), dict)
    ]


def extra_responses(doc: dict[str, Any], root: str) -> list[Problem]:
    """FC126: a content right after a call turn with more functionResponse parts than the turn
    has calls. Gemini counts them (its COUNT_MISMATCH); a response whose id no call has is
    FC102's, and is left out of the count here."""
    contents = doc.get("contents")
    contents = contents if isinstance(contents, list) else []
    out: list[Problem] = []
    for i, (content, after) in enumerate(itertools.pairwise(contents)):
        calls = _parts_with(content, "functionCall")
        if not calls or not isinstance(content, dict) or content.get("role") != "model":
            continue
        ids = {c.get("id") for c in calls}
        responses = [r for r in _parts_with(after, "functionResponse") if r.get("id") in ids]
        if len(responses) > len(calls):
            message = Msg(
                "{given} function responses answer the {asked} call(s) of content {i}: Gemini "
                "wants exactly one functionResponse part per functionCall part",
                given=len(responses),
                asked=len(calls),
                i=i,
            )
            out.append(Problem("FC126", f"{root}[{i + 1}]", message, {}))
    return out
