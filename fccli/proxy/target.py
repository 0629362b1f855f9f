"""Where `fc proxy --to` forwards: a provider's name or a URL, and the line to give the agent.

A client's request path is put after the target's root path: an OpenAI SDK whose base URL
is `http://127.0.0.1:8787/v1` asks for `/v1/chat/completions`, forwarded to
`https://api.openai.com/v1/chat/completions`. Scheme, host and port are always the root's: the
request gives the path and query only, and a target that is not a plain path (`@host`,
`http://host/…`, `host:port`, `//host`, a backslash, a `..` segment) is refused (`upstream`). The root is the provider's base URL without a
trailing version (`/v1`, `/v1beta`), since the client's path carries it; DeepSeek's Anthropic
format keeps its `/anthropic`. A URL given with `--to` or `--base-url` is read the same way.

Which format a request is in comes from its path (the routes each format declares, wire/routes.py).
Two chat dialects share their paths: the target's own is taken (`--to deepseek`: DeepSeek's,
with reasoning_content); for a URL, the plain dialect (the registry lists it last).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple
from urllib.parse import unquote_to_bytes, urlsplit

from fccli.core.errors import UsageError
from fccli.i18n import Msg
from fccli.providers.profiles import PROFILES, apis_of, profile_for, provider_of_format
from fccli.providers.urls import http_url, shown_url
from fccli.wire.listing import MAKERS
from fccli.wire.routes import SDK_BASE_URLS, names_at

if TYPE_CHECKING:
    import httpx

    from fccli.wire.registry import WireFormat

_VERSION = re.compile(r"/v\d+(?:(?:alpha|beta)\d*)?$")


def root_of(base_url: str) -> str:
    """Drop the version: `https://api.openai.com/v1` -> `https://api.openai.com` (the client's
    path has it)."""
    return _VERSION.sub("", base_url.rstrip("/"))


class Routed(NamedTuple):
    """A request's format as fc proxy's server tells it, from the path alone (wire/routes.py):
    its name; the format's package (its codecs, pydantic) is imported only for what needs it,
    an error answered in its providers' shape or `--strict-check`."""

    name: str

    def error_body(self, status: int, message: str) -> dict[str, Any]:
        """Return an error as the format's providers answer one (WireFormat.error_body)."""
        return self.format().error_body(status, message)

    def format(self) -> WireFormat:
        from fccli.wire.registry import FORMATS

        return FORMATS[self.name]


@dataclass(frozen=True)
class Target:
    """Where `fc proxy` forwards: the provider, and the root of each format it speaks."""

    name: str
    """The provider's name (`--to deepseek`), or the URL's host:port."""
    roots: dict[str, str] = field(default_factory=dict)
    """Per format the target speaks: the root its requests go to (DeepSeek: two)."""
    default_root: str = ""
    """Where other formats and paths it does not know go (models list, embeddings)."""

    def format_at(self, path: str) -> Routed | None:
        """Find the format of a request to `path`; None for a path no format declares."""
        claimants = names_at(path)
        own = [name for name in claimants if name in self.roots]
        if own:
            return Routed(own[0])
        return Routed(claimants[-1]) if claimants else None

    def upstream(
        self, fmt: Routed | WireFormat | None, raw_path: bytes, query: bytes
    ) -> httpx.URL | Msg:
        """Build the URL a request for `raw_path?query` goes to: the root's scheme, host and
        port, its path then the request's; or say why the request target is refused."""
        import httpx  # the proxy's own (the journal's process reads the target, not this)

        refused = refused_path(raw_path)
        if refused is not None:
            return refused
        root = httpx.URL(self.roots.get(fmt.name, self.default_root) if fmt else self.default_root)
        whole = root.raw_path.rstrip(b"/") + raw_path + (b"?" + query if query else b"")
        return root.copy_with(raw_path=whole)

    @property
    def tls(self) -> bool:
        """Whether any request goes to an https:// root."""
        roots = (*self.roots.values(), self.default_root)
        return any(not root.lower().startswith("http://") for root in roots)

    @property
    def shown(self) -> str:
        return shown_url(self.default_root)

    def shown_for(self, fmt: Routed | WireFormat) -> str:
        """Say where requests of `fmt` go, as a trace's manifest does (a password masked)."""
        return shown_url(self.roots.get(fmt.name, self.default_root))

    def agent_lines(self, local: str) -> list[str]:
        """List the environment lines that point the official SDKs of the formats it speaks at
        `local` (the proxy's URL)."""
        names = list(self.roots) or list(MAKERS)
        lines: list[str] = []
        for name in names:
            sdk = SDK_BASE_URLS.get(name)
            if sdk is not None:
                line = f"{sdk[0]}={local}{sdk[1]}"
                if line not in lines:
                    lines.append(line)
        return lines


