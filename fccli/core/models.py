"""fc's internal format: content blocks, as in CLI.md.

A message is `{role, content: [block, ...]}`; a block is one of text, thinking, tool_use or
tool_result, told apart by its `type` (a discriminated union, so a file with a bad block says
which field of which block is wrong). The JSON shape is a contract: tests pin it.
"""

# No `from __future__ import annotations` here: pydantic would then read each field's type from
# its text, compiling every one at each start of a command that reads a file.

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, model_validator

from fccli.i18n import Msg


def empty_list() -> list[Any]:
    """Return a new empty list, as a field's default. Not `default_factory=list`: pydantic reads the
    factory's signature, and for a builtin that means parsing its text signature with `tokenize`,
    whose first use compiles a large regex (start-up, docs/performance.md)."""
    return []


class _Model(BaseModel):
    # The field docstrings are for people reading this file; pydantic reading them into field
    # descriptions (use_attribute_docstrings) costs every start-up, for nothing read.
    # defer_build: a model's validator is built when it is first used, and the nested ones only
    # inside their parent's, unless used alone (a transcript validates requests and responses).
    model_config = ConfigDict(extra="forbid", defer_build=True)

    def to_json_dict(self) -> dict[str, Any]:
        """Return the JSON form written to trace files: unset optional fields left out."""
        return self.model_dump(mode="json", exclude_none=True)

    @classmethod
    def model_rebuild(cls, **options: Any) -> bool | None:
        """pydantic builds a deferred model here, at its first use: the models it holds first."""
        return built_held_first(cls, BaseModel.model_rebuild.__func__, options)  # type: ignore[attr-defined]


HOLDS: dict[type[BaseModel], tuple[type[BaseModel], ...]] = {}
"""The models each model holds (filled below the classes): built before it, when it is built."""


def built_held_first(cls: type[BaseModel], rebuild: Any, options: dict[str, Any]) -> bool | None:
    """Build `cls`, the models it holds first. pydantic makes a deferred model's schema at its
    first use, the schemas of the deferred models it holds inside it; those, used alone later
    (a TextBlock made by a codec, a Message checked on its own), make theirs again. A model
    already built is reused by the models holding it: built leaves first, each schema is made
    once, and a command builds only the models it uses (docs/performance.md)."""
    if not cls.__pydantic_complete__:
        for held in HOLDS.get(cls, ()):
            held.model_rebuild()
    # one frame more than pydantic's caller counted: this function's
    depth = options.pop("_parent_namespace_depth", 2) + 1
    return rebuild(cls, _parent_namespace_depth=depth, **options)  # type: ignore[no-any-return]


class TextBlock(_Model):
    type: Literal["text"] = "text"
    text: str
    """What the model (or the user) said."""


class ThinkingBlock(_Model):
    type: Literal["thinking"] = "thinking"
    thinking: str
    """The reasoning text (DeepSeek's `reasoning_content`)."""
    signature: str | None = None
    """Anthropic's signature over the thinking, which must travel back unchanged."""


class ToolUseBlock(_Model):
    type: Literal["tool_use"] = "tool_use"
    id: str
    """The call's id, given by the model; its result names it in `tool_use_id`."""
    name: str
    """The tool the model asks for. Asking executes nothing."""
    input: dict[str, Any]
    """The arguments, a JSON object (chat formats carry it as a JSON string)."""
    raw_arguments: str | None = None
    """The arguments exactly as the model sent them, kept only when they were not a JSON object
    (`input` is then `{}`, so validation can say what is missing)."""
    item_id: str | None = None
    """The provider's own id of the call's item, where it has one beside the call id that
    results name (OpenAI Responses: `id` fc_… beside `call_id`); it travels back unchanged."""


class ToolResultBlock(_Model):
    type: Literal["tool_result"] = "tool_result"
    tool_use_id: str
    """The id of the call this result answers."""
    content: str
    """What the program hands back. The model believes whatever it reads here."""
    is_error: bool = False
    """True when the call failed; `content` then says why, so the model can react."""


