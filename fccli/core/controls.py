"""Text from a server or a file, made safe to show: nothing in it may drive the terminal.

An escape sequence in a model's words, a tool's name or a provider's error could clear the
screen, recolour it, or write the clipboard (OSC 52). Every control character is shown escaped
(`\\x1b`), as are lone surrogates (`\\ud800`), which no terminal encoding can carry. Line
breaks and tabs stay: they are layout, not commands.
"""

from __future__ import annotations

import re

_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape_controls(text: str) -> str:
    return _UNSAFE.sub(_escaped, text)


def has_controls(text: str) -> bool:
    return _UNSAFE.search(text) is not None
