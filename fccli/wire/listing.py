"""The wire formats by name, each with the function that makes its declaration: the one line a
new format adds. Read without importing any format's package (nor pydantic), so that a
command's help lists the formats from here, not by hand."""

from __future__ import annotations

from fccli.i18n import Joined, Msg

INTERNAL = "internal"
"""fc's own format: the blocks of core/models.py, read and written as they are."""

MAKERS: dict[str, str] = {
    "deepseek": "fccli.wire.chat.format:deepseek_format",
    "mistral": "fccli.wire.chat.format:mistral_format",
    "openai": "fccli.wire.chat.format:openai_format",
    "anthropic": "fccli.wire.anthropic.format:AnthropicFormat",
    "responses": "fccli.wire.responses.format:ResponsesFormat",
    "gemini": "fccli.wire.gemini.format:GeminiFormat",
    "bedrock": "fccli.wire.bedrock.format:BedrockFormat",
    "ollama-native": "fccli.wire.ollama.format:OllamaFormat",
}
"""`module:function` of each format's declaration. Chat dialects in the order detection tries
them: a dialect with signs first, the plain one last."""


def said_formats(*, internal: bool = True) -> Msg:
    """Return the formats' names as a help text lists them: `internal, deepseek, … or ollama-native`."""
    names = (INTERNAL, *MAKERS) if internal else tuple(MAKERS)
    return Msg("{first} or {last}", first=Joined(names[:-1], ", ", zh_sep="、"), last=names[-1])
