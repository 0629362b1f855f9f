"""The chat format's dialects: what each provider adds to it, as data.

A provider is configuration, not a mapper (ARCHITECTURE.md, habit 4): DeepSeek is the chat
format plus a reasoning field and a thinking switch; OpenAI (and Ollama, vLLM, ...) the plain form.
"""

from __future__ import annotations

from typing import NamedTuple


class ChatDialect(NamedTuple):
    """What one provider adds to the chat format (a NamedTuple, not a dataclass: start-up)."""

    name: str = "openai"
    """The format's name, used as the trace files' suffix (`1-request.deepseek.json`)."""
    reasoning_field: str | None = None
    """The assistant message's key for reasoning text (DeepSeek: `reasoning_content`)."""
    thinking_param: bool = False
    """Whether requests carry `thinking: {"type": "enabled" | "disabled"}` (DeepSeek)."""
    thinking_default: bool = False
    """Thinking on when the request leaves it unset (DeepSeek: on)."""
    thinking_tool_choices: tuple[str, ...] | None = None
    """The tool_choice types accepted in thinking mode, where limited (DeepSeek: auto, none)."""
    cache_hit_fields: bool = False
    """Usage says the prompt cache as `prompt_cache_hit_tokens` / `prompt_cache_miss_tokens`
    (DeepSeek), rather than OpenAI's `prompt_tokens_details.cached_tokens`."""
    completion_tokens_models: str | None = None
    """Models (a regex on the model name) that take the answer's length cap as
    `max_completion_tokens` and refuse `max_tokens`."""
    model_prefixes: tuple[str, ...] = ()
    """Model names that betray the dialect when nothing else in a document does."""
    json_word_modes: tuple[str, ...] = ("json_object",)
    """The JSON modes (`response_format.type`) whose prompt must say "json" (fc check FC132)."""
    id_pattern: str | None = None
    """The call ids the provider accepts (a regex), where it limits them (fc check FC107)."""


# OpenAI's reasoning models refuse `max_tokens` ("Unsupported parameter: 'max_tokens' is not
# supported with this model. Use 'max_completion_tokens' instead."): the o-series and GPT-5
# (platform.openai.com/docs/api-reference/chat/create, max_tokens: "deprecated in favor of
# max_completion_tokens, and is not compatible with o-series models"). Older models take both,
# and local OpenAI-compatible servers often only `max_tokens`: those keep it.
OPENAI = ChatDialect(completion_tokens_models=r"(openai/)?(o[1-9]|gpt-5)")

DEEPSEEK = ChatDialect(
    name="deepseek",
    # DeepSeek's thinking mode: the switch is a request field, the reasoning a message field,
    # and thinking is on unless turned off (api-docs.deepseek.com, guides/thinking_mode).
    reasoning_field="reasoning_content",
    thinking_param=True,
    thinking_default=True,
    # "In thinking mode tool_choice may only be auto or none" (PROTOCOL.md, DeepSeek specifics).
    thinking_tool_choices=("auto", "none"),
    model_prefixes=("deepseek",),
    # DeepSeek wants the word "json" in the prompt for either JSON mode (its JSON output guide).
    json_word_modes=("json_object", "json_schema"),
    # Its usage reports the prompt cache in its own fields (guides/kv_cache).
    cache_hit_fields=True,
)

MISTRAL = ChatDialect(
    name="mistral",
    # docs.mistral.ai/capabilities/function_calling: Mistral's own models, by name.
    model_prefixes=(
        "mistral",
        "magistral",
        "devstral",
        "codestral",
        "ministral",
        "pixtral",
        "open-mistral",
    ),
    # Its API refuses a history whose call ids are not 9 letters or digits (format.py has the
    # sentence): ids made by another provider break there.
    id_pattern="^[a-zA-Z0-9]{9}$",
)
