"""The real providers, as data (ARCHITECTURE.md, habit 4: a provider is configuration, not a mapper).

DeepSeek, OpenAI and Ollama share the chat wire module; Anthropic has its own. What differs
(endpoint, key variable, default model, what each supports) is written down here once, read by
the HTTP provider, `fc run`'s checks and `fc providers`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Profile:
    name: str
    wire_format: str
    default_model: str
    base_url: str
    path: str
    """Appended to the base URL: the endpoint that takes the request body."""
    key_env: str | None
    auth: str | None
    """How the key travels: `bearer` (Authorization header), `x-api-key`, or None (no key)."""
    thinking: str
    """What `--thinking / --no-thinking` does, in words; empty when the provider has no switch."""
    tool_choices: tuple[str, ...]
    """tool_choice values accepted (and in thinking mode, where limited)."""
    strict: str
    parallel_control: str
    streaming: str = "SSE chunks, call fragments by index, usage last (include_usage), data: [DONE]"
    """How --stream answers arrive, in words."""
    strict_base_url: str | None = None
    """Where strict mode lives, when it is a beta on another base URL (DeepSeek)."""
    extra_headers: tuple[tuple[str, str], ...] = ()
    strict_headers: tuple[tuple[str, str], ...] = ()


PROFILES: dict[str, Profile] = {
    "deepseek": Profile(
        name="deepseek",
        wire_format="deepseek",
        default_model="deepseek-v4-flash",
        base_url="https://api.deepseek.com",
        path="/chat/completions",
        key_env="DEEPSEEK_API_KEY",
        auth="bearer",
        thinking='on by default; --no-thinking sends {"type": "disabled"}',
        tool_choices=("auto", "none", "required", "NAME (thinking mode: auto, none only)"),
        # api-docs.deepseek.com, guides/function_calling: strict mode is a beta at /beta.
        strict="yes (beta: fc switches to https://api.deepseek.com/beta)",
        parallel_control="parallel_tool_calls: false",
        strict_base_url="https://api.deepseek.com/beta",
    ),
    "openai": Profile(
        name="openai",
        wire_format="openai",
        default_model="gpt-4.1-mini",
        base_url="https://api.openai.com/v1",
        path="/chat/completions",
        key_env="OPENAI_API_KEY",
        auth="bearer",
        thinking="",
        tool_choices=("auto", "none", "required", "NAME"),
        strict="yes (function.strict: true)",
        parallel_control="parallel_tool_calls: false",
    ),
    "ollama": Profile(
        name="ollama",
        wire_format="openai",
        default_model="qwen3",
        base_url="http://localhost:11434/v1",
        path="/chat/completions",
        key_env=None,
        auth=None,
        thinking="",
        tool_choices=("auto", "none", "required", "NAME (as far as the server honours them)"),
        strict="sent; the server may ignore it",
        parallel_control="parallel_tool_calls: false (the server may ignore it)",
    ),
    "anthropic": Profile(
        name="anthropic",
        wire_format="anthropic",
        default_model="claude-haiku-4-5",
        base_url="https://api.anthropic.com",
        path="/v1/messages",
        key_env="ANTHROPIC_API_KEY",
        auth="x-api-key",
        thinking='off by default; --thinking sends {"type": "enabled", "budget_tokens": 2048}',
        tool_choices=("auto", "none", "required (any)", "NAME (thinking on: auto, none only)"),
        strict="yes (tool strict: true, structured-outputs beta header)",
        parallel_control="tool_choice.disable_parallel_tool_use: true",
        streaming="SSE events: content_block_delta (input_json_delta for calls), message_stop",
        extra_headers=(("anthropic-version", "2023-06-01"),),
        # Strict tool use came as the structured-outputs beta (docs.claude.com, structured outputs).
        strict_headers=(("anthropic-beta", "structured-outputs-2025-11-13"),),
    ),
}
