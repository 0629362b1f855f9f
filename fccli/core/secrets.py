"""Secrets as a server may send them back: in plain text, JSON-escaped, split across the events
of a stream. Everything fc writes or shows passes through one of these maskers first.

- `text`: decoded text (a message, a parsed string): the secret as it is.
- `raw`: bytes of JSON or SSE as received: the secret's characters each either as they are or
  as a JSON escape (`\\u0073\\u006b-...`), which byte-for-byte masking would miss.
- `json`: every string (and key) of a parsed JSON value.
- `stream`: an SSE body (or NDJSON, Ollama's own: a JSON object a line) whose events carry the
  secret in pieces (`"sk-te"`, then `"st-key"`): the pieces of one field (the same path, the
  same `index`) are joined, and the parts that make a secret are masked in each event, so that
  the events, folded, say `***` where it was.
"""

from __future__ import annotations

import base64
import functools
import json
import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import parse_qsl, quote, quote_plus, unquote, urlsplit

MASK = "***"
MIN_SECRET = 8
"""Shorter values are not masked: a local server's placeholder key ("x", "city") would otherwise
be masked inside the model's own words, and is no secret anyway."""

PUBLIC_QUERY_NAMES = frozenset({"api-version", "api_version", "version", "alt", "beta"})
"""Query parameters of a base URL known to carry no secret (Azure's `api-version`, Gemini's
`alt=sse`); every other value in a base URL's query string is treated as a secret."""


def url_secrets(url: str | None) -> list[str]:
    """Return what a base URL holds that must never be shown: a password (as written and decoded),
    the Basic auth value httpx makes of `user:password` (a server that echoes the `Authorization`
    header shows it in base64), and the values of its query string."""
    if not url:
        return []
    try:
        parts = urlsplit(url)
        username, password = parts.username, parts.password
    except ValueError:
        return []
    found: list[str] = []
    if password is not None:
        found += [password, unquote(password)]
        userpass = f"{unquote(username or '')}:{unquote(password)}".encode()
        found.append(base64.b64encode(userpass).decode("ascii"))
    for name, value in parse_qsl(parts.query, keep_blank_values=False):
        if name.lower() not in PUBLIC_QUERY_NAMES:
            found.append(value)
    for raw in parts.query.split("&"):
        name, _, value = raw.partition("=")
        if value and unquote(name).lower() not in PUBLIC_QUERY_NAMES:
            found.append(value)  # as written, percent-escapes and all
    return found


def credential_forms(value: str) -> list[str]:
    """Return the forms a credential may be echoed in: as it is, each word of it (the token of
    `Bearer <token>`), for `Basic <base64>` the `user:password` it holds and the password, and
    each of these percent-encoded."""
    words = value.split()
    forms = [value, *words]
    if len(words) == 2 and words[0].lower() == "basic":
        try:
            pair = base64.b64decode(words[1], validate=True).decode("utf-8")
        except ValueError:
            pair = ""
        if ":" in pair:
            forms += [pair, pair.partition(":")[2]]
    encoded = [way(form, safe="") for form in forms for way in (quote, quote_plus)]
    return list(dict.fromkeys(forms + encoded))


def _char_pattern(char: str) -> bytes:
    """Return one character as it may stand in JSON: itself (UTF-8) or escaped."""
    options = [re.escape(char.encode("utf-8"))]
    code = ord(char)
    if code <= 0xFFFF:
        digits = f"{code:04x}"
        # \u0073 or \u0073 with upper-case hex: JSON allows both.
        hexes = b"".join(
            b"[" + d.encode() + d.upper().encode() + b"]" if d.isalpha() else d.encode()
            for d in digits
        )
        options.append(rb"\\u" + hexes)
    short = {'"': rb'\\"', "\\": rb"\\\\", "/": rb"\\/"}.get(char)
    if short is not None:
        options.append(short)
    return b"(?:" + b"|".join(options) + b")"