class ProviderBlock(_Model):
    """A provider's block that has no equivalent here (Anthropic's server_tool_use,
    redacted_thinking, compaction...), kept verbatim so it goes back to its format unchanged:
    a web search, a compaction or a fallback turn continues as the provider expects."""

    type: Literal["provider_block"] = "provider_block"
    format: str
    """The wire format it came from; only that format sends it back (others list it as lost)."""
    block: dict[str, Any]
    """The block exactly as the provider sent it."""

    def kind(self) -> str:
        """The block's own type, as its format names it (a Gemini part, which has no `type`,
        by its one key: `thoughtSignature`, `executableCode`...)."""
        kind = self.block.get("type")
        if kind is None and self.block:
            kind = next(iter(self.block))
        return kind if isinstance(kind, str) else "?"

    def summary(self) -> str:
        """`anthropic server_tool_use, 312 bytes, kept as sent`: what a transcript shows."""
        size = len(json.dumps(self.block, ensure_ascii=False, separators=(",", ":")).encode())
        said = Msg(
            "{format} {kind}, {size} bytes, kept as sent",
            format=self.format,
            kind=self.kind(),
            size=size,
        )
        hosted = self.hosted_mcp()
        return said if hosted is None else Msg("{block} ({mcp})", block=said, mcp=hosted)

    def hosted_mcp(self) -> Msg | None:
        """Say which MCP server and tool a provider-hosted MCP item names (Responses'
        `mcp_call`, `mcp_list_tools`, `mcp_approval_request`; Anthropic's MCP connector
        `mcp_tool_use`); None for any other block."""
        if not self.kind().startswith("mcp_"):
            return None
        server = self.block.get("server_label", self.block.get("server_name"))
        tools = self.block.get("tools")
        if isinstance(tools, list):
            return Msg("MCP server {server}: {n} tool(s) listed", server=str(server), n=len(tools))
        name = self.block.get("name")
        if name is None:  # Anthropic's mcp_tool_result: the call it answers, by id
            return Msg("MCP result for {id}", id=str(self.block.get("tool_use_id")))
        return Msg("MCP server {server}, tool {name}", server=str(server), name=str(name))


Block = Annotated[
    TextBlock | ThinkingBlock | ToolUseBlock | ToolResultBlock | ProviderBlock,
    Field(discriminator="type"),
]
BLOCK_TYPES = ("text", "thinking", "tool_use", "tool_result", "provider_block")


def _text_as_blocks(value: Any) -> Any:
    # A hand-written message may say `"content": "hi"`; it means one text block.
    if isinstance(value, str):
        return [{"type": "text", "text": value}]
    return value


class Message(_Model):
    role: Literal["user", "assistant"]
    content: Annotated[list[Block], BeforeValidator(_text_as_blocks)]
    """The blocks of the turn; a user turn answering calls holds ALL their results, first."""

    def tool_uses(self) -> list[ToolUseBlock]:
        return [b for b in self.content if isinstance(b, ToolUseBlock)]

    def tool_results(self) -> list[ToolResultBlock]:
        return [b for b in self.content if isinstance(b, ToolResultBlock)]

    def text(self) -> str:
        return "".join(b.text for b in self.content if isinstance(b, TextBlock))


class ToolSpec(_Model):
    name: str
    """The name the model writes when it wants this tool."""
    description: str
    """What the tool does and returns: all the model knows of it, with the schema."""
    input_schema: dict[str, Any]
    """JSON Schema of the arguments object."""
    strict: bool | None = None
    """Ask the provider to hold the model's arguments to the schema exactly (strict mode)."""


class ToolChoice(_Model):
    type: Literal["auto", "none", "required", "tool"]
    """auto: the model decides; none: no calls; required: at least one call; tool: this one."""
    name: str | None = None
    """The tool to call, with type `tool`."""

    @model_validator(mode="after")
    def _name_goes_with_tool(self) -> "ToolChoice":
        if (self.type == "tool") != (self.name is not None):
            raise ValueError("a name is given with type 'tool', and only then")
        return self


FINAL_STOPS = ("end_turn", "stop_sequence", "refusal")
"""The stop reasons of a final answer (tool_use waits for results; max_tokens was cut off)."""


