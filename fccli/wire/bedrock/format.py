"""The AWS Bedrock Converse format as the registry lists it (wire/base.py).

Its own layout (family `converse`): messages of content blocks as in the blocks family, but each
block an object with one key (`text`, `toolUse`, `toolResult`), results in the user message
after the calls; the model is named in the URL, and a stream is AWS's binary event stream.
The 400 sentences are Bedrock's own, each with where it was seen; Bedrock passes a Claude
model's own refusals on after "The model returned the following errors: ".
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fccli.core.models import Request, ThinkingBlock
from fccli.core.stream import OnDelta
from fccli.i18n import N_, Msg
from fccli.wire.base import Detected, Refusal, StreamFolder, WireFormat
from fccli.wire.bedrock import ID_PATTERN, codec
from fccli.wire.bedrock.eventstream import frames_text, is_event_stream, masked
from fccli.wire.bedrock.stream import BedrockStreamFolder
from fccli.wire.bedrock.view import content_turn, json_not_object, spec_choice, spec_tools
from fccli.wire.routes import ROUTES, SDK_BASE_URLS
from fccli.wire.view import Call, Choice, OfferedTool, Places, Problem, Turn, message_turns

if TYPE_CHECKING:
    from fccli.core.secrets import Secrets

_WHO = "Bedrock"
# pydantic/pydantic-ai#3253: a Claude model's refusal, passed on by Bedrock's Converse.
NO_RESULT = N_(
    "The model returned the following errors: messages.{n}: `tool_use` ids were found without "
    "`tool_result` blocks immediately after: {ids}. Each `tool_use` block must have a "
    "corresponding `tool_result` block in the next message."
)

REFUSALS: dict[str, Refusal] = {
    "FC101": (_WHO, NO_RESULT),
    # pydantic/pydantic-ai#2327
    "FC102": (
        _WHO,
        N_(
            "The number of toolResult blocks at messages.{n}.content exceeds the number of "
            "toolUse blocks of previous turn."
        ),
    ),
    "FC104": (_WHO, NO_RESULT),
    # Not verbatim: AWS's wording of a broken constraint, with the pattern and length of
    # ToolUseId in botocore's service model for bedrock-runtime.
    "FC107": (
        _WHO,
        N_(
            "1 validation error detected: Value '{value}' at 'toolUseId' failed to satisfy "
            "constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.:-]+ and "
            "have length less than or equal to 64"
        ),
    ),
    # deepset-ai/haystack-core-integrations#3766, sigoden/aichat#1550
    "FC125": (
        _WHO,
        N_(
            "The format of the value at messages.{n}.content.{k}.toolResult.content.{j}.json is "
            "invalid. Provide a json object for the field and try again."
        ),
    ),
}

ERROR_TYPES = {
    400: "ValidationException",
    403: "AccessDeniedException",
    404: "ResourceNotFoundException",
    408: "ModelTimeoutException",
    424: "ModelErrorException",
    429: "ThrottlingException",
    500: "InternalServerException",
    503: "ServiceUnavailableException",
}
"""The error shape per HTTP status (botocore's service model, Converse's errors)."""


class BedrockFormat(WireFormat):
    name = codec.NAME
    codec = codec
    family = "converse"
    appends_messages = True
    holder = "bedrock"
    stop_field = "stopReason"
    places = Places(
        stop="$.stopReason",
        answer="$.output.message.content",
        tool_choice="$.toolConfig.toolChoice",
        tools="$.toolConfig.tools",
        prompt=("$.system", "$.toolConfig"),
    )
    id_pattern = ID_PATTERN
    results_layout = Msg("all toolResult blocks in one user message")
    model_prefixes = ("anthropic.", "amazon.", "deepseek.", "meta.", "mistral.", "cohere.")
    model_in_body = False
    # The model is a segment of the path (percent-encoded: `anthropic.claude-…-v1%3A0`).
    routes = ROUTES["bedrock"]
    stream_media_type = "application/vnd.amazon.eventstream"
    # botocore reads a service's own endpoint variable (the AWS SDKs' "service-specific
    # endpoints"): boto3.client("bedrock-runtime") then talks to fc.
    sdk_base_url = SDK_BASE_URLS["bedrock"]

    refusals = REFUSALS

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        # AWS's REST JSON error: the message in the body, its type in a header (and in
        # `__type`, which botocore reads too).
        kind = ERROR_TYPES.get(
            status, "InternalServerException" if status >= 500 else "ValidationException"
        )
        return {"message": message, "__type": kind}

    def request_problem(self, request: Request) -> str | None:
        """Refuse what Bedrock has no place for, rather than send something else."""
        if request.tool_choice is not None and request.tool_choice.type == "none":
            return Msg(
                "tool_choice none has no place in Bedrock's toolChoice (auto, any or one tool): "
                "leave the tools out instead"
            )
        if (request.response_format or {}).get("type") == "json_object":
            return Msg(
                "Bedrock has no json_object mode: its outputConfig.textFormat takes a JSON Schema "
                "(--response-format json_schema:FILE)"
            )
        return None

    def read_turns(
        self, messages: list[Any], root: str, start: int, before: list[Turn]
    ) -> list[Turn]:
        return message_turns(messages, root, start, content_turn)

    def offered_tools(self, doc: dict[str, Any]) -> list[OfferedTool]:
        return spec_tools(doc)

    def tool_choice(self, doc: dict[str, Any]) -> Choice | None:
        return spec_choice(doc)

    def layout_problems(
        self, doc: dict[str, Any], root: str, calls: list[Call], thinking: bool
    ) -> list[Problem]:
        return list(json_not_object(doc, root))

    def stream_folder(self, on_delta: OnDelta | None = None) -> StreamFolder:
        return BedrockStreamFolder(on_delta)

    def stream_text(self, raw: bytes) -> str | None:
        """Return each message of the binary stream on a line: its type, then its JSON."""
        return frames_text(raw)

    def mask_stream(self, raw: bytes, secrets: Secrets) -> bytes | None:
        return masked(raw, secrets)

    def is_own_stream(self, raw: bytes) -> bool:
        return is_event_stream(raw)

    def detect(self, doc: Any, name_hint: str | None) -> Detected | None:
        if isinstance(doc, list):
            if _one_key_blocks(doc):
                return Detected(
                    self.name,
                    "messages",
                    Msg("its content blocks are objects of one key (`text`, `toolUse`...)"),
                )
            return None
        if not isinstance(doc, dict):
            return None
        output = doc.get("output")
        if isinstance(output, dict) and isinstance(output.get("message"), dict):
            return Detected(
                self.name, "response", Msg("it has `output.message` (a Converse answer)")
            )
        if "toolConfig" in doc or "inferenceConfig" in doc:
            return Detected(self.name, "request", Msg("it has `toolConfig` or `inferenceConfig`"))
        messages = doc.get("messages")
        if isinstance(messages, list) and _one_key_blocks(messages):
            return Detected(
                self.name,
                "request",
                Msg("its content blocks are objects of one key (`text`, `toolUse`...)"),
            )
        return None

    def read_notes(self, messages: Any, base: str) -> list[str]:
        """A result's `json` block, read as its JSON text (fc writes it back as a text block)."""
        out: list[str] = []
        for i, message in enumerate(messages if isinstance(messages, list) else []):
            content = message.get("content") if isinstance(message, dict) else None
            for k, block in enumerate(content if isinstance(content, list) else []):
                result = block.get("toolResult") if isinstance(block, dict) else None
                parts = result.get("content") if isinstance(result, dict) else None
                for j, part in enumerate(parts if isinstance(parts, list) else []):
                    if isinstance(part, dict) and "json" in part:
                        out.append(
                            Msg(
                                "{base}[{i}].content[{k}].toolResult.content[{j}]: a json block, "
                                "read as its JSON text (written back as a text block)",
                                base=base,
                                i=i,
                                k=k,
                                j=j,
                            )
                        )
        return out

    def written_notes(self, request: Request) -> list[str]:
        notes: list[str] = []
        if request.model:
            notes.append(
                Msg(
                    "model {model!r}: Bedrock names the model in the URL (/model/MODEL/converse), not the body",
                    model=request.model,
                )
            )
        if request.stream:
            notes.append(
                Msg("stream: Bedrock asks for a stream in the URL (/converse-stream), not the body")
            )
        if request.parallel_tool_calls is not None:
            notes.append(
                Msg(
                    "parallel_tool_calls {parallel_tool_calls}: Bedrock has no switch for parallel calls",
                    parallel_tool_calls=request.parallel_tool_calls,
                )
            )
        if any(
            isinstance(b, ThinkingBlock) and b.signature
            for m in request.messages
            for b in m.content
        ):
            notes.append(
                Msg(
                    "a thinking block's signature goes in reasoningText.signature: Bedrock takes "
                    "it back only from the model that signed it"
                )
            )
        return notes

    def output_warnings(self, messages: Any, base: str) -> list[str]:
        """Warn of results whose json block is no object (FC125)."""
        found = json_not_object({"messages": messages}, "$.messages")
        return [f"{base}{p.path.removeprefix('$.messages')}: {p.message}" for p in found]


def _one_key_blocks(messages: list[Any]) -> bool:
    """Whether a history's blocks are Converse's: objects of one key, none with a `type`."""
    blocks = [
        b
        for m in messages
        if isinstance(m, dict) and isinstance(m.get("content"), list)
        for b in m["content"]
    ]
    return bool(blocks) and all(
        isinstance(b, dict) and "type" not in b and len(b) == 1 for b in blocks
    )
