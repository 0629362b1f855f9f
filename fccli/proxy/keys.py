"""The client's secrets: its key headers and query values, which no trace file may hold.

The key travels in the request's headers, which are never written; an answer that echoes it
gets it masked in every file, as `fc run` does.
"""

from __future__ import annotations

import functools

from fccli.core.secrets import Secrets

KEY_HEADERS = frozenset({"authorization", "x-api-key", "api-key", "x-goog-api-key"})
"""Request headers that carry a key: their values are masked wherever an answer echoes them."""


def header_secrets(headers: list[tuple[bytes, bytes]], query_values: list[str]) -> Secrets:
    """Mask the client's key (as sent, and without its `Bearer `) and the values of its query
    string (Gemini's `?key=`): what no file may hold."""
    return maskers(secret_values(headers, query_values))


def secret_values(headers: list[tuple[bytes, bytes]], query_values: list[str]) -> tuple[str, ...]:
    """Collect `header_secrets`' values, not yet compiled into patterns: the event loop hands
    them to the journal, which compiles them."""
    values = list(query_values)
    for name, value in headers:
        if name.decode("latin-1").lower() in KEY_HEADERS:
            text = value.decode("latin-1")
            values += [text, text.partition(" ")[2]]
    return tuple(values)


@functools.lru_cache(maxsize=64)
def maskers(values: tuple[str, ...]) -> Secrets:
    """Compile the patterns of `values` once: one agent sends one key again and again."""
    return Secrets(values)
