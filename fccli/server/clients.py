"""The line that points an agent at a local server (`fc proxy`, `fc serve`): the environment
variable its provider's official SDK reads for the base URL, set to what that SDK appends the
endpoint's path to."""

from __future__ import annotations

SDK_SETTINGS = {
    # The OpenAI SDKs append /chat/completions to OPENAI_BASE_URL; DeepSeek's clients are those
    # SDKs too, and /v1/chat/completions is one of the chat routes (wire/chat/format.py).
    "openai": ("OPENAI_BASE_URL", "/v1"),
    "deepseek": ("OPENAI_BASE_URL", "/v1"),
    # The Anthropic SDKs append /v1/messages to ANTHROPIC_BASE_URL.
    "anthropic": ("ANTHROPIC_BASE_URL", ""),
}


def agent_setting(format_name: str, url: str) -> str:
    """`OPENAI_BASE_URL=http://127.0.0.1:8787/v1`, or the base URL alone for a format whose
    SDK has no such variable."""
    variable, suffix = SDK_SETTINGS.get(format_name, ("", ""))
    return f"{variable}={url}{suffix}" if variable else f"base URL {url}"
