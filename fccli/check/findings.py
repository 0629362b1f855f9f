"""What `fc check` reports: findings, and the catalogue of rules they come from.

A finding names its rule (`FC101`...), says what is wrong in one plain sentence, points at the
place (a JSON path into the file as written, so a person can open it there) and, for an error a
provider refuses, the message that provider answers with HTTP 400.

The provider messages are the ones collected in PROTOCOL.md ("What providers answer when the
history is wrong"); the few that are not in that table name their source beside them. A
message with `{n}` (message index), `{k}` (block or call index) or `{ids}` in it is filled in
with the place of the finding, as the provider would.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal

Severity = Literal["error", "warning", "note"]
"""A note is neither: something worth knowing that breaks no rule (exit 0, even --strict)."""

ALL_FORMATS = ("internal", "deepseek", "openai", "anthropic")
CHAT = ("deepseek", "openai")
BLOCKS = ("internal", "anthropic")

_ANTHROPIC = "Anthropic"
_CHAT_PROVIDERS = "OpenAI and DeepSeek"

_NO_RESULT_CHAT = (
    "An assistant message with 'tool_calls' must be followed by tool messages responding to "
    "each 'tool_call_id'. The following tool_call_ids did not have response messages: {ids}"
)
_NO_RESULT_BLOCKS = (
    "messages.{n}: `tool_use` ids were found without `tool_result` blocks immediately after: "
    "{ids}. Each `tool_use` block must have a corresponding `tool_result` block in the next message."
)
_BAD_ARGUMENTS_CHAT = (
    "messages.{n}.tool_calls.{k}.function.arguments: arguments must be a valid JSON object string"
)


@dataclass(frozen=True)
class Rule:
    id: str
    severity: Severity
    formats: tuple[str, ...]
    """The formats the rule applies to (a trace-only rule: empty)."""
    title: str
    """The mistake, in a few words (the rule table of `fc check --help` and the README)."""
    provider_messages: dict[str, tuple[str, str]] = field(default_factory=dict)
    """Per format: (who answers, what they answer). Left out where no provider refuses."""


RULES: dict[str, Rule] = {
    r.id: r
    for r in (
        Rule(
            "FC100",
            "warning",
            ALL_FORMATS,
            "a part fc's reader for the format refuses (the rules read around it)",
        ),
        Rule(
            "FC101",
            "error",
            ALL_FORMATS,
            "a call with no result",
            {
                "deepseek": (_CHAT_PROVIDERS, _NO_RESULT_CHAT),
                "openai": (_CHAT_PROVIDERS, _NO_RESULT_CHAT),
                "anthropic": (_ANTHROPIC, _NO_RESULT_BLOCKS),
                "internal": (_ANTHROPIC, _NO_RESULT_BLOCKS),
            },
        ),
        Rule(
            "FC102",
            "error",
            ALL_FORMATS,
            "a result with no call",
            {
                "deepseek": (
                    _CHAT_PROVIDERS,
                    "Messages with role 'tool' must be a response to a preceding message with 'tool_calls'",
                ),
                "openai": (
                    _CHAT_PROVIDERS,
                    "Messages with role 'tool' must be a response to a preceding message with 'tool_calls'",
                ),
                **dict.fromkeys(
                    BLOCKS,
                    (
                        _ANTHROPIC,
                        "messages.{n}.content.{k}: unexpected `tool_use_id` found in `tool_result` "
                        "blocks: {ids}. Each `tool_result` block must have a corresponding "
                        "`tool_use` block in the previous message.",
                    ),
                ),
            },
        ),
        Rule(
            "FC103",
            "error",
            BLOCKS,
            "results of one turn split across several user messages",
            dict.fromkeys(
                BLOCKS,
                (
                    _ANTHROPIC,
                    "the following `tool_use` ids were not found in `tool_result` blocks: {ids}",
                ),
            ),
        ),
        Rule(
            "FC104",
            "error",
            BLOCKS,
            "result blocks not leading their user message",
            dict.fromkeys(BLOCKS, (_ANTHROPIC, _NO_RESULT_BLOCKS)),
        ),
        Rule(
            "FC105",
            "error",
            CHAT,
            "tool messages not directly after their assistant message",
            dict.fromkeys(CHAT, (_CHAT_PROVIDERS, _NO_RESULT_CHAT)),
        ),
        Rule(
            "FC106",
            "error",
            ALL_FORMATS,
            "the same id on two calls, or two results for one call",
            {
                # agno-agi/agno#5116 (two tool messages for one id)
                **dict.fromkeys(
                    CHAT,
                    (
                        "OpenAI",
                        "Invalid parameter: Duplicate value for 'tool_call_id' of '{ids}', "
                        "in messages[{first}] and messages[{n}].",
                    ),
                ),
                # anthropics/claude-code#20901, #21083
                **dict.fromkeys(
                    BLOCKS, (_ANTHROPIC, "messages.{n}.content.{k}: `tool_use` ids must be unique")
                ),
            },
        ),
        Rule(
            "FC107",
            "error",
            ("anthropic",),
            "a tool id outside Anthropic's pattern ^[a-zA-Z0-9_-]+$",
            # CommandCodeAI/command-code#323, tailcallhq/forgecode#1142
            {
                "anthropic": (
                    _ANTHROPIC,
                    "messages.{n}.content.{k}.{field}: String should match pattern '^[a-zA-Z0-9_-]+$'",
                )
            },
        ),
        Rule(
            "FC108",
            "error",
            CHAT,
            "arguments that are not valid JSON",
            dict.fromkeys(CHAT, ("OpenAI-compatible servers", _BAD_ARGUMENTS_CHAT)),
        ),
        Rule(
            "FC109",
            "error",
            ALL_FORMATS,
            "arguments that are valid JSON but not an object",
            {
                **dict.fromkeys(CHAT, ("OpenAI-compatible servers", _BAD_ARGUMENTS_CHAT)),
                # anthropics/claude-code#6696, anthropics/anthropic-sdk-typescript#648
                **dict.fromkeys(
                    BLOCKS,
                    (
                        _ANTHROPIC,
                        "messages.{n}.content.{k}.tool_use.input: Input should be a valid dictionary",
                    ),
                ),
            },
        ),
        Rule(
            "FC110",
            "error",
            ALL_FORMATS,
            "arguments that fail the tool's schema, answered as if they were fine",
        ),
        Rule(
            "FC111",
            "error",
            ALL_FORMATS,
            "a call to a tool not offered, answered as if it had run",
        ),
        Rule(
            "FC112",
            "error",
            ("deepseek",),
            "thinking mode: a tool-calling assistant turn without reasoning_content",
            {
                "deepseek": (
                    "DeepSeek",
                    "The `reasoning_content` in the thinking mode must be passed back to the API.",
                )
            },
        ),
        Rule(
            "FC113",
            "error",
            ("deepseek",),
            "tool message content that is not a string",
            {
                "deepseek": (
                    "DeepSeek",
                    "Failed to deserialize the JSON body into the target type: messages[{n}]: "
                    "invalid type: {found}, expected a string",
                )
            },
        ),
        Rule(
            "FC114",
            "error",
            ("deepseek", "anthropic"),
            "a tool_choice that thinking mode refuses",
            {
                # osaurus-ai/osaurus#1940, deepseek-ai/DeepSeek-V3#1376
                "deepseek": ("DeepSeek", "Thinking mode does not support this tool_choice"),
                # mastra-ai/mastra#7507
                "anthropic": (
                    _ANTHROPIC,
                    "Thinking may not be enabled when tool_choice forces tool use.",
                ),
            },
        ),
        Rule(
            "FC115",
            "error",
            ALL_FORMATS,
            "strict: true on a schema that is not in strict form",
            # ash-project/ash_ai#155 (OpenAI's wording; DeepSeek's beta is not on record)
            dict.fromkeys(
                ("internal", "deepseek", "openai"),
                ("OpenAI", "Invalid schema for function '{name}': {detail}"),
            ),
        ),
        Rule("FC116", "warning", ALL_FORMATS, "results out of call order"),
        Rule(
            "FC117",
            "warning",
            ALL_FORMATS,
            "the same tool name offered twice (an error on Anthropic)",
            # anthropics/claude-code#10687
            {"anthropic": (_ANTHROPIC, "tools: Tool names must be unique.")},
        ),
        Rule("FC118", "warning", ALL_FORMATS, "more than 15 tools offered"),
        Rule(
            "FC119",
            "warning",
            ALL_FORMATS,
            "an answer with no call although tools were offered: it may be made up",
        ),
        Rule("FC120", "warning", (), "a trace step whose internal and wire requests disagree"),
        Rule(
            "FC122",
            "note",
            (),
            "a trace step whose history stops matching the earlier step's: the prompt cache breaks there",
        ),
        Rule(
            "FC121",
            "error",
            ("anthropic",),
            "a thinking block sent back without its signature",
            # JohnnyZ93/oai-compatible-copilot#217
            {
                "anthropic": (
                    _ANTHROPIC,
                    "messages.{n}.content.{k}.thinking.signature: Field required",
                )
            },
        ),
    )
}


@dataclass(frozen=True)
class Finding:
    rule: str
    """The rule's id, FC1xx."""
    severity: Severity
    message: str
    """What is wrong, in plain words."""
    path: str
    """Where, as a JSON path into the file as written (`$.messages[2].content[0]`)."""
    provider: str | None = None
    """Who answers the mistake with HTTP 400 (for the internal format: Anthropic, whose layout it
    shares, or OpenAI for a tool schema)."""
    provider_message: str | None = None
    """What they answer (PROTOCOL.md's table), with this finding's indices filled in."""
    file: str | None = None
    """The file, when several were checked (a trace)."""

    def to_json_dict(self) -> dict[str, Any]:
        return asdict(self)

    def in_file(self, name: str) -> Finding:
        return replace(self, file=name)


def finding(
    rule: str,
    fmt: str,
    path: str,
    message: str,
    *,
    severity: Severity | None = None,
    quote: bool = True,
    **values: Any,
) -> Finding:
    """A finding of `rule` in a document of format `fmt`; `values` fill in the provider's message.

    `quote=False` where this case of the rule has no provider message on record.
    """
    spec = RULES[rule]
    provider, said = spec.provider_messages.get(fmt, (None, None)) if quote else (None, None)
    if said is not None:
        said = said.format(**values)
    return Finding(rule, severity or spec.severity, message, path, provider, said)


def count(findings: list[Finding], severity: Severity) -> int:
    return sum(1 for f in findings if f.severity == severity)
