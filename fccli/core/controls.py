"""Text from a server or a file, made safe to show: nothing in it may drive the terminal.

An escape sequence in a model's words, a tool's name or a provider's error could clear the
screen, recolour it, or write the clipboard (OSC 52). Every control character is shown escaped
(`\\x1b`), as are lone surrogates (`\\ud800`), which no terminal encoding can carry. Line
breaks and tabs stay: they are layout, not commands.

Two patterns, because compiling a character class that reaches the surrogates is slow (re builds
a map of the whole Basic Multilingual Plane; docs/performance.md): the control characters are
one small class, and the pattern with the surrogates too is compiled only for a text that holds
one, which UTF-8 finds (it cannot encode them).
"""

from __future__ import annotations

import re
from functools import cache

_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_CHUNK = 1 << 20
"""Characters encoded at a time when looking for surrogates: a long text is not copied whole."""


@cache
def _unsafe() -> re.Pattern[str]:
    return re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


@cache
def _lone() -> re.Pattern[str]:
    return re.compile("[\ud800-\udfff]")


def has_surrogates(text: str) -> bool:
    """Return whether `text` holds a lone surrogate (which UTF-8 cannot encode)."""
    if text.isascii():
        return False
    try:
        for start in range(0, len(text), _CHUNK):
            text[start : start + _CHUNK].encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def well_formed(text: str) -> str:
    """Replace each lone surrogate with U+FFFD, so that UTF-8 can carry `text` (what a
    protobuf string or a UTF-8 file needs; the surrogate's value is lost)."""
    return _lone().sub("\ufffd", text) if has_surrogates(text) else text


def escape_controls(text: str) -> str:
    return (_unsafe() if has_surrogates(text) else _CONTROLS).sub(_escaped, text)


def has_controls(text: str) -> bool:
    return _CONTROLS.search(text) is not None or has_surrogates(text)