class Secrets:
    """The values one run or one command must never show, and the ways to mask them."""

    def __init__(self, values: Iterable[str | None]) -> None:
        kept = {v for v in values if v and len(v) >= MIN_SECRET}
        self.values = sorted(kept, key=len, reverse=True)  # the longest first: no half masks
        self._text = re.compile("|".join(re.escape(v) for v in self.values)) if kept else None
        self._raw = (
            re.compile(b"|".join(b"".join(_char_pattern(c) for c in v) for v in self.values))
            if kept
            else None
        )

    def __bool__(self) -> bool:
        return bool(self.values)

    def text(self, text: str) -> str:
        if self._text is None:
            return text
        text = self._text.sub(MASK, text)
        for value in self.values:  # also as an error message quotes it: repr() escapes
            text = text.replace(repr(value)[1:-1], MASK)
        return text

    def raw(self, data: bytes) -> bytes:
        if self._raw is None:
            return data
        return self._raw.sub(MASK.encode(), data)

    def longest_raw(self) -> int:
        """Return the most bytes one secret may take in raw JSON (every character escaped)."""
        return max((len(v) * 12 for v in self.values), default=0)

    def json(self, value: Any) -> Any:
        if self._text is None:
            return value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self.json(v) for v in value]
        if isinstance(value, dict):
            return {self.text(k): self.json(v) for k, v in value.items()}
        return value

    def stream(self, body: bytes) -> bytes:
        """Return an SSE or NDJSON body with every secret masked, those cut across events too
        (see the module)."""
        if self._text is None:
            return body
        lines = re.split(rb"(\r\n|\r|\n)", body)
        return self._masked_lines(lines, *_events(lines))

    def stream_part(self, body: bytes) -> tuple[bytes, int]:
        """Return, of an SSE or NDJSON body still arriving, the start that can be masked for
        good now, masked, and its length as it came: its whole lines, up to the first that holds
        the start of what may be a secret whose rest is yet to come (a field's text so far ends
        as a secret begins)."""
        end = max(body.rfind(b"\n"), body.rfind(b"\r")) + 1
        if self._text is None or not end:
            return body[:end], end
        lines = re.split(rb"(\r\n|\r|\n)", body[:end])
        events, channels = _events(lines)
        ready = len(lines)
        for leaves in channels.values():
            texts = [leaf.container[leaf.key] for leaf in leaves]
            begun = self._begun("".join(texts))
            for leaf, text in zip(reversed(leaves), reversed(texts), strict=True):
                if begun <= 0:
                    break
                ready = min(ready, leaf.event)  # a secret may begin here: its line waits
                begun -= len(text)
        lines = lines[:ready]
        size = sum(map(len, lines))  # as they came: masking rewrites them
        kept = {number: event for number, event in events.items() if number < ready}
        pieces = {
            path: [leaf for leaf in leaves if leaf.event < ready]
            for path, leaves in channels.items()
        }
        return self._masked_lines(lines, kept, pieces), size

    def _begun(self, text: str) -> int:
        """Return how many characters at the end of `text` begin a secret (none whole)."""
        return max(
            (n for v in self.values for n in range(1, len(v)) if text.endswith(v[:n])),
            default=0,
        )

    def _masked_lines(
        self,
        lines: list[bytes],
        events: dict[int, list[Any]],
        channels: dict[tuple[Any, ...], list[_Leaf]],
    ) -> bytes:
        """Return the lines (and line ends) of a body joined, the secrets in their events' fields
        masked (`_events` read them), then those left whole in any line."""
        changed: set[int] = set()
        for leaves in channels.values():
            if leaves:
                changed |= self._mask_channel(leaves)
        for number in changed:
            text = json.dumps(events[number][0], ensure_ascii=False, separators=(",", ":"))
            lines[number] = events[number][1] + text.encode("utf-8", "surrogatepass")
        return self.raw(b"".join(lines))

    def _mask_channel(self, leaves: list[_Leaf]) -> set[int]:
        """Mask the secrets in the text the pieces of one field make together; returns the
        events whose pieces changed."""
        texts: list[str] = [leaf.container[leaf.key] for leaf in leaves]
        changed: set[int] = set()
        for leaf, text, new in zip(leaves, texts, self.pieces(texts), strict=True):
            if new != text:
                leaf.container[leaf.key] = new
                changed.add(leaf.event)
        return changed

    def pieces(self, texts: list[str]) -> list[str]:
        """Return texts that are pieces of one text with the secrets of the whole masked, those
        cut across pieces too: each secret becomes *** in the piece where it starts and nothing
        in the pieces it runs on into, so the pieces joined say *** once."""
        if self._text is None:
            return texts
        spans = [(m.start(), m.end()) for m in self._text.finditer("".join(texts))]
        if not spans:
            return texts
        out: list[str] = []
        offset = 0
        for text in texts:
            kept = []
            for index, char in enumerate(text):
                at = offset + index
                span = next((s for s in spans if s[0] <= at < s[1]), None)
                if span is None:
                    kept.append(char)
                elif at == span[0]:
                    kept.append(MASK)
            out.append("".join(kept))
            offset += len(text)
        return out