class Request(_Model):
    model: str
    """The model asked."""
    system: str | None = None
    """The system prompt."""
    messages: list[Message]
    """The whole history, oldest first: the API keeps no state between requests."""
    tools: list[ToolSpec] = Field(default_factory=empty_list)
    """The tools offered. The model sees only their name, description and schema."""
    tool_choice: ToolChoice | None = None
    """Whether, and which, tools the model may call; unset means the provider's default (auto)."""
    parallel_tool_calls: bool | None = None
    """False asks for at most one call per response."""
    max_tokens: int | None = None
    """Upper bound on the answer's length."""
    stream: bool | None = None
    """Ask for the answer as a stream of events."""
    thinking: bool | None = None
    """Thinking (reasoning) mode on or off; unset means the provider's default."""
    response_format: dict[str, Any] | None = None
    """JSON mode for the answer (`content`), not the calls: `{"type": "json_object"}`, or
    `{"type": "json_schema", "json_schema": {"name", "schema", "strict"?}}` (chat's shape)."""
    effort: str | None = None
    """How hard the model thinks (`low`, `high`, `max`): chat's `reasoning_effort`, Anthropic's
    `output_config.effort`; unset means the provider's default."""


class Usage(_Model):
    input_tokens: int | None = None
    """Tokens read (prompt), tool definitions included; those from the cache too (Anthropic's
    wire `input_tokens` leaves them out: its translator adds them back)."""
    output_tokens: int | None = None
    """Tokens written, reasoning included."""
    reasoning_tokens: int | None = None
    """Of the output, the tokens spent thinking, where the provider says."""
    cache_read_tokens: int | None = None
    """Of the input, the tokens read from the provider's prompt cache (a hit, billed far lower):
    DeepSeek's `prompt_cache_hit_tokens`, OpenAI's `prompt_tokens_details.cached_tokens`,
    Anthropic's `cache_read_input_tokens`."""
    cache_write_tokens: int | None = None
    """Of the input, the tokens written to the cache, where the provider says (Anthropic's
    `cache_creation_input_tokens`)."""
    cache_write_1h_tokens: int | None = None
    """Of those written, the ones kept an hour, billed above the 5-minute ones, where the
    provider says there were some (Anthropic's `cache_creation.ephemeral_1h_input_tokens`)."""

    def cache_line(self) -> str | None:
        """`64 of 100 input tokens from the cache`, when the provider reported its cache."""
        if self.cache_read_tokens is None and self.cache_write_tokens is None:
            return None
        total = "?" if self.input_tokens is None else str(self.input_tokens)
        read = self.cache_read_tokens or 0
        if self.cache_write_tokens:
            return Msg(
                "{read} of {total} input tokens from the cache, {written} written to it",
                read=read,
                total=total,
                written=self.cache_write_tokens,
            )
        return Msg("{read} of {total} input tokens from the cache", read=read, total=total)


class Response(_Model):
    id: str | None = None
    """The provider's id for this response."""
    model: str | None = None
    """The model that answered."""
    role: Literal["assistant"] = "assistant"
    content: list[Block]
    """What the model wrote: text, thinking, and tool_use blocks (intents, not executions)."""
    stop_reason: str
    """Why the model stopped: end_turn, tool_use (waiting for results), max_tokens,
    stop_sequence or refusal; an unknown provider value is kept as it came."""
    usage: Usage | None = None
    """Token counts, where the provider gives them."""

    def tool_uses(self) -> list[ToolUseBlock]:
        return [b for b in self.content if isinstance(b, ToolUseBlock)]

    def text(self) -> str:
        return "".join(b.text for b in self.content if isinstance(b, TextBlock))

    def as_message(self) -> Message:
        """The turn as it goes back into the history: unchanged."""
        return Message(role="assistant", content=list(self.content))


_BLOCKS = (TextBlock, ThinkingBlock, ToolUseBlock, ToolResultBlock, ProviderBlock)
HOLDS.update(
    {
        Message: _BLOCKS,
        Request: (Message, ToolSpec, ToolChoice),
        Response: (*_BLOCKS, Usage),
    }
)