def refused_path(raw_path: bytes) -> Msg | None:
    """Say why a request target is not a path fc proxy forwards (None: it is one): only the
    origin form (`/…`), without a backslash, `..` or `.` segment, or control character, even
    percent-encoded."""
    decoded = unquote_to_bytes(raw_path)
    if not raw_path.startswith(b"/") or raw_path.startswith(b"//"):
        return Msg("the request target must be a path starting with a single /")
    if b"\\" in decoded or any(b < 0x20 or b == 0x7F for b in decoded):
        return Msg("the request target holds a backslash or a control character")
    if any(segment in (b".", b"..") for segment in decoded.split(b"/")):
        return Msg("the request target holds a . or .. segment")
    return None


def resolve(to: str, base_url: str | None = None) -> Target:
    """Resolve `--to NAME|URL` and `--base-url URL` (where a named provider is, a local server
    of its kind); a bad value is a usage error (exit 2)."""
    if "://" in to:
        if base_url is not None:
            raise UsageError(Msg("--base-url goes with --to NAME; --to URL already says where"))
        root = _checked_url(to, "--to")
        host = urlsplit(root).netloc.rpartition("@")[2]
        return Target(name=host, roots={}, default_root=root)
    if to not in PROFILES and to in MAKERS and provider_of_format(to) in PROFILES:
        # A format spoken through `--api` (`--to ollama-native`): its provider, that format only.
        name = provider_of_format(to)
        api = next(a for a in apis_of(name) if profile_for(name, a).wire_format == to)
        root = root_of(profile_for(name, api).base_url)
        if base_url is not None:
            root = _checked_url(base_url, "--base-url")
        return Target(name=name, roots={to: root}, default_root=root)
    if to not in PROFILES:
        known = ", ".join(PROFILES)
        raise UsageError(
            Msg("unknown --to {value}", value=repr(to)),
            hint=Msg(
                "give a provider ({known}) or a URL, e.g. --to http://127.0.0.1:8000", known=known
            ),
        )
    roots: dict[str, str] = {}
    for api in apis_of(to):
        profile = profile_for(to, api)
        roots.setdefault(profile.wire_format, root_of(profile.base_url))
    own = PROFILES[to].wire_format
    if base_url is not None:
        # A local stand-in for the provider: every format it speaks goes there.
        given = _checked_url(base_url, "--base-url")
        roots = {name: given for name in roots}
    return Target(name=to, roots=roots, default_root=roots[own])


def _checked_url(url: str, option: str) -> str:
    parts = http_url(url, option, option)
    if parts.username is not None or parts.password is not None:
        raise UsageError(
            Msg(
                "{option} {url}: fc proxy sends no credentials of its own, the agent's headers "
                "go as they are: give the URL without user:password@, and the credentials to "
                "the agent",
                option=option,
                url=shown_url(url),
            )
        )
    if parts.query or parts.fragment:
        raise UsageError(
            Msg(
                "{option} {url}: give the root, without ?query or #fragment",
                option=option,
                url=shown_url(url),
            )
        )
    return root_of(url)
