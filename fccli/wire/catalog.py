"""The formats by name, each made by its package when first asked for: the registry's list,
known without importing any format (a help page names them all, and stays light).

A format of a new package is one line here (its maker below and its entry in FORMATS).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, MutableMapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fccli.wire.base import WireFormat


def _deepseek() -> WireFormat:
    from fccli.wire.chat import format as chat
    from fccli.wire.chat.dialects import DEEPSEEK

    return chat.ChatFormat(DEEPSEEK, chat.DEEPSEEK_REFUSALS)


def _mistral() -> WireFormat:
    from fccli.wire.chat import format as chat
    from fccli.wire.chat.dialects import MISTRAL

    return chat.ChatFormat(MISTRAL, chat.MISTRAL_REFUSALS, chat.MISTRAL_ID_RULE)


def _openai() -> WireFormat:
    from fccli.wire.chat import format as chat
    from fccli.wire.chat.dialects import OPENAI

    return chat.ChatFormat(OPENAI)


def _anthropic() -> WireFormat:
    from fccli.wire.anthropic import format as anthropic

    return anthropic.AnthropicFormat()


def _responses() -> WireFormat:
    from fccli.wire.responses import format as responses

    return responses.ResponsesFormat()


def _gemini() -> WireFormat:
    from fccli.wire.gemini import format as gemini

    return gemini.GeminiFormat()


def _ollama_native() -> WireFormat:
    from fccli.wire.ollama import format as ollama

    return ollama.OllamaFormat()


class _Formats(MutableMapping[str, "WireFormat"]):
    """The formats by name, each package imported when its format is first asked for (a
    command reading a DeepSeek trace needs neither Gemini's codec nor Anthropic's: start-up).
    Names and order are known without importing any. A format object can be registered as it
    is, too (tests/wire/test_toy_format.py)."""

    def __init__(self, makers: dict[str, Callable[[], WireFormat]]) -> None:
        self._makers = makers
        self._made: dict[str, WireFormat] = {}

    def __getitem__(self, name: str) -> WireFormat:
        made = self._made.get(name)
        if made is None:
            made = self._made[name] = self._makers[name]()  # KeyError for an unknown name
        return made

    def __iter__(self) -> Iterator[str]:
        return iter(self._makers)

    def __len__(self) -> int:
        return len(self._makers)

    def __contains__(self, name: object) -> bool:
        return name in self._makers

    def __setitem__(self, name: str, fmt: WireFormat) -> None:
        self._makers[name] = lambda: fmt
        self._made[name] = fmt

    def __delitem__(self, name: str) -> None:
        del self._makers[name]
        self._made.pop(name, None)


FORMATS: MutableMapping[str, WireFormat] = _Formats(
    {
        "deepseek": _deepseek,
        "mistral": _mistral,
        "openai": _openai,
        "anthropic": _anthropic,
        "responses": _responses,
        "gemini": _gemini,
        "ollama-native": _ollama_native,
    }
)
"""Chat dialects in the order detection tries them: a dialect with signs first, the plain one
last. Each key is its format's `name` (tests/wire/test_format_contract.py)."""


def names() -> str:
    """Return the formats' names as a help text lists them: `deepseek, openai, ...`."""
    return ", ".join(FORMATS)
