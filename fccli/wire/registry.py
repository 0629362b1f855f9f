"""The wire formats by name, as trace files are suffixed: the one list every reader takes.

A format is one package under wire/ declaring a WireFormat (wire/base.py), and one line in
wire/listing.py naming it; DeepSeek is the chat format with a dialect. Convert, diff, check,
replay, send and the engine find their translator here, and `internal` (fc's own format, which
needs no translation) beside them.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from functools import cache

from fccli.core.errors import UsageError
from fccli.i18n import Msg
from fccli.wire.anthropic import ID_PATTERN
from fccli.wire.base import Refusal, Route, StreamFolder, WireFormat
from fccli.wire.listing import INTERNAL, MAKERS
from fccli.wire.view import BlocksLayout, InternalLayout

__all__ = [
    "FORMATS",
    "INTERNAL",
    "Route",
    "StreamFolder",
    "WireFormat",
    "get_format",
    "layout",
]


def _maker(where: str) -> Callable[[], WireFormat]:
    """Return the function `module:name` names, imported when first called."""

    def make() -> WireFormat:
        module, name = where.split(":")
        made: WireFormat = getattr(importlib.import_module(module), name)()
        return made

    return make


class _Formats(MutableMapping[str, WireFormat]):
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
    {name: _maker(where) for name, where in MAKERS.items()}
)
"""The formats of wire/listing.py, in its order. Each key is its format's `name`
(tests/wire/test_format_contract.py)."""


# The internal format lays calls and results out as Anthropic does: those of Anthropic's
# sentences hold, and chat's for a schema. Which rules, known without importing either.
_INTERNAL_AS_ANTHROPIC = ("FC101", "FC102", "FC103", "FC104", "FC106", "FC109")
_INTERNAL_AS_CHAT = "FC115"


@cache
def _internal_refusals() -> Mapping[str, Refusal]:
    from fccli.wire.anthropic import format as anthropic
    from fccli.wire.chat import format as chat

    return {
        **{rule: anthropic.REFUSALS[rule] for rule in _INTERNAL_AS_ANTHROPIC},
        _INTERNAL_AS_CHAT: chat.INVALID_SCHEMA,
    }


def format_names() -> tuple[str, ...]:
    """Every format a file may be in: `internal` and the registry's."""
    return (INTERNAL, *FORMATS)


def get_format(name: str) -> WireFormat:
    try:
        return FORMATS[name]
    except KeyError:
        raise UsageError(
            Msg("unknown wire format {name!r}", name=name),
            hint=Msg("known formats: {formats}", formats=", ".join(FORMATS)),
        ) from None


_INTERNAL_LAYOUT = InternalLayout(ID_PATTERN)


def layout(name: str) -> BlocksLayout:
    """Return what `fc check` reads of format `name`'s layout: the format itself, or the internal
    format's (fc's own blocks, held to the rules of Anthropic's providers)."""
    return FORMATS.get(name, _INTERNAL_LAYOUT)


def family(name: str) -> str:
    """Return a format's layout family (wire/base.py); the internal format's is `blocks`."""
    return FORMATS[name].family if name in FORMATS else "blocks"


def refusals(name: str) -> Mapping[str, Refusal]:
    """Return what a provider answers for each mistake in a history of format `name` (for the
    internal format, what the providers would)."""
    return FORMATS[name].refusals if name in FORMATS else _internal_refusals()


def refuses(name: str, rule: str) -> bool:
    """Return whether a provider answers a history of format `name` that breaks `rule` with a 400:
    `rule in refusals(name)`, without reading the sentences (fc run checks its own internal
    request this way, and needs no provider's package for it)."""
    if name in FORMATS:
        return rule in FORMATS[name].refusals
    return rule in _INTERNAL_AS_ANTHROPIC or rule == _INTERNAL_AS_CHAT


def formats_at(path: str) -> list[WireFormat]:
    """Return the formats whose providers answer at request path `path` (no query string), in the
    registry's order: the chat dialects share theirs, the plain dialect last."""
    return [f for f in FORMATS.values() if any(route.matches(path) for route in f.routes)]


def route_at(fmt: WireFormat, path: str) -> Route | None:
    """Return the route of `fmt` that `path` is (whether the path itself asks for a stream)."""
    return next((route for route in fmt.routes if route.matches(path)), None)


def hinted_format(name_hint: str | None) -> str | None:
    """Return the format a file's name says (`1-request.<format>.json`), if any."""
    for name in FORMATS if name_hint else ():
        if f".{name}." in str(name_hint):
            return name
    return None
