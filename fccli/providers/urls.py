"""URLs as fc writes and prints them: a password in one is never shown, nor a key in its query."""

from __future__ import annotations

from urllib.parse import SplitResult, urlsplit, urlunsplit

from fccli.core.errors import UsageError
from fccli.core.secrets import MASK, PUBLIC_QUERY_NAMES
from fccli.i18n import Msg


def shown_url(url: str) -> str:
    """Return the URL as fc writes and prints it: a password in it (`user:secret@host`) and the
    values of its query string (`?api_key=...`, but for a few known to be public) masked."""

    try:
        parts = urlsplit(url)
        password, port = parts.password, parts.port
    except ValueError:  # not even a URL: keep only what follows a user part, drop a query
        url = url.split("?", 1)[0] + ("?***" if "?" in url else "")
        return "***@" + url.rsplit("@", 1)[1] if "@" in url else url
    if password is not None:
        netloc = f"{parts.username}:{MASK}@{parts.hostname}" + (f":{port}" if port else "")
        parts = parts._replace(netloc=netloc)
    if parts.query:
        fields = []
        for field in parts.query.split("&"):
            name, equals, value = field.partition("=")
            public = name.lower() in PUBLIC_QUERY_NAMES or not value
            fields.append(field if public else f"{name}{equals}{MASK}")
        parts = parts._replace(query="&".join(fields))
    return urlunsplit(parts)


def endpoint(base_url: str, path: str) -> str:
    """Return the base URL with an endpoint's path added to its path, its query string kept after
    it: `http://h/v1?k=1` + `/chat/completions` is `http://h/v1/chat/completions?k=1`."""
    parts = urlsplit(base_url)
    return urlunsplit(parts._replace(path=parts.path.rstrip("/") + path))


def http_url(url: str, label: str, option: str) -> SplitResult:
    """Return `url` read as an http:// or https:// URL with a host, or a usage error that names it
    as `label` (`base URL`, `--to`) and shows `option` with an example."""

    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (reading it validates it)
    except ValueError as e:
        raise UsageError(
            Msg(
                "{label} {url} cannot be read: {error}",
                label=label,
                url=shown_url(url),
                error=str(e),
            )
        ) from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(
            Msg(
                "{label} {url} is not an http:// or https:// URL with a host",
                label=label,
                url=shown_url(url),
            ),
            hint=Msg("e.g. {option} http://127.0.0.1:8000", option=option),
        )
    return parts