class _Leaf:
    """One string of one event, where it sits (to be replaced in place)."""

    __slots__ = ("container", "event", "key")

    def __init__(self, event: int, container: Any, key: Any) -> None:
        self.event = event
        self.container = container
        self.key = key


def _events(
    lines: list[bytes],
) -> tuple[dict[int, list[Any]], dict[tuple[Any, ...], list[_Leaf]]]:
    """Return the JSON events of a body split into lines and their ends (`data:` lines of SSE,
    NDJSON's lines of an object), each as [value, what stood before it], by line number; and
    their strings by channel (`_collect`)."""
    events: dict[int, list[Any]] = {}
    channels: dict[tuple[Any, ...], list[_Leaf]] = {}
    for number in range(0, len(lines), 2):
        line = lines[number]
        prefix = b"data: " if line.startswith(b"data:") else b"" if line[:1] == b"{" else None
        if prefix is None:
            continue
        try:
            value = json.loads(line[5:] if prefix else line)
        except ValueError:
            continue
        events[number] = [value, prefix]
        _collect(events[number], 0, (), channels, number)
    return events, channels


def _collect(
    container: Any,
    key: Any,
    path: tuple[Any, ...],
    channels: dict[tuple[Any, ...], list[_Leaf]],
    event: int,
) -> None:
    """Collect every string of one event under its channel: its path, where a list element that
    names its `index` (chat's tool_calls, Anthropic's content blocks) is known by it, not by
    position."""
    value = container[key]
    if isinstance(value, str):
        channels.setdefault(path, []).append(_Leaf(event, container, key))
    elif isinstance(value, dict):
        index = value.get("index")
        here = (*path, ("index", index)) if isinstance(index, int) else path
        for name in list(value):
            _collect(value, name, (*here, name), channels, event)
    elif isinstance(value, list):
        for position, item in enumerate(value):
            named = isinstance(item, dict) and isinstance(item.get("index"), int)
            _collect(value, position, path if named else (*path, position), channels, event)


KEY_HEADERS = frozenset({"authorization", "x-api-key", "api-key", "x-goog-api-key"})
"""Request headers that carry a key: their values are masked wherever an answer echoes them."""


def header_secrets(headers: list[tuple[bytes, bytes]], query_values: list[str]) -> Secrets:
    """Return the client's key (as sent, and without its `Bearer `), and the values of its query
    string (Gemini's `?key=`): what no file may hold."""
    return maskers(secret_values(headers, query_values))


def secret_values(headers: list[tuple[bytes, bytes]], query_values: list[str]) -> tuple[str, ...]:
    """Return `header_secrets`' values, not yet compiled into patterns (cheap: the proxy's event
    loop hands them to the journal, which compiles them)."""
    values = list(query_values)
    for name, value in headers:
        if name.decode("latin-1").lower() in KEY_HEADERS:
            values += credential_forms(value.decode("latin-1"))
    return tuple(values)


@functools.lru_cache(maxsize=64)
def maskers(values: tuple[str, ...]) -> Secrets:
    """Compile the patterns of these values once: one agent sends one key again and again."""
    return Secrets(values)
