"""The request paths each wire format's providers answer at, and how each format's SDK is
pointed at another server: the formats' own declarations (wire/base.py's `routes` and
`sdk_base_url` take theirs from here), readable without importing any format's package nor
pydantic, so that fc proxy's server tells a request's format from its path alone and holds no
codec (docs/performance.md)."""

from __future__ import annotations

import functools
import re
from typing import Any, NamedTuple
from urllib.parse import unquote


class Route(NamedTuple):
    """A request path a format's providers answer at, for `fc proxy` and `fc serve`: which
    format a request to a local server is in, read from its path alone (a NamedTuple, not a
    dataclass: start-up)."""

    pattern: str
    """The path, `{name}` standing for one path segment (`/v1beta/models/{model}:generateContent`:
    the model's name, up to the next `/`, or `:` where the pattern has one next)."""
    streams: bool | None = None
    """Whether the path itself asks for a stream (Gemini's `:streamGenerateContent`); None: the
    body's `stream` field says."""

    def matches(self, path: str) -> bool:
        return _route_regex(self.pattern).fullmatch(path) is not None

    def captured(self, path: str) -> dict[str, str]:
        """Return what `path` has where the pattern names a segment (`{"model":
        "gemini-2.5-flash"}`), percent-decoded (Bedrock's `anthropic.claude-…-v1%3A0`)."""
        found = _route_regex(self.pattern).fullmatch(path)
        return {k: unquote(v) for k, v in found.groupdict().items()} if found else {}


@functools.lru_cache(maxsize=64)
def _route_regex(pattern: str) -> re.Pattern[str]:
    names = re.findall(r"\{([a-z_]+)\}", pattern)
    parts = re.split(r"\{[a-z_]+\}", pattern)
    regex = re.escape(parts[0])
    for name, part in zip(names, parts[1:], strict=True):
        # A segment ends at the next `/`, or at a `:` where the pattern goes on with one
        # (Gemini's `{model}:generateContent`); elsewhere a `:` is part of it (Bedrock's
        # `anthropic.claude-…-v1:0`, as a server gives the path decoded).
        stop = "/:" if part.startswith(":") else "/"
        regex += f"(?P<{name}>[^{stop}]+)" + re.escape(part)
    return re.compile(regex)


def openai_error_body(status: int, message: str) -> dict[str, Any]:
    """OpenAI's error JSON (platform.openai.com, API reference "Error codes"): `type` is
    `invalid_request_error` for the client's mistakes, `server_error` for the server's."""
    kind = "server_error" if status >= 500 else "invalid_request_error"
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}


CHAT = (
    Route("/v1/chat/completions"),
    Route("/chat/completions"),
    Route("/beta/chat/completions"),
)
ROUTES: dict[str, tuple[Route, ...]] = {
    "deepseek": CHAT,
    "mistral": CHAT,
    "openai": CHAT,
    "anthropic": (Route("/v1/messages"),),
    "responses": (Route("/v1/responses"), Route("/responses")),
    "gemini": tuple(
        Route(f"/{version}/models/{{model}}:{method}", streams=method.startswith("stream"))
        for version in ("v1beta", "v1")
        for method in ("generateContent", "streamGenerateContent")
    ),
    "bedrock": (
        Route("/model/{model}/converse", streams=False),
        Route("/model/{model}/converse-stream", streams=True),
    ),
    "ollama-native": (Route("/api/chat"),),
}
"""Each format's routes, in wire/listing.py's order (the chat dialects share theirs)."""

SDK_BASE_URLS: dict[str, tuple[str, str]] = {
    "deepseek": ("OPENAI_BASE_URL", "/v1"),
    "mistral": ("OPENAI_BASE_URL", "/v1"),
    "openai": ("OPENAI_BASE_URL", "/v1"),
    "anthropic": ("ANTHROPIC_BASE_URL", ""),
    "responses": ("OPENAI_BASE_URL", "/v1"),
    "gemini": ("GOOGLE_GEMINI_BASE_URL", ""),
    "bedrock": ("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", ""),
    "ollama-native": ("OLLAMA_HOST", ""),
}
"""How each format's SDK is pointed elsewhere: (its environment variable, the path to add
to a server's root)."""


def names_at(path: str) -> list[str]:
    """Return the formats whose providers answer at request path `path` (no query string), in
    wire/listing.py's order: the chat dialects share theirs, the plain dialect last."""
    return [name for name, routes in ROUTES.items() if any(r.matches(path) for r in routes)]
